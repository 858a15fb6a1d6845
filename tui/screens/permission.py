"""Permission for a tool call: allow once, allow always (a rule written to the project's config), deny, or deny
and tell the agent what to do instead; esc stops the turn. Edits show their diff, Bash its command."""

from __future__ import annotations

import time
from typing import Any

from contextual.core.events import AlwaysRules, PermissionAnswer
from contextual.core.mcp.describe import shown_name
from contextual.core.shell.written import commands_as_written
from contextual.tui.css import stylesheet
from contextual.tui.format import args_label
from contextual.tui.widgets.text_box import TextBox
from rich.syntax import Syntax
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static



PREVIEW_SHARE = "70vh"      # the most of the screen the preview takes (permission.tcss says the same); _fit_preview
                            # gives back what the lines around it need
MIN_PREVIEW_ROWS = 4        # its frame and two lines, however little room the rest leaves


def preview_renderable(tool: str, preview: str) -> Syntax:
    lexer = "bash" if tool == "Bash" else "diff"
    return Syntax(preview or "(no preview)", lexer, theme="monokai", word_wrap=True, line_numbers=False)


def diff_shown(preview: str) -> tuple[str, Text | None]:
    """An edit's diff without its `--- a/` `+++ b/` head (the line above names the file: at 80x24 the head took two
    of the seven rows the preview has, and a one-line change showed only its `-` line), and the lines it adds and
    removes, said before anything scrolls. Anything else as it is, with no count."""
    lines = preview.splitlines(keepends=True)
    head = [line[:4] for line in lines[:3]]
    if head != ["--- ", "+++ ", "@@ -"]:
        return preview, None
    body = lines[2:]
    added = sum(1 for line in body if line.startswith("+"))
    removed = sum(1 for line in body if line.startswith("-"))
    return "".join(body), Text.assemble(("  ", ""), (f"+{added}", "bold green"), " ", (f"−{removed}", "bold red"))


# What each tool asks to do, in the user's words; an MCP or unknown tool "wants to run" with its arguments.
_VERBS = {"Bash": "run", "Write": "write", "Edit": "edit", "MultiEdit": "edit"}


def asks_to(tool: str) -> str:
    return f" wants to {_VERBS.get(tool, 'run')}: "


MAX_LISTED = 8        # commands named in the "runs" line; more are counted, between the first and the last ones
LAST_LISTED = 3


def runs_line(command: str, width: int = 48) -> Text | None:
    """What a Bash line runs, each simple command once and as written (heredoc bodies are text, not commands):
    the end of a long line — `rm -rf ./important_dir` after a 30-line heredoc — is named before anything scrolls.
    The dialog shows it only while the preview cannot show the whole line."""
    commands = [c if len(c) <= width else c[:width - 1] + "…" for c in commands_as_written(command) if c]
    if len(commands) < 2 and "\n" not in command.strip():
        return None                       # a one-line, one-command call: the preview shows it as it is
    # past MAX_LISTED, the first ones and the last ones: the end of a long chain (`… && rm -rf build`) was the part
    # counted away as "and 7 more"
    shown: list[str | None] = list(commands)
    if len(commands) > MAX_LISTED:
        shown = [*commands[:MAX_LISTED - LAST_LISTED], None, *commands[-LAST_LISTED:]]
    out = Text("runs ", style="dim")
    for i, c in enumerate(shown):
        out.append("  ·  " if i else "", style="dim")
        if c is None:
            out.append(f"{len(commands) - MAX_LISTED} more", style="dim")
        else:
            out.append(c, style="bold")
    return out


def always_line(always: AlwaysRules) -> Text:
    """What "always" would do, shown before it is pressed: the rules it writes, or why there is no "always" (the
    button and its key are gone then: an "Always [a]" that allowed once only contradicted this line)."""
    if not always.rules:
        return Text.assemble(("“always” is not offered", "bold"),
                             f": no rule could match this call again — {always.why}")
    return Text.assemble(("always", "bold"), " adds the rule" + ("s " if len(always.rules) > 1 else " "),
                         (", ".join(always.rules), "bold"), " to .contextual/config.local.toml")


class PermissionModal(ModalScreen[PermissionAnswer | None]):
    """Dismisses with the user's PermissionAnswer (a denial may carry a note), or None: esc, stop the turn."""

    CSS_PATH = stylesheet(__name__)
    BINDINGS = [
        # priority: t opens the note, and what is typed with it is the note's (tui/widgets/text_box.py); the other
        # answers too, so a burst's keys are read in the order typed (`n t` denies, the t after it is no note)
        Binding("y,1", "decide('allow_once')", "allow once", priority=True),
        Binding("a,2", "decide('allow_always')", "always", priority=True),
        Binding("n,3", "decide('deny')", "deny", priority=True),
        Binding("t,4", "decide('deny_tell')", "deny + tell", priority=True),
        Binding("escape", "stop", "stop the turn"),
        # the preview scrolls from the buttons: a long command's end is often what matters
        Binding("down", "scroll_preview(1)", show=False), Binding("up", "scroll_preview(-1)", show=False),
        Binding("pagedown", "scroll_preview(10)", show=False), Binding("pageup", "scroll_preview(-10)", show=False),
        Binding("end", "scroll_preview(1_000_000)", show=False), Binding("home", "scroll_preview(-1_000_000)", show=False),
    ]

    # Keys in the first moment after the modal opens were typed for the message being written ("add a test"
    # holds `a`, always allow; enter sends): they are ignored, and the modal says so.
    GRACE_S = 0.6
    clock = staticmethod(time.monotonic)          # a test steps its own clock: the grace is time, not load

    def __init__(self, tool: str, args: Any, preview: str, always: AlwaysRules = AlwaysRules(()),
                 edits_files: bool = False) -> None:
        super().__init__()
        self.tool, self.args = tool, args
        self.edits_files = edits_files                # shift+tab: allow, and accept edits for the session
        self.preview, self.counts = diff_shown(preview) if tool != "Bash" else (preview, None)
        self._opened_at = 0.0                     # set on mount: the grace counts from there
        self.always = always_line(always)
        self.has_always = bool(always.rules)          # else no "Always" button, and `a` does nothing

    def compose(self) -> ComposeResult:
        with Vertical(id="permission-box"):
            # A Bash line is shown once, in the preview: at 80x24 the title, the runs line and the preview had
            # shown it three times, and the preview, the one that shows it whole, got 7 rows
            bash = self.tool == "Bash" and isinstance(self.args, dict)
            what = (asks_to(self.tool).rstrip(), "") if bash else (asks_to(self.tool), args_label(self.args, 100))
            yield Static(Text.assemble((shown_name(self.tool), "bold"), *what, self.counts or ""),
                         id="permission-what")
            runs = runs_line(str(self.args.get("command", ""))) if bash else None
            if runs is not None:
                yield Static(runs, id="permission-runs")
            with VerticalScroll(id="permission-preview"):
                yield Static(preview_renderable(self.tool, self.preview))
            # The rule has a line of its own: on the button a long one pushed "Deny + tell" off an 80-column screen.
            yield Static(self.always, id="permission-rule")
            if self.edits_files:       # shift+tab is the app's key (the mode); here it answers (ContextualApp.action_cycle_mode)
                yield Static(Text.assemble(("shift+tab", "bold"), " allows this and every later edit of this run"),
                             id="permission-edits")
            with Horizontal(id="permission-buttons"):
                # compact: one row of buttons still fits at 80 columns
                yield Button(Text("Allow once [y]"), id="allow_once", variant="success", compact=True)
                if self.has_always:
                    yield Button(Text("Always [a]"), id="allow_always", variant="primary", compact=True)
                yield Button(Text("Deny [n]"), id="deny", variant="error", compact=True)
                yield Button(Text("Deny + tell [t]"), id="deny_tell", variant="warning", compact=True)
            yield TextBox("what the agent should do instead (enter sends, esc stops the turn)", "permission-note",
                          self.noted, self.action_stop)
        yield Footer()

    def on_mount(self) -> None:
        self._opened_at = self.clock()
        self.query_one("#permission-box").border_title = "Permission"        # its keys: the footer
        self.query_one("#permission-note").display = False
        for runs in self.query("#permission-runs"):
            runs.display = False                  # until the preview turns out too short to show the whole line
        # at once: a `t` read as the dialog opened opens the note after this, and a deferred focus took it back
        self.set_focus(self.query_one("#allow_once", Button))
        preview = self.query_one("#permission-preview", VerticalScroll)
        self.watch(preview, "scroll_y", lambda _: self._show_position(), init=False)
        self.watch(preview, "virtual_size", lambda _: self._show_position())
        self.call_after_refresh(self._fit_preview)

    def on_resize(self, event: events.Resize) -> None:
        # Textual lays a screen out at its new size before it gives it the size's classes: shrunk from 40 columns
        # (-slim: two buttons a row) to 6-11, a button's label wrapped at width 0 and ended the app. This
        # handler runs before Textual's: the classes for the new width first.
        breakpoints = sorted(self.app.HORIZONTAL_BREAKPOINTS or [])
        now = next((name for edge, name in reversed(breakpoints) if event.size.width >= edge), None)
        self.update_classes({name: name == now for _, name in breakpoints}, animate=False)
        self.query_one("#permission-preview").styles.max_height = PREVIEW_SHARE
        for runs in self.query("#permission-runs"):
            runs.display = False                  # judged again at this size
        self.call_after_refresh(self._fit_preview)

    def _fit_preview(self) -> None:
        """The preview gives up rows the box lacks, so the rule, the buttons and the note always show: a long
        command's `what` and `runs` lines pushed the buttons under the border at 80x24 (its 40 % cap alone could
        not know how tall the rest is)."""
        if self.app.screen is not self:
            # dismissed before this ran (esc as it opened): its widgets are going, and the fit crashed the app on
            # an empty box (tmux)
            return
        box = self.query_one("#permission-box")
        preview = self.query_one("#permission-preview")
        shown = [w for w in box.children if w.display]
        if not shown:
            return
        last = shown[-1]
        needed = last.region.bottom + last.styles.margin.bottom - box.content_region.y
        over = needed - box.content_region.height
        if over > 0:
            preview.styles.max_height = max(MIN_PREVIEW_ROWS, preview.outer_size.height - over)
        self.call_after_refresh(self._name_runs)

    def _name_runs(self) -> None:
        """The runs line, where the preview scrolls: it names what the line runs, the part below the fold too.
        Where the preview shows the whole line the runs line would only say it again."""
        if self.app.screen is not self:              # dismissed meanwhile: nothing to name
            return
        preview = self.query_one("#permission-preview", VerticalScroll)
        self._show_position()                         # its rows changed: "lines 1–14 of 34" had stayed on 7 rows
        for runs in self.query("#permission-runs"):
            if not runs.display and preview.virtual_size.height > preview.scrollable_content_region.height:
                runs.display = True
                self.call_after_refresh(self._fit_preview)

    def _show_position(self) -> None:
        """Says on the preview's frame that it holds more than it shows, and which keys show the rest."""
        preview = self.query_one("#permission-preview", VerticalScroll)
        total, shown = preview.virtual_size.height, preview.scrollable_content_region.height
        if not shown or total <= shown:
            preview.border_subtitle = ""
            return
        first = int(preview.scroll_y) + 1
        last = min(total, first + shown - 1)
        preview.border_subtitle = f"lines {first}–{last} of {total} · ↑↓ pgup pgdn end"

    def action_scroll_preview(self, lines: int) -> None:
        if self.query_one("#permission-note").display:      # typing the note: the keys move its cursor
            return
        self.query_one("#permission-preview", VerticalScroll).scroll_relative(y=lines, animate=False, immediate=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decide(event.button.id or "deny")

    def too_soon(self) -> bool:
        return self.clock() - self._opened_at < self.GRACE_S

    def action_decide(self, decision: str) -> None:
        if self.query_one("#permission-note").display:     # typing the note: letters are text, not keys
            return
        if self.too_soon():
            self.query_one("#permission-box").border_subtitle = "a key typed as this opened was ignored: read, then answer"
            return
        if decision == "deny_tell":
            self.query_one("#permission-rule").display = False     # what "always" would add: moot once denying
            self.query_one("#permission-note", TextBox).open()
            self.call_after_refresh(self._fit_preview)
        elif decision == "allow_once":
            self.dismiss(PermissionAnswer("allow_once"))
        elif decision == "accept_edits" and self.edits_files:
            self.dismiss(PermissionAnswer("accept_edits"))
        elif decision == "allow_always" and self.has_always:
            self.dismiss(PermissionAnswer("allow_always"))
        elif decision == "allow_always":
            return                                    # no rule could match it again: there is no "always" here
        else:
            self.dismiss(PermissionAnswer("deny"))

    def noted(self, note: str) -> None:
        self.dismiss(PermissionAnswer("deny", note.strip()))

    def action_stop(self) -> None:
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # While the note is typed, y/a/n/t are letters: hide those keys from the footer and let them through.
        if action == "decide" and self.is_mounted and self.query_one("#permission-note").display:
            return None
        if action == "decide" and parameters == ("allow_always",) and not self.has_always:
            return False                              # the footer offers no `a always` that would allow once
        return True
