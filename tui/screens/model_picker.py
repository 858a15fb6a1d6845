"""/model: the models the server lists (its /v1/models), the current one marked, each with the window the listing
states for it (vLLM's max_model_len, OpenRouter's context_length, llama.cpp's n_ctx); enter switches.
Dismisses with the chosen name, or None."""

from __future__ import annotations

from typing import TYPE_CHECKING

from contextual.core.config import Config
from contextual.tui.css import stylesheet
from contextual.tui.format import tokens
from contextual.tui.row_keys import after_moves
from contextual.tui.screen_safe import screen_text
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from contextual.core.providers.base import ListedModel

NAME_COLUMN = 48        # a longer name pushes its own window along rather than every row's


class ModelPicker(ModalScreen[str | None]):
    CSS_PATH = stylesheet(__name__)
    # priority: the list's own enter (its select, not shown) hid this one from the footer
    BINDINGS = [Binding("enter", "switch", "switch for the next turns", priority=True),
                Binding("escape", "dismiss(None)", "close")]

    def __init__(self, config: Config, models: list[ListedModel], problem: str = "") -> None:
        super().__init__()
        self.config, self.problem = config, problem
        self.names = [model.id for model in models]
        self.windows = {model.id: model.window for model in models}

    def row(self, name: str, width: int) -> Text:
        """`● name    32.8k window`: the window where the listing states one."""
        mark = "● " if name == self.config.model else "  "
        window = self.windows.get(name)
        shown = screen_text(name)
        if window is None:
            return Text(mark + shown)
        return Text.assemble(mark + shown.ljust(width), ("  " + f"{tokens(window)} window", "dim"))

    def compose(self) -> ComposeResult:
        c = self.config
        with Vertical(id="model-box"):
            # names as the config or the server's listing give them, terminal escapes removed
            yield Static(Text.assemble(("model     ", "dim"), (screen_text(c.model or "(none)"), "bold"),
                                       ("\nendpoint  ", "dim"), screen_text(c.base_url or "(none)"),
                                       ("\nwindow    ", "dim"), f"{c.context_window:,} tokens",
                                       ("\nsummaries ", "dim"), screen_text(c.effective_summary_model or "(none)")),
                         id="model-facts")
            if self.problem:
                yield Static(Text(self.problem, style="#d7875f"), id="model-problem")
            width = min(NAME_COLUMN, max((len(screen_text(n)) for n in self.names), default=0))
            yield OptionList(*[Option(self.row(n, width), id=n) for n in self.names], id="models")
        yield Footer()

    def on_mount(self) -> None:
        # no list (the server has none to give): nothing to pick, so the title says how to switch (the footer
        # offers no enter then); its keys are the footer's
        self.query_one("#model-box").border_title = "Model" if self.names else "Model · /model NAME switches"
        models = self.query_one(OptionList)
        models.display = bool(self.names)
        if self.names:
            models.highlighted = self.names.index(self.config.model) if self.config.model in self.names else 0
            models.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return bool(self.names) if action == "switch" else True

    def action_switch(self) -> None:
        models = self.query_one(OptionList)
        after_moves(models, models.action_select)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)
