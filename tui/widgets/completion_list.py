"""The suggestions under the input: `/` commands and `@` project paths (tui/widgets/prompt_input.py fills it)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option


class CompletionList(OptionList):
    """Suggestions under the input; hidden when there is nothing to suggest."""

    def on_mount(self) -> None:
        self.display = False
        self.can_focus = False

    def suggest(self, items: list[tuple[str, str]]) -> None:
        """items: (value inserted, label shown)."""
        self.clear_options()
        if not items:
            self.display = False
            return
        # one line each, ending in an ellipsis: at 80 columns a description wrapped to column 0
        self.add_options([Option(Text(label, no_wrap=True, overflow="ellipsis"), id=value) for value, label in items])
        self.highlighted = 0
        self.display = True

    def move(self, delta: int) -> None:
        if self.option_count:
            self.highlighted = ((self.highlighted or 0) + delta) % self.option_count

    def current(self) -> str | None:
        if self.highlighted is None:
            return None
        return self.get_option_at_index(self.highlighted).id
