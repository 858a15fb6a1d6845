"""Words bash expands to options (for core/permission_rules.py). A word only known when the line runs is read as an
operand; but a glob naming a file whose name starts with `-` or `+` (`tar cf a.tar *` beside a file named
`--checkpoint-action=exec=sh x`, `sed -n p *` beside one named `-e1e rm f`), a brace word spelling one, or a variable
the line gives such a value (`F='-e1e rm f'; sed -n p "$F"`) hands the program an option. The line with those words
written out as bash makes them, each quoted, is judged as well: what the options run, read and write is read there."""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

from contextual.core.bash_files.reads import PIECES, expand_words, folders_of
from contextual.core.shell.nodes import Word
from contextual.core.shell.parse import parse_command

_OPTION = re.compile(r"[-+].")                     # `-rf`, `--x=y`, vim's `+cmd` (not a lone `-`)
_EXPANDS = re.compile(r"[*?[{]")
_WORD_END = r"(?=$|[\s;&|)<>])"
_WORD_START = r"(?:(?<=^)|(?<=[\s;&|(<>]))"


@dataclass(frozen=True)
class Expanded:
    line: str | None        # the line with the option words written out; None where none is found
    certain: bool = True    # False: a word that becomes an option could not be written out here (not found as
    #                         written): what the line runs is only known when it runs


def expanded_line(command: str, root: str) -> Expanded:
    """The line as bash hands its programs their words, where a word only known when it runs becomes an option."""
    parsed = parse_command(command)
    if not any(_open(words) for words in parsed.commands):
        return Expanded(None)
    line, certain = command, True
    for name, value in parsed.assigned:            # `F='-e1e rm f'; sed -n p "$F"` (or `$F`, split at blanks)
        parts = value.split()
        if not any(_OPTION.match(p) for p in parts):
            continue
        named = re.escape(name)
        line = re.sub(rf'"\$(?:{named}\b|\{{{named}\}})"', lambda _: shlex.quote(value), line)
        line = re.sub(rf"\$(?:{named}\b|\{{{named}\}})", lambda _: " ".join(shlex.quote(p) for p in parts), line)
    folders = folders_of(parsed.commands, root)
    for piece in _pieces(command):
        words = sorted(dict.fromkeys(w for folder in folders for w in _expansion(piece, command, parsed.commands,
                                                                                  folder)))
        if not any(_OPTION.match(w) for w in words):
            continue
        written = re.sub(_WORD_START + re.escape(piece) + _WORD_END, lambda _: " ".join(map(shlex.quote, words)),
                         line)
        certain &= written != line
        line = written
    return Expanded(line if line != command else None, certain)


def _open(words: tuple[Word, ...]) -> bool:
    """A command with a word only known when it runs before any `--` (after one, every word is an operand)."""
    for word in words[1:]:
        if word == "--":
            return False
        if word is None:
            return True
    return False


def _pieces(command: str) -> list[str]:
    """The words of the text that bash may expand to an option: a glob or brace word at the start of a word."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    pieces = (p for word in words for p in (word, *PIECES.split(word)) if p)
    return list(dict.fromkeys(p for p in pieces if _EXPANDS.search(p) and (_EXPANDS.match(p) or _OPTION.match(p))))


def _expansion(piece: str, command: str, commands: tuple[tuple[Word, ...], ...], folder: str) -> list[str]:
    """The words bash makes of a glob or brace word in a folder, as written from there (`*` gives `-rf`)."""
    out = []
    for path in expand_words([piece], command, commands, [folder]):
        if os.path.isabs(path) and path.startswith(folder.rstrip(os.sep) + os.sep) and not os.path.isabs(piece):
            path = path[len(folder.rstrip(os.sep)) + 1:]
        out.append(path)
    return out
