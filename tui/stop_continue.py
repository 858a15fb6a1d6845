"""The app stopped and continued from outside (`kill -STOP` then `kill -CONT`, or `kill -TSTP` then `fg`) goes on
as it was: one thread reading the terminal, and the whole screen drawn again.

Textual's Linux driver starts application mode again on every SIGCONT (`_sigcont_application`), meant for after
the SIGTSTP it handles by leaving application mode first. A SIGSTOP cannot be handled: the app stopped in
application mode, and the SIGCONT after it started a second input thread beside the first. Two threads then read
the terminal, each with its own parser; a paste's start marker read by one and its text by the other came out as
keys, each pasted line end an `enter` that sent what stood in the input (tmux: a 10,000-line paste after
`kill -STOP` and `kill -CONT` queued 20 messages). Application mode starts again now only after the driver left it.

Back from SIGTSTP, application mode starts on a cleared alternate screen, and Textual draws only what changes
after: the app stood blank but for its top bar and input until a resize. `redraw` (on the app's resume signal)
draws it whole.

Installed with the app's other patches of Textual (tui/textual_patches.py), before the driver is made: it binds
the handlers then.
"""

from __future__ import annotations

import sys
from typing import Any

from textual.app import App


def redraw(app: App[Any]) -> None:
    """Every region of the screen shown drawn again, not only what changed since the stop."""
    app.screen.refresh()


if sys.platform != "win32":
    from textual.drivers.linux_driver import LinuxDriver

    _leave = LinuxDriver._sigtstp_application      # Textual's own, read before textual_patches.install
    _return = LinuxDriver._sigcont_application


def stopped(driver: Any, *signal: Any) -> None:
    """SIGTSTP: Textual's handler leaves application mode (only when it starts it again itself: not inside
    App.suspend), then stops the process."""
    driver._contextual_left = driver._auto_restart
    _leave(driver, *signal)


def continued(driver: Any, *signal: Any) -> None:
    """SIGCONT: application mode starts again only where `stopped` left it (after a SIGSTOP the app never did)."""
    if getattr(driver, "_contextual_left", False):
        driver._contextual_left = False
        _return(driver, *signal)
