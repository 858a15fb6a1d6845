"""The terminal closed (SIGHUP) or a `kill` (SIGTERM) under the running app.

Left to Python's default the app died at once: a Bash command runs in its own session, out of the terminal's
reach, so it ran on (a `sleep`, a dev server, a test suite), and the turn was never recorded as stopped. Now both
end the app as a quit does (tui/app.py: close_all). SIGTERM leaves a terminal to restore, so Textual exits as usual;
after SIGHUP there is none, and Textual's own exit waited for ever to restore it (its writer thread died on the
first write to the closed terminal, and the queue to it filled): the process ends here once everything is closed.
"""

from __future__ import annotations

import asyncio
import os
import signal
from contextlib import AbstractContextManager
from typing import Any, Callable, Protocol


class Quitting(Protocol):
    """What of the app (tui/app.py) the handlers use."""
    def call_later(self, callback: Callable[..., Any], *args: Any) -> bool: ...
    async def action_quit(self) -> None: ...
    async def close_all(self) -> None: ...
    def batch_update(self) -> AbstractContextManager[None]: ...


HUNG_UP_EXIT = 128 + signal.SIGHUP       # the status a shell reports for a process ended by SIGHUP
CLOSE_WITHIN_S = 30                      # nobody is watching: a close that hangs must not keep the process


def quit_on_signals(app: Quitting) -> None:
    """Install the two handlers on the app's event loop (they run there, between its callbacks)."""
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, lambda: app.call_later(app.action_quit))
    loop.add_signal_handler(signal.SIGHUP, lambda: app.call_later(hung_up, app))


async def hung_up(app: Quitting) -> None:
    # Whatever is still drawn goes nowhere instead of failing (standard input is left: Textual reads it)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        with app.batch_update():       # nothing is drawn for nobody (a long chat's layout took ~0.3 s)
            await asyncio.wait_for(app.close_all(), CLOSE_WITHIN_S)
    finally:
        os._exit(HUNG_UP_EXIT)
