"""A dialog's text box opened by a key (the permission note after `t`, /resume's title after ctrl+t, /permissions'
new rule after `a`; the compaction summary after tab is one already shown, focused the same way): the keys typed
with that key, in one burst (a fast typist, tmux send-keys, a paste, keys piled up while the app was busy), are the
box's, in order, and those typed after the enter or esc that closes it are the dialog's.

Opening: Textual reads a plain binding once its key has gone to the focused widget and bubbled back up to the app;
by then the app has handed the keys behind it to that widget (a button, a table), where they were lost or read as
the dialog's own keys (a `y` after `t` was no text; after ctrl+t the title's letters filtered the list). So the key
that opens a box is a priority binding, read as the app takes it, and the box takes the focus at once: focus()
waits for the app's queue, behind the rest of the burst. A key read as its dialog opens, before the box is there,
waits for the dialog with the keys behind it (tui/opening_keys.py).

Closing: an Input's enter is such a binding too, and its esc the dialog's: the letters typed after the enter that
saved /resume's title went into the hidden box instead of filtering the list, and a q after /permissions' rule
did not close the screen. So the box reads enter and esc as it takes them, its dialog closes it then (or keeps it:
a rule that does not parse stays to correct), and a key or paste it takes once closed goes on up untyped, the
dialog's: the screen reads it (a letter filters /resume's list), then the app the binding of what has the focus.
Read where it was typed, esc keeps its place after an enter typed before it (as a priority key it would not).
"""

from __future__ import annotations

from typing import Callable

from textual import events
from textual.widget import Widget
from textual.widgets import Input


class TextBox(Input):
    def __init__(self, placeholder: str, id: str, entered: Callable[[str], object],
                 escaped: Callable[[], object]) -> None:
        super().__init__(placeholder=placeholder, id=id)
        self.entered = entered          # the dialog's, given the text: it closes the box, or keeps it to correct
        self.escaped = escaped

    def open(self) -> None:
        self.display = True
        self.screen.set_focus(self)

    def close(self, back_to: Widget) -> None:
        self.display = False
        self.screen.set_focus(back_to)

    def closed(self) -> bool:
        """Closed by a key before the one being read (or its dialog gone): that one is not the box's."""
        return not self.display or self.screen.focused is not self or self.screen is not self.app.screen

    async def _on_key(self, event: events.Key) -> None:
        # Textual calls Input's own handler after this one (it walks the classes) unless the default is prevented
        if self.closed():
            event.prevent_default()
            return
        if event.key in ("enter", "escape"):
            event.stop()
            event.prevent_default()
            if event.key == "enter":
                self.entered(self.value)
            else:
                self.escaped()

    def _on_paste(self, event: events.Paste) -> None:
        if self.closed():
            event.prevent_default()
