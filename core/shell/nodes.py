"""Words and text as bash reads them, from tree-sitter-bash nodes (for core/shell/parse.py): a word's value after
quote and escape removal (None when only the running shell knows it), here-documents, the substitutions inside
text bash expands, and which constructs evaluate text a variable holds."""

from __future__ import annotations

import re

from tree_sitter import Node

Word = str | None
# glob, brace or extglob pattern in an unquoted word: a brace only with a comma or a `..` sequence inside, as bash
# expands it (`stash@{2}`, find's `{}` and `{x}` stay as written), braces inside it too (`{.env,{x}}` is `.env {x}`)
PATTERN = re.compile(r"[*?\[]|[@!+]\(|\{.*(?:,|\.\.).*\}", re.S)


def command_name(word: str) -> str:
    """The command word without its folder: `/bin/rm` is `rm`."""
    return word.rstrip("/").rpartition("/")[2] or word


def word_value(node: Node) -> Word:
    """The word's value after quote removal, or None when only the running shell knows it."""
    kind, text = node.type, (node.text or b"").decode("utf-8", errors="replace")
    if kind in ("word", "number"):
        return None if PATTERN.search(re.sub(r"\\.", "", text)) else unescape(text)
    if kind == "raw_string":
        return text[1:-1]
    if kind == "ansi_c_string":
        if "\\" not in text:
            return text[2:-1]
        # `cat $'\x2eenv'` names .env; a byte past ASCII is bash's raw byte, not this character: unknown
        value = ansi_c_value(text[2:-1])
        return value if value is not None and value.isascii() else None
    if kind == "string":
        parts: list[str] = []
        for child in node.children:
            if child.type == "string_content":
                parts.append(re.sub(r"\\([\\$`\"\n])", r"\1", (child.text or b"").decode("utf-8", errors="replace")))
            elif child.type != '"':
                return None
        return "".join(parts)
    if kind == "concatenation":
        words = [word_value(child) for child in node.children]
        # tree-sitter splits `.e{n..n}v` into `{`, `n..n`, `}`: the braces are read across the unquoted parts
        unquoted = "".join((child.text or b"").decode("utf-8", errors="replace") if child.type in ("word", "number")
                           else "\0" for child in node.children)
        if any(w is None for w in words) or PATTERN.search(re.sub(r"\\.", "", unquoted)):
            return None
        return "".join(w for w in words if w is not None)
    if kind == "command_name":
        return word_value(node.children[0]) if len(node.children) == 1 else None
    return None


def may_be_several(node: Node) -> bool:
    """Whether bash may make an argument whose value is only known when it runs several words, or none: an unquoted
    expansion, substitution or pattern is split at blanks and globbed (`-n $N` with N='1 rm' is `-n 1 rm`), and so
    are `"$@"` and `"${a[@]}"`; any other quoted text is one word."""
    kind = node.type
    if kind in ("raw_string", "ansi_c_string", "process_substitution"):
        return False
    if kind in ("string", "translated_string"):
        return b"@" in (node.text or b"")
    if kind == "concatenation":
        return any(may_be_several(child) if child.type != "word" else PATTERN.search(
            re.sub(r"\\.", "", (child.text or b"").decode("utf-8", errors="replace"))) is not None
            for child in node.children)
    return True


_ANSI_C = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
           "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def ansi_c_value(inner: str) -> str | None:
    """The text of `$'…'` (its inside given) as bash decodes it: `\\x24`, `\\044`, `\\u0024` are `$`; None for
    `\\c` (a control character bash reads its own way)."""
    out: list[str] = []
    i = 0
    while i < len(inner):
        char = inner[i]
        if char != "\\" or i + 1 >= len(inner):
            out.append(char)
            i += 1
            continue
        code = inner[i + 1]
        if code in _ANSI_C:
            out.append(_ANSI_C[code])
            i += 2
        elif code in "01234567":
            digits = re.match(r"[0-7]{1,3}", inner[i + 1:]).group(0)       # type: ignore[union-attr]
            out.append(chr(int(digits, 8) & 0xFF))
            i += 1 + len(digits)
        elif code in "xuU":
            found = re.match(r"[0-9A-Fa-f]{1,%d}" % {"x": 2, "u": 4, "U": 8}[code], inner[i + 2:])
            if found is None:
                out.append(inner[i:i + 2])
                i += 2
                continue
            value = int(found.group(0), 16)
            if value > 0x10FFFF:
                return None
            out.append(chr(value))
            i += 2 + len(found.group(0))
        elif code == "c":
            return None
        else:
            out.append(inner[i:i + 2])
            i += 2
    text = "".join(out)
    return text.partition("\0")[0]       # bash ends the text at a NUL


def unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text.replace("\\\n", ""), flags=re.DOTALL)


def heredoc_quoted(node: Node) -> bool:
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    delimiter = (start.text or b"").decode("utf-8", errors="replace") if start is not None else ""
    return any(mark in delimiter for mark in ("'", '"', "\\"))          # 'EOF', "EOF", \EOF, E"OF"


def heredoc_text(node: Node) -> Word:
    """A here-document's body as the command reads it, or None when the shell expands something in it."""
    body = next((c for c in node.children if c.type == "heredoc_body"), None)
    if body is None:
        return ""
    text = (body.text or b"").decode("utf-8", errors="replace")
    if heredoc_quoted(node):
        return text
    if any(c.type not in ("heredoc_content",) for c in body.children) or "`" in text:
        return None                       # $X, $(…), `…` inside: known only when it runs
    return re.sub(r"\\([\\$`])", r"\1", text)       # in a here-document only these are escaped


def heredoc_delimiter(node: Node) -> str | None:
    """The line that ends a here-document as bash reads it: the word after `<<` with its quotes removed
    (`E"F"`, `E'F'` and `E\\F` are all `EF`), read from the text, since tree-sitter may keep the quotes or split
    the word; None when it cannot be read plainly (`$'…'`, an unclosed quote)."""
    operator = next((c for c in node.children if c.type in ("<<", "<<-")), None)
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    if operator is None or start is None:
        return None
    text = (node.text or b"").decode("utf-8", errors="replace")[operator.end_byte - node.start_byte:]
    i = len(text) - len(text.lstrip(" \t"))
    out: list[str] = []
    while i < len(text) and text[i] not in " \t\n;&|<>()":
        char = text[i]
        if char == "$" and text[i + 1:i + 2] in ("'", '"'):
            return None
        if char == "\\":
            out.append(text[i + 1:i + 2])
            i += 2
        elif char == "'":
            end = text.find("'", i + 1)
            if end < 0:
                return None
            out.append(text[i + 1:end])
            i = end + 1
        elif char == '"':
            j, part = i + 1, []
            while j < len(text) and text[j] != '"':
                if text[j] == "\\" and text[j + 1:j + 2] in ('"', "\\", "$", "`"):
                    j += 1
                part.append(text[j])
                j += 1
            if j >= len(text):
                return None
            out.append("".join(part))
            i = j + 1
        else:
            out.append(char)
            i += 1
    return "".join(out)


def heredoc_read_as_bash(node: Node, source: bytes) -> bool:
    """Whether the here-document ends where bash ends it: at the first line that is bash's delimiter (`<<-`: after
    leading tabs). `cat <<E"F"` ends at `EF` for bash, at `E"F"` for tree-sitter: the lines between are commands;
    tree-sitter also ends one at a line `E && …`, which bash reads as text of it."""
    delimiter = heredoc_delimiter(node)
    if delimiter is None:
        return False
    strip = any(c.type == "<<-" for c in node.children)
    body = next((c for c in node.children if c.type == "heredoc_body"), None)
    end = next((c for c in node.children if c.type == "heredoc_end"), None)
    lines = (body.text or b"").decode("utf-8", errors="replace").split("\n") if body is not None else []
    if any((line.lstrip("\t") if strip else line) == delimiter for line in lines):
        return False
    if end is not None:
        ended = (end.text or b"").decode("utf-8", errors="replace")
        return (ended.lstrip("\t") if strip else ended) == delimiter and \
            source[end.end_byte:end.end_byte + 1] in (b"", b"\n")
    return True


def herestring_text(node: Node) -> Word:
    word = next((c for c in node.children if c.is_named), None)
    return word_value(word) if word is not None else None


def redirect_words(statement: Node) -> list[Node]:
    """The words tree-sitter hangs on a statement's redirections after their target (`exec 2>/dev/null rm f`,
    `git >/dev/null push`, `cat <<E a b`). A redirection takes one word; bash reads the words after it as the
    command's arguments."""
    out: list[Node] = []
    redirects = [c for c in statement.children if c.type in ("file_redirect", "heredoc_redirect")]
    for node in redirects:
        if node.type == "file_redirect":
            out += node.children_by_field_name("destination")[1:]
        else:
            out += node.children_by_field_name("argument")
            redirects += [c for c in node.children if c.type == "file_redirect"]    # `<<E >f rm x`
    return sorted(out, key=lambda n: n.start_byte)


_INPUT_OPERATORS = frozenset({"<", "<>", "<&", "<&-"})


def standard_input(command: Node) -> Word:
    """What a command reads on standard input as bash sets it up: the last redirection of descriptor 0 wins
    (`bash <<< 'ls' <<< 'rm f'` runs `rm f`, `bash <<< 'ls' < s.sh` runs s.sh). The text of a here-document or
    here-string; "" when nothing redirects it; None when it is a file, a descriptor or made when it runs."""
    kind, value = input_redirect(command)
    return value if kind in ("", "text") else None


def input_redirect(command: Node) -> tuple[str, Word]:
    """The last redirection of a command's descriptor 0, as (kind, value): ("", "") when none; ("text", its text)
    for a here-document or here-string, ("file", its name) for `< FILE`, ("other", None) for a descriptor (`<&3`);
    a value only known when the line runs is None."""
    nodes = list(command.children)
    element = command
    # tree-sitter hangs a redirection after `a && b` or `a | b` on the list or pipeline; bash gives it to `b`
    # (the last of them: its next sibling, not the parent's children listed, which was quadratic in a long pipeline)
    while element.parent is not None and element.parent.type in ("list", "pipeline") and \
            element.next_named_sibling is None:
        element = element.parent
    parent = element.parent
    if parent is not None and parent.type == "redirected_statement":
        body = parent.child_by_field_name("body")
        if body is not None and body.id == element.id:
            nodes += parent.children
    redirects: list[Node] = []
    for node in nodes:
        if node.type in ("heredoc_redirect", "herestring_redirect", "file_redirect"):
            redirects.append(node)        # the parser nests a redirection written after `<<E` in it
            redirects += [c for c in node.children if c.type in ("herestring_redirect", "file_redirect")]
    last: Node | None = None
    operator = ""
    for node in sorted(redirects, key=lambda n: n.start_byte):
        descriptor = next((c for c in node.children if c.type == "file_descriptor"), None)
        given = next((c.type for c in node.children if not c.is_named), "")
        if (descriptor is None or descriptor.text == b"0") and (node.type != "file_redirect"
                                                                or given in _INPUT_OPERATORS):
            last, operator = node, given
    if last is None:
        return "", ""
    if last.type == "heredoc_redirect":
        return "text", heredoc_text(last)
    if last.type == "herestring_redirect":
        return "text", herestring_text(last)
    target = last.child_by_field_name("destination")
    if operator in ("<", "<>") and target is not None and target.type != "number":
        return "file", word_value(target)
    return "other", None


def declaration_words(node: Node, *, listed: bool = False) -> list[Word]:
    """`export A='x' B`, `declare -n v=PAGER`, `unset A`: the keyword, then each word as `NAME=VALUE` or as
    written; `NAME` where only the value is known when it runs; None where the name is (`export "$A"`, `export
    ${V}F=…`). `listed`: the words as the command a rule matches, where an assignment whose value or subscript is
    known only when it runs is None (`export X=$Y` is not `export X`)."""
    words: list[Word] = [(node.children[0].text or b"").decode("utf-8", "replace") if node.children else ""]
    for child in node.children[1:]:
        if child.type == "variable_assignment":
            name, value = child.child_by_field_name("name"), child.child_by_field_name("value")
            known = word_value(value) if value is not None else ""
            named = (name.text or b"").decode("utf-8", "replace") if name else ""
            if listed and (known is None or name is None or name.type != "variable_name"):
                words.append(None)
                continue
            # a value known only when it runs: the name alone, as `export NAME` (its assignment is read apart)
            words.append(named if known is None else f"{named}={known}")
        elif child.type == "variable_name":
            words.append((child.text or b"").decode("utf-8", "replace"))
        elif child.is_named:
            words.append(word_value(child))
    return words


def inside(node: Node, kind: str) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == kind:
            return True
        parent = parent.parent
    return False


def escaped_string(node: Node) -> str | None:
    """A double-quoted string's escaped `\\$(` or `` \\` ``, as the text it leaves for a later evaluation."""
    text = (node.text or b"").decode("utf-8", errors="replace")
    if "\\$" not in text and "\\`" not in text:
        return None                       # its own $( ) runs now and is read as a command already
    return re.sub(r"\\([\\$`\"])", r"\1", text[1:-1])


def substitution_texts(text: str) -> list[str] | None:
    """The insides of the `$(…)` and `` `…` `` in text, outermost first; None when one does not close."""
    found: list[str] = []
    i = 0
    while i < len(text):
        if text.startswith("$(", i) and not text.startswith("$((", i):
            depth, j = 1, i + 2
            while j < len(text) and depth:
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
            if depth:
                return None
            found.append(text[i + 2:j - 1])
            i = j
        elif text[i] == "`":
            end = text.find("`", i + 1)
            if end < 0:
                return None
            found.append(text[i + 1:end])
            i = end + 1
        else:
            i += 1
    return found


def backticks(source: bytes) -> list[int]:
    """Byte offsets of the backticks bash would see (a backslash-escaped one is a character)."""
    return [m.start(1) for m in re.finditer(rb"(?<!\\)(?:\\\\)*(`)", source)]


# Commands that evaluate text a variable holds: an arithmetic subscript runs its `$(…)`; `declare -a a='(…)'` reads
# a quoted value as an array's text, its `$(…)` included (so do `local`, `typeset`, `readonly` and `export -a`).
_EVALUATING_COMMANDS = frozenset({"let", "declare", "typeset", "local", "readonly", "printf", "read", "test", "[",
                                  "mapfile", "readarray", "set", "unset"})


def evaluating(words: list[Word]) -> bool:
    """Whether the simple command (as bash runs it, after `builtin`, `command` …) evaluates text a variable holds."""
    name = command_name(words[0] or "") if words else ""
    if name == "export":                  # only an array's value is evaluated: `export -a a='($(…))'`
        return any(w is None or (w.startswith("-") and ("a" in w or "A" in w)) for w in words[1:])
    return name in _EVALUATING_COMMANDS


def evaluates(node: Node) -> bool:
    """Whether the node evaluates text a variable holds: an arithmetic (`$(( ))`, `(( ))`, `for (( ))`, an indexed
    array's subscript `${a[i]}` `a[i]=` `a=([i]=…)`, an offset `${x:i}`), a test, `${!x}`, `${x@P}`, a declaration
    or an `unset` (which tree-sitter does not make commands). A simple command: `evaluating`, for each command it
    runs (core/shell/command.py)."""
    kind = node.type
    if kind in ("arithmetic_expansion", "test_command", "c_style_for_statement", "subscript", "unset_command"):
        return True
    if kind == "declaration_command":
        return evaluating(declaration_words(node))
    text = (node.text or b"")[:3]
    if kind == "compound_statement" and text.startswith(b"(("):
        return True
    if kind == "array" and b"[" in (node.text or b""):
        return True                       # `a=([i]=1)`: i is an arithmetic for an indexed array
    if kind == "expansion":
        whole = (node.text or b"")
        # `${x:i}`, `${x:i:n}`: the offset and length are arithmetic (a child `:`, not `:-` `:=` `:+` `:?`)
        return whole.startswith(b"${!") or b"@P" in whole or any(c.type == ":" for c in node.children)
    return False
