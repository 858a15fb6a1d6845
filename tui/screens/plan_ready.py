"""A turn run in plan mode ended with its answer, the plan: carry it out, asking before edits or accepting them, or
keep planning (Claude Code asks the same when its plan is ready). Docked at the foot of the screen, over the input,
so the plan above stays readable; pageup/pagedown scroll the chat behind. Dismisses with the mode to carry it out
in ("default", "accept-edits") or None (esc: keep planning, nothing sent).

A letter that answers nothing is not kept as a draft: `y`, `a`, `n` answer, so words typed here would answer it
halfway (`add tests` accepts edits). It is said instead (esc, then type), and the answer keys are held back for a
moment after it, as after the dialog opens."""

from __future__ import annotations

from typing import Callable

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from contextual.tui.css import stylesheet

# The user's message that carries the plan out: recorded as theirs, so the model and a resumed chat read it
APPROVED = "The plan is approved: carry it out."


def _grace() -> tuple[float, float]:
    """The permission dialog's clock and grace, the same here (imported late: it pulls the shell parser in)."""
    from contextual.tui.screens.permission import PermissionModal
    return PermissionModal.clock(), PermissionModal.GRACE_S


class PlanReady(ModalScreen[str | None]):
    CSS_PATH = stylesheet(__name__)
    BINDINGS = [Binding("y,1", "answer('default')", "go, ask before edits"),
                Binding("a,2", "answer('accept-edits')", "go, accept edits"),
                Binding("escape,n,3", "answer(None)", "keep planning"),
                Binding("pageup", "page(-1)", show=False), Binding("pagedown", "page(1)", show=False)]

    def __init__(self, page_chat: Callable[[int], object], input_rows: Callable[[], int]) -> None:
        super().__init__()
        self.page_chat = page_chat
        self.input_rows = input_rows            # the rows the input and the meter take on the screen beneath
        self._opened_at = 0.0                   # set on mount, and at a letter that answers nothing

    def compose(self) -> ComposeResult:
        with Vertical(id="plan-box"):
            yield Static(Text.assemble(("Carry out this plan? ", "bold"),
                                       (f"Plan mode ends and \"{APPROVED}\" is sent as your message.", "dim")),
                         id="plan-what")
            with Horizontal(id="plan-buttons"):
                yield Button(Text("go, ask before edits [y]"), id="default", variant="primary", compact=True)
                yield Button(Text("go, accept edits [a]"), id="accept-edits", compact=True)
                yield Button(Text("keep planning [esc]"), id="keep", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#plan-box").border_title = "Plan ready"        # its keys: the footer
        self.query_one("#default", Button).focus()
        self._opened_at = _grace()[0]
        self._cover_input()

    def on_resize(self) -> None:
        self.call_after_refresh(self._cover_input)      # once the screen beneath is laid out at the new size

    def _cover_input(self) -> None:
        # The box takes the input's place, all of it: at 200x50 it was a row lower than the input and the meter
        # and the input's top border stood above it.
        self.query_one("#plan-box").styles.min_height = self.input_rows()

    def too_soon(self) -> bool:
        """A key in the first moment, or just after a letter that answers nothing, was typed for something else
        (the permission dialog's grace, the same)."""
        now, grace_s = _grace()
        if now - self._opened_at >= grace_s:
            return False
        box = self.query_one("#plan-box")
        if not box.border_subtitle:
            box.border_subtitle = "a key typed as this opened was ignored: read, then answer"
        return True

    def on_key(self, event: events.Key) -> None:
        """A letter bound to nothing here is said, not lost silently."""
        if not (event.is_printable and event.character) or event.key in self.active_bindings:
            return
        event.stop()
        self._opened_at = _grace()[0]                   # typing words: its next letters are held back too
        self.query_one("#plan-box").border_subtitle = Text(
            f"{event.character!r} answers nothing here · to change the plan: esc, then type")

    def action_answer(self, mode: str | None) -> None:
        if mode is None or not self.too_soon():         # keeping on planning changes nothing: never held back
            self.dismiss(mode)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(None if event.button.id == "keep" else event.button.id)

    def action_page(self, direction: int) -> None:
        self.page_chat(direction)
