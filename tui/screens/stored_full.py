"""Stored vs full: a tool result's stored (compressed) form beside its full observation.

Both panes have the same rows (gap rows where the stored form dropped lines), so they scroll together.
"""

from __future__ import annotations

from contextual.core.context.scratchpad import OBS
from contextual.core.context.stored_render import sent_text
from contextual.core.messages import Message
from contextual.core.tokens import shared_cache
from contextual.tui.css import stylesheet
from contextual.core.plural import plural
from contextual.tui.format import args_label, tokens
from contextual.tui.observation import align, gutter_width, readable_lines
from contextual.tui.prompt_view import Shown
from contextual.tui.screen_safe import screen_text
from contextual.tui.widgets.aligned_pane import AlignedPane
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Static


class StoredFullScreen(Screen[None]):
    CSS_PATH = stylesheet(__name__)
    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "back"),
        Binding("tab", "swap_focus", "other pane"),
        Binding("n", "next_gap", "next gap"),
        Binding("r", "raw", "raw text"),
    ]

    def __init__(self, message: Message, shown: Shown | None = None) -> None:
        super().__init__()
        self.message = message
        # The left pane is the form the next prompt really sends (made harder or cut when the builder had to),
        # with the prompt view's token figure, the same one History and /context show.
        self.sent = shown.by_source().get(message.id) if shown is not None else None
        self.form = self.sent.form if self.sent is not None and self.sent.form else "stored"
        # A tool's output as stored: a file's or a command's escape sequences would reach the terminal
        stored_lines = [screen_text(line) for line in readable_lines(self._left_text())]
        full_lines = ([screen_text(line) for line in readable_lines(message.full)] if message.full
                      else list(stored_lines))
        self.alignment = align(stored_lines, full_lines)
        self.stored_lines, self.full_lines = stored_lines, full_lines

    def _left_text(self) -> str:
        """What the builder made of it when it had to (superseded, harder, cut), else its stored form as the prompt
        reads it (C1's fields as text, core/context/stored_render.py)."""
        if self.sent is not None and self.form in ("superseded", "hard", "cut", "stub"):
            return self.sent.content.removeprefix(OBS)      # lined up with the full form, which has no prefix
        return sent_text(self.message.content)

    def compose(self) -> ComposeResult:
        m = self.message
        dropped = self.alignment.dropped_lines
        yield Static(
            f" {m.tool_name or 'tool'} {args_label(m.meta.get('args'), 80)} · step {m.meta.get('step', '?')} · "
            f"{plural(dropped, 'line')} of the full form not sent"
            + ("" if m.full else " · (no full form was recorded)"),
            id="stored-full-header", markup=False,     # arguments are the model's: `[/]` ended the app
        )
        lines = max(len(self.stored_lines), len(self.full_lines))      # each pane numbers its own lines
        gutter = gutter_width(self.stored_lines, self.full_lines, rows=lines)
        stored = AlignedPane(self.alignment.stored, gutter=gutter, id="stored")
        full = AlignedPane(self.alignment.full, gutter=gutter, id="full")
        stored.partner, full.partner = full, stored
        with Horizontal():
            yield stored
            yield full
        yield Footer()

    def on_mount(self) -> None:
        stored = self.query_one("#stored", AlignedPane)
        full = self.query_one("#full", AlignedPane)
        stored_tokens = self.sent.tokens if self.sent is not None else shared_cache.count(self.message.content)
        full_tokens = shared_cache.count(self.message.full or self.message.content)
        stored.border_title = f"sent as {self.form} · {plural(len(self.stored_lines), 'line')} · {tokens(stored_tokens)} tok"
        full.border_title = f"full · {plural(len(self.full_lines), 'line')} · {tokens(full_tokens)} tok"
        stored.border_subtitle = "blue: added by the rule · ┄ gap: not stored"
        full.border_subtitle = "red: dropped from history"
        stored.focus()

    def action_raw(self) -> None:
        """The exact text, no layout: what is sent (stored or as the builder made it), then the full form."""
        from contextual.tui.screens.info import InfoScreen
        from rich.text import Text
        sent = self._left_text()
        body = Text.assemble((f"sent as {self.form}\n", "bold"), screen_text(sent), ("\n\nfull\n", "bold"),
                             screen_text(self.message.full or "(no full form was recorded)"))
        self.app.push_screen(InfoScreen("Raw text", body))

    def action_swap_focus(self) -> None:
        stored = self.query_one("#stored", AlignedPane)
        (self.query_one("#full", AlignedPane) if stored.has_focus else stored).focus()

    def action_next_gap(self) -> None:
        """Jump to the next row where stored and full differ."""
        stored = self.query_one("#stored", AlignedPane)
        start = int(stored.scroll_y) + 1
        rows = self.alignment.stored
        for index in range(start, len(rows)):
            if rows[index].kind != "same" and (index == 0 or rows[index - 1].kind == "same"):
                stored.scroll_to(y=index, animate=False)
                return
        self.notify("No more differences below.", timeout=2)
