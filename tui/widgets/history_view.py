"""History as stored: exactly the messages L3 sends next, one row each, with their token sizes.

Enter (or a click) on a tool result asks the app to open it beside its full observation.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from collections.abc import Sequence
from typing import Any, Callable

from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message as TextualMessage
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from contextual.core.context.summary_pairs import summary_records
from contextual.core.messages import Message
from contextual.core.tokens import NotCounted, known_counts_only, ready, shared_cache
from contextual.tui.format import (args_label, final_answer, one_line, plural, stored_status, tokens,
                                  without_markdown)
from contextual.tui.prompt_view import Shown
from textual.visual import VisualType

ROLE_STYLE = {
    "summary": ("◆ summary", "bold #d7af5f"),
    "user": ("● you", "bold cyan"),
    "assistant": ("○ agent", "#87afd7"),
    "tool": ("▸", "bold #5fafaf"),
}


def sent_tokens(message: Message, shown: Shown | None = None) -> int:
    """Tokens of the message as the next prompt sends it: the prompt view's figure when it names this message,
    else the message as L3 renders it (its Observation/summary prefix included)."""
    sent = shown.by_source().get(message.id) if shown is not None else None
    if sent is not None:
        return sent.tokens
    from contextual.core.context.builder import history_message    # the builder loads after the first frame
    return shared_cache.message(history_message(message).content)


def sent_form(message: Message, shown: Shown | None) -> str:
    """How the next prompt carries the message: full, stored, hard, cut or dropped ('' when not known)."""
    if shown is None:
        return ""
    sent = shown.by_source().get(message.id)
    if sent is not None:
        return sent.form
    return "dropped" if any(m.source == message.id for m in shown.dropped) else ""


UNDO_MARK = "↶"
ROW_TEXT = 400
PIN_MARK = "⚲"          # pinned: kept whole, never compressed or archived (issue 19.3)
FORM_STYLE = {"superseded": "bold #8a8a8a", "hard": "bold #d7875f", "cut": "bold #d75f5f", "dropped": "bold #d75f5f strike"}


def summary_numbers(messages: Sequence[Message], compactions: Sequence[Any]) -> dict[str, int]:
    """Each summary's number as /compactions gives it (compactions cut without a summary count too)."""
    return {key: n for key, (n, _) in summary_records(messages, compactions).items()}


def message_row(message: Message, index: int, width: int = 70, undoable: bool = False,
                shown: Shown | None = None, pinned: bool = False, number: int | None = None) -> Text:
    """One row; ``undoable`` marks the user message of a turn whose file changes /undo can take back; a message
    the next prompt sends harder, cut or not at all carries that mark."""
    size = sent_tokens(message, shown)
    form = sent_form(message, shown)
    label, style = ROLE_STYLE.get(message.role, (message.role, ""))
    row = Text(no_wrap=True, overflow="ellipsis")
    if pinned:
        row.append(f"{PIN_MARK} ", style="bold #d7af5f")
    if form in FORM_STYLE:
        row.append(f"[{form}] ", style=FORM_STYLE[form])
    if message.role == "tool":
        row.append(f"{label} {message.tool_name or 'tool'} ", style=style)
        row.append(args_label(message.meta.get("args"), 80) + " ")
        status = stored_status(message)
        # a marked form is said once, at the row's start
        row.append("· " + (f"{form or 'stored'} " if form not in FORM_STYLE else ""), style="dim")
        row.append(tokens(size), style="bold")
        row.append(f" · {status}" if status else "", style="dim")
        if message.full:
            row.append(" ⇄", style="bold #5fafaf")
        return row
    row.append(f"{label} ", style=style)
    if undoable:
        row.append(f"{UNDO_MARK} ", style="bold #d7af5f")
    if message.role == "summary":           # summaries stay first in history, oldest first: #1, #2, …
        row.append(f"#{number or index + 1} ", style=style)
    row.append(f"{tokens(size)}  ", style="bold")
    if message.meta.get("interrupted"):
        row.append("[interrupted] ", style="bold #d75f5f")
    text = final_answer(message) if message.meta.get("final") else message.content
    # The row is plain text: a Markdown answer's or summary's raw **marks** read as noise. A Thought/Action row is
    # shown as sent (`**/*.py` in an Action's arguments is a glob, not bold).
    step = message.role == "assistant" and not message.meta.get("final") and "Action:" in text
    if message.role in ("assistant", "summary") and not step:
        text = without_markdown(text)
    row.append(one_line(text, max(20, width)))
    return row


class LazyRow(Option):
    """A row whose text is made when first shown: a 2,000-message History makes only the rows on screen."""

    def __init__(self, make: Callable[[], Text], id: str) -> None:
        super().__init__("", id=id)
        self._make: Callable[[], Text] | None = make

    @property
    def prompt(self) -> VisualType:
        if self._make is not None:
            self._set_prompt(self._make())
            self._make = None
        return self._prompt


class HistoryView(OptionList):
    DEFAULT_CSS = """
    HistoryView { text-wrap: nowrap; text-overflow: ellipsis; }
    """
    BINDINGS = [Binding("enter", "select", "open", show=True), Binding("p", "pin", "pin/unpin", show=True)]

    @dataclass
    class OpenMessage(TextualMessage):
        """The user opened a row: a tool result shows stored beside full, other rows their text."""
        history_view: "HistoryView"
        message: Message

        @property
        def control(self) -> "HistoryView":
            return self.history_view

    @dataclass
    class PinMessage(TextualMessage):
        """The user pinned or unpinned a row (issue 19.3): kept whole, never compressed or archived."""
        history_view: "HistoryView"
        message: Message

        @property
        def control(self) -> "HistoryView":
            return self.history_view

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.messages: list[Message] = []
        self._keys: list[tuple[str, int, bool, int, str, int, bool]] = []
        self.total_tokens = 0
        self.undoable: set[str] = set()      # turn ids whose file changes can be undone
        self.shown: Shown | None = None
        self.pinned: frozenset[str] = frozenset()     # pinned message ids, as the engine has them
        self.summary_numbers: dict[str, int] = {}     # a summary's number in /compactions (fallbacks count)

    def is_undoable(self, message: Message) -> bool:
        return message.role == "user" and message.meta.get("turn") in self.undoable

    def set_undoable(self, turns: set[str]) -> None:
        """The turns that can be undone (read from the session file): their user messages get a mark."""
        self.undoable = set(turns)
        self.show(self.messages, self.shown)

    def show(self, messages: list[Message], shown: Shown | None = None) -> None:
        """Follow the engine's history as the next prompt sends it; appends when only new rows came, rebuilds
        the rows that changed otherwise."""
        messages = list(messages)
        self.shown = shown
        width = ROW_TEXT      # rows end in an ellipsis at the width they get: a wider screen shows more
        try:
            if shown is None and not ready():
                raise NotCounted
            with known_counts_only():       # the UI thread never waits for the tokenizer to load
                keys = [(m.id, hash(m.content), self.is_undoable(m), sent_tokens(m, shown), sent_form(m, shown),
                         width, m.id in self.pinned) for m in messages]
        except NotCounted:                  # no row before its size can be counted (the tokenizer loads)
            self.shown = None
            self.clear_options()
            self.messages, self._keys, self.total_tokens = messages, [], 0
            self._titles()
            return
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
        self.add_options([LazyRow(partial(message_row, m, i, width, self.is_undoable(m), shown, m.id in self.pinned,
                                          self.summary_numbers.get(m.id)),
                                  id=str(i)) for i, m in enumerate(messages[common:], common)])
        self.messages, self._keys = messages, keys
        self.total_tokens = sum(key[3] for key in keys if key[4] != "dropped")
        if at_end and messages:
            self.highlighted = len(messages) - 1
        elif before is not None and before < len(messages):
            self.highlighted = before           # a rebuild (new undo marks) keeps the user's place
        self._titles()

    def _update_lines(self) -> None:
        """Every row is one line (no wrap), so its height is known without making it (OptionList's own version
        renders every option to measure it: most of the time a long session took to open). The lines are made
        even where the view has no room: at 40x10 History has none, and pgdn/pgup read the lines (KeyError)."""
        cache = self._line_cache
        for index in range(cache.lines[-1][0] + 1 if cache.lines else 0, len(self.options)):
            cache.index_to_line[index] = len(cache.lines)
            cache.heights[index] = 1
            cache.lines.append((index, 0))
        if not self.scrollable_content_region:
            return
        size = Size(self.scrollable_content_region.width - self._get_left_gutter_width(), len(cache.lines))
        if size != self.virtual_size:
            self.virtual_size = size
            self._scroll_update(size)

    def _titles(self) -> None:
        self.border_title = self.title
        marked = sum(1 for m in self.messages if self.is_undoable(m))
        self.border_subtitle = (f"{UNDO_MARK} {marked} turn{'s' if marked != 1 else ''} undoable · /undo"
                                if marked else "")

    @property
    def title(self) -> str:
        # What the rows add up to: mid-turn the turn's own messages are sent in another layer than L3 (it said 0).
        size = "counting tokens…" if self.shown is None and not ready() else f"{tokens(self.total_tokens)} tok"
        return f"History as sent · L3 · {plural(len(self.messages), 'message')} · {size}"

    def action_pin(self) -> None:
        if self.highlighted is not None and self.highlighted < len(self.messages):
            self.post_message(self.PinMessage(self, self.messages[self.highlighted]))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.OpenMessage(self, self.messages[event.option_index]))

