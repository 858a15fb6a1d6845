"""The always-visible meter. Two figures, named apart: the trigger estimate (what automatic compaction compares
with its line: last usage + the input's estimate) drawn against the window with the trigger line marked, and the
size of the next prompt, split by layer; cached tokens and cost when the provider reported them. Two lines; one
under 30 rows, where the chat has the row (app.tcss).

One vocabulary at every width: a narrow meter drops words ("trigger estimate" → "estimate", "trigger line" →
"trigger"), never says another (at 80 columns it had said "sending" where 200 said "next prompt"). The first figure
keeps its name when it is the server's usage of the last call (the card and /compactions name it so whichever count
it came from); its tooltip says whose count it is."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from contextual.core.context.compaction_words import ESTIMATE, against_trigger
from contextual.core.prompt import said_cost
from contextual.tui.format import tokens
from contextual.tui.laid_out import laid_out_size
from contextual.tui.meter_words import figures_explained
from contextual.tui.prompt_view import Shown

# (layer, label, colour) in prompt order.
SEGMENTS = (
    ("L1", "L1", "#5f87d7"),
    ("L2", "L2", "#8787d7"),
    ("L3", "L3", "#5fafaf"),
    ("input", "input", "#d7af5f"),
    ("scratchpad", "scratch", "#af87af"),
    ("todo", "todo", "#87af87"),
)
LEVEL_COLOUR = {"ok": "#87af5f", "warn": "#d7875f", "due": "#d75f5f"}
LABEL_WIDE = 90             # from here the first line's label says it whole
NEXT_PROMPT = " next prompt "


def estimate_label(width: int) -> str:
    """The first line's label, the figure's one name (compaction_words.ESTIMATE), shorter when narrow."""
    return f" {ESTIMATE} " if width >= LABEL_WIDE else " estimate "


def bar_cells(shown: Shown, width: int) -> list[tuple[str, str]]:
    """The trigger estimate against the window, in the level's colour, with the trigger line marked."""
    window = shown.counted_window
    filled = min(width, round(width * shown.estimate / window))
    cells = [("█", LEVEL_COLOUR[shown.level])] * filled + [("░", "#4e4e4e")] * (width - filled)
    cells[min(width - 1, int(width * shown.threshold / window))] = ("│", "bold #d75f5f")
    return cells


def past_line(shown: Shown, wide: bool) -> str:
    """Past the trigger line with no compaction coming: /compact when it would archive something; else (nothing
    to archive yet, e.g. one round of a pasted log) the builder fits the prompt, and /compact would only refuse."""
    if shown.compactable:
        return "  past the line: /compact"
    return ("  past the line: fitted to the window" if wide else "  past the line: fitted") \
        if shown.total < shown.estimate else "  past the line"


def first_words(shown: Shown, width: int) -> tuple[str, str, str]:
    """The first line's label, figures and hint (empty unless compaction is coming or the line is passed)."""
    wide = width >= 100             # below, shorter words, so that the line fits (80 columns: nothing cut)
    figures = (f" {against_trigger(shown.estimate, shown.threshold, tokens)}" if wide else
               f" {tokens(shown.estimate)} / {tokens(shown.threshold)} trigger ({shown.trigger_share:.0%})")
    hint = ("  compaction at the next message" if wide else "  compaction at next message") if shown.due else (
        past_line(shown, wide) if shown.level == "due" else "")   # a promise only when it will compact
    return estimate_label(width), figures, hint


def bar_line(shown: Shown, width: int, tail: Text | None = None) -> Text:
    """The label, the bar, the figures and the hint, then `tail`; the bar takes the columns the rest leaves."""
    label, figures, hint = first_words(shown, width)
    colour = LEVEL_COLOUR[shown.level]
    bar_width = max(10, width - len(label) - len(figures) - len(hint) - 3 - (len(tail) if tail else 0))
    line = Text(label, style="bold")
    line.append("▕")
    for char, style in bar_cells(shown, bar_width):
        line.append(char, style=style)
    line.append("▏")
    line.append(figures, style=f"bold {colour}")
    if hint:
        line.append(hint, style=f"bold reverse {colour}")
    if tail:
        line.append_text(tail)
    return line


def meter_text(shown: Shown, width: int) -> Text:
    line = bar_line(shown, width)
    line.append("\n")
    line.append_text(second_line(shown, width))
    return line


ONE_LINE_BAR = 12       # the one-line meter's least bar: the next prompt's size and the cost come after it


def meter_line(shown: Shown, width: int) -> Text:
    """The meter in one row (under 30 rows): the first line, then the next prompt's size and the second line's
    parts while the bar keeps ONE_LINE_BAR columns; the words are the two lines', fewer of them. The size drops
    "of … window" before the cost or the server's count would go (at 80 columns the cost stays)."""
    label, figures, hint = first_words(shown, width)
    room = width - len(label) - len(figures) - len(hint) - 3 - ONE_LINE_BAR
    parts = extra_parts(shown, wide=False)
    heads = [head for head in (f"  next prompt {tokens(shown.total)} of {tokens(shown.counted_window)} window",
                               f"  next prompt {tokens(shown.total)}") if len(head) <= room]
    tail = Text()
    if heads:
        kept = {head: kept_parts(parts, room - len(head)) for head in heads}
        head = max(heads, key=lambda h: sum(need == 1 for need, _, _ in kept[h]))    # the first of the most
        tail.append(head, style="bold")
        append_parts(tail, kept[head])
    return bar_line(shown, width, tail)


Part = tuple[int, int, list[tuple[str, str]]]      # (need, order, pieces): kept most needed first, shown by order


def extra_parts(shown: Shown, wide: bool) -> list[Part]:
    """What follows the next prompt's size: the cost, the layers, pins, the server's count, cached tokens; `wide`,
    empty layers too and the server's count in words."""
    parts: list[Part] = []
    for order, (layer, label, seg_colour) in enumerate(SEGMENTS):
        if shown.layers.get(layer) or (layer in shown.layers and wide):
            parts.append((2, order, [("  ", ""), (f"{label} ", f"bold {seg_colour}"), (tokens(shown.layers[layer]), "")]))
    if shown.server_counts_apart:       # the same two figures by the server's tokenizer (issue 18): one unit each
        served, window = tokens(round(shown.total * shown.server_factor)), tokens(shown.window)
        # before the layers: without it "of 6.3k window" reads as a wrong setting of 8,192
        parts.append((1, 10, [(f"  ≈{served} of {window} server tokens (×{shown.server_factor:.2f})" if wide
                               else f"  ≈{served}/{window} server", "dim")]))
    if shown.pinned:
        parts.append((3, 11, [("  ", ""), ("pinned ", "bold #d7af5f"), (tokens(shown.pinned), "")]))
    if shown.cached_tokens:
        parts.append((5, 12, [(f"  cached {tokens(shown.cached_tokens)}", "dim")]))
    dollars = said_cost(shown.cost, shown.unpriced_calls, short=True)
    if dollars is not None:
        parts.append((1, 13, [(f"  {dollars}", "dim")]))
    return parts


def kept_parts(parts: list[Part], room: int) -> list[Part]:
    """The parts that fit in `room` columns, most needed first, in reading order."""
    kept = []
    for part in sorted(parts):
        size = sum(len(text) for text, _ in part[2])
        if size <= room:
            kept.append(part)
            room -= size
    return sorted(kept, key=lambda p: p[1])


def append_parts(line: Text, parts: list[Part]) -> None:
    for _, _, pieces in parts:
        for text, style in pieces:
            bare = text.lstrip(" ")
            line.append(text[:len(text) - len(bare)])       # the gap unstyled: a styled one was drawn after the text
            line.append(bare, style=style)


def second_line(shown: Shown, width: int) -> Text:
    """The next prompt's size, then (while they fit, most needed first) the cost, the layers, pins, the
    server's count, cached tokens; shown in reading order."""
    head = (NEXT_PROMPT, f"{tokens(shown.total)} of {tokens(shown.counted_window)} window")
    line = Text(head[0], style="bold")
    line.append(head[1], style="bold")
    append_parts(line, kept_parts(extra_parts(shown, width >= 120), width - len(head[0]) - len(head[1]) - 1))
    return line


class TokenMeter(Widget):
    """Re-rendered whenever the app hands it a fresh ``Shown``."""

    DEFAULT_CSS = """
    TokenMeter { height: 2; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    shown: reactive[Shown | None] = reactive(None, always_update=True)

    def watch_shown(self, shown: Shown | None) -> None:
        # what each figure is, on hover (/context's "figures" row says the same)
        self.tooltip = "\n".join(figures_explained(shown)) if shown is not None else None

    def render(self) -> Text:
        size = laid_out_size(self)
        one_line = size.height == 1             # under 30 rows (app.tcss)
        if self.shown is None:       # the first second of a launch: the tokenizer loads after the first frame
            return Text.assemble((estimate_label(size.width), "bold"), ("counting…", "dim"),
                                 " " if one_line else "\n", (NEXT_PROMPT, "bold"),
                                 ("counting… (loading the tokenizer)", "dim"), no_wrap=True, overflow="ellipsis")
        if one_line:
            return meter_line(self.shown, size.width)
        return meter_text(self.shown, size.width)

    @property
    def level(self) -> str:
        """ok | warn | due — what the colour says."""
        return "ok" if self.shown is None else self.shown.level
