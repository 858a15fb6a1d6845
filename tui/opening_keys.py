"""Keys read while the screen on top is still opening wait for it, and are read once it is there, in the order typed.

A priority binding is read as the app takes the key, before the screen it belongs to has its widgets: a key typed
in the burst that opened a dialog (a fast typist, tmux send-keys, keys piled up while the app was busy), or just
after the app pushed one (a summary ready for review), ran an action whose query ended the app (the preview's
ctrl+s, a list's enter, the diff's arrows; an esc dismissed a preview whose mount then found nothing).

So while the screen on top has not mounted, every key and paste the app takes is held (a plain key too: it keeps
its place behind a held priority key), and so is one coming back up to the app from a widget meanwhile (its binding
is read on the screen on top, whose widgets are not there yet). A callback in the screen's own queue, which it reads
after its mount, hands them back to the app, which reads them as if typed then. One taken while others wait waits
behind them; one that opens another screen holds those behind it for that one (the preview's ctrl+l, then the
ledger's enter). Owned by the app (``ContextualApp.opening_keys``): the one place such keys wait, for every screen,
Textual's palette included.
"""

from __future__ import annotations

from collections import deque
from typing import Awaitable, Callable

from textual import events

from contextual.tui.textual_app import TextualApp


class OpeningKeys:
    def __init__(self, app: TextualApp, read: Callable[[events.Event], Awaitable[None]]) -> None:
        self.app = app
        self.read = read                     # the app's own reading of an event (Textual's App.on_event)
        self.waiting: deque[events.Key | events.Paste] = deque()
        # Keys the app handed to a widget that come back up to it unused while others wait (their bindings are
        # read on the screen on top): they were taken before every waiting one, and are read before them.
        self.returning: deque[events.Key | events.Paste] = deque()

    def held(self, event: events.Event) -> bool:
        """Whether the event waits: a key or paste, taken or coming back up, while the screen on top is opening
        or other keys wait."""
        if not isinstance(event, (events.Key, events.Paste)):
            return False
        if not self.waiting and not self.returning and self._screen_ready():
            return False
        (self.returning if event.is_forwarded else self.waiting).append(event)
        if len(self.waiting) + len(self.returning) == 1:
            self._after_opening()
        return True

    def _screen_ready(self) -> bool:
        stack = self.app.screen_stack
        return not stack or stack[-1].is_mounted

    def _after_opening(self) -> None:
        # The screen reads its queue only after its mount; a screen closing unopened takes no callback, and then
        # there is nothing to wait for.
        if not self.app.screen.call_later(self.app.call_later, self._release):
            self.app.call_later(self._release)

    async def _release(self) -> None:
        while self.returning or self.waiting:
            if not self._screen_ready():      # a key read here opened another screen: the rest wait for it
                self._after_opening()
                return
            await self.read((self.returning or self.waiting).popleft())
