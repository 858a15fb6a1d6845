"""The replay's report as text (core/replay/report.py builds it): each heading wrapped, each table as wide as the
terminal allows.

The columns come in groups that read together (the prompt's tokens and their ratios, billed and its ratios, the
peak, the recalls, line recall under the other scorers, the with-L1 ratios). A table holds as many whole groups as
fit the width; the ones that do not start another table with the same first column (a group wider than the width
on its own is split column by column). A wide terminal gets one table, as before; 80 columns get two or three.
"""

from __future__ import annotations

import textwrap
from typing import Any, TextIO

from contextual.core.replay.scorers import SCORERS

Column = tuple[str, str, str]          # (title, the row's key, its format)

GROUPS: list[list[Column]] = [
    [("calls", "calls", "{:,}"), ("tokens", "prompt_tokens", "{:,}"),
     ("vs agent", "tokens_vs_agent", "{:.3f}"), ("vs raw", "prompt_tokens_vs_raw", "{:.3f}")],
    [("billed (cache)", "billed_tokens", "{:,.0f}"), ("vs agent", "billed_vs_agent", "{:.3f}"),
     ("vs raw", "billed_vs_raw", "{:.3f}")],
    [("peak", "peak_prompt", "{:,}")],
    [("recall", "recall", "{:.3f}"), ("line recall", "line_recall", "{:.3f}"),
     ("action recall", "action_recall", "{:.3f}")],
    [(f"line/{name}", f"line_recall_{name}", "{:.3f}") for name in SCORERS],
]
# Shown when some trajectory was compared without L1: the same ratios with our L1 as sent.
WITH_L1_GROUP: list[Column] = [("tokens vs agent, with our L1", "tokens_vs_agent_with_l1", "{:.3f}"),
                               ("billed vs agent, with our L1", "billed_vs_agent_with_l1", "{:.3f}")]
COLUMNS = [column for group in GROUPS for column in group]
GAP = 2                                # spaces between columns


def _cells(row: dict[str, Any], columns: list[Column]) -> list[str]:
    return ["-" if row.get(key) is None else fmt.format(row[key]) for _, key, fmt in columns]


def title_lines(title: str, width: int) -> tuple[str, str]:
    """A title wider than its column's figures goes on two lines, broken after the space or `/` that makes the
    longer half shortest (`line/numbers` is `line/` over `numbers`): the table is as wide as its figures, so
    more columns fit a terminal."""
    breaks = [(title[:i], title[i + 1:]) for i, c in enumerate(title) if c == " "]
    breaks += [(title[:i + 1], title[i + 1:]) for i, c in enumerate(title[:-1]) if c == "/"]
    if len(title) <= width or not breaks:
        return "", title
    return min(breaks, key=lambda halves: max(map(len, halves)))


def table(first_header: str, rows: list[tuple[str, dict[str, Any]]], with_l1: bool = False,
          columns: list[Column] | None = None) -> list[str]:
    """One table: a row per name, a column per figure (all of them unless ``columns`` are given)."""
    if columns is None:
        columns = COLUMNS + (WITH_L1_GROUP if with_l1 else [])
    body = [[name] + _cells(row, columns) for name, row in rows]
    figures = [max((len(row[i + 1]) for row in body), default=0) for i in range(len(columns))]
    titles = [("", first_header)] + [title_lines(title, w) for (title, _, _), w in zip(columns, figures)]
    header = [[top for top, _ in titles], [bottom for _, bottom in titles]]
    widths = [max(len(row[i]) for row in header + body) for i in range(len(titles))]

    def line(row: list[str]) -> str:
        return (" " * GAP).join(cell.ljust(widths[0]) if i == 0 else cell.rjust(widths[i])
                                for i, cell in enumerate(row)).rstrip()
    heads = [line(row) for row in header if any(row)]
    return heads + [(" " * GAP).join("-" * w for w in widths)] + [line(row) for row in body]


def _width(column: Column, rows: list[tuple[str, dict[str, Any]]]) -> int:
    figures = max((len(cell) for _, row in rows for cell in _cells(row, [column])), default=0)
    return GAP + max(max(len(half) for half in title_lines(column[0], figures)), figures)


def fitted(first_header: str, rows: list[tuple[str, dict[str, Any]]], width: int,
           with_l1: bool = False) -> list[list[str]]:
    """The tables that hold every column within ``width``: whole groups in order, as many as fit one table."""
    first = max([len(first_header)] + [len(name) for name, _ in rows])
    room = width - first
    units: list[list[Column]] = []       # what goes into a table whole: a group, or a column of one too wide
    for group in GROUPS + ([WITH_L1_GROUP] if with_l1 else []):
        if sum(_width(column, rows) for column in group) <= room:
            units.append(group)
        else:
            units.extend([column] for column in group)
    tables: list[list[Column]] = [[]]
    used = 0
    for unit in units:
        size = sum(_width(column, rows) for column in unit)
        if tables[-1] and used + size > room:
            tables.append([])
            used = 0
        tables[-1].extend(unit)
        used += size
    return [table(first_header, rows, columns=columns) for columns in tables]


def heading(first: str, notes: list[str], width: int) -> list[str]:
    """A table's heading: its first line, then each note on lines of its own, wrapped within ``width``."""
    def wrap(text: str, indent: str, hanging: str) -> list[str]:
        return textwrap.wrap(text, max(width, 20), initial_indent=indent, subsequent_indent=hanging,
                             break_long_words=False, break_on_hyphens=False) or [indent]
    return wrap(first, "", "  ") + [line for note in notes for line in wrap(note, "  ", "    ")]


def _print(lines: list[str], out: TextIO) -> None:
    for text in lines:
        print(text, file=out)


def print_tables(report: dict[str, Any], out: TextIO, per_trajectory: bool = True, width: int = 80) -> None:
    """The report at ``width`` columns (the terminal's: core/replay/cli.py)."""
    ids = report["trajectories"]
    plain = report["overall"]["system_prompt_not_recorded"] > 0
    if per_trajectory:
        for policy, figures in report["policies"].items():
            print(file=out)
            _print(heading(f"policy {policy} ({len(ids)} trajectories)",
                           [report["overall"]["baseline_treatment"]], width), out)
            rows = [(i, figures["trajectories"][i]) for i in ids] + [("all (pooled)", figures["overall"])]
            for n, lines in enumerate(fitted("trajectory", rows, width, with_l1=plain)):
                _print(([""] if n else []) + lines, out)
    groups = [(f"family {name}", group) for name, group in report["families"].items()]
    if len(groups) > 1 or not groups:
        groups.append(("all families", report["overall"]))
    for title, group in groups:
        missing = group["system_prompt_not_recorded"] > 0
        with_l1 = f" ({_fmt(group['framing_ratio_with_l1'])} with our L1)" if missing else ""
        print(file=out)
        _print(heading(f"summary, {title} ({group['trajectories']} trajectories, pooled)", [
            "vs agent = against the recorded agent's own prompts", group["baseline_treatment"],
            f"framing ratio our raw / agent = {_fmt(group['framing_ratio'])}{with_l1}",
            "billed: the prompt share identical to the previous call's from the start at 0.1x"], width), out)
        for n, lines in enumerate(fitted("policy", list(group["policies"].items()), width, with_l1=missing)):
            _print(([""] if n else []) + lines, out)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
