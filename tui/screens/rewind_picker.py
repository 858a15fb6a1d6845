"""/rewind: pick one of your earlier messages and go back to just before it: the conversation from there on is
gone (its text returns to the input), and with f the files the agent changed since then are restored too
(ghost snapshots). With k it forks instead (issue 30.2): a new session holds the conversation before the message and
this one stays as it is (`fork` is then True). Dismisses with (message id, restore files) or None."""

from __future__ import annotations

from typing import Any

from contextual.tui.css import stylesheet
from contextual.tui.format import one_line
from contextual.tui.row_keys import after_moves
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option


class RewindPicker(ModalScreen[tuple[str, bool] | None]):
    CSS_PATH = stylesheet(__name__)
    # priority: the list's own enter (its select, not shown) hid these from the footer; one or the other shows
    BINDINGS = [Binding("enter", "pick", "go back there", priority=True),
                Binding("enter", "pick_fork", "fork there", priority=True),
                Binding("escape", "dismiss(None)", "cancel"), Binding("f", "toggle_files", "files too"),
                Binding("k", "fork", "fork instead"), Binding("k", "rewrite", "rewrite instead")]

    def __init__(self, messages: list[Any], changed_files: set[str], summarised: set[str] | None = None) -> None:
        """``messages``: the user messages that can be gone back to, oldest first (from the session's record);
        ``changed_files``: the turn ids whose file changes can still be restored; ``summarised``: the ids of those
        a compaction summarised (going back to one undoes the compactions after it)."""
        super().__init__()
        self.messages = list(reversed(messages))
        self.changed_files = changed_files
        self.summarised = summarised or set()
        self.restore_files = False
        self.fork = False

    def compose(self) -> ComposeResult:
        with Vertical(id="rewind-box"):
            yield OptionList(*[Option(self._row(m), id=m.id) for m in self.messages], id="rewind-list")
            yield Static(id="rewind-plan")
        yield Footer()

    def _row(self, message: Any) -> Text:
        changed = message.meta.get("turn") in self.changed_files
        if message.id in self.summarised:
            head = Text.assemble(("◆ summarised ", "bold #d7af5f"), ("you  ", "cyan"))
        else:
            head = Text("● you  ", style="bold cyan")
        return Text.assemble(head, one_line(message.meta.get("raw", message.content), 90),
                             ("  (changed files)" if changed else "", "dim"))

    def on_mount(self) -> None:
        self._plan()
        self.query_one(OptionList).focus()

    def _plan(self) -> None:
        # the keys (what enter does too) are the footer's; the line below says what the choice does
        self.query_one("#rewind-box").border_title = f"{'Fork' if self.fork else 'Rewind'} · your messages, newest first"
        if self.fork:
            self.query_one("#rewind-plan", Static).update(Text(
                "Fork: a new session holds the conversation before the chosen message; this one and the files stay "
                "as they are.", style="bold"))
            return
        files = ("and the files the agent changed since then are restored" if self.restore_files
                 else "files stay as they are")
        summarised = (" ◆ summarised: a compaction replaced it with its summary; going back to it restores the "
                      "conversation before it from the session file and undoes the later compactions."
                      if self.summarised else "")
        self.query_one("#rewind-plan", Static).update(Text(
            f"The conversation goes back to before the chosen message; {files}.{summarised}", style="bold"))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # a fork leaves the files as they are: no "files too" there; `k`'s footer says where it goes back to
        if action in ("toggle_files", "fork", "pick"):
            return not self.fork
        if action in ("rewrite", "pick_fork"):
            return self.fork
        return True

    def action_pick(self) -> None:
        messages = self.query_one(OptionList)
        after_moves(messages, messages.action_select)

    def action_pick_fork(self) -> None:
        self.action_pick()

    def action_fork(self) -> None:
        self._set_fork(True)

    def action_rewrite(self) -> None:
        self._set_fork(False)

    def _set_fork(self, fork: bool) -> None:
        self.fork = fork
        self._plan()
        self.refresh_bindings()

    def action_toggle_files(self) -> None:
        self.restore_files = not self.restore_files
        self._plan()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss((str(event.option.id), self.restore_files))
