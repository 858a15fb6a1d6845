"""The lines of an output that the next step acted on: the best guide to what a later step needs of it.

`ours` sends a step's stored form first at the call after the next step was taken (core/context/scratchpad.py),
so that step's action is already in the prompt when the form is made, and the form never changes afterwards.
An agent that reads a file and then runs `sed -i '607s/…/…/' x.py`, greps and then opens `sed -n '120,140p'`,
or reads a traceback and then opens line 849, acted on particular lines; they stay in the stored form even when
every name on them was shown before (they would otherwise go as "nothing new").
"""

from __future__ import annotations

import re

ACTED_LINES = 6          # at most this many lines kept because the next step acted on them
_NUMBER = re.compile(r"(?<![\w.])(\d{1,6})(?!\d|\.\d)")       # 607 in `607s/…/`, 1300 in `1280,1300p`
_OWN_NUMBER = re.compile(r"^\s*(\d+)(?:[\t:\s-]|\u2192)")       # nl -ba, cat -n, grep -n, SWE-agent's open
_REFERENCE = re.compile(r'(?::(\d+)[:\s]|\bline (\d+))')         # path:12: and File "x.py", line 12


def _numbers(line: str, file_line: int | None) -> set[int]:
    found = {int(n) for n in _OWN_NUMBER.findall(line)}
    found |= {int(a or b) for a, b in _REFERENCE.findall(line)}
    if file_line is not None:
        found.add(file_line)
    return found


def acted_on(lines: list[str], next_step: str, first_line: int | None = None) -> list[int]:
    """Indices of the lines whose line number the next step names (a sed address, `line 849`, `x.py:12`), at
    most ACTED_LINES. `first_line`: the file line the output's first line is, when the output is one range of
    one file without its own numbers. (Lines that show a name the next step used were tried too: on tune/ they
    cost 0.011x tokens for no measured gain, so they go as any other line.)"""
    if not next_step:
        return []
    numbers = {int(n) for n in _NUMBER.findall(next_step) if int(n) >= 10}   # 1-9: counts and flags, mostly
    if not numbers:
        return []
    return [i for i, line in enumerate(lines)
            if numbers & _numbers(line, None if first_line is None else first_line + i)][:ACTED_LINES]
