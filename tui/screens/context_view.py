"""/context: the next prompt as a document. One collapsible block per message (role, layer, tokens, form, source),
text with real newlines, JSON shown as readable key/value lines, code and diffs highlighted; a marker where the
prompt stops being identical to the previous call's (what a provider cache reuses); totals per layer, tool and file."""

from __future__ import annotations

import json
import re
from collections import defaultdict

from contextual.core.context.compaction_words import ESTIMATE
from contextual.core.plural import plural
from contextual.tui.css import stylesheet
from contextual.tui.format import one_line, tokens, unparsed
from contextual.tui.meter_words import figures_explained
from contextual.tui.observation import readable_lines
from contextual.tui.prompt_view import LAYERS, Shown, ShownMessage
from rich.console import RenderableType
from rich.markdown import Markdown
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Collapsible, Footer, Static

_DIFF = re.compile(r"^(---|\+\+\+|@@) ", re.M)
_OBSERVATION = re.compile(r"^Observation(?: \([^)]*\))?:\s*")
TITLE_CHARS = 240        # of a message's text in its block's title: more than the widest screen shows


def render_content(content: str) -> RenderableType:
    """A message's text for reading: JSON as indented lines, diffs and fenced code highlighted, prose as Markdown."""
    body = _OBSERVATION.sub("", content, count=1)
    stripped = body.strip()
    if stripped.startswith(("{", "[")):
        try:
            json.loads(stripped)
        except ValueError:
            pass
        else:
            return Syntax("\n".join(readable_lines(stripped)), "yaml", theme="monokai", word_wrap=True)
    if len(_DIFF.findall(body)) >= 2:
        return Syntax(body, "diff", theme="monokai", word_wrap=True)
    if "```" in body or body.lstrip().startswith("#"):
        return Markdown(body, code_theme="monokai")
    return Text(body)


def first_change(now: tuple[ShownMessage, ...], before: tuple[ShownMessage, ...] | None) -> int | None:
    """Index of the first message that differs from the previous call's prompt (None: no previous call)."""
    if before is None:
        return None
    for index, (a, b) in enumerate(zip(now, before)):
        if (a.role, a.content) != (b.role, b.content):
            return index
    return min(len(now), len(before))


def totals(shown: Shown) -> dict[str, dict[str, int]]:
    """Tokens per layer, per tool and per file read."""
    out: dict[str, dict[str, int]] = {"layer": defaultdict(int), "tool": defaultdict(int), "file": defaultdict(int)}
    for m in shown.messages:
        out["layer"][m.layer] += m.tokens
        if m.tool:
            out["tool"][m.tool] += m.tokens
        if m.path:
            out["file"][m.path] += m.tokens
    return out


def totals_table(shown: Shown) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    sums = totals(shown)
    layers = "  ".join(f"{k} {tokens(v)}" for k in LAYERS for kk, v in sums["layer"].items() if kk == k)
    table.add_row("figures", Text("\n".join(figures_explained(shown)), style="dim"))
    table.add_row("per layer", layers)
    # Text, not str: a Rich table reads a str as markup, and tool names and paths come from outside.
    if sums["tool"]:
        table.add_row("per tool", Text("  ".join(f"{k} {tokens(v)}" for k, v in sorted(sums["tool"].items(),
                                                                                  key=lambda kv: -kv[1]))))
    if sums["file"]:
        table.add_row("per file", Text("  ".join(f"{k} {tokens(v)}" for k, v in sorted(sums["file"].items(),
                                                                                  key=lambda kv: -kv[1])[:12])))
    return table


def summary_text(s: Shown, width: int) -> Text:
    """The header: the next prompt, then the trigger estimate against its line. Where that does not fit, in the
    meter's shorter words; where even those do not fit, broken between phrases, never inside one (at 80 columns
    the line broke "trigger estimate 14.7k of" from its "5.8k")."""
    usage, estimate, line_at = s.basis == "usage", tokens(s.estimate), tokens(s.threshold)
    window = tokens(s.counted_window)
    phrases = ["next prompt", plural(len(s.messages), "message"), f"{tokens(s.total)} tok of {window} window",
               f"{ESTIMATE} {estimate}{' (server usage)' if usage else ''} of {line_at}"]
    if len(" " + " · ".join(phrases)) > width:      # the meter's narrow words; whose count: the figures row says
        phrases[2:] = [f"{tokens(s.total)} of {window} window", f"estimate {estimate} / {line_at} trigger"]
    line = " " + phrases[0]
    for phrase in phrases[1:]:
        last = line.rsplit("\n", 1)[-1]
        line += (" · " if len(last) + 3 + len(phrase) <= width else "\n ") + phrase
    text = Text(line)
    text.stylize("bold", 0, line.index(phrases[2]) + phrases[2].index(" of "))     # up to the prompt's size
    return text


def block_title(index: int, m: ShownMessage) -> str:
    form = f" · {m.form}" if m.form else ""
    source = " · " + " ".join(x for x in (m.tool, m.path) if x) if (m.tool or m.path) else ""
    # A title is markup, and the text is anyone's (`Observation: [ok]`, a tag a cut left open). The stylesheet
    # cuts it to the screen with an ellipsis: a wide one shows more (at 60 characters half of 200 columns stayed empty).
    return unparsed(f"#{index + 1} {m.role} · {m.layer} · {tokens(m.tokens)} tok{form}{source} · "
                   f"{one_line(m.content, TITLE_CHARS)}")


class ContextScreen(Screen[None]):
    CSS_PATH = stylesheet(__name__)
    BINDINGS = [Binding("escape,q", "app.pop_screen", "back"), Binding("tab", "app.focus_next", "next, enter opens"),
                Binding("shift+tab", "app.focus_previous", "previous", show=False),
                # a message's title opens on enter itself, and its binding hides this one from the footer
                Binding("enter", "toggle_focused", "open", show=False), Binding("e", "expand_all", "open all"),
                Binding("c", "collapse_all", "close all")]

    def __init__(self, shown: Shown, previous: Shown | None = None) -> None:
        super().__init__()
        self.shown = shown
        self.changed_at = first_change(shown.messages, previous.messages if previous is not None else None)

    def compose(self) -> ComposeResult:
        s = self.shown
        yield Static(summary_text(s, self.app.size.width), id="context-summary")
        with VerticalScroll(id="context-layers"):
            yield Static(totals_table(s), id="context-totals")
            for index, m in enumerate(s.messages):
                if index == self.changed_at:
                    above = f"{plural(index, 'message')} above {'is' if index == 1 else 'are'}"
                    yield Static(Text(f"── the prompt differs from the previous call from here: the {above} a "
                                      "prefix a provider cache can reuse ──", style="bold #d7af5f"),
                                 classes="cache-mark")
                with Collapsible(title=block_title(index, m), collapsed=True, classes=f"-{m.form or 'plain'}"):
                    yield Static(render_content(m.content), classes="content")
        yield Footer()

    def on_resize(self, event: events.Resize) -> None:
        # the header spans the screen: its words, and where it breaks, follow the width
        self.query_one("#context-summary", Static).update(summary_text(self.shown, event.size.width))

    def on_mount(self) -> None:
        # the first message has the focus, so enter opens it and tab walks on (the footer says so)
        titles = self.query("CollapsibleTitle")
        if titles:
            titles.first().focus(scroll_visible=False)

    def action_toggle_focused(self) -> None:
        """Open or close the message that has the focus (its title handles enter itself; this is the footer's)."""
        for node in self.focused.ancestors_with_self if self.focused is not None else ():
            if isinstance(node, Collapsible):
                node.collapsed = not node.collapsed
                return

    def action_expand_all(self) -> None:
        for c in self.query(Collapsible):
            c.collapsed = False

    def action_collapse_all(self) -> None:
        for c in self.query(Collapsible):
            c.collapsed = True
