"""The history form of a Bash run's stdout (seed 002 A3: "stdout only a summary; stderr the last 20 lines").

History outlives the turn that made it, so the summary says what the run was, not what it showed line by line:
how long the output was, its first and last lines, the lines that report an error or a failure, and what changed
(a diff's files with their added/removed counts, `git status`'s changed paths). Every part has a fixed cap, so
the summary's size does not grow with the output or with how many different names the output shows; what was
left out is counted and the header says how to see it again. The in-turn forms (core/context/turn_forms.py)
keep far more, for the steps of the same turn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from contextual.core.context import failures
from contextual.core.context.command_kind import kind_of
from contextual.core.context.digest import clip_line, naming_focus, view_numbering
from contextual.core.plural import noun_for, plural

_ERROR = re.compile(r"\b(?:error|errors|failed|failure|fatal|exception|traceback|warning|panic|denied|not found|"
                    r"no such file|cannot|segmentation fault)\b", re.IGNORECASE)
_DIFF_FILE = re.compile(r"^diff --git a/(\S+) b/(\S+)|^\+\+\+ (?:b/)?(\S+)")
_STATUS_PATH = re.compile(r"^\s*(?:modified|new file|deleted|renamed|both modified):\s+(.+)$|^ ?([MADRCU?]{1,2}) (\S.*)$")


@dataclass(frozen=True)
class Limits:
    whole_lines: int = 10       # output this short is kept whole: a summary would not be shorter
    whole_chars: int = 1_000
    head: int = 3               # first lines kept
    tail: int = 3               # last lines kept
    errors: int = 12            # error and failure lines kept, best first (core/context/failures.py)
    changed_files: int = 10     # files named under "changed"
    line_chars: int = 200       # a kept line longer than this keeps its start
    named: int = 4              # lines kept for code names the task or the plan names, one a name


NORMAL = Limits()
HARD = Limits(whole_lines=4, whole_chars=300, head=2, tail=2, errors=6, changed_files=5, line_chars=120, named=2)


def error_lines(lines: list[str]) -> list[int]:
    """Indices of the lines that report a failure: the ranked ones (tracebacks, pytest, compilers) first, then any
    other line that says error, failed, fatal, warning…"""
    return list(dict.fromkeys(failures.ranked(lines) + [i for i, line in enumerate(lines) if _ERROR.search(line)]))


def changes(lines: list[str]) -> dict[str, list[int]]:
    """What the output says changed: {path: [lines added, lines removed]} from a diff, or [0, 0] for a path
    `git status` lists; in the order the output names them."""
    out: dict[str, list[int]] = {}
    current = ""
    in_diff = False
    for line in lines:
        match = _DIFF_FILE.match(line)
        if match:
            current = next(g for g in match.groups() if g)
            out.setdefault(current, [0, 0])
            in_diff = True
            continue
        if in_diff and current and line.startswith(("+", "-")) and not line.startswith(("+++", "---")):
            out[current][0 if line.startswith("+") else 1] += 1
            continue
        if not in_diff:
            status = _STATUS_PATH.match(line)
            if status:
                path = (status.group(1) or status.group(3) or "").strip()
                if path and " " not in path.strip():
                    out.setdefault(path, [0, 0])
    return out


def _changed_text(changed: dict[str, list[int]], limit: int) -> str:
    rows = [f"{path} (+{added} -{removed})" if added or removed else path
            for path, (added, removed) in list(changed.items())[:limit]]
    more = f", and {len(changed) - limit} more" if len(changed) > limit else ""
    return f"changed: {plural(len(changed), 'file')}: " + ", ".join(rows) + more


def _left_out(lines: int, errors: int, kept: list[str], line_chars: int) -> str:
    """What the summary's header says it left out: lines, the distinct error lines past the cap, and the characters
    cut off the end of the long lines it kept (a single long line loses only those)."""
    cut = [len(line) - line_chars for line in kept if len(line) > line_chars]
    said = [f"{plural(lines, 'line')} not kept"] if lines else []
    if errors:
        said.append(f"{errors} more distinct error/failure {noun_for(errors, 'line')}")
    if cut:
        said.append(f"{plural(sum(cut), 'char', grouped=True)} cut off the end of "
                    + ("the line" if len(kept) == 1 else plural(len(cut), "long line")))
    return ", ".join(said)


def summary(command: str, stdout: str, limits: Limits = NORMAL, focus: frozenset[str] = frozenset()) -> str:
    """A3's summary of one run's stdout; short output is kept as it is. `focus`: code names the turn's task or plan
    names; the first line showing each is kept (at most `limits.named`), as the lines the work is about."""
    lines = stdout.splitlines()
    if len(lines) <= limits.whole_lines and len(stdout) <= limits.whole_chars:
        return stdout
    n = len(lines)
    head = list(range(min(limits.head, n)))
    tail = [i for i in range(max(len(head), n - limits.tail), n)]
    shown = set(head) | set(tail)
    found = error_lines(lines)
    repeats: dict[str, int] = {}
    for i in found:
        repeats[lines[i]] = repeats.get(lines[i], 0) + 1
    distinct, seen_text = [], set()
    for i in found:                                   # the first of each repeated line, counted once
        if i not in shown and lines[i] not in seen_text:
            distinct.append(i)
        seen_text.add(lines[i])
    errors = sorted(distinct[:limits.errors])
    changed = changes(lines)
    named = sorted(naming_focus(lines, shown | set(errors), focus, limits.named))
    kept = len(shown) + len(errors) + len(named)
    # a view of a file numbers its lines as the file does, by the in-turn digest's rule
    origin = view_numbering(command, kind_of(command), [lines[i] for i in head])
    start = origin[1] if origin else None

    def row(i: int) -> str:
        text = clip_line(lines[i], limits.line_chars)
        return f"{start + i}: {text}" if start is not None else text

    def error_row(i: int) -> str:
        times = repeats.get(lines[i], 1)
        return row(i) + (f"  [x{times}]" if times > 1 else "")

    unshown = len(distinct) - len(errors)             # distinct error lines past the cap
    left = _left_out(n - kept, unshown, [lines[i] for i in shown | set(errors) | set(named)], limits.line_chars)
    if not left:            # every line kept whole: the output itself says it best
        return stdout
    parts = [f"[stdout: {plural(n, 'line')}, {len(stdout):,} chars; {left}; run the command again to see them]"]
    parts += ["first:"] + [row(i) for i in head]
    if errors:
        parts += ["errors:"] + [error_row(i) for i in errors]
    if named:
        parts += ["named by the task:"] + [row(i) for i in named]
    if changed:
        parts.append(_changed_text(changed, limits.changed_files))
    if tail and tail != head:
        parts += ["last:"] + [row(i) for i in tail]
    return "\n".join(parts)
