"""Readable text on every theme: a foreground too close to its background is pushed away from it until it reads.

The app's own colours (the meter's layers, History's roles, the dialogs' titles) are xterm-256 colours picked
for a dark background; on a light theme (textual-light, catppuccin-latte, …) gold, light blue and teal text on
near-white read at a contrast ratio of 1.5 to 2. One filter over every line, not a second palette per widget.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter
from textual.widget import Widget

MIN_CONTRAST = 4.0          # between WCAG's 3 (large text) and 4.5 (body text): hues stay recognisable
STEPS = 10


def luminance(color: Color) -> float:
    """WCAG relative luminance."""
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(first: Color, second: Color) -> float:
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@lru_cache(maxsize=4096)
def readable(foreground: Color, background: Color) -> Color:
    """The foreground, or the first blend of it away from the background (towards white when it is the lighter of
    the two, else black) that reads; where that end cannot reach MIN_CONTRAST, the end that reads best."""
    if contrast(foreground, background) >= MIN_CONTRAST:
        return foreground
    white, black = Color(255, 255, 255), Color(0, 0, 0)
    target = white if luminance(foreground) > luminance(background) else black
    for step in range(1, STEPS + 1):
        blended = foreground.blend(target, step / STEPS)
        if contrast(blended, background) >= MIN_CONTRAST:
            return blended
    return max((white, black), key=lambda end: contrast(end, background))


# Box drawing, block elements and shades (borders, bars, scrollbars) draw with colour on colour on purpose
_TEXT = re.compile(r"[^\s\u2500-\u259f▏▕]")


def _is_text(text: str) -> bool:
    return _TEXT.search(text) is not None


@lru_cache(maxsize=4096)
def _lifted(style: Style, background: Color) -> Style | None:
    """The style with its colour made readable, or None where it reads as it is."""
    if style.color is None or style.reverse or style.color.is_default:
        return None
    back = Color.from_rich_color(style.bgcolor) if style.bgcolor is not None and not style.bgcolor.is_default \
        else background
    fore = Color.from_rich_color(style.color)
    fixed = readable(fore.blend(back, 1 - fore.a) if fore.a < 1 else fore, back)
    return None if fixed == fore else style + Style(color=RichColor.from_rgb(fixed.r, fixed.g, fixed.b))


class ReadableText(LineFilter):
    """Lifts every run of text to MIN_CONTRAST against the cell's background (ContextualApp.get_line_filters)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        # Every line painted passes here: a run that reads as it is stays the same segment (most do), and a line
        # with none to lift is handed back whole, not copied segment by segment
        lifted_line = segments
        for index, (text, style, control) in enumerate(segments):
            lifted = _lifted(style, background) if style is not None and not control else None
            if lifted is not None and _is_text(text):
                if lifted_line is segments:
                    lifted_line = list(segments)
                lifted_line[index] = Segment(text, lifted, control)
        return lifted_line


def backdrop_filters(screen: Widget) -> Sequence[LineFilter]:
    """Screen.get_line_filters (installed by tui/textual_patches.py): a screen's own lines are its backdrop, under a
    dialog the screen beneath drawn faded on purpose (Textual's BackgroundScreen tint); lifting that text undid the
    fading. The widgets on every screen keep the filter."""
    return [f for f in Widget.get_line_filters(screen) if not isinstance(f, ReadableText)]
