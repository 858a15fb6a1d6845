"""The live scratchpad: this turn's Thought, Action and full observation of each step, as they happen.

When a turn ends the view clears, but every turn stays browsable with [ and ].
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from rich.console import Group
from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from contextual.core.messages import FORMAT_ERROR_TOOL, Message
from contextual.core.tokens import shared_cache
from contextual.core.plural import plural
from contextual.tui.format import args_label, denied, stored_status, tokens
from contextual.tui.screen_safe import screen_text
from contextual.tui.widgets.in_place import update_in_place

if TYPE_CHECKING:
    from contextual.core.session.schema import TurnEnd
from contextual.tui.observation import HangingLines, gutter_width, readable_lines

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
MAX_OBSERVATION_LINES = 1500      # beyond this the stored-vs-full screen shows the rest


@dataclass
class StepRecord:
    step: int
    streamed: str = ""
    thought: str | None = None
    tool: str | None = None
    args: Any = None
    running: bool = False
    observation: str | None = None     # the full text, as the model saw it
    status: str | None = None
    format_error: str | None = None
    reasoning: str = ""


@dataclass
class TurnRecord:
    number: int
    prompt: str
    steps: list[StepRecord] = field(default_factory=list)
    outcome: str = "running"

    def step(self, number: int) -> StepRecord:
        for record in self.steps:
            if record.step == number:
                return record
        record = StepRecord(number)
        self.steps.append(record)
        return record


def recorded_turns(messages: list[Message], ends: Mapping[str, TurnEnd] | None = None) -> list[TurnRecord]:
    """A resumed session's turns as the live scratchpad had them: each step's thought, action and full
    observation, read from the record (after `contextual -c` the pane said "each step of the running turn shows
    here" and [ had nothing to show). Their text is cleaned as the router cleans a live turn's events: a file's or
    a command's escape sequences would reach the terminal."""
    turns: list[TurnRecord] = []
    turn_ids: list[str] = []
    for message in messages:
        meta = message.meta
        if message.starts_turn:
            turns.append(TurnRecord(len(turns) + 1, screen_text(str(meta.get("raw", message.content))),
                                    outcome="not finished"))
            turn_ids.append(str(meta.get("turn")))
            continue
        if not turns or not isinstance(meta.get("step"), int):
            continue
        if message.from_stop_hook:       # the answer's step: what the model read, as live
            turns[-1].step(meta["step"]).observation = screen_text(message.content)
            turns[-1].outcome = "not finished"
            continue
        if message.role not in ("assistant", "tool"):
            continue
        record = turns[-1].step(meta["step"])
        if meta.get("final"):
            turns[-1].outcome = "finished"
        if message.role == "tool" and meta.get("tool_name") == FORMAT_ERROR_TOOL:
            record.format_error = screen_text(message.content)     # what the model was told of its reply
        elif message.role == "tool":
            record.observation = screen_text(message.full or message.content)
            record.status = ("denied" if denied(message.content) else "error"
                             if stored_status(message).startswith("error") else "success")   # as live
        elif meta.get("format_error") or meta.get("tool_name") == FORMAT_ERROR_TOOL:
            record.streamed = screen_text(message.full or message.content)   # the reply as written: no action
        else:
            _read_action(record, message)
    for turn, turn_id in zip(turns, turn_ids):      # why a turn had no answer, as the live pane said it
        end = (ends or {}).get(turn_id)
        if end is not None and turn.outcome != "finished":
            turn.outcome = "interrupted" if end.interrupted else "failed"
    return turns


def _read_action(record: StepRecord, message: Message) -> None:
    from contextual.core.react import ReactFormatError, parse_reply     # with the first resume, not at launch
    text, name = screen_text(message.full or message.content), message.meta.get("tool_name")
    try:
        parsed = parse_reply(text, frozenset({name}) if isinstance(name, str) else frozenset())
        record.thought, record.tool, record.args = parsed.thought, parsed.tool, parsed.args
    except ReactFormatError:          # a native call: the text beside it is its thought
        record.thought = text.strip() or None
    if isinstance(name, str):         # the record's name and arguments, as the engine ran them
        record.tool, record.args = name, message.meta.get("args")
    if isinstance(message.meta.get("thinking"), str):
        record.reasoning = screen_text(message.meta["thinking"])


def render_step(record: StepRecord, spinner_frame: str = "") -> Group:
    parts: list[Any] = [Text(f"── step {record.step} ", style="bold dim")]
    if record.reasoning:
        parts.append(Text.assemble(("Thinking ", "italic dim"), (record.reasoning[-400:], "italic dim")))
    if record.thought is not None:
        parts.append(Text.assemble(("Thought  ", "bold #87afd7"), record.thought))
    elif record.streamed and record.tool is None:
        parts.append(Text(record.streamed, style="dim"))
    if record.format_error:
        parts.append(Text.assemble(("Format error  ", "bold #d75f5f"), record.format_error))
    if record.tool is not None:
        parts.append(Text.assemble(("Action   ", "bold #d7af5f"), (record.tool, "bold"), " ",
                                   args_label(record.args, 200)))
    if record.running:
        parts.append(Text(f"{spinner_frame or '…'} running {record.tool}…", style="bold #af87af"))
    if record.observation is not None:
        lines = readable_lines(record.observation)
        size = shared_cache.count(record.observation)
        status = f" · {record.status}" if record.status and record.status != "success" else ""
        parts.append(Text(f"┄ Observation · full · {plural(len(lines), 'line')} · {tokens(size)} tok{status} ┄",
                          style="bold #5fafaf"))
        shown = lines[:MAX_OBSERVATION_LINES]
        # No row numbers here: a Read's lines carry the file's own, shown once in their own column.
        width = gutter_width(shown, rows=1)
        parts.append(HangingLines(shown, width))
        if len(lines) > len(shown):
            parts.append(Text(f"… {len(lines) - len(shown)} more lines (open it from History: enter)", style="dim"))
    return Group(*parts)


class ScratchpadView(VerticalScroll):
    BINDINGS = [
        Binding("[", "previous_turn", "prev turn"),
        Binding("]", "next_turn", "next turn"),
    ]
    DEFAULT_CSS = """
    ScratchpadView > .step { padding: 0 1; }
    ScratchpadView > .idle { padding: 0 1; color: $text-muted; }
    """

    shown_turn: reactive[int | None] = reactive(None, init=False)   # index into turns; None = idle view

    def __init__(self, *, id: str | None = None, animate_spinner: bool = True) -> None:
        super().__init__(id=id)
        self.turns: list[TurnRecord] = []
        self.first_turn = 1
        self.current: TurnRecord | None = None
        self.animate_spinner = animate_spinner
        self._frame = 0
        self._step_widgets: dict[int, Static] = {}

    def on_mount(self) -> None:
        if self.animate_spinner:
            self.set_interval(0.12, self._tick)
        self._show_idle()

    # ----- the engine's side
    def start_turn(self, prompt: str) -> None:
        self.current = TurnRecord(self.first_turn + len(self.turns), prompt)
        self.turns.append(self.current)
        self.shown_turn = len(self.turns) - 1

    def end_turn(self, outcome: str) -> None:
        if self.current is not None:
            self.current.outcome = outcome
        self.current = None
        self.shown_turn = None

    def reset(self, first_turn: int = 1, recorded: list[TurnRecord] | None = None) -> None:
        """A new or resumed session: past turns belong to the old one; a resumed one numbers on, its ``recorded``
        turns browsable before this run's."""
        self.turns = list(recorded or [])
        self.first_turn = max(first_turn - len(self.turns), 1)
        self.current = None
        self.shown_turn = None
        self._show_idle()

    def reset_step(self, step: int) -> None:
        """The stream restarted: drop the partial text of this step."""
        if self.current is not None:
            record = self.current.step(step)
            record.streamed = ""
            record.reasoning = ""
            self._paint_step(record)

    def update_step(self, step: int, **changes: Any) -> None:
        """Apply changes to a step of the running turn and repaint just that step."""
        if self.current is None:
            return
        record = self.current.step(step)
        for key, value in changes.items():
            if key in ("streamed", "reasoning"):
                value = getattr(record, key) + value
            setattr(record, key, value)
        if self.shown_turn == len(self.turns) - 1:
            self._paint_step(record)

    @property
    def title(self) -> str:
        if self.shown_turn is None:
            last = self.turns[-1] if self.turns else None
            return "Scratchpad · idle" + (f" · last turn {last.number} {last.outcome}" if last else "")
        turn = self.turns[self.shown_turn]
        step = turn.steps[-1].step if turn.steps else 0
        state = "live" if turn is self.current else turn.outcome
        return f"Scratchpad · turn {turn.number} · step {step} · {state}"

    # ----- browsing
    def action_previous_turn(self) -> None:
        if not self.turns:
            return
        if self.shown_turn is None:
            self.shown_turn = len(self.turns) - 1
        elif self.shown_turn > 0:
            self.shown_turn -= 1

    def action_next_turn(self) -> None:
        if self.shown_turn is None:
            return
        if self.shown_turn < len(self.turns) - 1:
            self.shown_turn += 1
        elif self.current is None:
            self.shown_turn = None

    def watch_shown_turn(self, _old: int | None, new: int | None) -> None:
        if new is None:
            self._show_idle()
        else:
            self._show_turn(self.turns[new])
        self._retitle()

    # ----- painting
    def _retitle(self) -> None:
        # at every streamed fragment of a step: the pane is repainted whole only when its title changed
        if self.parent is not None and self.border_title != self.title:
            self.border_title = self.title

    def _show_idle(self) -> None:
        self.add_class("-idle")          # the idle hint is two lines: the box shrinks to it (app.tcss)
        self.remove_children()
        self._step_widgets.clear()
        if self.turns:
            last = self.turns[-1]
            # short: at 100 columns the longer hint took four rows of a box sized for fewer, its start scrolled off
            hint = f"Turn {last.number} {last.outcome}. [ ] browse the turns (f3 gives this pane the keys)."
        else:
            hint = "Each step of the running turn shows here: Thought, Action, and the full observation."
        self.mount(Static(Text(hint), classes="idle"))
        self.scroll_home(animate=False)    # a turn shown before left the view at its end
        self._retitle()

    def _show_turn(self, turn: TurnRecord) -> None:
        self.remove_class("-idle")
        self.remove_children()
        self._step_widgets.clear()
        header = Static(Text.assemble(("turn ", "dim"), (str(turn.number), "bold"), ("  you: ", "dim"), turn.prompt[:200]),
                        classes="idle")
        self.mount(header)
        for record in turn.steps:
            self._paint_step(record)

    def _paint_step(self, record: StepRecord) -> None:
        widget = self._step_widgets.get(record.step)
        renderable = render_step(record, SPINNER[self._frame % len(SPINNER)] if self.animate_spinner else "")
        if widget is None:
            widget = Static(renderable, classes="step")
            self._step_widgets[record.step] = widget
            self.mount(widget)
        else:
            update_in_place(widget, renderable)     # a layout only when the step grew a line
        self._retitle()
        self.scroll_end(animate=False)

    def _tick(self) -> None:
        if self.current is None or self.shown_turn != len(self.turns) - 1:
            return
        self._frame += 1
        for record in self.current.steps:
            if record.running:
                self._paint_step(record)

