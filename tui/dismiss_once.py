"""A screen is dismissed once, and closes itself (installed as Textual's Screen.dismiss by tui/textual_patches.py).

Textual's dismiss hands the result to the screen's callback, then pops the top screen, whichever that is. A
double click on a list's row (/rewind's, /model's), or on the palette's, sends a selection for each click, and
both are handed to the screen before the first closed it: the second ran the callback again and popped the
screen under it (over the main screen the app ended with ScreenStackError). A screen no longer on the stack has
been dismissed: another dismiss does nothing.

A screen covered by another one (its choice read after a key typed with it opened a screen over it: enter, then
ctrl+p, on /resume's list) gave its result and popped the screen over it instead of itself; left open with its
result given, its next close ended the app (InvalidStateError). It closes once it is on top again.
"""

from __future__ import annotations

from typing import Any

from textual.await_complete import AwaitComplete
from textual.screen import Screen

_textual_dismiss = Screen.dismiss        # read on import, before the app installs its patches


def dismiss(self: Screen[Any], result: Any = None) -> AwaitComplete:
    app = self.app
    if self not in app.screen_stack:
        return AwaitComplete()
    if self is not app.screen:
        def on_top(screen: Screen[Any]) -> None:
            if screen is self:
                app.screen_change_signal.unsubscribe(self)
                dismiss(self, result)
        app.screen_change_signal.subscribe(self, on_top)
        return AwaitComplete()
    return _textual_dismiss(self, result)
