"""The simple commands of a Bash line as it is written, quotes, globs and `$(…)` kept, each once and in order: the
permission dialog's "runs" line, which names what a long line runs before anything scrolls.

A command inside another (in `$(…)`, or the one a wrapper runs: `xargs grep -n def`, `sudo rm f`) is part of that
one's text and not listed again; a command written on the line takes its redirections along (`cat > f <<'EOF'`).
What the parse (core/shell/parse.py) finds that no written command holds — a script a shell reads from a
here-document (`bash <<EOF`) — is listed from its words, after the command that runs it."""

from __future__ import annotations

import re
import shlex

from tree_sitter import Node

from contextual.core.shell.parse import parse_command
from contextual.core.shell.walk import bash_parser

_UNQUOTED = str.maketrans("", "", "'\"\\")       # a word as the parse gives it has these removed
_CONTINUATION = re.compile(r"([ \t]*)\\\n([ \t]*)")


def commands_as_written(text: str) -> tuple[str, ...]:
    source = text.encode("utf-8", errors="replace")
    written: list[str] = []
    redirections: dict[int, str] = {}     # by the command they follow
    stack = [bash_parser().parse(source).root_node]
    while stack:                          # iterative: a deeply nested line must not exhaust Python's stack
        node = stack.pop()
        if node.type == "redirected_statement":
            target = _redirected(node)
            if target is not None:
                redirections[target.id] = _redirections(node)
        if node.type == "command":
            written.append(_one_line(" ".join(p for p in (_text(node), redirections.get(node.id, "")) if p)))
        else:
            stack.extend(reversed(node.children))
    after: dict[int, list[str]] = {}      # what the parse found that no written command holds, by the one before it
    at = -1                               # the written command the parse reached last
    for words in parse_command(text).commands:
        known = [w for w in words if w]
        holder = next((i for i in range(max(at, 0), len(written)) if _holds(written[i], known)), None)
        if holder is not None:
            at = holder
        elif known:
            after.setdefault(at, []).append(shlex.join(known))
    shown = after.get(-1, [])
    for i, command in enumerate(written):
        shown += [command, *after.get(i, [])]
    return tuple(dict.fromkeys(shown))


def _holds(written: str, words: list[str]) -> bool:
    """Whether a written command holds every word the parse read (its quotes and escapes left out of both)."""
    bare = written.translate(_UNQUOTED)
    return all(w.translate(_UNQUOTED) in bare for w in words)


def _redirected(statement: Node) -> Node | None:
    """The command a statement's redirections follow: its body, or the last command of a list or pipeline (where
    tree-sitter hangs `a && cat > f` 's redirection on the list; bash gives it to `cat`)."""
    node = statement.child_by_field_name("body")
    while node is not None and node.type in ("list", "pipeline") and node.children:
        node = node.children[-1]
    return node if node is not None and node.type == "command" else None


def _redirections(statement: Node) -> str:
    """The redirections as written (`> f`, `2>&1`), a here-document by its start (`<<'EOF'`), not its body."""
    parts = []
    for child in statement.children:
        if child.type == "heredoc_redirect":
            parts.append("".join(_text(c) for c in child.children if c.type in ("<<", "<<-", "heredoc_start")))
        elif child.type in ("file_redirect", "herestring_redirect"):
            parts.append(_text(child))
    return " ".join(parts)


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def _one_line(text: str) -> str:
    """Continued lines joined as bash joins them; a line end kept in quotes shown as ↵."""
    return _CONTINUATION.sub(lambda m: " " if m.group(1) or m.group(2) else "", text).replace("\n", "↵")
