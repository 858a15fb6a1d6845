"""Chat text whose wrapped lines keep their hanging indent: a line's continuation starts under its text, after its
leading spaces and its list marker ("  • ", "- ", "1. ", "  ⎿ ", a trail row's "✓ "), and every line of a user's
message starts under its first, after "you  ". Textual wraps a line back to the first column, which made a
multi-line message, the no-model welcome's bullets and a long result line in an expanded trail hard to read.

The text is wrapped here at the widget's width (`Hanging`, a Textual Visual); what it holds, what ``str`` gives and
what a selection copies are the text as written, not the wrapped lines."""

from __future__ import annotations

import re
from functools import lru_cache

from rich.text import Text
from textual.content import Content
from textual.css.styles import RulesMap
from textual.geometry import Offset
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widgets import Static

# leading spaces, then a list marker or a trail row's mark, each followed by a space
_HANG = re.compile(r" *(?:[•\-*⎿✓✗…]|\d{1,3}[.)])? ?")
NARROWEST = 12          # the fewest cells a continuation keeps: past that a line wraps from its start


def hang(line: str) -> int:
    """Where a line's continuation starts: after its leading spaces and its marker (0 when it has neither)."""
    found = _HANG.match(line)
    width = found.end() if found else 0
    return width if width < len(line) and (width == 0 or line[width - 1] == " ") else 0


class Hanging(Visual):
    """``content`` wrapped with hanging indents. Every line starts ``indent`` cells in, except where the first line's
    first ``label`` cells stand (a label such as "you  "); each line's continuations go under its own text."""

    def __init__(self, content: Content, indent: int = 0, label: int = 0) -> None:
        self.content, self.indent, self.label = content, indent, label

    def __str__(self) -> str:
        return self.content.plain

    def lines(self, width: int) -> tuple[Content, tuple[tuple[int, int, int], ...]]:
        """The text wrapped at ``width``: one Content, and for each of its lines where it comes from (the line
        of the text, the first character's column there, the cells put before it)."""
        return _wrapped(self.content, self.indent, self.label, max(width, 1))

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        return self.lines(width)[0].render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self.content.get_optimal_width(rules, container_width) + self.indent

    def get_minimal_width(self, rules: RulesMap) -> int:
        return self.content.get_minimal_width(rules) + self.indent

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.lines(width)[1])


@lru_cache(maxsize=512)
def _wrapped(content: Content, indent: int, label: int, width: int) -> tuple[Content, tuple[tuple[int, int, int], ...]]:
    shown: list[Content] = []
    where: list[tuple[int, int, int]] = []
    for y, line in enumerate(content.split("\n", allow_blank=True)):
        labelled = y == 0 and label > 0           # a label is the line's own text; an indent is put before it
        head = line[:label] if labelled else Content(" " * indent)
        text = line[label:] if labelled else line
        base = label if labelled else 0           # where `text` starts in the line
        own = hang(text.plain)
        if width - head.cell_length - own < NARROWEST:      # too narrow to hang: go on from the line's start
            own = 0
        body = text[own:]
        at = 0
        for n, piece in enumerate(body.wrap(max(width - head.cell_length - own, 1)) if body.plain else [body]):
            start = body.plain.find(piece.plain, at) if piece.plain else at
            at = (start if start >= 0 else at) + len(piece.plain)
            if n == 0:
                shown.append(head + text[:own] + piece)
                where.append((y, 0, 0) if labelled else (y, 0, head.cell_length))
            else:
                shown.append(Content(" " * (head.cell_length + own)) + piece)
                where.append((y, base + own + max(start, 0), head.cell_length + own))
    return Content("\n").join(shown), tuple(where)


class HangingStatic(Static):
    """A Static showing text through `Hanging`; a selection copies the text as written."""

    def __init__(self, text: Text | Content | str, indent: int = 0, label: int = 0, *, classes: str | None = None,
                 id: str | None = None) -> None:
        super().__init__(hanging(text, indent, label), classes=classes, id=id)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        visual = self.visual
        if not isinstance(visual, Hanging):
            return super().get_selection(selection)
        _, where = visual.lines(max(self.content_region.width, 1))

        def back(offset: Offset | None) -> Offset | None:     # a place on the screen -> the same in the text
            if offset is None:
                return None
            if offset.y >= len(where):         # past the last line: the text's end
                return Offset(len(visual.content.plain), visual.content.plain.count("\n"))
            y, column, lead = where[offset.y]
            return Offset(column + max(offset.x - lead, 0), y)
        return Selection(back(selection.start), back(selection.end)).extract(str(visual)), "\n"


def hanging(text: Text | Content | str, indent: int = 0, label: int = 0) -> Hanging:
    if isinstance(text, Text):
        text = Content.from_rich_text(text)
    return Hanging(Content(text) if isinstance(text, str) else text, indent, label)
