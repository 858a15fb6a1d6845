"""One pane of the stored-vs-full view: rows rendered line by line, its scroll mirrored to a partner pane."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.observation import Row

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

    def __init__(self, rows: list[Row], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.can_focus = True
        self.rows = rows
        self.partner: AlignedPane | None = None
        self._width = len(str(max(1, len(rows))))
        self._mirroring = False
        self._rendered: dict[int, Text] = {}

    def on_mount(self) -> None:
        widest = max((len(r.text) for r in self.rows), default=0)
        self.virtual_size = Size(widest + self._width + 2, len(self.rows))

    def _row_text(self, index: int) -> Text:
        cached = self._rendered.get(index)
        if cached is None:
            row = self.rows[index]
            cached = Text(no_wrap=True)
            cached.append(f"{index + 1:>{self._width}} ", style="dim")
            cached.append(row.text.expandtabs(4), style=ROW_STYLE[row.kind])
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
