"""Every change the app makes to Textual's own classes and modules, in one table, put in place by `install()`.

Each fills a gap Textual has no hook for (the rule table names the rules): no control character in a line it
writes (terminal_guard), a dialog's backdrop left faded by the contrast filter (contrast), a byte that is not UTF-8
and a bracketed paste read safely (input_guard), one terminal reader after a stop from outside (stop_continue), a
screen dismissed once (dismiss_once).
Importing those modules changes nothing; `ContextualApp.__init__` installs the table, so the launch (run_app)
and every app a test builds run with the same Textual. Installing again changes nothing.

textual has no upper bound in pyproject.toml: each row says the parameters of what it replaces, and
tests/test_textual_patches.py checks them against the Textual installed, so an upgrade that renames or reshapes
one fails there instead of leaving a guard silently out.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from textual.screen import Screen
from textual.strip import Strip

from contextual.tui import contrast, dismiss_once, input_guard, stop_continue, terminal_guard


@dataclass(frozen=True)
class Patch:
    owner: Any          # the Textual class or module whose attribute is replaced
    name: str
    replacement: Any
    params: str         # the parameters of Textual's own, as written against (`self, console`)
    original: Any       # Textual's own, read before anything is installed; None where this Textual has no such name


def _patch(owner: Any, name: str, replacement: Any, params: str) -> Patch:
    return Patch(owner, name, replacement, params, getattr(owner, name, None))


def _table() -> tuple[Patch, ...]:
    table = [_patch(Strip, "render", terminal_guard.render, "self, console"),
             _patch(Screen, "get_line_filters", contrast.backdrop_filters, "self"),
             _patch(Screen, "dismiss", dismiss_once.dismiss, "self, result")]
    if sys.platform != "win32":         # Windows reads keys as text, through another driver
        from textual.drivers import linux_driver
        from textual.drivers.linux_driver import LinuxDriver
        table += [_patch(linux_driver, "getincrementaldecoder", input_guard.incremental_decoder, "encoding"),
                  _patch(linux_driver, "XTermParser", input_guard.GuardedParser, "debug"),
                  _patch(LinuxDriver, "_sigtstp_application", stop_continue.stopped, "self, *_"),
                  _patch(LinuxDriver, "_sigcont_application", stop_continue.continued, "self, *_")]
    return tuple(table)


PATCHES = _table()


def install() -> None:
    """Put every patch in place (again: nothing changes). A name this Textual lacks is left out, not added where
    Textual never reads it: the app runs unguarded there, and tests/test_textual_patches.py fails."""
    for patch in PATCHES:
        if patch.original is not None and getattr(patch.owner, patch.name) is not patch.replacement:
            setattr(patch.owner, patch.name, patch.replacement)
