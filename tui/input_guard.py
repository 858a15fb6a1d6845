"""What Textual's input thread reads from the terminal, made safe before its parser sees it: bytes that are not
UTF-8 read as U+FFFD, and a bracketed paste's escape sequences taken out.

Textual's input thread (textual/drivers/linux_driver.py) decodes standard input with a strict UTF-8 decoder
(Textualize/textual#6456, open through 8.2.x): one invalid byte raised UnicodeDecodeError there, the thread died and
the app panicked out with a traceback and exit status 0, the draft lost. `é` typed in a Latin-1 terminal (one byte,
0xE9) and any key after it were enough, as was a raw C1 byte in a paste.

Inside a bracketed paste its parser still reads an ESC as the start of a key: pasted colour codes (`ls --color`, a
log) came out as keys, the paste in pieces. The text after the first ESC was typed key by key, a pasted line end an
`enter` that sent the message half pasted, and the text before the ESC landed after it all. A paste is now held
until its end marker and handed on without its escape sequences (as the terminal showed it: `ESC [ 3 1 m red`
pastes `red`); keys outside a paste pass at once, a lone Esc included.

The thread asks the driver module for its decoder by name each time it starts, so that name is given this one:
installed once when the app is imported, as terminal_guard.py installs its step. Windows reads keys as text
already, and has no such module.
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Callable
from encodings import utf_8

from contextual.core.textsafe import without_sequences

PASTE_START = "\x1b[200~"       # what a terminal sends around a bracketed paste (Textual asks for the mode)
PASTE_END = "\x1b[201~"


class PasteGuard:
    """Decoded text in, the same out, but a paste held whole and handed on without its escape sequences."""

    def __init__(self) -> None:
        self._held: list[str] | None = None     # a paste's text so far, after its start marker; None: not in one
        self._tail = ""                         # the end of what was read, where a marker split across reads begins

    def feed(self, text: str) -> str:
        out: list[str] = []
        while text:
            if self._held is None:
                seen = self._tail + text
                at = seen.find(PASTE_START)
                if at < 0:
                    self._tail = seen[-(len(PASTE_START) - 1):]
                    out.append(text)
                    break
                cut = at + len(PASTE_START) - len(self._tail)       # in `text`, just past the start marker
                out.append(text[:cut])
                text, self._held, self._tail = text[cut:], [], ""
            else:
                seen = self._tail + text
                if PASTE_END not in seen:
                    self._held.append(text)
                    self._tail = seen[-(len(PASTE_END) - 1):]
                    break
                whole = "".join(self._held) + text
                at = whole.find(PASTE_END, max(0, len(whole) - len(seen)))
                out.append(without_sequences(whole[:at]) + PASTE_END)
                text, self._held, self._tail = whole[at + len(PASTE_END):], None, ""
        return "".join(out)


class ReplacingUTF8Decoder(utf_8.IncrementalDecoder):
    """UTF-8, an invalid sequence read as U+FFFD (a split but valid one still waits for its end); pastes guarded."""

    def __init__(self, errors: str = "replace") -> None:
        super().__init__(errors)
        self._pastes = PasteGuard()

    # `input`: codecs' own parameter name; bytes, where codecs says any buffer
    def decode(self, input: bytes, final: bool = False) -> str:  # type: ignore[override]  # noqa: A002
        return self._pastes.feed(super().decode(input, final))

    def reset(self) -> None:
        super().reset()
        self._pastes = PasteGuard()


def incremental_decoder(encoding: str) -> Callable[..., codecs.IncrementalDecoder]:
    """codecs.getincrementaldecoder, with UTF-8 forgiving and pastes guarded."""
    if codecs.lookup(encoding).name == "utf-8":
        return ReplacingUTF8Decoder
    return codecs.getincrementaldecoder(encoding)


if sys.platform != "win32":
    from textual.drivers import linux_driver

    linux_driver.getincrementaldecoder = incremental_decoder   # type: ignore[assignment]  # codecs' is overloaded
