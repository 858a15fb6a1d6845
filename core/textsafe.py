"""Text that is safe to keep and safe to print.

`valid_unicode` makes any str encodable as UTF-8, so it can enter history, a session file or a request body
(a lone surrogate there breaks every later request). The replacement is visible and tells what was there:
- a byte Python could not decode (os.listdir / surrogateescape turns byte 0xNN into U+DCNN, NN >= 80)
  becomes the four characters `\\xNN`, so two names that differ only in such bytes still look different;
- any other lone surrogate (e.g. `\\ud83d` alone from a JSON escape) becomes U+FFFD;
- a high+low surrogate pair kept as two code points is joined into the character it encodes.

`one_line` puts a message or a row on one line, cut with an ellipsis.

`strip_control` removes what a terminal would act on: ESC sequences (CSI, OSC, DCS/SOS/PM/APC strings and
two-character escapes, in their 7-bit and 8-bit forms) and every other C0/C1 control and DEL, keeping \\n and \\t.
Bidirectional overrides and isolates are shown as `<U+202E>`: a terminal that reorders text would otherwise show a
command or a line of code in an order other than the one it runs in ("Trojan Source").
"""

from __future__ import annotations

import re
from typing import Any

REPLACEMENT = "\ufffd"

_SURROGATES = re.compile("[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")

# ESC-introduced or 8-bit C1-introduced sequences, longest forms first.
_SEQUENCES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"                           # CSI params, intermediates, final
    r"|(?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC/DCS/SOS/PM/APC…ST
    r"|\x1b[ -/]*[0-~]?"                                           # other escapes (charset, keypad, RIS…)
)
# Whatever control is left (C0 except \t and \n, DEL, C1).
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _replace_surrogate(match: re.Match[str]) -> str:
    found = match.group()
    if len(found) == 2:                       # a pair: the character it stands for
        return found.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    code = ord(found)
    if 0xDC80 <= code <= 0xDCFF:              # surrogateescape: an undecodable byte
        return f"\\x{code - 0xDC00:02x}"
    return REPLACEMENT


def valid_unicode(text: str) -> str:
    """`text` with every surrogate replaced visibly (see the module docstring); unchanged when already valid."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return _SURROGATES.sub(_replace_surrogate, text)


_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def without_sequences(text: str) -> str:
    """`text` without its terminal control sequences (whole: `ESC [ 3 1 m`, not the ESC alone); other controls
    kept (a paste's line ends: tui/input_guard.py)."""
    return _SEQUENCES.sub("", text)


def strip_control(text: str) -> str:
    """`text` without terminal control sequences or control characters, except newline and tab; bidirectional
    controls made visible."""
    text = _CONTROLS.sub("", without_sequences(text))
    return _BIDI.sub(lambda m: f"<U+{ord(m.group()):04X}>", text) if _BIDI.search(text) else text


def valid_json_value(value: Any) -> Any:
    """A JSON-shaped value (dicts, lists, scalars) with every string, keys included, made valid Unicode."""
    if isinstance(value, str):
        return valid_unicode(value)
    if isinstance(value, dict):
        return {valid_json_value(k): valid_json_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [valid_json_value(v) for v in value]
    if isinstance(value, tuple):
        return [valid_json_value(v) for v in value]
    return value


_WORD = re.compile(r"\S+")


def one_line(text: str, limit: int = 300) -> str:
    """Text on one line, for a message or a row: runs of whitespace made one space, cut to `limit` characters with
    an ellipsis. Only the words that can show are taken: splitting all of an MCP server's 50 MB description of
    two-letter words made 16 million strings (1.3 GB) for a row of 600 characters."""
    text = str(text)
    words: list[str] = []
    size = 0
    for word in _WORD.finditer(text):
        start = word.start()
        words.append(text[start:min(word.end(), start + limit + 1)])     # a word of megabytes: not copied whole
        size += len(words[-1]) + 1
        if size > limit + 1:
            break
    flat = " ".join(words)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
