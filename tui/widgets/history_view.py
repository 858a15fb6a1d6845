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
from contextual.core.plural import plural, times
from contextual.core.react import stored_action
from contextual.tui.format import (args_label, call_label, final_answer, one_line, stored_status, tokens,
                                   without_markdown)
from contextual.tui.prompt_view import Shown
from contextual.tui.widgets.fit_row import FitRow
from textual.visual import VisualType

ROLE_STYLE = {
    "summary": ("◆ summary", "bold #d7af5f"),
    "user": ("● you", "bold cyan"),
    "assistant": ("○ agent", "#87afd7"),
    "tool": ("▸", "bold #5fafaf"),
}
STOP_HOOK_STYLE = ("● stop hook", "bold #d7af5f")


def sent_tokens(message: Message, shown: Shown | None = None) -> int:
    """Tokens of the message as the next prompt sends it: the prompt view's figure when it names this message,
    else the message as L3 renders it (its Observation/summary prefix included)."""
    sent = shown.by_source().get(message.id) if shown is not None else None
    if sent is not None:
        return sent.tokens
    from contextual.core.context.builder import history_message    # the builder loads after the first frame
    return shared_cache.message(history_message(message).content)


def sent_form(message: Message, shown: Shown | None) -> str:
    """How the next prompt carries the message: full, stored, superseded, hard, cut, or a step of the turn given way
    (stub, action-only, folded into the note) ('' when not known)."""
    sent = shown.by_source().get(message.id) if shown is not None else None
    return sent.form if sent is not None else ""


UNDO_MARK = "↶"
ROW_TEXT = 400
TAIL = 50               # more rows than this changed at the end: History is made again, not cut back row by row
# a message's row: what changes its look (its form at [4], pinned at [6]); equal keys are not drawn again
RowKey = tuple[str, int, bool, int, str, int, bool]
PIN_MARK = "⚲"          # pinned: kept whole, never compressed or archived (issue 19.3)
FORM_STYLE = {"superseded": "bold #8a8a8a", "hard": "bold #d7875f", "cut": "bold #d75f5f",
              # a step of the turn given way to fit (core/context/turn_fold.py), in the prompt's own words
              "stub": "bold #d75f5f", "action-only": "bold #d75f5f", "folded": "bold #d75f5f"}


def summary_numbers(messages: Sequence[Message], compactions: Sequence[Any]) -> dict[str, int]:
    """Each summary's number as /compactions gives it (compactions cut without a summary count too)."""
    return {key: n for key, (n, _) in summary_records(messages, compactions).items()}


def message_row(message: Message, index: int, width: int = 70, undoable: bool = False,
                shown: Shown | None = None, pinned: bool = False, number: int | None = None,
                group: Sequence[Message] = ()) -> Text:
    """One row; ``undoable`` marks the user message of a turn whose file changes /undo can take back; a message
    the next prompt sends harder or cut carries that mark. ``group``: the run of the same call this
    row stands for (``message`` its newest): ×N, their tokens summed, 'newest:' where they differ."""
    members = list(group) or [message]
    size = sum(sent_tokens(m, shown) for m in members)
    form = sent_form(message, shown)
    label, style = ROLE_STYLE.get(message.role, (message.role, ""))
    if message.from_stop_hook:          # user-role, but the hook's words: the turn went on with them
        label, style = STOP_HOOK_STYLE
    row = Text(no_wrap=True, overflow="ellipsis")
    if message.role == "tool":
        row = FitRow(no_wrap=True, overflow="ellipsis")
    if pinned:
        row.append(f"{PIN_MARK} ", style="bold #d7af5f")
    if form in FORM_STYLE:
        row.append(f"[{form}] ", style=FORM_STYLE[form])
    # the row shows the newest's arguments and text: 'newest:' says so where the others' differ
    newest = "newest: " if len({(m.content, repr(m.meta.get("args"))) for m in members}) > 1 else ""
    if message.role == "tool":
        row.append(f"{label} {times(message.tool_name or 'tool', len(members))} ", style=style)
        row.append(newest, style="dim")
        start = len(row.plain)
        arguments = args_label(message.meta.get("args"), width)
        row.append(arguments)
        if isinstance(row, FitRow):
            row.label_span = (start, len(row.plain))
        status = stored_status(message)
        row.append(" " if arguments or newest else "")      # `▸ LS · full 27`, not `▸ LS  · full 27`
        # a marked form is said once, at the row's start
        row.append("· " + (f"{form or 'stored'} " if form not in FORM_STYLE else ""), style="dim")
        row.append(tokens(size), style="bold")
        row.append(f" · {status}" if status else "", style="dim")
        if message.full:
            row.append(" ⇄", style="bold #5fafaf")
        return row
    row.append(f"{times(label, len(members))} ", style=style)
    if undoable:
        row.append(f"{UNDO_MARK} ", style="bold #d7af5f")
    if message.role == "summary":           # summaries stay first in history, oldest first: #1, #2, …
        row.append(f"#{number or index + 1} ", style=style)
    row.append(f"{tokens(size)}  ", style="bold")
    if message.meta.get("interrupted"):
        row.append("[interrupted] ", style="bold #d75f5f")
    row.append(newest, style="dim")
    text = final_answer(message) if message.meta.get("final") else message.content
    # The row is plain text: a Markdown answer's or summary's raw **marks** read as noise. A Thought/Action row is
    # shown as sent (`**/*.py` in an Action's arguments is a glob, not bold).
    step = message.role == "assistant" and not message.meta.get("final") and stored_action(text) is not None
    if message.role in ("assistant", "summary") and not step:
        text = without_markdown(text)
    row.append(one_line(text, max(20, width)))
    return row


def call_rows(messages: Sequence[Message], keys: Sequence[RowKey]) -> list[tuple[int, ...]]:
    """History's rows, as the indexes of the messages each stands for. A run of the same call (one tool, one
    label as the tool trail shows it, each step and each result sent in one form, none pinned) is two rows:
    its steps and its results, ×N. ``keys``: each message's row key (its form at [4], pinned at [6])."""
    def pair(i: int) -> tuple[object, ...] | None:
        if i + 1 >= len(messages):
            return None
        step, result = messages[i], messages[i + 1]
        if (step.role != "assistant" or result.role != "tool" or step.call_id is None
                or step.call_id != result.call_id or keys[i][6] or keys[i + 1][6]
                or step.meta.get("final") or step.meta.get("interrupted") or step.meta.get("format_error")):
            return None
        return (result.tool_name, call_label(result.meta.get("args")), keys[i][4], keys[i + 1][4],
                stored_status(result), bool(result.full))

    rows: list[tuple[int, ...]] = []
    i = 0
    while i < len(messages):
        same = pair(i)
        end = i + 2
        while same is not None and pair(end) == same:
            end += 2
        if same is not None and end - i > 2:
            rows += [tuple(range(i, end, 2)), tuple(range(i + 1, end, 2))]
            i = end
        else:
            rows.append((i,))
            i += 1
    return rows


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
        """The user pinned or unpinned a row (issue 19.3): kept whole, never compressed or archived. On a run of
        the same call, its newest (``of``: how many the row showed)."""
        history_view: "HistoryView"
        message: Message
        of: int = 1

        @property
        def control(self) -> "HistoryView":
            return self.history_view

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.messages: list[Message] = []
        self._keys: list[RowKey] = []
        self.rows: list[tuple[int, ...]] = []         # each row's messages (indexes): a run of one call has several
        self._row_keys: list[tuple[RowKey, ...]] = []
        self.total_tokens = 0
        self.undoable: set[str] = set()      # turn ids whose file changes can be undone
        self.shown: Shown | None = None
        self.pinned: frozenset[str] = frozenset()     # pinned message ids, as the engine has them
        self.summary_numbers: dict[str, int] = {}     # a summary's number in /compactions (fallbacks count)

    def is_undoable(self, message: Message) -> bool:
        return message.starts_turn and message.meta.get("turn") in self.undoable

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
            self.rows, self._row_keys = [], []
            self._titles()
            return
        if keys == self._keys:
            self._titles()
            return
        rows = call_rows(messages, keys)
        row_keys = [tuple(keys[i] for i in row) for row in rows]
        common = 0
        for old, new in zip(self._row_keys, row_keys):
            if old != new:
                break
            common += 1
        before = self.highlighted
        at_end = before is None or before >= len(self._row_keys) - 1
        kept = self.newest(before).id if before is not None and before < len(self.rows) else None
        if len(self._row_keys) - common > TAIL:
            self.clear_options()
            common = 0
        else:
            for index in range(len(self._row_keys) - 1, common - 1, -1):    # a run that grew, a row that changed
                self.remove_option_at_index(index)
        self.add_options([LazyRow(partial(self._row, messages, row, shown), id=str(r))
                          for r, row in enumerate(rows[common:], common)])
        self.messages, self._keys, self.rows, self._row_keys = messages, keys, rows, row_keys
        self.total_tokens = sum(key[3] for key in keys)
        if at_end and rows:
            self.highlighted = len(rows) - 1
        elif before is not None:                # a rebuild (new undo marks, a pin) keeps the user's place
            place = next((r for r, row in enumerate(rows) if any(messages[i].id == kept for i in row)), before)
            if place < len(rows):
                self.highlighted = place
        self._titles()

    def _row(self, messages: list[Message], row: tuple[int, ...], shown: Shown | None) -> Text:
        newest = messages[row[-1]]
        return message_row(newest, row[-1], ROW_TEXT, self.is_undoable(newest), shown, newest.id in self.pinned,
                           self.summary_numbers.get(newest.id),
                           group=[messages[i] for i in row] if len(row) > 1 else ())

    def message_index(self, row: int | None) -> int | None:
        """The message a row stands at for 'the tool result at or above it' (ctrl+o): a run's newest result, or
        for a run's steps the message before its first."""
        if row is None or row >= len(self.rows):
            return None
        members = self.rows[row]
        return members[-1] if self.messages[members[-1]].role == "tool" else members[0]

    def newest(self, row: int) -> Message:
        """The message Enter opens and p pins on a row: a run of the same call's newest."""
        return self.messages[self.rows[row][-1]]

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
        # at every event of a turn: each setting repaints the whole pane, so only a title that changed is set
        marked = sum(1 for m in self.messages if self.is_undoable(m))
        title, subtitle = self.title, f"{UNDO_MARK} {plural(marked, 'turn')} undoable · /undo" if marked else ""
        if self.border_title != title:
            self.border_title = title
        if self.border_subtitle != subtitle:
            self.border_subtitle = subtitle
            self.set_class(bool(subtitle), "-undoable")     # under 30 rows its bottom border shows only for it

    @property
    def title(self) -> str:
        # What the rows add up to: mid-turn the turn's own messages are sent in another layer than L3 (it said 0),
        # and the title names them, so its figure is not read as the meter's L3
        size = "counting tokens…" if self.shown is None and not ready() else f"{tokens(self.total_tokens)} tok"
        # the figure before the count: a side pane 50 columns wide cuts the title's end
        return f"History as sent · {self.scope} · {size} · {plural(len(self.messages), 'message')}"

    @property
    def scope(self) -> str:
        """'L3', or 'L3 + turn' while the rows hold the running turn's input and steps (the meter's input, scratch)."""
        sent = self.shown.by_source() if self.shown is not None else {}
        turn = any(sent[m.id].layer != "L3" for m in self.messages if m.id in sent)
        return "L3 + turn" if turn else "L3"

    def action_pin(self) -> None:
        # a run's newest: once pinned it leaves the run and shows on its own row, ⚲
        if self.highlighted is not None and self.highlighted < len(self.rows):
            self.post_message(self.PinMessage(self, self.newest(self.highlighted), len(self.rows[self.highlighted])))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.OpenMessage(self, self.newest(event.option_index)))

