"""Bytes from the terminal that are not UTF-8 are read as U+FFFD instead of ending the app.

Textual's input thread (textual/drivers/linux_driver.py) decodes standard input with a strict UTF-8 decoder
(Textualize/textual#6456, open through 8.2.x): one invalid byte raised UnicodeDecodeError there, the thread died and
the app panicked out with a traceback and exit status 0, the draft lost. `é` typed in a Latin-1 terminal (one byte,
0xE9) and any key after it were enough, as was a raw C1 byte in a paste. The thread asks the driver module for its
decoder by name each time it starts, so that name is given a decoder that replaces: installed once when the app is
imported, as terminal_guard.py installs its step. Windows reads keys as text already, and has no such module.
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Callable
from encodings import utf_8


class ReplacingUTF8Decoder(utf_8.IncrementalDecoder):
    """UTF-8, an invalid sequence read as U+FFFD (a split but valid one still waits for its end)."""

    def __init__(self, errors: str = "replace") -> None:
        super().__init__(errors)


def incremental_decoder(encoding: str) -> Callable[..., codecs.IncrementalDecoder]:
    """codecs.getincrementaldecoder, with UTF-8 forgiving."""
    if codecs.lookup(encoding).name == "utf-8":
        return ReplacingUTF8Decoder
    return codecs.getincrementaldecoder(encoding)


if sys.platform != "win32":
    from textual.drivers import linux_driver

    linux_driver.getincrementaldecoder = incremental_decoder   # type: ignore[assignment]  # codecs' is overloaded
