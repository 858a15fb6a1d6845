"""A yes/no question before something that changes files or history; dismisses True (yes) or False (no, esc).
The one confirmation screen: /undo's question, and its list of hand-edited files to overwrite, use it too; its
parts (`answer_bindings`, `question_box`, `Answers`) are the trust question's too (tui/screens/trust.py)."""

from __future__ import annotations

from typing import Any

from contextual.tui.css import stylesheet
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button

from contextual.tui.widgets.hanging_text import HangingStatic


def answer_bindings(yes_key: str, yes: str, no: str) -> list[BindingType]:
    """`yes_key` answers yes; n and esc answer no (the screen's `action_answer`); the arrows and page keys scroll
    a question longer than the screen (the screen's `action_scroll_question`)."""
    return [Binding(yes_key, "answer(True)", yes), Binding("n,escape", "answer(False)", no),
            Binding("down", "scroll_question(1)", show=False), Binding("up", "scroll_question(-1)", show=False),
            Binding("pagedown", "scroll_question(10)", show=False),
            Binding("pageup", "scroll_question(-10)", show=False)]


def fit_question(screen: Screen[Any], prefix: str, frame: int) -> None:
    """The question scrolls within the screen (at 40x12 the trust list was cut off with no way to read it): at
    most the box's nine tenths of the height less its `frame` (border, buttons, margins)."""
    screen.query_one(f"#{prefix}-body").styles.max_height = max(2, screen.size.height * 9 // 10 - frame)


def scroll_question(screen: Screen[Any], prefix: str, lines: int) -> None:
    screen.query_one(f"#{prefix}-body", VerticalScroll).scroll_relative(y=lines, animate=False, immediate=True)


class Answers(Horizontal):
    """The no and yes buttons, each with its key; no, the safe answer, has the focus; a press answers the screen."""

    def __init__(self, no: str | Text, yes: str | Text, *, id: str, compact: bool = False) -> None:
        super().__init__(id=id)
        # plain text, never markup: a label's "[n]" is its key, which markup would read as a tag and drop
        self.labels = tuple(Text(label) if isinstance(label, str) else label for label in (no, yes))
        self.compact = compact

    def compose(self) -> ComposeResult:
        no, yes = self.labels
        yield Button(no, id="no", variant="primary", compact=self.compact)
        yield Button(yes, id="yes", variant="error", compact=self.compact)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.screen.dismiss(event.button.id == "yes")


def question_box(prefix: str, title: str, question: Text, answers: Answers) -> ComposeResult:
    """A titled box: the question scrolls when long (a list of files), the answers stay below it. Ids are
    `{prefix}-box`, `-body`, `-question` for the screen's stylesheet."""
    box = Vertical(id=f"{prefix}-box")
    box.border_title = title
    with box:
        with VerticalScroll(id=f"{prefix}-body"):
            # a bullet that wraps (a long hook command, a file's path) goes on under its text, not the bullet
            yield HangingStatic(question, id=f"{prefix}-question")
        yield answers


class ConfirmModal(ModalScreen[bool]):
    CSS_PATH = stylesheet(__name__)
    BINDINGS = answer_bindings("y", "yes", "no")

    def __init__(self, title: str, question: str | Text, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self.title_text, self.yes, self.no = title, yes, no
        self.question = Text(question) if isinstance(question, str) else question

    def compose(self) -> ComposeResult:
        yield from question_box("confirm", self.title_text, self.question,
                                Answers(f"{self.no} [n]", f"{self.yes} [y]", id="confirm-buttons"))

    def on_resize(self) -> None:
        fit_question(self, "confirm", 7)

    def action_scroll_question(self, lines: int) -> None:
        scroll_question(self, "confirm", lines)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(bool(yes))
