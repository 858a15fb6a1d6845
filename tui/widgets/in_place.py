"""A text widget updated in place: a layout of the whole screen only where its new text changes its height.

Textual's `Static.update` asks for a layout by default, and a layout arranges every widget of the screen (at a full
chat about 600, tens of milliseconds). A scratchpad step's row was updated at every streamed fragment of its
thought and every spinner tick, a trail's title and its (collapsed) rows at each call's start and end, each a
layout though the row kept its height almost every time. For widgets whose width does not follow their text.
"""

from __future__ import annotations

from textual.visual import VisualType
from textual.widget import Widget
from textual.widgets import Static


def resized(widget: Widget) -> bool:
    """Whether the widget's content, changed since it was laid out, needs another height. Not laid out yet or not
    shown (no width): the layout that places it, or shows it again, measures it then."""
    size = widget.size
    return bool(size.width) and widget.get_content_height(size, size, size.width) != size.height


def update_in_place(widget: Static, content: VisualType) -> None:
    widget.update(content, layout=False)
    if resized(widget):
        widget.refresh(layout=True)
