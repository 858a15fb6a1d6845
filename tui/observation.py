"""Readable lines of a tool observation, and the alignment of its stored form against its full form.

Both forms are C1-shaped JSON. Multi-line strings are expanded line by line so the compression rule's cuts
line up with the full text, and what was dropped shows as a gap beside the lines it dropped.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Iterable, Literal

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from contextual.core.plural import plural

SHORT_VALUE = 100


def readable_lines(payload: str | None) -> list[str]:
    """One JSON value as indented key/value lines, multi-line strings expanded; anything else split as text."""
    if not payload:
        return []
    try:
        data = json.loads(payload)
    except (TypeError, ValueError):
        return payload.splitlines()
    lines: list[str] = []
    if isinstance(data, dict):
        for key, value in data.items():
            _emit(f"{key}:", value, 0, lines)
    else:
        _emit("", data, 0, lines)
    return lines


def _emit(label: str, value: object, depth: int, out: list[str]) -> None:
    pad = "  " * depth
    if isinstance(value, str) and "\n" in value:
        out.append(f"{pad}{label}".rstrip())
        out.extend(f"{pad}  {line}" for line in value.splitlines())
        return
    flat = json.dumps(value, ensure_ascii=False)
    multi_line_inside = "\\n" in flat
    if not isinstance(value, (dict, list)) or not value or (len(flat) <= SHORT_VALUE and not multi_line_inside):
        out.append(f"{pad}{label} {flat}".lstrip() if not label else f"{pad}{label} {flat}")
        return
    out.append(f"{pad}{label}".rstrip())
    if isinstance(value, dict):
        for key, item in value.items():
            _emit(f"{key}:", item, depth + 1, out)
    else:
        for item in value:
            _emit("-", item, depth + 1, out)


# A line of `cat -n` output (what Read returns): the file's own number, a tab, the code.
_FILE_NUMBERED = re.compile(r"^\s*(\d+)\t(.*)$")
ROW_NUMBER_STYLE = "dim"
FILE_NUMBER_STYLE = "#5f8787"


def file_numbered(line: str) -> tuple[str, str] | None:
    """(the file's own line number, the code) for a `cat -n` line of a Read observation; None otherwise."""
    match = _FILE_NUMBERED.match(line)
    return (match.group(1), match.group(2)) if match else None


def gutter_width(*line_sets: Iterable[str], rows: int) -> int:
    """Wide enough for the view's row numbers and every file line number, so panes sharing it stay aligned."""
    widest = len(str(max(1, rows)))
    for lines in line_sets:
        for line in lines:
            numbered = file_numbered(line)
            if numbered:
                widest = max(widest, len(numbered[0]))
    return widest


def numbered_line(line: str, row_number: int | None, width: int, style: str = "") -> Text:
    """One line behind a single number column: the file's own number for a `cat -n` line (a row number would
    only repeat it, shifted), else the view's row number (none when ``row_number`` is None)."""
    text = Text(no_wrap=True)
    numbered = file_numbered(line)
    if numbered:
        number, code = numbered
        text.append(f"{number:>{width}}│", style=FILE_NUMBER_STYLE)
        text.append(code.expandtabs(4), style=style)
        return text
    if row_number is not None:
        text.append(f"{row_number:>{width}} ", style=ROW_NUMBER_STYLE)
    text.append(line.expandtabs(4), style=style)
    return text


class HangingLines:
    """Lines of an observation, each wrapped at the width it gets under its own text: a long line of a Read
    continued at column 0, under the file's line numbers (the scratchpad's "899│return … *" then "299")."""

    def __init__(self, lines: list[str], width: int) -> None:
        self.lines, self.width = lines, width

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        rows: list[Text] = []
        for line in self.lines:
            text = numbered_line(line, None, self.width)
            gutter = self.width + 1 if file_numbered(line) else 0
            room = options.max_width - gutter
            if not gutter or room < MIN_ROOM or text.cell_len <= options.max_width:
                rows.append(text)
                continue
            under = Text(" " * self.width + "│", style=FILE_NUMBER_STYLE)
            for n, part in enumerate(text[gutter:].wrap(console, room)):
                rows.append((text[:gutter] if n == 0 else under) + part)
        yield Text("\n").join(rows)


MIN_ROOM = 16           # narrower than this beside the numbers, a line wraps as plain text


RowKind = Literal["same", "dropped", "added", "gap"]


@dataclass(frozen=True)
class Row:
    """One row of one pane; both panes have the same number of rows so they scroll together."""
    text: str
    kind: RowKind


@dataclass(frozen=True)
class Alignment:
    stored: list[Row]
    full: list[Row]
    dropped_lines: int


def align(stored_lines: list[str], full_lines: list[str]) -> Alignment:
    """Pair the stored rows with the full rows; a gap row stands where the stored form dropped lines."""
    # Lines are matched on their text without the indentation: the stored form nests a file's lines under
    # "content:", the full observation is plain text.
    matcher = difflib.SequenceMatcher(a=[line.strip() for line in full_lines],
                                      b=[line.strip() for line in stored_lines], autojunk=False)
    left: list[Row] = []      # stored
    right: list[Row] = []     # full
    dropped = 0
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            left.extend(Row(line, "same") for line in stored_lines[b0:b1])
            right.extend(Row(line, "same") for line in full_lines[a0:a1])
            continue
        gone = full_lines[a0:a1]
        new = stored_lines[b0:b1]
        dropped += len(gone)
        height = max(len(gone), len(new))
        left_rows = [Row(line, "added") for line in new]
        if len(gone) > len(new):
            label = f"┄┄ {plural(len(gone), 'line')} not stored ┄┄"
            left_rows.append(Row(label, "gap"))
        right_rows = [Row(line, "dropped") for line in gone]
        left.extend(left_rows + [Row("", "gap")] * (height - len(left_rows)))
        right.extend(right_rows + [Row("", "gap")] * (height - len(right_rows)))
    return Alignment(stored=left, full=right, dropped_lines=dropped)
