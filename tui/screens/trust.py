"""The one question a project's committed config asks before it can run a command or widen a permission
(core/trust.py): what each piece would run or allow, as read from the files; dismisses True (approve) or False.

It opens as the app starts, and words typed ahead of the first frame (`contextual`, enter, `can you…`) answered it:
the `a` of `can` approved the project's servers and hooks unread. A key read before the question was on screen, or in
its first moment (the permission dialog's grace), is ignored, and the box says so."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from contextual.core.trust import Item
from contextual.tui.css import stylesheet
from contextual.tui.screen_safe import screen_text
from contextual.tui.screens.confirm import Answers, answer_bindings, fit_question, question_box, scroll_question
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.screen import ModalScreen

if TYPE_CHECKING:
    from contextual.core.agent import Engine
    from contextual.tui.host import Host

SHOWN_LINES = 40        # per piece: a .mcp.json with a thousand servers still fits on one screen
LINE_CHARS = 240        # of one line shown: its head and its tail, what is between counted
_BLANKS = re.compile(r" {4,}|[\t\n\r\f\v]")


def _blank(run: re.Match[str]) -> str:
    text = run.group()
    return {"\n": " ⏎ ", "\t": " ⇥ "}.get(text, f" ⟨{len(text)} spaces⟩ " if text[0] == " " else " ⟨blank⟩ ")


def one_line(line: str) -> str:
    """A line of what would run or be allowed, nothing of it out of sight: blanks that would push the rest past the
    box's edge (`sh -c '<300 spaces>; curl … | sh'`) and line ends are shown as marks, and a line past LINE_CHARS
    keeps its head and its tail (where such a payload would be) with the count of what is between."""
    line = _BLANKS.sub(_blank, line)
    if len(line) <= LINE_CHARS:
        return line
    head, tail = LINE_CHARS * 2 // 3, LINE_CHARS // 3
    return f"{line[:head]} ⟨{len(line) - head - tail:,} characters not shown⟩ {line[-tail:]}"


def describe(items: list[Item], project: Path) -> Text:
    # What a checkout's files say, shown before anything of it is approved: an escape sequence in a server's name
    # or command set the window's title and could hide what would run (SGR 8 conceals the text after it)
    text = Text()
    text.append(f"{screen_text(str(project))}\n", "bold")
    text.append("This project's own files ask for the following. Nothing of it is used until you approve; "
                "deny rules apply either way.\n")
    for item in items:
        text.append(f"\n{screen_text(item.what)}\n", "bold")
        for line in item.details[:SHOWN_LINES]:
            text.append(f"  • {one_line(screen_text(line))}\n")
        if len(item.details) > SHOWN_LINES:
            text.append(f"  … and {len(item.details) - SHOWN_LINES:,} more, not shown here: read the file before "
                        "approving\n")
    text.append("\nApproving is remembered for these exact files; a change to them asks again.")
    return text


class TrustModal(ModalScreen[bool]):
    CSS_PATH = stylesheet(__name__)
    BINDINGS = answer_bindings("a", "approve", "not now")

    def __init__(self, items: list[Item], project: Path) -> None:
        super().__init__()
        self.items, self.project = items, project
        self._opened_at: float | None = None        # on Textual's clock, as a key's time: when it was read

    def on_mount(self, event: events.Mount) -> None:
        self._opened_at = event.time

    def on_key(self, event: events.Key) -> None:
        from contextual.tui.screens.permission import PermissionModal      # late: it pulls the shell parser in
        if self._opened_at is not None and event.time - self._opened_at >= PermissionModal.GRACE_S:
            return
        event.stop()            # before the app's bindings and the focused button's own enter
        event.prevent_default()
        self.query_one("#trust-box").border_subtitle = "a key typed as this opened was ignored: read, then answer"

    def compose(self) -> ComposeResult:
        answers = Answers(Text("Not now [n]"), Text("Approve [a]"), id="trust-buttons", compact=True)
        yield from question_box("trust", "Trust this project's config?", describe(self.items, self.project), answers)

    def on_resize(self) -> None:
        fit_question(self, "trust", 5)

    def action_scroll_question(self, lines: int) -> None:
        scroll_question(self, "trust", lines)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(bool(yes))


def answered(host: Host, engine: Engine, items: list[Item], yes: bool) -> list[tuple[str, str]]:
    """What the answer does (approve and remember, or leave out until the next launch), as the notices to show."""
    if yes:
        problem = host.approve_trust(engine, items)
        said = [("approved this project's config: " + "; ".join(i.what for i in items), "info")]
        return said + ([(problem, "warning")] if problem else [])
    host.forget_skipped(engine, items)      # said here, not again at the first turn
    return [(f"not approved, so not used: {item.what} (asked again at the next launch)", "warning") for item in items]
