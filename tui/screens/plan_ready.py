"""A turn run in plan mode ended with its answer, the plan: carry it out, asking before edits or accepting them, or
keep planning (Claude Code asks the same when its plan is ready). Docked at the foot of the screen, over the input,
so the plan above stays readable; pageup/pagedown scroll the chat behind. Dismisses with the mode to carry it out
in ("default", "accept-edits") or None (esc: keep planning, nothing sent)."""

from __future__ import annotations

import time
from typing import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from contextual.tui.css import stylesheet

# The user's message that carries the plan out: recorded as theirs, so the model and a resumed chat read it
APPROVED = "The plan is approved: carry it out."


class PlanReady(ModalScreen[str | None]):
    CSS_PATH = stylesheet(__name__)
    BINDINGS = [Binding("y,1", "answer('default')", "go, ask before edits"),
                Binding("a,2", "answer('accept-edits')", "go, accept edits"),
                Binding("escape,n,3", "answer(None)", "keep planning"),
                Binding("pageup", "page(-1)", show=False), Binding("pagedown", "page(1)", show=False)]

    def __init__(self, page_chat: Callable[[int], object]) -> None:
        super().__init__()
        self.page_chat = page_chat
        self._opened_at = 0.0                   # set on mount: the grace counts from there

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
        self._opened_at = time.monotonic()

    def too_soon(self) -> bool:
        """A key in the first moment was typed for something else (the permission dialog's grace, the same)."""
        from contextual.tui.screens.permission import PermissionModal
        if time.monotonic() - self._opened_at >= PermissionModal.GRACE_S:
            return False
        self.query_one("#plan-box").border_subtitle = "a key typed as this opened was ignored: read, then answer"
        return True

    def action_answer(self, mode: str | None) -> None:
        if mode is None or not self.too_soon():         # keeping on planning changes nothing: never held back
            self.dismiss(mode)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(None if event.button.id == "keep" else event.button.id)

    def action_page(self, direction: int) -> None:
        self.page_chat(direction)
