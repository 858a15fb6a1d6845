"""Messages typed while a turn runs (Claude Code and Codex queue them too). When the running turn finishes they
are sent together as the next message, oldest first, a blank line between (as Claude Code does: one model call
and one round for what was typed ahead, not a turn each); when it is interrupted, fails or is cancelled they go
back to the input, never sent behind the user's back. The app's TurnRunner owns one; the input's border says how many
wait."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.cells import cell_len, set_cell_size

# A turn that ends this way sends the next queued message; any other end gives them back.
SENDS_NEXT = ("finished", "compacted")
# More waiting than anyone types ahead is a multi-line paste a terminal sent without bracketed paste (each line
# an enter): past this many, lines join the last queued message instead of each becoming a turn of its own.
MAX_QUEUED = 20


@dataclass
class Queued:
    texts: list[str] = field(default_factory=list)

    def add(self, text: str) -> None:
        if len(self.texts) >= MAX_QUEUED:
            self.texts[-1] += "\n" + text
        else:
            self.texts.append(text)

    def take_newest(self) -> str | None:
        """The newest message, out of the queue (up on an empty input: to edit it)."""
        return self.texts.pop() if self.texts else None

    def take_all(self) -> str:
        """Every queued message, oldest first, one blank line between, and the queue empty."""
        joined = "\n\n".join(self.texts)
        self.texts.clear()
        return joined

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
