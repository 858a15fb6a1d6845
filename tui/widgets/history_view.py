"""History as stored: exactly the messages L3 sends next, one row each, with their token sizes.

Enter (or a click) on a tool result asks the app to open it beside its full observation.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.message import Message as TextualMessage
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from core.messages import Message
from core.context.builder import history_message
from core.tokens import shared_cache
from tui.format import args_label, one_line, stored_status, tokens
from tui.observation import readable_lines

ROLE_STYLE = {
    "summary": ("◆ summary", "bold #d7af5f"),
    "user": ("● you", "bold cyan"),
    "assistant": ("○ agent", "#87afd7"),
    "tool": ("▸", "bold #5fafaf"),
}


def sent_tokens(message) -> int:
    """Tokens of the message exactly as L3 sends it (its Observation/summary prefix included)."""
    return shared_cache.message(history_message(message).content)


UNDO_MARK = "↶"


def message_row(message: Message, index: int, width: int = 70, undoable: bool = False) -> Text:
    """One row; ``undoable`` marks the user message of a turn whose file changes /undo can take back."""
    size = sent_tokens(message)
    label, style = ROLE_STYLE.get(message.role, (message.role, ""))
    row = Text(no_wrap=True, overflow="ellipsis")
    if message.role == "tool":
        row.append(f"{label} {message.tool_name or 'tool'} ", style=style)
        row.append(args_label(message.meta.get("args"), 36) + " ")
        stored_n = len(readable_lines(message.content))
        full_n = len(readable_lines(message.full)) if message.full else stored_n
        detail = f"stored {stored_n}/{full_n} lines" if full_n != stored_n else f"{stored_n} lines"
        status = stored_status(message)
        row.append(f"· {detail}" + (f" · {status}" if status else ""), style="dim")
        row.append(f" · {tokens(size)}", style="bold")
        if message.full:
            row.append(" ⇄", style="bold #5fafaf")
        return row
    row.append(f"{label} ", style=style)
    if undoable:
        row.append(f"{UNDO_MARK} ", style="bold #d7af5f")
    if message.role == "summary" and message.meta.get("number"):
        row.append(f"#{message.meta['number']} ", style=style)
    row.append(f"{tokens(size)}  ", style="bold")
    if message.meta.get("interrupted"):
        row.append("[interrupted] ", style="bold #d75f5f")
    row.append(one_line(message.content, width))
    return row


class HistoryView(OptionList):
    DEFAULT_CSS = """
    HistoryView { text-wrap: nowrap; text-overflow: ellipsis; }
    """
    BINDINGS = [Binding("enter", "select", "stored vs full", show=True)]

    @dataclass
    class OpenToolResult(TextualMessage):
        """The user picked a tool result: show stored and full side by side."""
        history_view: "HistoryView"
        message: Message

        @property
        def control(self) -> "HistoryView":
            return self.history_view

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.messages: list[Message] = []
        self._keys: list[tuple[str, int, bool]] = []
        self.total_tokens = 0
        self.undoable: set[str] = set()      # turn ids whose file changes can be undone

    def is_undoable(self, message: Message) -> bool:
        return message.role == "user" and message.meta.get("turn") in self.undoable

    def set_undoable(self, turns: set[str]) -> None:
        """The turns that can be undone (read from the session file): their user messages get a mark."""
        self.undoable = set(turns)
        self.show(self.messages)

    def show(self, messages: list[Message]) -> None:
        """Follow the engine's history; appends when only new messages came, rebuilds otherwise."""
        messages = list(messages)
        keys = [(m.id, hash(m.content), self.is_undoable(m)) for m in messages]
        if keys == self._keys:
            self._titles()
            return
        common = 0
        for old, new in zip(self._keys, keys):
            if old != new:
                break
            common += 1
        before = self.highlighted
        at_end = before is None or before >= len(self._keys) - 1
        if common < len(self._keys):
            self.clear_options()
            common = 0
        self.add_options([Option(message_row(m, i, undoable=self.is_undoable(m)), id=str(i))
                          for i, m in enumerate(messages[common:], common)])
        self.messages, self._keys = messages, keys
        self.total_tokens = sum(sent_tokens(m) for m in messages)
        if at_end and messages:
            self.highlighted = len(messages) - 1
        elif before is not None and before < len(messages):
            self.highlighted = before           # a rebuild (new undo marks) keeps the user's place
        self._titles()

    def _titles(self) -> None:
        self.border_title = self.title
        marked = sum(1 for m in self.messages if self.is_undoable(m))
        self.border_subtitle = (f"{UNDO_MARK} {marked} turn{'s' if marked != 1 else ''} undoable · ^z undo"
                                if marked else "")

    @property
    def title(self) -> str:
        return f"History as stored · L3 · {len(self.messages)} msgs · {tokens(self.total_tokens)} tok"

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        message = self.messages[event.option_index]
        if message.role == "tool":
            self.post_message(self.OpenToolResult(self, message))
        else:
            self.notify("Only tool results have a stored and a full form.", severity="information", timeout=3)
