"""Command-aware digests of command output (the Bash row's "summary" of stdout, A3).

A bare "summary + stderr tail" loses what agents use later when stdout and stderr arrive merged
(a `cat`, a `grep`, a `pytest` run through Bash). So the digest depends on what the command was:
each kind keeps the lines that carry paths, definitions, line numbers or failures, and lists the
names found in the lines it dropped, so a later step can still refer to them.
"""

from __future__ import annotations

import keyword
import re
import shlex
from dataclasses import dataclass
from typing import Callable, Iterable

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]{3,}")
_DEF = re.compile(r"^\s*(?:\d+[:\s-]+)?\s*(?:async\s+def|def|class|function|func|fn|interface|struct|enum|type|module|@\w)")
_IMPORT = re.compile(r"^\s*(?:\d+[:\s-]+)?\s*(?:from\s+\S+\s+import|import\s|#include|require\(|use\s)")
_FAIL = re.compile(r"(?:Error|Exception|FAIL|FAILED|ERROR|Traceback|assert|Assertion|Warning|error:|failed|passed|"
                   r"File \"|line \d+|^E\s|^>\s|^-+ |^=+ )")
_GREP_REF = re.compile(r"^([^\s:]+\.[A-Za-z0-9]+|[^\s:]+/[^\s:]+):(\d+)[:-]")
_NUMBERED = re.compile(r"^\s*(\d+)[\t:\s]")

VIEW_PROGRAMS = {"cat", "sed", "head", "tail", "nl", "less", "more", "awk", "bat"}
SEARCH_PROGRAMS = {"grep", "rg", "ag", "ack", "egrep", "fgrep", "find", "ls", "tree", "locate", "fd"}
TEST_WORDS = ("pytest", "runtests", "unittest", "tox", "nosetests", "make test", "npm test", "go test", "cargo test")


@dataclass(frozen=True)
class Limits:
    head: int          # first lines kept verbatim
    tail: int          # last lines kept verbatim
    keep: int          # lines kept because of what they are (definitions, matches, failures)
    names: int         # names listed from the dropped lines
    whole_lines: int   # output this short is kept whole
    whole_chars: int


NORMAL = Limits(head=3, tail=3, keep=20, names=200, whole_lines=24, whole_chars=1_600)
HARD = Limits(head=2, tail=2, keep=12, names=60, whole_lines=6, whole_chars=400)


def program_of(command: str) -> str:
    """The program a shell command mostly is about: the last stage of its first pipeline that matters."""
    first = re.split(r"&&|\|\||;", command.strip(), maxsplit=1)[0]
    stages = [s.strip() for s in first.split("|") if s.strip()]
    for stage in stages:
        try:
            words = shlex.split(stage)
        except ValueError:
            words = stage.split()
        words = [w for w in words if "=" not in w or w.startswith("-")]
        if words and words[0] in ("cd", "sudo", "env", "time", "timeout"):
            words = words[1:]
        if not words:
            continue
        prog = words[0].rsplit("/", 1)[-1]
        if prog in ("python", "python3") and len(words) > 2 and words[1] == "-m":
            return words[2]
        return prog
    return ""


def kind_of(command: str) -> str:
    lowered = command.lower()
    if any(word in lowered for word in TEST_WORDS):
        return "test"
    prog = program_of(command)
    if prog in VIEW_PROGRAMS:
        return "view"
    if prog in SEARCH_PROGRAMS or "git grep" in lowered:
        return "search"
    if prog in ("git",) and " diff" in lowered:
        return "diff"
    return "other"


KEYWORDS = frozenset(keyword.kwlist) | {"self", "None", "True", "False", "print", "isinstance", "return"}
_BACKTICKED = re.compile(r"`([^`\n]{4,80})`")


def looks_like_code(name: str) -> bool:
    """A name in prose that is a path, a dotted name, snake_case, CamelCase or has digits: not an English word."""
    return (any(c in name for c in "_./") or any(c.isdigit() for c in name)
            or any(c.isupper() for c in name[1:]))


def known_names(text: str) -> set[str]:
    return {n.rstrip("./-") for n in IDENT.findall(text)}


def names_in(lines: Iterable[str], seen: set[str], limit: int | None = None, *, prose: bool = False) -> list[str]:
    """Distinct names in `lines` not in `seen` (which grows), in order of first appearance.
    In prose only code-like names and `backticked` ones count; in code every non-keyword name does."""
    out: list[str] = []
    for line in lines:
        quoted = {q for q in _BACKTICKED.findall(line)} if prose else set()
        for raw in IDENT.findall(line):
            name = raw.rstrip("./-")
            if len(name) < 4 or name in seen or name in KEYWORDS:
                continue
            if prose and not (looks_like_code(name) or any(name in q for q in quoted)):
                continue
            seen.add(name)
            out.append(name)
            if limit is not None and len(out) >= limit:
                return out
    return out


def _select(lines: list[str], keep_line: Callable[[str], bool], limits: Limits) -> tuple[list[int], list[int]]:
    """Indices kept verbatim (head, tail, and up to `keep` special lines) and the dropped ones."""
    n = len(lines)
    kept = set(range(min(limits.head, n))) | set(range(max(0, n - limits.tail), n))
    special = [i for i in range(n) if i not in kept and keep_line(lines[i])]
    kept |= set(special[:limits.keep])
    return sorted(kept), [i for i in range(n) if i not in kept]


def _view_line(line: str) -> bool:
    return bool(_DEF.match(line) or _IMPORT.match(line))


def _search_line(line: str) -> bool:
    return bool(_GREP_REF.match(line))   # `path:line:` matches; a plain listing lives on in the names


def _test_line(line: str) -> bool:
    return bool(_FAIL.search(line))


def _other_line(line: str) -> bool:
    return bool(_FAIL.search(line) or _DEF.match(line))


def _diff_line(line: str) -> bool:
    return line.startswith(("+++", "---", "@@", "diff "))


KEEPERS: dict[str, Callable[[str], bool]] = {
    "view": _view_line,
    "search": _search_line,
    "test": _test_line,
    "diff": _diff_line,
    "other": _other_line,
}


def _line_refs(lines: list[str], dropped: list[int]) -> str:
    """grep-style `path:line:` references of the dropped lines, grouped by path."""
    by_path: dict[str, list[str]] = {}
    for i in dropped:
        m = _GREP_REF.match(lines[i])
        if m:
            by_path.setdefault(m.group(1), []).append(m.group(2))
    return "; ".join(f"{p}:{','.join(nums)}" for p, nums in by_path.items())


def digest(command: str, output: str, limits: Limits = NORMAL) -> str:
    """A compact, deterministic form of one command's output (same input, same bytes)."""
    lines = output.splitlines()
    if len(lines) <= limits.whole_lines and len(output) <= limits.whole_chars:
        return output                      # small enough to keep: a digest would save little and lose much
    kind = kind_of(command)
    kept, dropped = _select(lines, KEEPERS[kind], limits)
    parts: list[str] = [f"[{kind} output: {len(lines)} lines, {len(dropped)} omitted; kept lines shown with their numbers]"]
    numbered = kind == "view" and not all(_NUMBERED.match(lines[i]) for i in kept[:3] if lines[i].strip())
    previous = -1
    for i in kept:
        if i != previous + 1:
            parts.append("…")
        parts.append(f"{i + 1}: {lines[i]}" if numbered else lines[i])
        previous = i
    if previous != len(lines) - 1:
        parts.append("…")
    refs = _line_refs(lines, dropped) if kind == "search" else ""
    if refs:
        parts.append(f"[other matches] {refs}")
    seen = known_names("\n".join(lines[i] for i in kept)) | known_names(command)
    names = names_in((lines[i] for i in dropped), seen, limits.names)
    if names:
        parts.append("[names in omitted lines] " + " ".join(names))
    return "\n".join(parts)
