"""No control character reaches the terminal from any screen: a step in the one place Textual turns a line into
what it writes (`Strip.render`), installed with the app's other patches of Textual (tui/textual_patches.py).

Each screen still cleans the outside text it shows (`core/textsafe.strip_control` through `screen_text`: whole
sequences removed, bidi controls made visible, newlines handled); this is what holds when a screen forgets. Rich
drops only BEL, BS, CR and FF from text: ESC, the other C0 controls, DEL and C1 reached the terminal, so a name
holding `ESC ] 2 ; x ESC \\` set the window title and `ESC [ 8 m` hid what followed it.

Only the control characters go, not the sequences they start: each is zero cells wide to Rich and Textual, so no
line moves (`]2;x` had been counted as four cells, and now shows as them). Textual adds its own SGR and OSC 8 in
`Strip.render`, from the segments' styles; a style's link goes inside OSC 8, so it is cleaned too.

Why here and not a line filter: every screen's frames (full, partial, inline) reach the driver only through
`Strip.render`, which no widget or screen can opt out of, and a strip renders once (`_render_cache`): the check
runs once per new line on screen. A filter runs on every widget's lines, containers' included, and makes a Strip
per line: +6–10 % to a frame of a long chat; this step is within the noise, priced at about 1.5 % of a frame drawn
anew and 0.2 % of one drawn already (benchmarks/bench_line_guard.py).
"""

from __future__ import annotations

import re

from rich.console import Console
from rich.segment import Segment
from textual.strip import Strip

CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")      # C0 (tab and newline too: the cursor would move), DEL, C1


def _unsafe(strip: Strip) -> bool:
    search = CONTROL.search
    # Every new line on screen passes here: isprintable (False for every control) spares most texts the regex;
    # `_link` is what Strip.render writes into OSC 8 (`.link`, a property, costs a call per segment).
    for text, style, control in strip:
        if control or (not text.isprintable() and search(text)) or (
                style is not None and style._link and search(style._link)):
            return True
    return False


def _cleaned(segment: Segment) -> Segment:
    text, style, _ = segment
    if style is not None and style.link and CONTROL.search(style.link):
        style = style.update_link(CONTROL.sub("", style.link))
    return Segment(CONTROL.sub("", text), style)


def without_controls(strip: Strip) -> Strip:
    """The strip without control characters in its text and links, and without control segments (Textual draws
    none in a line: its cursor moves go between strips); the same strip when it has none."""
    if not _unsafe(strip):
        return strip
    cleaned = (_cleaned(segment) for segment in strip if not segment.control)
    return Strip([segment for segment in cleaned if segment.text], strip.cell_length)   # no empty segments


_textual_render = Strip.render        # Textual's own, read before textual_patches.install replaces it


def render(strip: Strip, console: Console) -> str:
    """Strip.render, of the strip without controls; cached on the strip as Textual caches its own."""
    if strip._render_cache is None:
        clean = without_controls(strip)
        if clean is not strip:
            strip._render_cache = _textual_render(clean, console)
    return _textual_render(strip, console)
