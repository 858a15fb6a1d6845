"""The one question a project's committed config asks before it can run a command or widen a permission
(core/trust.py): what each piece would run or allow, as read from the files; dismisses True (approve) or False."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from contextual.core.trust import Item
from contextual.tui.css import stylesheet
from contextual.tui.screen_safe import screen_text
from contextual.tui.screens.confirm import Answers, answer_bindings, fit_question, question_box, scroll_question
from rich.text import Text
from textual.app import ComposeResult
from textual.screen import ModalScreen

if TYPE_CHECKING:
    from contextual.core.agent import Engine
    from contextual.tui.host import Host

SHOWN_LINES = 40        # per piece: a .mcp.json with a thousand servers still fits on one screen
LINE_CHARS = 240


def describe(items: list[Item], project: Path) -> Text:
    # What a checkout's files say, shown before anything of it is approved: an escape sequence in a server's name
    # or command set the window's title and could hide what would run (SGR 8 conceals the text after it)
    text = Text()
    text.append(f"{screen_text(str(project))}\n", "bold")
    text.append("This project's own files ask for the following. Nothing of it is used until you approve; "
                "deny rules apply either way.\n")
    for item in items:
        text.append(f"\n{screen_text(item.what)}\n", "bold")
        for line in map(screen_text, item.details[:SHOWN_LINES]):
            text.append(f"  • {line[:LINE_CHARS]}{'…' if len(line) > LINE_CHARS else ''}\n")
        if len(item.details) > SHOWN_LINES:
            text.append(f"  … and {len(item.details) - SHOWN_LINES} more\n")
    text.append("\nApproving is remembered for these exact files; a change to them asks again.")
    return text


class TrustModal(ModalScreen[bool]):
    CSS_PATH = stylesheet(__name__)
    BINDINGS = answer_bindings("a", "approve", "not now")

    def __init__(self, items: list[Item], project: Path) -> None:
        super().__init__()
        self.items, self.project = items, project

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
