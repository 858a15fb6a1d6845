"""Command-aware digests of command output (the Bash row's "summary" of stdout, A3).

A bare "summary + stderr tail" loses what agents use later when stdout and stderr arrive merged
(a `cat`, a `grep`, a `pytest` run through Bash). So the digest depends on what the command was:
each kind keeps whole lines — the ones that carry definitions, the lines its grep pattern matches, failures
(best first: core/context/failures.py), a diff's changes — plus, of the lines it would drop, one line for each
name (the line showing the most new names per character first), so every name the output showed keeps one
line of context a later step can use (a bare list of names tells a model little; issue 14). Kept lines carry their line number
(the file's own, when the command shows a known range of one file), and the header says what was dropped and
how to see it again. What the command was (its kind, the range of a file it shows, its grep pattern) is read by
core/context/command_kind.py.
"""

from __future__ import annotations

import heapq
import keyword
import re
import shlex
from dataclasses import dataclass
from typing import Callable, Iterable

from contextual.core.context import failures
from contextual.core.context.command_kind import chosen_range, file_origin, grep_pattern, kind_of
from contextual.core.context.definitions import is_definition, is_import
from contextual.core.context.names import name_set
from contextual.core.context.result_lines import FILE_REF, REF_PATH

_FAIL = re.compile(r"(?:Error|Exception|FAIL|FAILED|ERROR|Traceback|assert|Assertion|Warning|error:|failed|passed|"
                   r"File \"|line \d+|^E\s|^>\s|^-+ |^=+ )")
_GREP_LINE = re.compile(r"^\d+:")
_NUMBERED = re.compile(r"^\s*(\d+)(?:[\t:\s]|\u2192)")
_LINE_COST = 20         # a kept line's fixed cost in characters (its number, newline), for the cover's greedy choice


@dataclass(frozen=True)
class Limits:
    head: int          # first lines kept verbatim
    tail: int          # last lines kept verbatim
    keep: int          # lines kept because of what they are (definitions, matches, failures)
    cover: int         # lines kept because they are the first to show a name (the first `cover` such lines)
    whole_lines: int   # output this short is kept whole
    whole_chars: int
    line_chars: int = 300   # a kept line longer than this keeps its start (minified files, long data)
    chosen_lines: int = 0   # a range the agent chose (`sed -n '40,80p'`, `grep -C 3`) this short is kept whole
    chosen_chars: int = 0
    matches: int = 0        # a search keeps this many lines its pattern matches, when more than `keep`
    focus: int = 0          # lines kept for names the task or the plan names (one a name, first shown first)


NORMAL = Limits(head=3, tail=3, keep=20, cover=120, whole_lines=24, whole_chars=1_600)
HARD = Limits(head=2, tail=2, keep=12, cover=30, whole_lines=6, whole_chars=400)


KEYWORDS = frozenset(keyword.kwlist) | {"self", "None", "True", "False", "print", "isinstance", "return"}


def _select(lines: list[str], special: Callable[[list[str]], list[int]], limits: Limits, keep: int
            ) -> tuple[list[int], list[int]]:
    """Indices kept verbatim (head, tail, and the first `keep` special lines, best first) and the dropped ones."""
    n = len(lines)
    kept = set(range(min(limits.head, n))) | set(range(max(0, n - limits.tail), n))
    kept |= set([i for i in special(lines) if i not in kept][:keep])
    return sorted(kept), [i for i in range(n) if i not in kept]


def _view_line(line: str) -> bool:
    return is_definition(line) or is_import(line)


def _search_line(line: str) -> bool:
    # `path:line:` matches, or `line:` from a grep -n of one file; a plain listing lives on in the names
    return bool(FILE_REF.match(line) or _GREP_LINE.match(line))


def _diff_ranked(lines: list[str]) -> list[int]:
    """Which file, then what changed (+/- lines), then where (hunk headers)."""
    files = [i for i, line in enumerate(lines) if line.startswith(("diff ", "+++ "))]
    changed = [i for i, line in enumerate(lines) if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    hunks = [i for i, line in enumerate(lines) if line.startswith("@@")]
    return files + changed + hunks


def _in_order(keep_line: Callable[[str], bool]) -> Callable[[list[str]], list[int]]:
    return lambda lines: [i for i, line in enumerate(lines) if keep_line(line)]


def _failures_first(keep_line: Callable[[str], bool]) -> Callable[[list[str]], list[int]]:
    """A run's failure lines best first (core/context/failures.py), then the other lines `keep_line` picks."""
    def special(lines: list[str]) -> list[int]:
        return list(dict.fromkeys(failures.ranked(lines) + _in_order(keep_line)(lines)))
    return special


def _outline(lines: list[str]) -> list[int]:
    """A file view's definitions, then its imports: where things are defined is what a later step looks for."""
    return ([i for i, line in enumerate(lines) if is_definition(line)]
            + [i for i, line in enumerate(lines) if is_import(line)])


KEEPERS: dict[str, Callable[[list[str]], list[int]]] = {
    "view": _outline,
    "search": _in_order(_search_line),
    "test": _failures_first(lambda line: bool(_FAIL.search(line))),
    "diff": _diff_ranked,
    "other": _failures_first(lambda line: bool(_FAIL.search(line)) or is_definition(line)),
}


def _matches_first(matched: list[int], then: Callable[[list[str]], list[int]]) -> Callable[[list[str]], list[int]]:
    """The lines the pattern matched (their indices), then the others `then` picks."""
    def special(lines: list[str]) -> list[int]:
        return list(dict.fromkeys(matched + then(lines)))
    return special


def naming_focus(lines: list[str], kept: Iterable[int], focus: frozenset[str], limit: int) -> list[int]:
    """Up to `limit` lines not kept, the first to show each focus name (the task's, the plan's) no kept line shows."""
    kept_set = set(kept)
    if not focus or not limit:
        return []
    wanted = set(focus) - name_set("\n".join(lines[i] for i in kept_set))
    out = list[int]()
    for i, line in enumerate(lines):
        if len(out) >= limit or not wanted:
            break
        named = name_set(line) & wanted if i not in kept_set else set()
        if named:
            out.append(i)
            wanted -= named
    return out


def _cover(lines: list[str], dropped: list[int], seen: set[str], limit: int,
           first: Callable[[str], bool] = lambda line: False, what: Callable[[str], str] = lambda line: line
           ) -> list[int]:
    """Of the dropped lines, up to `limit` that show names not in `seen` (which grows): lines `first` picks
    (definitions in a file view) before the others, then greedily the line showing the most names not yet
    covered per character, so a long output cut short still covers its whole length, and a short line that
    shows a name wins over a long one that shows the same name. `what`: the part of a line whose names count."""
    fresh = {i: {n for n in name_set(what(lines[i])) if n not in seen and n not in KEYWORDS} for i in dropped}

    def score(i: int, new: int) -> tuple[bool, float, int]:
        return (not first(lines[i]), -new / (len(lines[i]) + _LINE_COST), i)
    heap = [score(i, len(names)) for i, names in fresh.items() if names]
    heapq.heapify(heap)
    out: list[int] = []
    while heap and len(out) < limit:
        entry = heapq.heappop(heap)
        i = entry[2]
        new = fresh[i] - seen
        if not new:
            continue
        current = score(i, len(new))
        if current > entry:                   # fewer new names than when queued: queue it again (lazy greedy)
            heapq.heappush(heap, current)
            continue
        out.append(i)
        seen.update(new)
    return sorted(out)


# `path:` or `path:12:` before a search's match: where the line is, not what it shows. A file whose match shows
# nothing new (the same `msgid "alias of %s"` in forty translations) keeps no line of its own; the header says
# how many were cut and how to see them.
_MATCH_PREFIX = re.compile(rf"^(?:{REF_PATH}):(?:\d+[:-])?")


def _match_text(line: str) -> str:
    return _MATCH_PREFIX.sub("", line, count=1)


def _how_to_see(origin: tuple[str, int] | None, omitted: list[int]) -> str:
    if origin is None:
        return "run it again to see them"
    path, first = origin
    return f"`sed -n '{first + omitted[0]},{first + omitted[-1]}p' {shlex.quote(path)}` shows them"


def clip_line(line: str, limit: int) -> str:
    """A kept line past `limit` characters keeps its start and says how much was left out."""
    return line if len(line) <= limit else line[:limit] + f"…[{len(line) - limit} chars]"


def view_numbering(command: str, kind: str, sample: Iterable[str]) -> tuple[str, int] | None:
    """(path, first line) when a view's kept lines are to be numbered as the file numbers them (a later `sed -n`
    or edit refers to them): the command shows one range of one file and most of `sample` (its kept lines) do not
    carry their own numbers already (`cat -n`, `grep -n`, SWE-agent's `open`)."""
    marks = [bool(_NUMBERED.match(line)) for line in sample]
    own_numbers = sum(marks) * 2 > len(marks)
    return file_origin(command) if kind == "view" and not own_numbers else None


def digest(command: str, output: str, limits: Limits = NORMAL, seen: set[str] | None = None,
           also: Iterable[int] = (), shown_lines: frozenset[str] = frozenset(),
           focus: frozenset[str] = frozenset()) -> str:
    """A compact, deterministic form of one command's output (same input, same bytes): whole lines only.
    `seen`: names the context already shows (core/context/turn_forms.py); they need no line here.
    `also`: indices of lines kept whatever they show (the lines the next step acted on, acted_on.py).
    `shown_lines`: lines (stripped) the prompt already shows in an earlier stored form; a line that would be shown
    here exactly so (its number included) is not repeated: the same error after a re-run, a warning banner.
    `focus`: names the task or the plan names; an output keeps a line for each it shows (they are what the work is
    about, though the prompt shows them already)."""
    lines = output.splitlines()
    if len(lines) <= limits.whole_lines and len(output) <= limits.whole_chars:
        return output                      # small enough to keep: a digest would save little and lose much
    if len(lines) <= limits.chosen_lines and len(output) <= limits.chosen_chars and chosen_range(command):
        return output                      # the lines the agent asked for: later steps quote and edit them
    kind = kind_of(command)
    special = KEEPERS[kind]
    pattern = grep_pattern(command) if kind in ("view", "search") else None
    keep = limits.keep
    if pattern is not None:                # the lines the agent grepped for come before any other
        matched = [i for i, line in enumerate(lines) if pattern.search(line)]
        special = _matches_first(matched, special)
        if kind == "search":               # and they are what it asked for
            keep = max(keep, min(limits.matches, len(matched)))
    kept, dropped = _select(lines, special, limits, keep)
    extra = (set(also) | set(naming_focus(lines, kept, focus, limits.focus))) - set(kept)
    kept, dropped = sorted(set(kept) | extra), [i for i in dropped if i not in extra]
    known = name_set("\n".join(lines[i] for i in kept)) | name_set(command) | (seen or set())
    covered = _cover(lines, dropped, known, limits.cover, _view_line if kind == "view" else _search_line,
                     _match_text if kind == "search" else lambda line: line)
    kept = sorted(set(kept) | set(covered))
    # File views get line numbers (a later sed -n or edit refers to them); listings and logs do not need them.
    # ... unless they have their own: most kept lines numbered (a header first, as in SWE-agent's `open` and
    # OpenHands' `view`, does not count against it)
    origin = view_numbering(command, kind, [lines[i] for i in kept[:6] if lines[i].strip()])
    # Numbers only where they are the file's: `cd x && sed -n '40,80p' f` starts at 40, and a view whose first line
    # is not known (`awk 'NR>40' f`, `head f | tail`) gets none rather than numbers a later edit would misuse.
    number = origin is not None
    first = origin[1] if origin else 1

    def display(i: int) -> str:
        text = clip_line(lines[i], limits.line_chars)
        return f"{first + i}: {text}" if number else text
    # A line the prompt already shows, as it would be shown here (number included), needs no second copy.
    kept = [i for i in kept if display(i).strip() not in shown_lines]
    kept_set = set(kept)
    omitted = [i for i in range(len(lines)) if i not in kept_set]
    if not omitted:
        return output
    parts = [f"[{len(lines)} lines, {len(omitted)} omitted; {_how_to_see(origin, omitted)}]"]
    parts.extend(display(i) for i in kept)
    return "\n".join(parts)
