"""The files `patch`, `git apply` and `git am` write (for writes.py): those a diff names in its headers
(`diff --git a/X b/Y`, `--- X`, `+++ Y`, `*** X` of a context diff, `Index: X`, `rename from|to X`, `copy to X`;
every name a header gives counts, whichever the program picks, and its first word too, where patch ends a name; a
diff indented whole, or with `- ` before its lines, as patch reads it; `/dev/null` is none), less the leading folders
-p strips. The diff is read where the line says it is now: a file on disk, a here-document or here-string; anywhere
else (a pipe, a file not there yet, a diff longer than DIFF_BYTES, a mail git am decodes or a series of patches
naming other files) it may name any path below the folder the program runs in."""

from __future__ import annotations

import codecs
import os
import re

from contextual.core.bash_files.reads import in_folders
from contextual.core.bash_files.write_programs import GIT_AM, GIT_AM_RESUMES, GIT_APPLY, GIT_APPLY_REPORTS, PROGRAMS
from contextual.core.bash_files.write_words import ANY, Found, read_options
from contextual.core.regular_file import read_regular
from contextual.core.shell.findings import Input
from contextual.core.shell.nodes import Word

DIFF_BYTES = 1_000_000        # read of a diff; a longer one may name any path
_INDENT = r"^[ \t]*(?:- )?"   # patch reads a diff indented whole, or quoted as RFC 934 does (`- --- a/x`)
_HEADER = re.compile(_INDENT + r"(?:--- |\+\+\+ |\*\*\* |Index: |rename from |rename to |copy to )(.+)$", re.M)
_GIT_HEADER = re.compile(_INDENT + r"diff --git (.+)$", re.M)
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
# what git am decodes before it reads the diff (base64, quoted-printable, format=flowed lines joined), or a StGit
# series naming the patch files it applies: the diff's names are not in the text as it is
_AM_UNREAD = re.compile(r"^content-transfer-encoding:(?![ \t]*(?:7bit|8bit|binary)[ \t]*$)|format=flowed|"
                        r"^# This series applies on GIT commit", re.M | re.I)


def read_diff(path: str) -> str | None:
    """The diff in a file as it is now (past DIFF_BYTES, the first bytes past them: diff_paths reads none); None
    when there is no regular file to read (a FIFO would block the check, /dev/stdin is not the program's)."""
    try:
        return read_regular(path, DIFF_BYTES + 1).decode("utf-8", errors="replace")
    except OSError:
        return None


def diff_paths(text: str, strip: int | None) -> list[str] | None:
    """The paths the diff's headers name, less `strip` leading folders (`-p1`: a/x is x); None: each way of
    stripping them (`patch` without -p may use the name whole or its last part). None for a diff longer than
    DIFF_BYTES: a header past them is not read."""
    if len(text.encode("utf-8", errors="replace")) > DIFF_BYTES:
        return None
    names = [n for m in _HEADER.finditer(text) for n in _names(m.group(1))]
    for line in _GIT_HEADER.finditer(text):
        pair = line.group(1).rstrip()
        # `a/x y b/x y`: where the two names part is not marked; each split at a blank may be it
        names += [_unquoted(part) for at, c in enumerate(pair) if c == " " for part in (pair[:at], pair[at + 1:])]
    found: list[str] = []
    for name in dict.fromkeys(n for n in names if n and n != "/dev/null"):
        parts = [p for p in name.split("/") if p]
        if strip is None or strip == 0:
            found += [name, *("/".join(parts[k:]) for k in range(1, len(parts) if strip is None else 0))]
        elif parts:
            found.append("/".join(parts[strip:]) if strip < len(parts) else parts[-1])
    return [os.path.normpath(f) for f in dict.fromkeys(found) if f]


def _names(header: str) -> list[str]:
    """The names a header's text may give: up to a tab (diff's date follows one), and its first word (patch ends
    an unquoted name at a blank, a quoted one at its closing quote: `--- ".env" x`)."""
    whole = header.split("\t")[0].rstrip()
    quoted = _QUOTED.match(whole)
    first = quoted.group(0) if quoted else whole.split(" ")[0]
    return [_unquoted(whole), _unquoted(first)]


def _unquoted(name: str) -> str:
    """git writes a name with unusual characters in C quotes: `"a/\\303\\251"`."""
    if len(name) > 1 and name[0] == name[-1] == '"':
        return codecs.escape_decode(name[1:-1].encode("utf-8"))[0].decode("utf-8", errors="replace")
    return name


def git_diff(sub: str, rest: tuple[Word, ...], given: Input, folders: list[str], folder: str) -> Found:
    """`git apply [FILE…]`, `git am [MBOX…]`: the files the diffs' headers name (-p1 unless told, after
    --directory); `git am --abort|--continue|--skip`: the patches it keeps, any of the work tree."""
    spec = GIT_APPLY if sub == "apply" else GIT_AM
    seen, valued, operands = read_options(rest, spec)
    if seen & spec.never or (sub == "apply" and seen & GIT_APPLY_REPORTS and "--apply" not in seen):
        return Found()
    formats = [v for o, v in valued if o == "--patch-format"]
    if sub == "am" and (seen & GIT_AM_RESUMES or any(f not in ("mbox", "mboxrd", "stgit", "hg") for f in formats)):
        return Found(tops=[(folder or ANY, "")])        # a series: its patches are other files
    strip = _number([v for o, v in valued if o == "-p"], 1)
    directory = next((str(v or "") for o, v in reversed(valued) if o == "--directory"), "")
    found = _diff_writes(operands, given, folders, folder, strip, directory, mail=sub == "am")
    if sub == "am":     # its diffs' names are below the work tree's top, from wherever it runs
        found.tops += [(folder or ANY, os.path.relpath(str(p), folder or ANY)) for p in found.files]
    return found


def patched(rest: tuple[Word, ...], given: Input, folders: list[str]) -> Found:
    """`patch -p1 < d.diff`, `patch -i d.diff`: the files the diff's headers name (`patch FILE` writes FILE,
    read by the table); -d DIR: below DIR."""
    spec = PROGRAMS["patch"]
    seen, valued, operands = read_options(rest, spec)
    if operands or seen & spec.never:
        return Found()
    strip = _number([v for o, v in valued if o in ("-p", "--strip")], None)
    folder = next((str(v or "") for o, v in reversed(valued) if o in ("-d", "--directory")), "")
    sources = [v for o, v in valued if o in ("-i", "--input")][-1:]
    return _diff_writes(sources, given, folders, folder, strip, "")


def _number(values: list[Word], default: int | None) -> int | None:
    """The last value given an option (`-p1`); None when it is not a number known now (each strip then)."""
    if not values:
        return default
    last = values[-1]
    return int(last) if isinstance(last, str) and last.isdigit() else None


def _diff_writes(sources: list[Word], given: Input, folders: list[str], folder: str, strip: int | None,
                 directory: str, mail: bool = False) -> Found:
    """The files a diff writes, below `folder` (where the program runs): its headers' names, read from each
    source file as it is now (standard input with none: a here-document or here-string, `< FILE`); any path
    below `folder` where the diff is not known now (a pipe, a file not there yet)."""
    texts: list[str] = []
    for source in sources or ["-"]:
        if source == "-" and given.kind == "text" and isinstance(given.value, str):
            texts.append(given.value)
            continue
        name = given.value if source == "-" and given.kind == "file" else \
            os.path.join(folder, source) if isinstance(source, str) and source != "-" else None
        read = [t for full in in_folders(name, folders) if (t := read_diff(full)) is not None] \
            if isinstance(name, str) else []
        if not read:
            return Found(trees=[folder or ANY])
        texts += read
    named = [diff_paths(text, strip) if not (mail and _AM_UNREAD.search(text)) else None for text in texts]
    if None in named:
        return Found(trees=[folder or ANY])
    return Found([os.path.join(folder, directory, p) for paths in named for p in paths or []])
