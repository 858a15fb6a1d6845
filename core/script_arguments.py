"""A script's text with the words it is run with in place of its positional parameters, for the deny rules
(core/files_run.py): `./g rm f` with g = `exec "$@"` runs `rm f`, which the script's own text does not say.

Only whole words are replaced: `"$@"`, `$@`, `"${1}"`, `$1` … (`$*` too); text inside other quotes is left as
it is. A `shift` moves them, so each shift up to MAX_SHIFTS is tried. The result is read for more commands
than the text shows, never fewer: the script's own text is still read as written."""

from __future__ import annotations

import re
import shlex
from typing import Sequence

from contextual.core.shell.nodes import Word

MAX_SHIFTS = 8
# a word only the caller's shell knows (`./g $CMD f`): as a command it may be anything
UNKNOWN = "__unknown_argument__"
_NAME = r"(?:\{([@*]|[1-9][0-9]*)\}|([@*]|[1-9]))"
_POSITIONAL = re.compile(rf'"\${_NAME}"|(?<!["\'\\\w])\${_NAME}(?![\w"\'])')


def with_arguments(text: str, arguments: Sequence[Word], unknown: str = UNKNOWN) -> list[str]:
    """The text once for each shift of the arguments (none when it names no positional parameter or there are
    no arguments). An argument that is None is `unknown`."""
    if not arguments or not _POSITIONAL.search(text):
        return []
    words = [unknown if word is None else word for word in arguments]
    return [_POSITIONAL.sub(lambda found: _put(found, words[shift:]), text)
            for shift in range(min(len(words), MAX_SHIFTS))]


def _put(found: re.Match[str], given: list[str]) -> str:
    name = next(group for group in found.groups() if group)
    if name in "@*":
        chosen = given
    else:
        chosen = given[int(name) - 1:int(name)]
    return " ".join(shlex.quote(word) for word in chosen) or "''"
