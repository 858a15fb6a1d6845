"""What the chat shows of a `!command`, live (tui/slash/files.py) and in a resumed chat (widgets/resumed_turns.py)
alike: both read the result as the model read it whole (core/context/observation.render_full), so a resumed chat
shows what the live one showed."""

from __future__ import annotations

from typing import NamedTuple

from contextual.core.context.observation import split_header
from contextual.tui.screen_safe import screen_text

SHELL_LINES = 200          # the tail of a `!command`'s output the chat shows
JOINS = "its output joins your next message (as a Bash result would)"


class ShellShown(NamedTuple):
    command: str
    output: str               # its last SHELL_LINES lines, "" when it printed nothing
    status: str               # "" when it ended well, else what the header says ("exit 3", "timed out", the error)


def ran_line(command: str) -> str:
    return f"$ {command}"


def shell_shown(command: str, observation: str) -> ShellShown:
    head, text = split_header(observation)
    status = "; ".join(part for part in head[1:-1].split("; ") if part and part not in ("exit 0", "ok"))
    lines = text.strip("\n").splitlines()
    if len(lines) > SHELL_LINES:
        lines = ["…"] + lines[-SHELL_LINES:]
    return ShellShown(screen_text(command), screen_text("\n".join(lines)), screen_text(status))
