"""How Pilot decides an app has settled, in 5 ms steps and only once no frame is due.

Textual's Pilot ends each key (twice) and each pause when the process looks idle: its CPU time grew by under 5 % of
a 20 ms sleep. An app done in 2 ms still waited the whole 20 ms, and a test presses and pauses hundreds of times
(tests/test_tui_narrow.py: 25 tests, 700 waits). Here the same reading is taken over 5 ms steps. A shorter step alone
ended waits between a key and its frame: the screen draws at most 60 times a second, so a layout, a repaint or a
callback waiting for the refresh (a footer's keys) comes up to 17 ms after the key, which a 20 ms sleep had covered
by chance. So the app counts as settled only when its screen has none of those due either: a condition, not a
longer sleep. The bound on a wait is Textual's (1 s), and what a test needs it still waits for (tests/waits.py).
"""

from __future__ import annotations

import asyncio
from time import monotonic, process_time

from textual import _wait
from textual import app as app_module
from textual import pilot as pilot_module
from textual._context import active_app

STEP = 0.005
IDLE_CPU = STEP / 20          # Textual's own ratio: under 5 % of the step


def frame_due(app) -> bool:
    """The app's screen has something to draw, or callbacks waiting for the next refresh; never while the app holds
    its frames (a batch, or its shutdown: that holds them for good)."""
    try:
        screen = app.screen
    except Exception:                       # no screen (starting or ended): nothing to draw
        return False
    if app._batch_count or not screen.is_current:
        return False
    return bool(screen._layout_required or screen._scroll_required or screen._repaint_required
                or screen._recompose_required or screen._dirty_widgets or screen._callbacks)


async def settled(min_sleep: float = STEP, max_sleep: float = 1.0) -> None:
    """Textual's wait_for_idle, taken in STEP sleeps and over only when no frame is due."""
    app = active_app.get(None)
    start = monotonic()
    while True:
        cpu = process_time()
        await asyncio.sleep(STEP)
        idle = process_time() - cpu < IDLE_CPU
        waited = monotonic() - start
        if waited >= max_sleep or (waited > min_sleep and idle and not (app is not None and frame_due(app))):
            return


def install() -> None:
    """Pilot and the app's key presses call wait_for_idle by the name they imported; a Textual that moved it fails
    here rather than quietly keeping the 20 ms steps."""
    if pilot_module.wait_for_idle is settled:
        return
    assert pilot_module.wait_for_idle is _wait.wait_for_idle and app_module.wait_for_idle is _wait.wait_for_idle
    pilot_module.wait_for_idle = settled
    app_module.wait_for_idle = settled
