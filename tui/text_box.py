"""A dialog's text box opened by a key (the permission note after `t`, /resume's title after ctrl+t, /permissions'
new rule after `a`; the compaction summary after tab is one already shown): the keys typed with that key, in one
burst (a fast typist, tmux send-keys, a paste, keys piled up while the app was busy), are the box's, in order.

Textual reads a plain binding once its key has gone to the focused widget and bubbled back up to the app; by then
the app has handed the keys behind it to that widget (a button, a table), where they were lost or read as the
dialog's own keys (a `y` after `t` was no text; after ctrl+t the title's letters filtered the list). So the key
that opens a box is a priority binding, read as the app takes it, and the box takes the focus at once: focus()
waits for the app's queue, behind the rest of the burst. Closing hands the focus back at once too.
"""

from __future__ import annotations

from typing import Any, Callable

from textual.screen import Screen
from textual.widget import Widget


def composed(screen: Screen[Any], action: Callable[..., object], *args: object) -> bool:
    """Whether the dialog's widgets are there for a priority key's action. A key read as the dialog opens comes
    before them (its query ended the app): the action then runs in the dialog's own turn, after its mount, where a
    plain binding's ran."""
    if screen.is_mounted:
        return True
    screen.call_later(action, *args)
    return False


def show_box(box: Widget) -> None:
    box.display = True
    box.screen.set_focus(box)


def hide_box(box: Widget, back_to: Widget) -> None:
    box.display = False
    box.screen.set_focus(back_to)
