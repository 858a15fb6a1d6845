"""Other definitions of "a later step needs this line", beside the published one (core/replay/metrics.py).

A policy tuned against one scorer can learn its shape (issue 28: a cover step that kept one line per name of
the scorer's own regex). These definitions score the same replayed prompts differently, so a policy that keeps
what a model needs scores alike under all of them, and one shaped like a metric does not:

- `split`: names tokenised differently — dotted names and paths split into their parts (`a.b/c.py` is `a`, `b`,
  `c`, `py`), parts of 4+ characters;
- `short`: names of 2+ characters (`os`, `re`, `df`, `row` count too);
- `newest`: the published names, but once a later output showed a name again only the newest output's lines
  holding it count (the old version of an edited line no longer does);
- `numbers`: no names at all. A number (≥ 10) a later command uses that an earlier output showed as the number of
  a line (`  123\\tcode` from `nl -ba`/`cat -n`/an editor's view, `123:code` from `grep -n`, `path:123:code` from
  `grep -rn`, `123→code` from Claude Code's Read): one whole line numbered so must still be in the prompt, as the
  agent that runs `sed -i '123s/…/'` needs to know what line 123 is;
- `quoted`: no names at all. A whole line of an earlier output (stripped, 15+ characters, with a letter) that a
  later command holds verbatim: the agent copied it (an edit's old text, a grep for it), so it needed it; the
  line must still be in the prompt. A numbered view's line counts without its number (`62\\t    def total(cart):`
  is `def total(cart):`): agents copy code from `nl -ba` views, never the number with it.

`numbers` and `quoted` read the command (a shell command, or a tool's arguments as the replay writes them), not
the whole assistant turn: a thought that retells an output is not a use of it. Like the published pairs, a
number or line only counts at the first command that holds it, and not when the task, the preamble or an
earlier command already held it (then the agent may have it from there, not from the output).

Only the measuring code uses these; no policy imports them (tests/test_architecture.py checks it).
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

from contextual.core.replay.metrics import RecallPair, identifiers, recall_pairs

_PART = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
_SHORT = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]{1,}")
# A line's own number before its text: tab (nl -ba, cat -n, editor views), colon (grep -n), arrow (Claude Code's
# Read); or after a path (grep -rn). The text after it must not be blank: a blank line tells the agent nothing.
_OWN_NUMBER_LINE = re.compile(r"\s*(\d{1,9})(?:\t|:|\u2192)(?=.*\S)")
_PATH_NUMBER_LINE = re.compile(r"[^\s:]*[A-Za-z_./][^\s:]*:(\d{1,9}):(?=.*\S)")
# A whole number in a command: not part of a name (`line_12`) or a version (`3.10`); `607s/…/` and `12d` count.
_NUMBER = re.compile(r"(?<![\w.])(\d{2,9})(?!\d|\.\d)")
MIN_LINE_NUMBER = 10          # 1-9 are counts and flags (`head -5`, `-n 3`) far more often than line numbers
MIN_QUOTED_CHARS = 15         # shorter lines (`else:`, `return x`) turn up in commands without being copied
_LETTER = re.compile(r"[^\W\d_]")


def split_names(text: str) -> set[str]:
    return set(_PART.findall(text))


def short_names(text: str) -> set[str]:
    return {name for name in (m.rstrip("./-") for m in _SHORT.findall(text)) if len(name) >= 2}


def _numbered(line: str) -> re.Match[str] | None:
    return _OWN_NUMBER_LINE.match(line) or _PATH_NUMBER_LINE.match(line)


def line_number(line: str) -> int | None:
    """The number an output shows for this line of a file, if it shows one."""
    match = _numbered(line)
    return int(match.group(1)) if match else None


def line_text(line: str) -> str:
    """The line stripped, without the number a numbered view put before it: what an agent copies of it."""
    match = _numbered(line)
    return (line[match.end():] if match else line).strip()


def numbers_used(text: str) -> set[int]:
    return {n for n in map(int, _NUMBER.findall(text)) if n >= MIN_LINE_NUMBER}


def quotable(line: str) -> bool:
    """A stripped output line long enough, and enough like text (not a rule of `=`), that holding it means
    copying it."""
    return len(line) >= MIN_QUOTED_CHARS and _LETTER.search(line) is not None


# A pair builder: (preamble, task, responses, outputs, actions, scorer name) -> observation pairs.
PairBuilder = Callable[[list[str], str, list[str], list[str], list[str], str], list[RecallPair]]


def _by_names(names: Callable[[str], set[str]], newest_only: bool = False) -> PairBuilder:
    """The published construction (core/replay/metrics.py, recall_pairs) with another name finder."""
    def build(preamble: list[str], task: str, responses: list[str], outputs: list[str], actions: list[str],
              scorer: str) -> list[RecallPair]:
        pairs = recall_pairs(preamble, task, responses, outputs, names, newest_only, scorer)
        return [p for p in pairs if p.kind == "observation"]
    return build


def number_pairs(preamble: list[str], task: str, responses: list[str], outputs: list[str], actions: list[str],
                 scorer: str = "numbers") -> list[RecallPair]:
    """(step, number) for each number a command uses first that an earlier output showed as a line's number;
    the pair's lines are every stripped output line numbered so."""
    static = numbers_used(task).union(*map(numbers_used, preamble))
    said: set[int] = set()
    numbered: dict[int, list[str]] = {}
    pairs: list[RecallPair] = []
    for step, action in enumerate(actions):
        used = numbers_used(action) - static
        for number in sorted(used - said):
            if number in numbered:
                pairs.append(RecallPair(step, str(number), "observation", tuple(dict.fromkeys(numbered[number])),
                                        scorer))
        said |= used
        for line in outputs[step].splitlines() if step < len(outputs) else ():
            shown = line_number(line)
            if shown is not None:
                numbered.setdefault(shown, []).append(line.strip())
    return pairs


def _quoted_in(action: str, by_head: dict[str, list[str]]) -> list[str]:
    """The output lines `action` holds. Every quotable line is 15+ characters, so it starts with one of the
    action's 15-character windows: one dict look-up per window, not a search per line seen."""
    found: dict[str, None] = {}
    for start in range(len(action) - MIN_QUOTED_CHARS + 1):
        for line in by_head.get(action[start:start + MIN_QUOTED_CHARS], ()):
            if action.startswith(line, start):
                found[line] = None
    return list(found)


def quoted_pairs(preamble: list[str], task: str, responses: list[str], outputs: list[str], actions: list[str],
                 scorer: str = "quoted") -> list[RecallPair]:
    """(step, line) for each earlier output line a command holds verbatim, at the first command that does."""
    given = "\x00".join([task, *preamble])
    by_head: dict[str, list[str]] = {}          # a line's first 15 characters -> the quotable lines seen
    seen: set[str] = set()
    said: list[str] = []
    pairs: list[RecallPair] = []
    for step, action in enumerate(actions):
        for line in _quoted_in(action, by_head):
            if line not in given and not any(line in earlier for earlier in said):
                pairs.append(RecallPair(step, line, "observation", (line,), scorer))
        said.append(action)
        for raw in outputs[step].splitlines() if step < len(outputs) else ():
            line = line_text(raw)
            if line not in seen and quotable(line):
                seen.add(line)
                by_head.setdefault(line[:MIN_QUOTED_CHARS], []).append(line)
    return pairs


SCORERS: dict[str, PairBuilder] = {
    "split": _by_names(split_names),
    "short": _by_names(short_names),
    "newest": _by_names(identifiers, newest_only=True),
    "numbers": number_pairs,
    "quoted": quoted_pairs,
}


def alternative_pairs(preamble: Iterable[str], task: str, responses: list[str], outputs: list[str],
                      actions: list[str] | None = None) -> list[RecallPair]:
    """The observation pairs of every alternative scorer, each pair tagged with its scorer's name. `actions`
    are the steps' commands (`numbers` and `quoted` read them); the recorded turns stand in when not given."""
    preamble = list(preamble)
    commands = responses if actions is None else actions
    out: list[RecallPair] = []
    for name, build in SCORERS.items():
        out.extend(build(preamble, task, responses, outputs, commands, name))
    return out
