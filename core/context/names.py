"""What the context engine calls a name: something a later step may refer to again.

Text is cut into words at every character that cannot be part of a path or a dotted name, and each word is
then classified by its shape:
- a path has a `/` (`src/shop/pricing.py`, `/etc/hosts`, `./run.sh`, `~/.config`) and at least one letter;
- otherwise a name starts with a letter or `_`: an identifier (`total_price`, `keep-rounds` as shells and
  packages spell them) or a dotted name (`os.path.join`, `pricing.py`, `Cart.total`).
Leading dashes (`--flag`) and trailing punctuation (`.`, `-`, `/`) are not part of a word; a word that starts with
a digit (`0o600`, `3.14`) is a number, not a name; a dotfile (`.gitignore`) keeps its dot. Identifiers shorter than three characters (`i`, `x`, `id`)
recur everywhere and say nothing, and neither do a dotted word of single letters (`e.g`) and English's
function words (`the`, `with`): a name is what a later step may look up, and nobody looks those up.

Digests, stored forms and the facts extractor all ask this one module, so "a name the output showed" means the
same thing wherever a line is kept or a fact is checked.
"""

from __future__ import annotations

import re
from typing import Iterator

_WORD = re.compile(r"[\w./~-]+")
_PATH_STARTS = ("/", "./", "../", "~/")
MIN_LENGTH = 3
# English's function words: prose around code, never what a later step looks up (`the`, `with`, `should`)
FUNCTION_WORDS = frozenset("""
    the and for nor but yet with from into onto than then that this these those there their they them what which
    who whom whose when where while why how here have has had having are was were been being will would shall
    should can could may might must does did doing you your yours our ours his her hers him she its also
    such only very just about after before because since until upon via
""".split())


def _name(word: str) -> str | None:
    word = word.lstrip("-").rstrip("./-")
    if "/" in word:
        if not word.startswith(_PATH_STARTS):
            word = word.lstrip(".")
        return word if any(c.isalpha() for c in word) else None
    body = word.lstrip(".")
    if len(body) < MIN_LENGTH or not (body[0].isalpha() or body[0] == "_"):
        return None
    if "." in body and max(len(part) for part in body.split(".")) < 2:
        return None
    if body.isalpha() and body.lower() in FUNCTION_WORDS:
        return None
    return "." + body if word.startswith(".") and not word.startswith("..") else body    # a dotfile keeps its dot


def names_in(text: str) -> Iterator[str]:
    """Every name in `text`, in order, repeats included."""
    for word in _WORD.findall(text):
        name = _name(word)
        if name:
            yield name


def name_set(text: str) -> set[str]:
    return set(names_in(text))


def looks_like_code(name: str) -> bool:
    """A name in prose that is a path, a dotted name, snake_case, CamelCase or has digits: not an English word."""
    return (any(c in name for c in "_./") or any(c.isdigit() for c in name)
            or any(c.isupper() for c in name[1:]))


def code_names(text: str) -> frozenset[str]:
    """The names a task or a plan gives that are code: what the work is about. Its English words are not: every
    output would keep a line for `error` or `test`."""
    return frozenset(name for name in names_in(text) if looks_like_code(name))


def first_to_name(pieces: list[str], seen: set[str]) -> list[int]:
    """Indices of the pieces (lines, sentences) that are the first to show a name not in `seen`, which grows:
    a piece that names only what was shown before tells a later step nothing new."""
    out = []
    for i, piece in enumerate(pieces):
        fresh = name_set(piece) - seen
        if fresh:
            out.append(i)
            seen |= fresh
    return out
