"""The text `printf` and `echo` write, as bash's builtins make it from their words (for a program fed it through a
pipe: `printf '!rm f\\n' | ed`, core/shell/ed_script.py); None where it is only known when the line runs."""

from __future__ import annotations

import re

from contextual.core.shell.nodes import Word, command_name

_SIMPLE = {"\\": "\\", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
           "v": "\v", '"': '"', "'": "'", "?": "?"}
_ECHO_OPTIONS = re.compile(r"-[neE]+")
_CONVERSION = re.compile(r"%(%|[sb])")
MAX_REPEATS = 64          # printf's format applied again while arguments are left


def printed(words: tuple[Word, ...]) -> str | None:
    """What `printf FORMAT [ARGS]` (only `%s`, `%b` and `%%` conversions) or `echo [-neE] ARGS` writes."""
    if not words or not isinstance(words[0], str) or None in words:
        return None
    name, rest = command_name(words[0]), [str(w) for w in words[1:]]
    if name == "echo":
        flags = ""
        while rest and _ECHO_OPTIONS.fullmatch(rest[0]):
            flags += rest.pop(0)
        text = " ".join(rest)
        letters = [c for c in flags if c in "eE"]
        if letters and letters[-1] == "e":          # the last of -e and -E wins
            text, stop = escaped(text, echo=True)
            if stop:
                return text
        return text + ("" if "n" in flags else "\n")
    if name != "printf" or not rest or rest[0].startswith("-") and rest[0] != "--":
        return None               # `printf -v NAME`: into a variable
    if rest[0] == "--":
        rest = rest[1:]
    if not rest:
        return None
    return _formatted(rest[0], rest[1:])


def _formatted(form: str, arguments: list[str]) -> str | None:
    out: list[str] = []
    for _ in range(MAX_REPEATS):
        taken, i = 0, 0
        while i < len(form):
            if form[i] == "%":
                found = _CONVERSION.match(form, i)
                if found is None:
                    return None   # `%d`, `%5s`: not made here
                if found.group(1) == "%":
                    out.append("%")
                else:
                    value = arguments[taken] if taken < len(arguments) else ""
                    taken += 1
                    if found.group(1) == "b":
                        value, stop = escaped(value, echo=True)
                        if stop:
                            return "".join(out) + value
                    out.append(value)
                i = found.end()
            elif form[i] == "\\":
                text, i = _escape(form, i, echo=False)
                out.append(text)
            else:
                out.append(form[i])
                i += 1
        arguments = arguments[taken:]
        if not taken or not arguments:
            return "".join(out)
    return None


def escaped(text: str, echo: bool) -> tuple[str, bool]:
    """`echo -e`'s and `%b`'s escapes made: the text, and whether a `\\c` ended all output there."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] != "\\":
            out.append(text[i])
            i += 1
        elif text.startswith("\\c", i):
            return "".join(out), True
        else:
            made, i = _escape(text, i, echo)
            out.append(made)
    return "".join(out), False


def _escape(text: str, i: int, echo: bool) -> tuple[str, int]:
    """The escape at text[i] (a backslash): its character and where the text goes on. printf's format takes up to
    three octal digits (`\\101`), echo's and `%b`'s a `\\0` and up to three more (`\\0101`)."""
    char = text[i + 1:i + 2]
    if char in _SIMPLE:
        return _SIMPLE[char], i + 2
    octal = re.match(r"0([0-7]{0,3})" if echo else r"([0-7]{1,3})", text[i + 1:])
    if octal is not None:
        return chr(int(octal.group(1) or "0", 8) & 0xFF), i + 1 + octal.end()
    hexa = re.match(r"x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})", text[i + 1:])
    if hexa is not None:
        value = int(next(g for g in hexa.groups() if g), 16)
        return (chr(value) if value <= 0x10FFFF else "\ufffd"), i + 1 + hexa.end()
    return "\\" + char, i + 1 + len(char)
