"""The app's one "is something running?": a turn or a compaction runs in the ``turn`` worker group, one at a time;
messages typed meanwhile wait (``tui.queued.Queued``, shown on the input's border) and follow when it ends.
Owned by the app (``ContextualApp.turns``)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from textual.worker import Worker, WorkerState

from contextual.tui.format import unparsed
from contextual.tui.panes import Panes
from contextual.tui.queued import SENDS_NEXT, Queued
from contextual.tui.readouts import Readouts
from contextual.tui.shown_engine import ShownEngine
from contextual.tui.startup import Startup
from contextual.tui.textual_app import TextualApp
from contextual.tui.widgets.prompt_input import PromptInput
from contextual.tui.widgets.status_line import StatusLine
from contextual.tui.workers import RUNNING, TURN, turn_running

if TYPE_CHECKING:      # annotations only: the app's first frame does not wait for the engine's imports
    from contextual.core.custom_commands import CustomCommand
    from contextual.tui.router import EventRouter


class TurnsApp(TextualApp, Protocol):
    """What the turn runner asks of the app (the app knows TurnRunner; TurnRunner knows only this and the parts it
    is handed)."""

    @property
    def router(self) -> EventRouter: ...


class TurnRunner:
    def __init__(self, app: TurnsApp, shown: ShownEngine, startup: Startup, readouts: Readouts,
                 panes: Panes) -> None:
        self.app = app
        self.shown = shown
        self.startup = startup
        self.readouts = readouts
        self.panes = panes
        self.queued = Queued()                     # typed while a turn runs: sent when it finishes
        self.planning = False                      # the running (or latest) turn started in plan mode

    @property
    def running(self) -> bool:
        return turn_running(self.app)

    def busy(self, what: str) -> bool:
        """True (and says so) when a turn or compaction runs: ``what`` cannot start now."""
        if not self.running:
            return False
        self.app.notify(f"A turn is running: {what} after it ends, or press esc to interrupt it.",
                        severity="warning")
        return True

    # ----- starting and stopping
    def start(self, text: str, command: CustomCommand | None = None, arguments: str = "", typed: str = "") -> None:
        self.shown.ensure_session()
        self.app.run_worker(partial(self._turn, text, command, arguments, typed), name="_turn", group=TURN,
                            exclusive=True, exit_on_error=False)

    def compact(self, instructions: str | None, keep_rounds: int | None) -> None:
        if self.shown.engine.history.messages:    # a resumed session held elsewhere is forked before it is compacted
            self.shown.ensure_session()
        self.app.run_worker(partial(self._compact, instructions, keep_rounds), name="_compact", group=TURN,
                            exclusive=True, exit_on_error=False)

    async def _turn(self, text: str, command: CustomCommand | None, arguments: str, typed: str) -> None:
        await self.startup.started()        # sent within the first second: the turn waits, off the UI thread
        engine = self.shown.engine
        self.planning = engine.config.permission_mode == "plan"
        if command is not None:
            typed = command.as_typed(arguments)
        stream = (engine.run_turn(text, typed=typed) if command is None else engine.run_command(command, arguments))
        await self.app.router.consume_turn(typed or text, stream)     # the chat shows what was typed

    async def _compact(self, instructions: str | None, keep_rounds: int | None) -> None:
        await self.startup.started()
        # A manual compaction is previewed (issue 19.1): the summary waits beside the rounds it replaces.
        stream = self.shown.engine.compact(instructions, keep_rounds=keep_rounds, preview=True)
        await self.app.router.consume_compaction(stream)

    def stop(self) -> None:
        for worker in self.app.workers:
            if worker.group == TURN and worker.state in RUNNING:
                worker.cancel()

    def shell_running(self) -> bool:
        """A `!command` runs (its worker is in the turn group too)."""
        return any(w.name == "shell" and w.group == TURN and w.state in RUNNING for w in self.app.workers)

    def changed(self, worker: Worker[Any], state: WorkerState) -> None:
        """A turn's worker changed state: a failure said, the undo marks and the queue after its end."""
        if self.app.query_one_optional(StatusLine) is None:       # a row of the screen: not a walk of the chat
            return          # the app is closing: its main screen is gone, and a turn ending now has nothing to show
        if state == WorkerState.ERROR:
            error = worker.error
            self.app.notify(f"{type(error).__name__}: {error}", title="turn failed", severity="error", timeout=10)
            self.app.router.after_turn("failed")
        if state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            self.shown.refresh_undoable()
            plan_ready = self.plan_ready(worker, state)
            self.after_queue(state == WorkerState.SUCCESS and self.app.router.last_outcome in SENDS_NEXT)
            if plan_ready:
                self.offer_plan()
        self.readouts.refresh_topbar()

    # ----- plan mode's end
    def plan_ready(self, worker: Worker[Any], state: WorkerState) -> bool:
        """A turn begun and ended in plan mode answered, and nothing was typed ahead: its answer is the plan, and
        the user is asked whether to carry it out. A message queued or being written is their answer already (and
        its letters, typed on into the question, would answer it: `a` accepts edits)."""
        return (worker.name == "_turn" and state == WorkerState.SUCCESS and self.planning
                and self.app.router.last_outcome == "finished" and not self.queued.texts
                and not self.app.query_one(PromptInput).text.strip()
                and self.shown.engine.config.permission_mode == "plan")

    def offer_plan(self) -> None:
        from contextual.tui.screens.plan_ready import PlanReady
        self.app.push_screen(PlanReady(self.panes.page_chat, self.panes.input_rows), self.plan_answered)

    def plan_answered(self, mode: str | None) -> None:
        """Carry the plan out in `mode` (the mode line says it), the approval sent as the user's message; None
        keeps planning, nothing sent."""
        if mode is None:
            self.app.notify("Still in plan mode: say what to change, or shift+tab to leave it.")
            return
        from contextual.tui.screens.plan_ready import APPROVED
        self.shown.engine.settings.leave_plan(mode)
        self.readouts.refresh_topbar()
        self.start(APPROVED)

    # ----- the queue
    def queue(self, text: str, command: CustomCommand | None = None, arguments: str = "") -> None:
        # shown on the input's border; in the chat once its turn starts
        self.queued.add(text, (command, arguments) if command is not None else None)
        self.show_queue()

    def show_queue(self) -> None:
        # a border title is markup, and a queued message is whatever was typed (`[/` ended the app)
        self.app.query_one(PromptInput).border_title = unparsed(self.queued.label(self.app.size.width))

    def take_back_queued(self) -> str | None:
        text = self.queued.take_newest()
        self.show_queue()
        return text

    def after_queue(self, send_next: bool) -> None:
        """The queued messages start the next turn together; after a turn that did not finish they all go back to
        the input, before anything typed since."""
        if not self.queued.texts:
            return
        if send_next and not self.running:
            text, run = self.queued.take_next()     # the rest waits for the end of this one
            self.show_queue()
            if run is None:
                self.start(text)
            else:
                self.start(run[0].expand(run[1]), run[0], run[1])
            return
        prompt = self.app.query_one(PromptInput)
        many = len(self.queued.texts) > 1
        back = self.queued.take_all()
        prompt.put(back + ("\n\n" + prompt.text if prompt.text.strip() else ""))
        self.show_queue()
        self.app.notify(f"The turn did not finish: your queued message{'s are' if many else ' is'} back in the "
                        "input.", severity="warning")
