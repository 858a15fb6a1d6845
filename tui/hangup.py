"""The terminal gone (SIGHUP, or its input hung up with no signal) or a `kill` (SIGTERM) under the running app.

Left to Python's default the app died at once: a Bash command runs in its own session, out of the terminal's
reach, so it ran on, and the turn was never recorded as stopped. Now each ends the app as a quit does (tui/closing.py:
Closing.close_all). SIGTERM with the terminal there leaves one to restore, so Textual exits as usual. A terminal that is
gone is a hang-up, whoever said so: SIGHUP, or standard input hanging up (a parent closed the pty's master and sent
no SIGHUP, or only a SIGTERM). Textual then spun on its input at EOF (a whole core), its writer thread died at the
first write to the gone terminal, and once the queue to it filled the loop blocked for ever: no signal was acted
on, and its own exit would wait for ever to restore the terminal. So a hang-up first takes the terminal's
descriptors away, then closes, and the process ends here, within CLOSE_WITHIN_S even if the loop is stuck. Stuck it
can be: a frame written before the watch wakes kills the writer thread, and the loop blocks on its full queue; the
deadline then keeps what the close would (the turn recorded as stopped, its commands killed, its snapshot's
after-state and the session written, the draft, the MCP servers stopped), on the loop if it still runs callbacks,
else from the deadline's own thread.
"""

from __future__ import annotations

import asyncio
import os
import select
import signal
import threading
from contextlib import suppress
from typing import Protocol

from contextual.tui.textual_app import TextualApp


class Closes(Protocol):
    """tui/closing.py: Closing."""
    async def close_all(self) -> None: ...
    def close_now(self) -> None: ...


class Quitting(TextualApp, Protocol):
    """What of the app (tui/app.py) the handlers use."""
    async def action_quit(self) -> None: ...
    @property
    def closing(self) -> Closes: ...


HUNG_UP_EXIT = 128 + signal.SIGHUP       # the status a shell reports for a process ended by SIGHUP
CLOSE_WITHIN_S = 30                      # nobody is watching: a close that hangs must not keep the process
LOOP_ANSWERS_WITHIN_S = 2                # past the deadline: a loop that runs no callback by then is stuck
GONE = select.POLLHUP | select.POLLERR


def quit_on_signals(app: Quitting) -> None:
    """Install the handlers on the app's event loop (they run there, between its callbacks), and the watch on
    standard input (a thread: it must see the hang-up even when the loop is stuck)."""
    ending = _Ending(app, asyncio.get_running_loop())
    ending.loop.add_signal_handler(signal.SIGTERM, ending.terminated)
    ending.loop.add_signal_handler(signal.SIGHUP, ending.hang_up)
    threading.Thread(target=ending.watch_input, name="contextual-hangup", daemon=True).start()


def terminal_gone(wait_ms: int | None = 0) -> bool:
    """Whether standard input has hung up, asked now (0) or waiting until it does (None; POLLNVAL: no input to
    watch ends the wait too, as no hang-up)."""
    poller = select.poll()
    poller.register(0, 0)               # no events asked: only a hang-up or an error is reported
    return any(mask & GONE for _, mask in poller.poll(wait_ms))


class _Ending:
    def __init__(self, app: Quitting, loop: asyncio.AbstractEventLoop) -> None:
        self.app, self.loop = app, loop
        self._lock, self._hung_up = threading.Lock(), False
        self._kept = threading.Lock()        # close_now runs once: on the loop, or in the deadline's thread

    def terminated(self) -> None:
        if self._hung_up:               # already ending; fd 0 is no longer the terminal to ask
            return
        if terminal_gone():
            self.hang_up()
        else:
            self.app.call_later(self.app.action_quit)

    def watch_input(self) -> None:
        if terminal_gone(wait_ms=None):
            self.hang_up()

    def hang_up(self) -> None:
        """From the loop (SIGHUP, SIGTERM) or the watch's thread; the first call ends the process."""
        with self._lock:
            if self._hung_up:
                return
            self._hung_up = True
        _detach_terminal()
        deadline = threading.Timer(CLOSE_WITHIN_S, self.past_deadline)
        deadline.daemon = True
        deadline.start()
        with suppress(RuntimeError):    # the loop already closed: the app has ended and the process is ending
            self.loop.call_soon_threadsafe(self.app.call_later, _close_and_exit, self.app)

    def past_deadline(self) -> None:
        """The close has not ended the process in time: what it keeps is kept now, then the process ends."""
        kept = threading.Event()
        try:
            with suppress(RuntimeError):        # the loop closed meanwhile
                self.loop.call_soon_threadsafe(self._keep, kept)
            if not kept.wait(LOOP_ANSWERS_WITHIN_S):
                self._keep(kept)                # stuck: nothing of ours runs on it meanwhile
                kept.wait(LOOP_ANSWERS_WITHIN_S)    # unless it took it up just now: its end is waited for
        finally:
            _end_process(HUNG_UP_EXIT)

    def _keep(self, done: threading.Event) -> None:
        if self._kept.acquire(blocking=False):
            try:
                self.app.closing.close_now()
            finally:
                done.set()


def _detach_terminal() -> None:
    """Writes go to /dev/null instead of failing (Textual's writer thread died on the first, and the loop blocked
    once its queue was full); Textual's input thread waits on a pipe nobody writes to instead of spinning at EOF."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    silent, _writer_kept_open = os.pipe()
    os.dup2(silent, 0)


async def _close_and_exit(app: Quitting) -> None:
    try:
        with app.batch_update():       # nothing is drawn for nobody (a long chat's layout took ~0.3 s)
            await app.closing.close_all()
    finally:
        _end_process(HUNG_UP_EXIT)


def _end_process(status: int) -> None:
    """At once: Python's exit would wait to restore a terminal that is gone."""
    os._exit(status)
