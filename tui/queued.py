"""Messages typed while a turn runs (Claude Code and Codex queue them too). When the running turn finishes they
are sent together as the next message, oldest first, a blank line between (as Claude Code does: one model call
and one round for what was typed ahead, not a turn each); when it is interrupted, fails or is cancelled they go
back to the input, never sent behind the user's back. A custom command (`/review a.py`) waits in its place and runs
alone, as typed when idle (its prompt, shell lines and tools): the messages before it go first, together, and those
after it when its turn ends. The app's TurnRunner owns one; the input's border says how many wait."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.cells import cell_len, set_cell_size

if TYPE_CHECKING:      # annotations only: the app's first frame does not wait for the engine's imports
    from contextual.core.custom_commands import CustomCommand

Run = tuple["CustomCommand", str]       # a custom command and its arguments, queued as typed

# A turn that ends this way sends the next queued message; any other end gives them back.
SENDS_NEXT = ("finished", "compacted")
# More waiting than anyone types ahead is a multi-line paste a terminal sent without bracketed paste (each line
# an enter): past this many, lines join the last queued message instead of each becoming a turn of its own.
MAX_QUEUED = 20


@dataclass
class Queued:
    texts: list[str] = field(default_factory=list)
    runs: list[Run | None] = field(default_factory=list)     # beside each text: the custom command it runs, if any

    def __post_init__(self) -> None:
        self.runs = self.runs or [None] * len(self.texts)        # texts given alone are plain messages

    def add(self, text: str, run: Run | None = None) -> None:
        if run is None and len(self.texts) >= MAX_QUEUED and self.runs[-1] is None:
            self.texts[-1] += "\n" + text
        else:
            self.texts.append(text)
            self.runs.append(run)

    def take_newest(self) -> str | None:
        """The newest message, out of the queue (up on an empty input: to edit it)."""
        if not self.texts:
            return None
        self.runs.pop()
        return self.texts.pop()

    def take_all(self) -> str:
        """Every queued message, oldest first, one blank line between, and the queue empty."""
        joined = "\n\n".join(self.texts)
        self.texts.clear()
        self.runs.clear()
        return joined

    def take_next(self) -> tuple[str, Run | None]:
        """What the next turn sends: a custom command alone, else the messages before the next one, together."""
        if self.runs and self.runs[0] is not None:
            return self.texts.pop(0), self.runs.pop(0)
        end = next((i for i, run in enumerate(self.runs) if run is not None), len(self.runs))
        joined = "\n\n".join(self.texts[:end])
        del self.texts[:end], self.runs[:end]
        return joined, None

    def label(self, width: int = 80) -> str:
        """The input's border title: how many wait, the first of them, and how to take one back."""
        n = len(self.texts)
        if not n:
            return ""
        tail = f"{' +' + str(n - 1) if n > 1 else ''} · sent when the turn ends · ↑ edits"
        room = max(8, width - cell_len(tail) - 16)
        first = " ".join(self.texts[0].split())
        # columns, not characters: a CJK character or an emoji takes two
        return f"queued: {first if cell_len(first) <= room else set_cell_size(first, room - 1) + '…'}{tail}"
