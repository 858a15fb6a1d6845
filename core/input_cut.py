"""What a compaction's summary input lost to fit the summary model's window (core/context/summary.py), as a record
the outcome, the event, the session's compactMetadata and the card carry, and in words. Light on purpose (only
`plural`): the app's card and the events load it at launch.

At 4k–8k windows most summaries are made from a cut input: long tool results sent as their head and tail, the
current content of the files the archived rounds touched cut to its first lines or left out. The summary may
miss what the cut held, and the user is told so (the card, /compactions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from contextual.core.plural import plural

LABEL = "summary made from a cut input: "


@dataclass(frozen=True)
class InputCut:
    messages: int = 0           # archived messages (tool results, mostly) sent as their head and tail
    files_cut: int = 0          # files whose current content went in as its first lines only
    files_left_out: int = 0     # files the archived rounds touched whose content did not go in at all

    def __bool__(self) -> bool:
        return bool(self.messages or self.files_cut or self.files_left_out)

    def words(self) -> str:
        """"12 messages, 2 files; 3 files left out": with LABEL, one line of the card at 80 columns."""
        cut = ", ".join(plural(n, noun) for n, noun in ((self.messages, "message"), (self.files_cut, "file")) if n)
        left = f"{plural(self.files_left_out, 'file')} left out" if self.files_left_out else ""
        return "; ".join(x for x in (cut, left) if x)

    def metadata(self) -> dict[str, int]:
        """compactMetadata's `inputCut`, written only when something was cut."""
        return {"messages": self.messages, "filesCut": self.files_cut, "filesLeftOut": self.files_left_out}

    @classmethod
    def of(cls, meta: Any) -> InputCut:
        """From compactMetadata's `inputCut`; none (a session written before it, a malformed value) is no cut."""
        if not isinstance(meta, dict):
            return cls()
        counts = [meta.get(key) for key in ("messages", "filesCut", "filesLeftOut")]
        return cls(*(n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 0 for n in counts))
