"""A DataTable's free-text columns cut to the screen. A DataTable gives each column its widest cell and scrolls
sideways past the border: at 80 columns /compactions' files and /diff's tokens were cut mid-word, unmarked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from contextual.tui.format import one_line
from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

NARROWEST = 8          # a free column is never cut below this, nor below its heading (shown whole)


def fit_columns(table: DataTable[object], texts: Mapping[str, Sequence[str]]) -> None:
    """The columns keyed in `texts` share the width the other columns leave; each row's text (whole, in the order
    the rows were added) is cut to its column with an ellipsis. Call it once the table is laid out, and again on
    a resize: the whole texts are cut afresh, so a wider screen shows more."""
    if not table.size.width or not table.row_count:
        return                       # not laid out yet: its Resize comes
    free = {ColumnKey(name): whole for name, whole in texts.items()}
    fixed = sum(column.get_render_width(table) for key, column in table.columns.items() if key not in free)
    room = table.scrollable_content_region.width - fixed - 2 * table.cell_padding * len(free)
    heads = {key: len(table.columns[key].label) for key in free}
    needs = {key: max([heads[key], *(len(" ".join(t.split())) for t in whole)]) for key, whole in free.items()}
    for left, key in enumerate(sorted(free, key=needs.__getitem__)):     # the narrowest first: it may need less
        width = max(NARROWEST, heads[key], min(needs[key], room // (len(free) - left)))
        room -= width
        cut = dict(zip(table.rows, (one_line(text, width) for text in free[key])))
        # The column is measured again once, at its widest cell, set last: measured at a narrower one, it reads
        # every cell of the column (once per row); before the last, it reads cells not yet cut.
        widest = max(cut, key=lambda row: len(cut[row]))
        for row in [*(row for row in cut if row != widest), widest]:
            table.update_cell(row, key, Text(cut[row]), update_width=row == widest)
