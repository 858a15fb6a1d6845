"""A widget's content size as the last layout gave it, for its own render.

Textual's `size`, `content_size` and `content_region` look the widget up in the screen's map, and a render asked for
while a layout is under way (a Static measuring its height) builds that map again in full: a whole layout for each
render (a quarter of the app's start, in the welcome's two lines). The size the layout set is the same figure.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget


def laid_out_size(widget: Widget) -> Size:
    outer, gutter = widget.outer_size, widget.styles.gutter
    return Size(max(0, outer.width - gutter.width), max(0, outer.height - gutter.height))
