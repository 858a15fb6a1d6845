"""Text bash may evaluate later (for core/shell/parse.py): quoted text holding `$(` or a backtick is kept while
the line is read, and read as latent commands once the whole line is read, if anything on it evaluates text
(`x='a[$(rm f)]'; (( x ))`, `x='$(rm f)'; echo ${x@P}`, `read x <<'E'` … `(( x ))`)."""

from __future__ import annotations

import re

from tree_sitter import Node

from contextual.core.shell.findings import MAX_NESTING, Reader
from contextual.core.shell.nodes import Word, ansi_c_value, escaped_string, evaluates, evaluating, \
    substitution_texts, word_value

QUOTED_LATER = ("$(", "`")                   # quoted text that runs a command if bash evaluates it later
_UNSURE_EXPANSION = re.compile(r"\$\(\(|\\[0-7xuU]")


def expanded_substitutions(text: str) -> list[str] | None:
    """The insides of the `$(…)` and backticks of text bash expands (a prompt, an evaluated string), each to be
    read as a line; text around them is only text. None when they cannot be told: one does not close, `$((rm f)
    )` is a substitution once it fails as arithmetic, a prompt's `\\044(` is `$(`, a `#` in one may hide its `)`."""
    found = substitution_texts(text)
    if found is None or _UNSURE_EXPANSION.search(text) or any("#" in inner for inner in found):
        return None
    return found


class LatentText:
    """The quoted text of the line that holds `$(`, and whether anything on the line evaluates text."""

    def __init__(self, reader: Reader) -> None:
        self.reader = reader
        self.quoted: list[str] = []       # quoted text holding `$(`, read if the line evaluates
        self.evaluates = False            # an arithmetic, `${x@P}`, `read`, `printf -v` …

    def note_node(self, node: Node) -> None:
        self.evaluates |= evaluates(node)

    def note_command(self, words: list[Word]) -> None:
        self.evaluates |= evaluating(words)

    def keep_quoted(self, node: Node) -> None:
        """Quoted text holding `$(` or a backtick (escaped, in double quotes): it runs only if bash evaluates the
        text later, which the line may do (an arithmetic subscript, `${x@P}`, `read`, `printf -v`); kept to read
        then. A commit message's `rm -rf build` in backticks is text."""
        if node.type == "word" and "\\" not in (node.text or b"").decode("utf-8", errors="replace"):
            return
        value = word_value(node) if node.type != "string" else escaped_string(node)
        if node.type == "ansi_c_string" and value is None:
            # `$'a[\x24(rm f)]'` is `a[$(rm f)]`; a `\c` escape is read as unsure
            inner = (node.text or b"").decode("utf-8", errors="replace")[2:-1]
            value = ansi_c_value(inner)
            if value is None:
                value = "$(("
        if value and (any(mark in value for mark in QUOTED_LATER) or _UNSURE_EXPANSION.search(value)):
            self.quoted.append(value)

    def keep_input(self, text: Word) -> None:
        """A here-document or here-string holding `$(`: `read x <<'E'` … `a[$(rm f)]` stores it, and `(( x ))` may
        evaluate it."""
        if text and any(mark in text for mark in QUOTED_LATER):
            self.quoted.append(text)

    def resolve(self, depth: int) -> None:
        """Once the whole line is read (a nested `bash -c` is part of it): if anything on it evaluates text, the
        quoted `$(…)` it holds are read as latent commands."""
        if self.evaluates and depth < MAX_NESTING:
            for quoted in self.quoted:
                self.reader.latent_substitutions(quoted, depth)
        elif self.evaluates and self.quoted:
            self.reader.findings.unreadable()     # nested too deep to read, yet bash evaluates it
        self.quoted.clear()
