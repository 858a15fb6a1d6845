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

A start marker whose end never came (a terminal glitch, a broken tmux, binary output echoed back) held every later
key, ctrl+q included, and so did Textual's parser beneath, which reads a paste to its end marker with no bound: the
app looked frozen. A terminal sends a paste in one burst, so once no byte has come for IDLE_S the paste ends as it
stands (the thread's timer: it ticks the parser every 0.1 s) and later keys are keys. Pasted, the held text is never
sent, and ended apart from any key the app reads it before a ctrl+q that follows. The read right after such an end,
unless it is one key, is the same paste's rest (after a network stall): pasted too, its line ends never an `enter`.
No size bound: the rest of a large paste cut by one would be typed, an `enter` among it sending the first part.

Copied text can hold an end marker itself (a crafted web page: `hello ESC[201~ rm -rf ~ CR`), and a terminal that
does not filter it ends the paste there, the rest typed and its line end an `enter`. One read holding a second end
marker with no start between is one paste up to its last end: a person types nothing inside a burst.

Keys typed before the app took the terminal (`contextual`, enter, then the question at once) wait in the terminal's
line discipline, which turned each enter into a line feed: read as ctrl+j, the question's enter started a new line
and nothing was sent. What the reader reads first, right as it starts, is that type-ahead: its line feeds are enters.

The thread asks the driver module for its decoder and its parser by name each time it starts, so those names are
given these (tui/textual_patches.py installs them with the app's other patches of Textual). Windows reads keys as
text already, and has no such module.
"""

from __future__ import annotations

import codecs
import time
from collections.abc import Callable, Iterable
from encodings import utf_8

from textual._xterm_parser import XTermParser
from textual.message import Message

from contextual.core.textsafe import without_sequences

PASTE_START = "\x1b[200~"       # what a terminal sends around a bracketed paste (Textual asks for the mode)
PASTE_END = "\x1b[201~"
IDLE_S = 0.5                    # no byte for this long inside a paste: it is over, whatever the terminal left unsaid
KEY_MAX = 32                    # the longest escape sequence Textual's parser reads as one key or mouse report
TYPE_AHEAD_S = 0.5              # a first read this soon after the reader starts was typed before the app started


class PasteGuard:
    """Decoded text in, the same out, but a paste held whole and handed on without its escape sequences."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._held: list[str] | None = None     # a paste's text so far, after its start marker; None: not in one
        self._tail = ""                         # the end of what was read, where a marker split across reads begins
        self._clock = clock
        self._last = clock()                    # when text was last read
        self._cut = False                       # a paste was just ended by quiet: the next read may be its rest

    def feed(self, text: str) -> str:
        out: list[str] = []
        self._last = self._clock()
        if self._cut and text:
            self._cut = False
            if not _one_key(text):
                out.append(PASTE_START)
                self._held, self._tail = [], ""
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
                rest = whole[at + len(PASTE_END):]
                last = rest.rfind(PASTE_END)
                if last >= 0 and PASTE_START not in rest[:last]:      # an end marker inside the pasted text
                    at += len(PASTE_END) + last
                out.append(without_sequences(whole[:at]) + PASTE_END)
                text, self._held, self._tail = whole[at + len(PASTE_END):], None, ""
        return "".join(out)

    def end_if_quiet(self) -> str:
        """A paste's end marker, after its text, when one is held and no text has come for IDLE_S; else nothing."""
        if self._held is None or self._clock() - self._last < IDLE_S:
            return ""
        ended = without_sequences("".join(self._held)) + PASTE_END
        self._held, self._tail, self._cut = None, "", True
        return ended


def _one_key(text: str) -> bool:
    """What one key press reads as: a character, or one escape sequence (a key, a mouse report)."""
    return len(text) == 1 or (text.startswith("\x1b") and "\x1b" not in text[1:] and len(text) <= KEY_MAX)


class GuardedParser(XTermParser):
    """Textual's parser, reading what the guard hands on; its timer also ends a paste gone quiet."""

    def __init__(self, debug: bool = False, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(debug)
        self._pastes = PasteGuard(clock)
        self._clock = clock
        self._started: float | None = clock()      # until the first read: when the reader started

    def feed(self, data: str) -> Iterable[Message]:
        if not data:                                    # the end of input, as the driver says it
            return super().feed(data)
        if self._started is not None:
            if self._clock() - self._started < TYPE_AHEAD_S:
                data = data.replace("\n", "\r")          # the terminal's cooked mode made each enter a line feed
            self._started = None
        guarded = self._pastes.feed(data)
        return super().feed(guarded) if guarded else ()     # "" would read as the end of input

    def tick(self) -> Iterable[Message]:
        ended = self._pastes.end_if_quiet()
        return [*(super().feed(ended) if ended else ()), *super().tick()]


class ReplacingUTF8Decoder(utf_8.IncrementalDecoder):
    """UTF-8, an invalid sequence read as U+FFFD (a split but valid one still waits for its end)."""

    def __init__(self, errors: str = "replace") -> None:
        super().__init__(errors)


def incremental_decoder(encoding: str) -> Callable[..., codecs.IncrementalDecoder]:
    """codecs.getincrementaldecoder, with UTF-8 forgiving."""
    if codecs.lookup(encoding).name == "utf-8":
        return ReplacingUTF8Decoder
    return codecs.getincrementaldecoder(encoding)
