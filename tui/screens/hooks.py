"""/hooks: every hook of the config files, by event in the order they run, with its matcher, command, file and whether
it runs (a project's own only once approved); the highlighted one whole below the table. Read-only: it says where
hooks are written. The listing (re-read on opening, and put in force) is core/hook_list.py's."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from contextual.core.hook_list import HookListing, ListedHook
from contextual.tui.css import stylesheet
from contextual.tui.format import one_line, project_path
from contextual.tui.screen_safe import screen_text

FRAME = 4               # the box's border and padding
MATCHER_MOST = 14       # a longer matcher (a regular expression) is cut in its column, whole in the detail
LEAST_COMMAND = 12


def matcher_of(listed: ListedHook) -> str:
    return listed.hook.matcher or "*"


class HooksScreen(ModalScreen[None]):
    CSS_PATH = stylesheet(__name__)
    BINDINGS = [Binding("escape,q", "dismiss", "close")]

    def __init__(self, listing: HookListing) -> None:
        super().__init__()
        self.listing = listing

    def compose(self) -> ComposeResult:
        with Vertical(id="hooks-box"):
            yield Static(id="hooks-head")
            yield DataTable(id="hooks", cursor_type="row", zebra_stripes=True)
            yield Static(id="hooks-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#hooks-box").border_title = "Hooks"        # its key: the footer
        self.query_one("#hooks-head", Static).update(self.head())
        table = self.query_one(DataTable)
        table.display = bool(self.listing.hooks)
        self.fill()
        self.show_detail()
        table.focus()

    def on_resize(self) -> None:
        self.fill()                 # the commands cut to the new width, the cursor where it was
        self.show_detail()

    def fill(self) -> None:
        table = self.query_one(DataTable)
        row, hooks = table.cursor_row, self.listing.hooks
        table.clear(columns=True)           # a column keeps the widest cell it held: narrower, they start anew
        for name in ("event", "matcher", "command", "from", "state"):
            table.add_column(name, key=name)
        event_width = max((len(h.hook.event) for h in hooks), default=5)
        matcher_width = min(MATCHER_MOST, max((len(matcher_of(h)) for h in hooks), default=7))
        box = min(self.app.size.width, 160) - FRAME       # the box's max-width (hooks.tcss)
        # each column's padding is one cell a side; "from" is at most "project", the state "inert"; the table's
        # scrollbar, once it scrolls, two more (else the state column went under it)
        command_width = max(LEAST_COMMAND, box - event_width - max(7, matcher_width) - 7 - 5 - 2 * 5 - 2)
        for index, listed in enumerate(hooks):
            # Text, not str: a DataTable reads a str cell as markup, where a command's `[/]` ended the app
            table.add_row(Text(listed.hook.event), Text(one_line(matcher_of(listed), matcher_width)),
                          Text(one_line(listed.hook.command, command_width)), Text(listed.source),
                          Text("runs", style="green") if listed.runs else Text("inert", style="bold yellow"),
                          key=str(index))
        table.move_cursor(row=max(0, row))

    def head(self) -> Text:
        listing = self.listing
        said = Text()
        if listing.changed:
            said.append(f"Re-read from the config files now: {listing.changed}; those that run, run from the next "
                        "event.\n", style="bold")
        user, project = listing.files
        said.append("Edit the [[hooks.EVENT]] tables of ", style="dim")
        said.append(screen_text(self.shown_path(user)))
        said.append(" (yours) or ", style="dim")
        said.append(screen_text(self.shown_path(project)))
        said.append(" (the project's, run once you approve them), then open /hooks again: it re-reads them. "
                    "docs/features.md#hooks", style="dim")
        return said

    def shown_path(self, path: Path) -> str:
        return project_path(path, self.listing.root)

    def highlighted(self) -> ListedHook | None:
        row, hooks = self.query_one(DataTable).cursor_row, self.listing.hooks
        return hooks[row] if hooks and 0 <= row < len(hooks) else None

    def show_detail(self) -> None:
        listed = self.highlighted()
        detail = Text()
        if listed is None:
            detail.append("No hooks configured. [[hooks.PreToolUse]], [[hooks.Stop]] … in either file run your "
                          "commands on the agent's events, in Claude Code's shape.", style="dim")
        else:
            hook = listed.hook
            detail.append(f"{hook.event}", style="bold")
            detail.append(f" · matcher {screen_text(matcher_of(listed))} · timeout {hook.timeout:g} s · from ")
            detail.append(screen_text(self.shown_path(Path(hook.source))))
            detail.append("\n")
            detail.append(screen_text(hook.command), style="bold cyan")
            detail.append("\n")
            detail.append("runs" if listed.runs else listed.why_inert, style="green" if listed.runs else "yellow")
        width = min(self.app.size.width, 160) - FRAME
        for note in self.listing.notes:         # one line each: the chat said them whole at launch
            detail.append(f"\n{one_line(note, width)}", style="yellow")
        self.query_one("#hooks-detail", Static).update(detail)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.show_detail()
