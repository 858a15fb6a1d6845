"""Textual's input thread died: the app ends as a quit does, then with status 1 and one line on stderr.

Textual's driver (drivers/linux_driver.py, `_run_input_thread`) catches whatever ends the thread that reads the
terminal and hands its traceback to the public `App.panic`, on the loop. The app then left with that traceback and
exit status 0 (a script or a wrapper read success), the draft lost, a running turn never recorded as stopped. Its
parser raises on bytes a terminal or a program can send: `ESC [ 9999999 u` (a kitty key past U+10FFFF, ValueError
from chr in 8.2.x), a mouse report after an in-band size of 0 (ZeroDivisionError). tui/input_guard.py forgives the
one fault it can fix at the source (bytes that are not UTF-8); for every other, no key can reach the app any more,
so it closes (tui/closing.py: Closing.close_all) and ends. The traceback is printed as well with CONTEXTUAL_DEBUG=1.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Protocol

from contextual.core.textsafe import one_line
from contextual.tui.hangup import Closes
from contextual.tui.textual_app import TextualApp

FAILED_EXIT = 1


class Panicking(TextualApp, Protocol):
    """What of the app (tui/app.py) a panic uses."""
    failure: str | None
    @property
    def closing(self) -> Closes: ...


def what_failed(renderables: tuple[Any, ...]) -> str:
    """The line launch prints: what stopped the app, from what Textual handed `panic`."""
    from rich.traceback import Traceback      # here: 20 ms of imports the launch need not wait for
    for renderable in renderables:
        if isinstance(renderable, Traceback) and renderable.trace.stacks:
            stack = renderable.trace.stacks[0]          # the exception that ended the thread (its causes follow)
            why = f"the app stopped reading the terminal: {stack.exc_type}: {stack.exc_value}"
            break
        if isinstance(renderable, BaseException):       # App._handle_exception: an error that renders itself
            why = f"the app stopped on an error: {type(renderable).__name__}: {renderable}"
            break
    else:
        why = f"the app stopped: {' '.join(str(r) for r in renderables)}"
    return one_line(f"{why}; the draft and the session are kept (CONTEXTUAL_DEBUG=1 shows where)", 1000)


def panicked(app: Panicking, renderables: tuple[Any, ...], panic: Callable[..., None]) -> None:
    """App.panic (on the loop): close as a quit does, then end; `panic` is Textual's own, which prints the
    renderables once the terminal is back."""
    if app.failure is not None:         # a second panic, while closing: end now
        panic(*renderables)
        return
    app.failure = what_failed(renderables)
    app.call_later(_close_and_end, app, renderables, panic)


async def _close_and_end(app: Panicking, renderables: tuple[Any, ...], panic: Callable[..., None]) -> None:
    try:
        await app.closing.close_all()
    finally:
        if os.environ.get("CONTEXTUAL_DEBUG"):
            panic(*renderables)
        else:
            app.exit(return_code=FAILED_EXIT)
