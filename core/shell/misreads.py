"""Where tree-sitter and bash read a line apart (for core/shell/walk.py), found by running random lines in bash
against the parse: a node whose text bash reads otherwise, and a `$(`, `${`, `$[`, `<(` or `>(` that
bash expands where the tree reads text. A line holding one is not read (core/shell/findings.py: misparsed)."""

from __future__ import annotations

import re

from tree_sitter import Node

from contextual.core.shell.nodes import backticks

_WORD_ENDS = b" \t\n;&|()<>`"         # what ends a word for bash (a backtick: the end of `…` around it)
# Where a `<(` is text to bash, not a process substitution: quotes, here-documents, arithmetic
_NO_PROCESS_SUBSTITUTION = frozenset({"string", "heredoc_body", "arithmetic_expansion", "c_style_for_statement",
                                      "subscript", "raw_string", "ansi_c_string", "translated_string", "comment"})
_UNESCAPED = rb"(?<!\\)(?:\\\\)*"
# `$(`, `$[` and `${` but a plain `${NAME}` (which runs and evaluates nothing); `<(` and `>(`
_EXPANSION = re.compile(_UNESCAPED + rb"(\$(?:[(\[]|\{(?![A-Za-z_][A-Za-z0-9_]*\})))")
_PROCESS_SUBSTITUTION = re.compile(_UNESCAPED + rb"([<>]\()")


def misread_node(node: Node, source: bytes) -> bool:
    """Whether bash reads this node's text otherwise than tree-sitter does."""
    kind, text = node.type, node.text or b""
    if kind == "command_substitution":
        # bash ends `…` at its first backtick, quoted or in a here-document; a `$((…))` is an arithmetic to bash,
        # whose quotes and here-documents are text (a `…` in them runs)
        return (text.startswith(b"`") and bool(backticks(text[1:-1]))) or _arithmetic_to_bash(text)
    if kind == "comment":
        return not _comment_to_bash(source, node.start_byte)      # `echo a]\ #; rm f`: `#` in a word
    if kind in ("raw_string", "ansi_c_string"):
        return not _quote_closes_at_end(text)     # `echo x$'\\'; rm f #'`: run past its quote
    # `>\  rm f`, `x=\  rm f`: the target or value is ` ` to bash, `rm` to tree-sitter; `>$ rm f`: `$` alone
    if kind in ("file_redirect", "herestring_redirect", "simple_expansion", "variable_assignment") and \
            _parts_apart(node, source):
        return True
    # `>$'$'\$ rm f`, `x=$'$'\$ rm f`: bash's word is `$$`, tree-sitter's `$` (and `\$` the command)
    return kind in ("file_redirect", "herestring_redirect", "variable_assignment") and \
        node.end_byte < len(source) and source[node.end_byte:node.end_byte + 1] not in _WORD_ENDS


def unread_positions(root: Node, source: bytes, literal: list[tuple[int, int]], expanded: set[int]) -> bool:
    """Whether a `$(`, `${`, `$[` (`expanded`: where the tree reads one) or a process substitution bash expands
    lies outside the text spans (`literal`) and is not read: tree-sitter drops a here-document's `$(` on a line
    starting with a blank, reads `${x:-<(rm f)}` and `[[ a<(rm f) ]]` as text."""
    def quoted(at: int) -> bool:
        return any(a <= at < b for a, b in literal)
    return any(at not in expanded and not quoted(at) for at in _starts(_EXPANSION, source)) or any(
        not quoted(at) and not _process_substitution_read(root, at)
        for at in _starts(_PROCESS_SUBSTITUTION, source))


def _starts(pattern: re.Pattern[bytes], source: bytes) -> list[int]:
    return [m.start(1) for m in pattern.finditer(source)]


def _arithmetic_to_bash(text: bytes) -> bool:
    """Whether a `$((…))` tree-sitter reads as a substitution of a subshell is an arithmetic to bash: its inner
    `(…)` is followed at once by `)` (`$((ls); (rm f))` is not: a substitution, as tree-sitter reads it)."""
    if not text.startswith(b"$(("):
        return False
    depth = 1
    for at in range(3, len(text)):
        depth += {40: 1, 41: -1}.get(text[at], 0)
        if depth == 0:
            return text[at + 1:at + 2] == b")"
    return False


def _process_substitution_read(root: Node, at: int) -> bool:
    """Whether the `<(` or `>(` at this byte is read as tree-sitter reads it: a process substitution starting
    there, or text where bash runs none (in quotes, a here-document, an arithmetic)."""
    node = root.descendant_for_byte_range(at, at + 2)
    while node is not None:
        if node.type in ("process_substitution", "command_substitution"):
            return node.start_byte == at      # inside `$(…)` or another `<(…)` it is code again
        if node.type == "expansion":
            return False                      # `"${x:?<(rm f)}"`, `"${x/a/<(rm f)}"`: bash runs it, quoted too
        if node.type in _NO_PROCESS_SUBSTITUTION or (
                node.type == "compound_statement" and (node.text or b"").startswith(b"((")):
            return True
        node = node.parent
    return False


def _quote_closes_at_end(text: bytes) -> bool:
    """Whether a `'…'` or `$'…'` ends at its first closing quote, as bash ends it (in `$'…'` a backslash escapes
    the next character)."""
    ansi_c = text.startswith(b"$'")
    at = 2 if ansi_c else 1
    while at < len(text):
        if ansi_c and text[at:at + 1] == b"\\":
            at += 2
            continue
        if text[at:at + 1] == b"'":
            return at == len(text) - 1
        at += 1
    return False


def _comment_to_bash(source: bytes, at: int) -> bool:
    """Whether bash starts a comment at this `#`: at a word's start, after an unescaped blank or an operator."""
    before = source[:at]
    if not before or before[-1:] in b"\n;&|()<>`":
        return True
    if before[-1:] not in b" \t":
        return False
    return (len(before) - 1 - len(before[:-1].rstrip(b"\\"))) % 2 == 0     # `\ #`: the blank is escaped


def _parts_apart(node: Node, source: bytes) -> bool:
    """Whether something but blanks lies between a redirection's parts, or anything between a `$` and its name or
    an assignment's name, `=` and value."""
    gaps = [source[a.end_byte:b.start_byte] for a, b in zip(node.children, node.children[1:])]
    if node.type in ("simple_expansion", "variable_assignment"):
        return any(gaps)
    return any(gap.strip(b" \t") for gap in gaps)
