"""A manual /compact with fewer rounds than automatic compaction keeps: offer to archive all but the last N
(the user's N), saying what it will do. Dismisses with N, or None."""

from __future__ import annotations

from contextual.tui.css import stylesheet
from contextual.core.plural import plural
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Static


class CompactChoice(ModalScreen[int | None]):
    CSS_PATH = stylesheet(__name__)
    BINDINGS = [Binding("escape", "dismiss(None)", "cancel")]

    def __init__(self, rounds: int, configured_keep: int) -> None:
        super().__init__()
        self.rounds, self.configured_keep = rounds, configured_keep

    def compose(self) -> ComposeResult:
        with Vertical(id="choice-box"):
            yield Static(Text.assemble(
                (f"{plural(self.rounds, 'round')} in history. ", "bold"),
                f"Automatic compaction keeps the last {plural(self.configured_keep, 'round')} word for word, so it "
                "would archive nothing yet. You can archive all but the last N rounds now: they are replaced by a "
                "summary; the last N stay as they are."), id="choice-what")
            yield Input(value="1", id="choice-keep", type="integer", placeholder="rounds to keep")
            yield Static(id="choice-plan")
            with Horizontal(id="choice-buttons"):
                yield Button(Text("Compact"), id="go", variant="primary")
                yield Button(Text("Cancel"), id="cancel")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#choice-box").border_title = "Compact now?"
        self._plan()
        self.query_one(Input).focus()

    @property
    def keep(self) -> int | None:
        value = self.query_one(Input).value.strip()
        return int(value) if value.isdigit() and 0 < int(value) < self.rounds else None

    def _plan(self) -> None:
        keep, most = self.keep, self.rounds - 1
        if keep is not None:
            kept = "the last round" if keep == 1 else f"the last {keep} rounds"
            plan = Text(f"Will archive {plural(self.rounds - keep, 'round')} and keep {kept}.", style="bold")
        elif most == 1:        # one choice: a range "between 1 and 1" read as a slip
            plan = Text("1 is the only choice here: keep the last round and archive the one before it.",
                        style="bold #d75f5f")
        else:
            plan = Text(f"Keep between 1 and {most} rounds.", style="bold #d75f5f")
        self.query_one("#choice-plan", Static).update(plan)

    def on_input_changed(self, _event: Input.Changed) -> None:
        self._plan()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.keep is not None:
            self.dismiss(self.keep)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "go" and self.keep is not None:
            self.dismiss(self.keep)
        elif event.button.id == "cancel":
            self.dismiss(None)
