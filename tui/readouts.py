"""What the screen reads off the engine between events: History, the token meter and the top bar from one reading
of the next prompt (``shown``), the prompt of the latest model call (``last_sent``, /context's cache marker), the
welcome's model line and the mode line under the input. Owned by the app (``ContextualApp.readouts``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from contextual.core import tokens
from contextual.tui.format import mode_line
from contextual.tui.prompt_view import Shown, next_prompt
from contextual.tui.shown_engine import ShownEngine
from contextual.tui.slash.context_tools import pinned_ids, with_pins
from contextual.tui.textual_app import TextualApp
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.history_view import HistoryView, summary_numbers
from contextual.tui.widgets.prompt_input import PromptInput
from contextual.tui.widgets.token_meter import TokenMeter
from contextual.tui.widgets.top_bar import TopBar
from contextual.tui.widgets.welcome import Welcome
from contextual.tui.workers import turn_running

if TYPE_CHECKING:      # annotations only: the app's first frame does not wait for the engine's imports
    from contextual.core.config import Config
    from contextual.core.prompt import PromptView


class ReadoutsApp(TextualApp, Protocol):
    """What the readouts ask of the app (the app knows Readouts; Readouts knows only this)."""

    @property
    def config(self) -> Config: ...


class Readouts:
    def __init__(self, app: ReadoutsApp, shown_engine: ShownEngine) -> None:
        self.app = app
        self.shown_engine = shown_engine
        self.preview: tuple[str, int] | None = None     # (session id, compactions) a resumed launch's first frame shows
        self.shown: Shown | None = None
        self.last_sent: Shown | None = None       # the prompt of the latest model call

    def show_prompt(self, view: PromptView | None = None) -> None:
        """History, meter and top bar from one reading of the next prompt. Nothing on this thread waits for the
        tokenizer: until it is loaded the counts come from earlier runs (tokens.remember_counts), or placeholders
        show when a text was never counted."""
        from contextual.tui.prompt_view import shown_from_view
        engine = self.shown_engine.engine
        try:
            with tokens.known_counts_only():
                shown = with_pins(shown_from_view(view) if view is not None else next_prompt(engine), engine)
        except tokens.NotCounted:
            shown = None
        history = self.app.query_one(HistoryView)
        history.pinned = pinned_ids(engine)
        history.summary_numbers = summary_numbers(engine.history.messages, engine.compactions)
        history.show(engine.history.messages, shown)
        self.shown = shown
        self.app.query_one(TokenMeter).shown = shown
        self.refresh_topbar()

    def call_started(self) -> None:
        self.last_sent = self.shown          # the engine's PromptChanged before the call: what it sent

    def refresh_topbar(self) -> None:
        opened = self.shown_engine.opened
        engine = opened.engine if opened is not None else None     # None: not open yet
        session_id, compactions = ((engine.session_id, len(engine.compactions)) if engine is not None
                                   else self.preview or (None, 0))
        config = self.app.config
        self.app.query_one(TopBar).show(config.project_root, config.model, session_id, compactions,
                                        turn_running(self.app), self.app.size.width)
        in_force = engine.config if engine else config        # the model, window and permission mode in force
        # its own rows only: not every answer's blocks
        for welcome in self.app.query_one(ChatLog).query_children(Welcome):
            welcome.show(in_force.model, in_force.context_window, in_force.window_source, in_force.server_unreached)
        self.app.query_one(PromptInput).border_subtitle = mode_line(in_force.permission_mode)
