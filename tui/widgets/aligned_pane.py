"""One pane of the stored-vs-full view: rows rendered line by line, its scroll mirrored to a partner pane."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from contextual.tui.observation import Row, gutter_width, numbered_line

ROW_STYLE = {
    "same": "",
    "dropped": "on #4a2020",
    "added": "on #203a4a",
    "gap": "#d7af5f on #2a2a1a",
}
ROW_BACKGROUND = {kind: Style.parse(style[style.index("on "):]) if "on " in style else Style()
                  for kind, style in ROW_STYLE.items()}


class AlignedPane(ScrollView):
    DEFAULT_CSS = """
    AlignedPane { border: round $primary-darken-1; }
    AlignedPane:focus { border: round $accent; }
    """

    def __init__(self, rows: list[Row], *, gutter: int | None = None, id: str | None = None) -> None:
        """``gutter``: the number column's width; partner panes pass the same one so their columns line up."""
        super().__init__(id=id)
        self.can_focus = True
        self.rows = rows
        # Each row's number is its line's in this pane's own text ("full · 12 lines" numbers 1–12): the gap rows
        # that line it up with its partner have none and count for none (its lines were numbered up to 15)
        self.line_numbers: list[int] = []
        for row in rows:
            self.line_numbers.append((self.line_numbers[-1] if self.line_numbers else 0) + (row.kind != "gap"))
        self.partner: AlignedPane | None = None
        self._width = gutter or gutter_width((r.text for r in rows), rows=len(rows))
        self._mirroring = False
        self._rendered: dict[int, Text] = {}

    @property
    def content_width(self) -> int:
        return max((len(r.text.expandtabs(4)) for r in self.rows), default=0) + self._width + 2

    def on_mount(self) -> None:
        # As wide as the partner too: both panes then show (or hide) a horizontal scrollbar, so the same
        # number of rows stays visible in each.
        widest = max(self.content_width, self.partner.content_width if self.partner else 0)
        self.virtual_size = Size(widest, len(self.rows))

    def _row_text(self, index: int) -> Text:
        cached = self._rendered.get(index)
        if cached is None:
            row = self.rows[index]
            if row.kind == "gap":       # a gap row has no line of its own: no number
                cached = Text(" " * (self._width + 1), no_wrap=True)
                cached.append(row.text, style=ROW_STYLE[row.kind])
            else:
                cached = numbered_line(row.text, self.line_numbers[index], self._width, ROW_STYLE[row.kind])
            self._rendered[index] = cached
        return cached

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = y + scroll_y
        width = self.scrollable_content_region.width
        if index >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        segments = list(self._row_text(index).render(self.app.console))
        strip = Strip(segments).crop(scroll_x, scroll_x + width)
        return strip.extend_cell_length(width, ROW_BACKGROUND[self.rows[index].kind])

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._mirror()

    def watch_scroll_x(self, old: float, new: float) -> None:
        super().watch_scroll_x(old, new)
        self._mirror()

    def _mirror(self) -> None:
        partner = self.partner
        if partner is None or self._mirroring:
            return
        if partner.scroll_y == self.scroll_y and partner.scroll_x == self.scroll_x:
            return
        partner._mirroring = True
        try:
            partner.scroll_to(self.scroll_x, self.scroll_y, animate=False, immediate=True)
        finally:
            partner._mirroring = False
