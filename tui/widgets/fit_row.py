"""A one-line row whose middle gives way: at the width it gets, its label (a call's arguments) is cut once with one
"…", so what follows it (a size, a form, a result) stays in view. History's tool rows and the chat trail's title."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.content import Content
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

LABEL_ROOM = 12          # fewer cells for the label than this: the row is cut at its end instead


class FitRow(Text):
    """A row with the span of its label; cut at its end like any Text where the label has too little room (the
    label cut at 80 and the row cut again at the pane read "ever… …")."""

    label_span: tuple[int, int] = (0, 0)

    def visualize(self) -> Visual:
        return _FittedRow(self)


class _FittedRow(Visual):
    def __init__(self, row: FitRow) -> None:
        self.row = row

    def __str__(self) -> str:           # what the row says, as a rendered Content reads (its plain text)
        return self.row.plain

    def fitted(self, width: int) -> Text:
        row, (start, end) = self.row, self.row.label_span
        label = row.plain[start:end]
        room = cell_len(label) - (row.cell_len - width)
        if row.cell_len <= width or room < LABEL_ROOM:
            return row
        return row[:start] + Text(set_cell_size(label, room - 1).rstrip() + "…") + row[end:]

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        return Content.from_rich_text(self.fitted(width)).render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self.row.cell_len

    def get_height(self, rules: RulesMap, width: int) -> int:
        return 1
