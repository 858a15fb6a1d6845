"""The walk of one Bash text's tree-sitter tree (for core/shell/parse.py): every node that runs, redirects, assigns
or declares something handed to the part that reads it, and the parse distrusted wherever tree-sitter and bash
read the text differently (a syntax error, a token across a line end, a backtick not read as a substitution; the
rest of those checks: core/shell/misreads.py)."""

from __future__ import annotations

import functools
import re
import threading

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

from contextual.core.shell.findings import Input, Reader
from contextual.core.shell.latent import LatentText
from contextual.core.shell.misreads import misread_node, unread_positions
from contextual.core.shell.languages import LANGUAGES
from contextual.core.shell.nodes import (backticks, command_name, declaration_words, heredoc_quoted,
                                        heredoc_read_as_bash, heredoc_text, herestring_text, input_redirect, inside,
                                        may_be_several, redirect_words, standard_input, Word, word_value)
from contextual.core.shell.variables import Variables
from contextual.core.shell.wrappers import WRAPPERS

_WRITE_OPERATORS = {">", ">>", ">|", "&>", "&>>", "<>"}
_NAMED_FD = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")     # `exec {fd}>file`: the shell picks a descriptor
_LITERAL_SPANS = ("raw_string", "ansi_c_string", "comment")     # where a backtick is only a character
_EXPANSIONS = frozenset({"command_substitution", "arithmetic_expansion", "expansion"})   # `$(` `$((` `$[` `${`
# Nodes whose own text is one token for bash: a line end in it, or between two of their parts, means tree-sitter
# joined what bash splits (`echo\n\\rm f`, `echo =~\nrm f`, `: <\nrm f`).
_ONE_LINE_NODES = frozenset({"command", "command_name", "word", "regex", "number", "concatenation",
                             "file_redirect", "herestring_redirect", "variable_assignment", "extglob_pattern",
                             "simple_expansion"})       # `> $`⏎`rm f`: a `$` ends its line, `rm` is a command
# Leaves tree-sitter keeps whole where bash still expands a `$(`: `${x#$(rm f)}`
_OPAQUE_LEAVES = frozenset({"regex", "extglob_pattern"})

# Nodes deeper than this make the line unreadable: each node's parent (asked of a command, its redirections, its
# pipe) is found by tree-sitter from the root down, so a line nested N deep cost N² (a checkout's script of 40,000
# `$(` held the permission check for hours; 2,000 `a && ` took 5 s). Real lines and scripts stay far below it.
MAX_TREE_DEPTH = 256

_thread = threading.local()


def bash_parser() -> Parser:
    """This thread's parser: a tree-sitter Parser is not to be shared between threads, and the permission check
    runs in a worker thread (core/engine/permission_gate.py) while the screen may parse a line for a preview."""
    parser: Parser | None = getattr(_thread, "parser", None)
    if parser is None:
        parser = _thread.parser = Parser(_language())
    return parser


@functools.cache
def _language() -> Language:
    return Language(tree_sitter_bash.language())


class TreeWalk:
    def __init__(self, reader: Reader, latent: LatentText, variables: Variables) -> None:
        self.reader = reader
        self.findings = reader.findings
        self.latent = latent
        self.variables = variables

    def walk(self, text: str, depth: int) -> None:
        source = text.encode("utf-8", errors="replace")
        root = bash_parser().parse(source).root_node
        if root.has_error:
            self.findings.syntax_error = True
            self.findings.misparsed()
        literal: list[tuple[int, int]] = []       # byte spans where a backtick or `$(` is a character or was read
        expanded: set[int] = set()                # where each `$(`, `${`, `$[` the tree reads as one starts
        listed: dict[int, tuple[Word, ...]] = {}   # each command node read so far: its words (a pipe's source)
        stack = [(root, 0)]
        while stack:                      # iterative: a deeply nested line must not exhaust Python's stack
            node, level = stack.pop()
            if level > MAX_TREE_DEPTH:
                self.findings.misparsed()
                return
            kind = node.type
            if kind == "command":
                self._command(node, depth, listed, source)
            elif kind == "redirected_statement":
                self._note_stdin(node, literal)
            elif kind == "heredoc_redirect" and not heredoc_read_as_bash(node, source):
                self.findings.misparsed()     # `cat <<E"F"`: bash ends it at `EF`, tree-sitter at `E"F"`
            elif kind == "file_redirect":
                self._redirect(node)
            elif kind == "variable_assignment":
                self._assignment(node, depth)
            elif kind == "command_substitution":
                # only a backtick pair is read here: the text inside is walked as nodes of its own (`$(cat <<E`
                # … `` `rm f` `` … `E`)`: a backtick the tree leaves as text in it is not read)
                literal += [(node.start_byte, node.start_byte + 1), (node.end_byte - 1, node.end_byte)]
                self._nested_backticks(node, depth)
            elif kind == "raw_string" and (inside(node, "string") or inside(node, "heredoc_body")):
                # "${x:-'$(rm f)'}": inside double quotes (or an unquoted here-document) a ' is a character, and
                # the $( ) runs now
                self.reader.substitutions((node.text or b"").decode("utf-8", errors="replace")[1:-1], depth)
                literal.append((node.start_byte, node.end_byte))
            elif kind in _LITERAL_SPANS:
                literal.append((node.start_byte, node.end_byte))
            elif kind == "declaration_command":
                self.variables.declared(declaration_words(node), depth)
                self._declaration(node, listed)
            elif kind == "unset_command":
                self._declaration(node, listed)
            elif kind == "function_definition" and (named := node.child_by_field_name("name")) is not None:
                self.findings.functions.append((named.text or b"").decode("utf-8", errors="replace"))
            elif kind == "expansion":
                self.variables.expansion((node.text or b"").decode("utf-8", "replace"))
            elif kind == "for_statement":
                variable = node.child_by_field_name("variable")
                if variable is not None:
                    self.variables.loop((variable.text or b"").decode())
            if kind in ("raw_string", "string", "ansi_c_string", "concatenation", "word"):
                self.latent.keep_quoted(node)
            if kind in ("redirected_statement", "function_definition") and redirect_words(node) and \
                    getattr(node.child_by_field_name("body"), "type", "") != "command":
                self.findings.misparsed()   # `ls | exec >f rm x`: bash gives exec the words, tree-sitter the pipeline
            if kind in _ONE_LINE_NODES and _spans_a_line_end(node, source):
                self.findings.misparsed()
            if kind in _OPAQUE_LEAVES and b"$(" in (node.text or b""):
                self.findings.misparsed()
            if misread_node(node, source):
                self.findings.misparsed()
            if kind in _EXPANSIONS:
                expanded.add(node.start_byte)
            self.latent.note_node(node)
            stack.extend((child, level + 1) for child in reversed(node.children))
        if any(not any(a <= at < b for a, b in literal) for at in backticks(source)):
            self.findings.misparsed()     # `${x:-`rm f`}`, an unquoted here-document's `…`: not read as code
        if unread_positions(root, source, literal, expanded):
            self.findings.misparsed()     # a `$(` or `<(` bash runs that the tree reads as text

    def _nested_backticks(self, node: Node, depth: int) -> None:
        """Inside `…`, bash turns \\` into a backtick and reads the text again: `echo \\`rm f\\``."""
        text = (node.text or b"").decode("utf-8", errors="replace")
        if text.startswith("`") and "\\`" in text:
            self.reader.script(re.sub(r"\\([\\`$])", r"\1", text[1:-1]), depth + 1)

    def _redirect(self, node: Node) -> None:
        operator = next((c.type for c in node.children if not c.is_named), "")
        target = node.child_by_field_name("destination")
        if operator in (">&", "<&", ">&-", "<&-") and (target is None or target.type == "number"
                                                      or word_value(target) == "-"):
            return                        # a descriptor copied or closed: 2>&1
        named = word_value(target) if target is not None else None
        if named:
            self.findings.redirected.append(named)
        if operator in _WRITE_OPERATORS or operator == ">&":
            if target is None or word_value(target) != "/dev/null":
                self.findings.writes_files = True
            if named:
                self.findings.written.append(named)
            if named is None:
                self.findings.writes_unknown = True

    def _note_stdin(self, node: Node, literal: list[tuple[int, int]]) -> None:
        """A quoted here-document's body is text, not code; a here-document or here-string holding `$(` is kept
        in case the line evaluates what `read` stores from it. What a command reads: `standard_input`."""
        for child in node.children:
            if child.type == "heredoc_redirect" and heredoc_quoted(child):
                literal.extend((c.start_byte, c.end_byte) for c in child.children if c.type == "heredoc_body")
        body = node.child_by_field_name("body")
        if body is None or body.type != "command":
            return
        for child in node.children:
            self.latent.keep_input(heredoc_text(child) if child.type == "heredoc_redirect" else
                                   herestring_text(child) if child.type == "herestring_redirect" else None)

    def _assignment(self, node: Node, depth: int) -> None:
        name_node, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        name = (name_node.text or b"").decode("utf-8", errors="replace") if name_node is not None else ""
        self.variables.assign(name.partition("[")[0], word_value(value) if value is not None else "", depth)

    def _declaration(self, node: Node, listed: dict[int, tuple[Word, ...]]) -> None:
        """`export X=1`, `declare -x`, `unset X`: a command as any other for the rules (`Bash(export:*)`), though
        tree-sitter makes it no `command` node. What its values run is read as their nodes are; what the variables
        it sets change: core/shell/variables.py."""
        words = tuple(declaration_words(node, listed=True))
        listed[node.id] = words
        self.findings.listed(words, _input(node, listed))

    def _command(self, node: Node, depth: int, listed: dict[int, tuple[Word, ...]], source: bytes) -> None:
        name = node.child_by_field_name("name")
        if name is None:                  # assignments only
            return
        arguments = node.children_by_field_name("argument")
        if arguments and _NAMED_FD.fullmatch((arguments[-1].text or b"").decode("utf-8", errors="replace")) \
                and node.parent is not None and node.parent.type == "redirected_statement":
            arguments = arguments[:-1]    # `exec {fd}>lock`: the descriptor's name, not an argument
        if node.parent is not None and node.parent.type == "redirected_statement":
            arguments += redirect_words(node.parent)    # `exec 2>/dev/null rm f`: tree-sitter reads rm as a target
        parts = [name, *node.children_by_field_name("argument")]
        if any(a.end_byte == b.start_byte for a, b in zip(parts, parts[1:])):
            self.findings.misparsed()     # `cat {\.env,x}`: tree-sitter splits at `{\` what bash reads as one word
        words = [word_value(name)]
        for arg in arguments:
            words.append(word_value(arg))
            if words[-1] is None and _unwrapped(words[0]) and may_be_several(arg) and not _descriptor(arg, source):
                words.append(None)        # `nice -n $N echo f`: N='1 rm' shifts which word is the command
        listed[node.id] = tuple(words)
        self.reader.add(words, depth, standard_input(node), _input(node, listed))


def _input(command: Node, listed: dict[int, tuple[Word, ...]]) -> Input:
    """What the command reads on standard input: a redirection's, else the output of the command before a `|`
    (its words when it is a simple command read already; `|&` sends its errors too: "other")."""
    kind, value = input_redirect(command)
    if kind:
        return Input(kind, value)
    element = command.parent if command.parent is not None and command.parent.type == "redirected_statement" \
        else command
    before = element.prev_sibling
    if element.parent is None or element.parent.type != "pipeline" or before is None:
        return Input()
    if before.type != "|":
        return Input("other", None)
    source = before.prev_sibling
    if source is not None and source.type == "redirected_statement":
        source = source.child_by_field_name("body")
    return Input("pipe", None, listed.get(source.id, ()) if source is not None else ())


def _descriptor(arg: Node, source: bytes) -> bool:
    """Whether the argument is `$fd` (or `${fd}`) for a descriptor `{fd}>FILE` opened on the line, and the line
    spells fd nowhere else (it may set it otherwise: `fd='1 rm'`, `printf -vfd …`) nor IFS: then it holds the
    number bash picked, one word (`exec {fd}>lock; flock -n $fd`)."""
    found = re.fullmatch(rb"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})", arg.text or b"")
    if found is None:
        return False
    name = found.group(1) or found.group(2)
    opened = len(re.findall(rb"(?<!\$)\{" + name + rb"\}[<>]", source))
    used = len(re.findall(rb"\$" + name + rb"(?![A-Za-z0-9_])|\$\{" + name + rb"\}", source))
    return opened > 0 and source.count(name) == opened + used and b"IFS" not in source    # `IFS=1` splits 10


def _unwrapped(word: Word) -> bool:
    """Whether the command's words are read by position for what it runs in turn: a wrapper's or a language's."""
    return word is not None and (command_name(word) in WRAPPERS or command_name(word) in LANGUAGES)


def _spans_a_line_end(node: Node, source: bytes) -> bool:
    """A leaf with a line end in it, or one between two of the node's parts (strings and here-documents, which
    hold line ends, are not such nodes)."""
    if node.child_count == 0:
        return b"\n" in (node.text or b"")
    children = node.children
    return any(b"\n" in source[a.end_byte:b.start_byte] for a, b in zip(children, children[1:]))
