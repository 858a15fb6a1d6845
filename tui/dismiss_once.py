"""A screen is dismissed once (installed as Textual's Screen.dismiss by tui/textual_patches.py).

Textual's dismiss hands the result to the screen's callback, then pops the top screen, whichever that is. A
double click on a list's row (/rewind's, /model's), or on the palette's, sends a selection for each click, and
both are handed to the screen before the first closed it: the second ran the callback again and popped the
screen under it (over the main screen the app ended with ScreenStackError). A screen no longer on the stack has
been dismissed: another dismiss does nothing. A screen still on it but covered is dismissed as Textual does.
"""

from __future__ import annotations

from typing import Any

from textual.await_complete import AwaitComplete
from textual.screen import Screen

_textual_dismiss = Screen.dismiss        # read on import, before the app installs its patches


def dismiss(self: Screen[Any], result: Any = None) -> AwaitComplete:
    if self not in self.app.screen_stack:
        return AwaitComplete()
    return _textual_dismiss(self, result)
