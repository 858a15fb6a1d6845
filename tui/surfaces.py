"""The narrow set of things the event router may touch: the router knows this protocol, never the app."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

from textual.screen import Screen

from contextual.core.prompt import PromptView
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.scratchpad import ScratchpadView
from contextual.tui.widgets.status_line import StatusLine

if TYPE_CHECKING:      # annotations only: the app's first frame does not wait for the engine's imports
    from contextual.core.session.schema import CompactionRecord, FittedRecord


class Surfaces(Protocol):
    @property
    def chat(self) -> ChatLog: ...

    @property
    def scratchpad(self) -> ScratchpadView: ...

    @property
    def status(self) -> StatusLine: ...

    def show_prompt(self, view: PromptView | None = None) -> None:
        """History, meter and top bar from the next prompt (``view`` when the engine sent one, else re-read)."""

    def call_started(self) -> None:
        """A model call began: the prompt shown now is the one it sent (the /context cache marker compares)."""

    def push_modal(self, screen: Screen[Any], on_close: Callable[[Any], None]) -> None: ...

    def stop_turn(self) -> None:
        """Cancel the running turn (its worker): the engine records it as interrupted."""

    def mode_changed(self) -> None:
        """The permission mode changed inside a turn (the edit dialog's shift+tab): said under the input."""

    def compactions_logged(self) -> list[CompactionRecord]:
        """The engine's compaction log, newest last (what a cut compaction stream left behind)."""

    def fittings_recorded(self) -> list[FittedRecord]:
        """The engine's turns' fittings to the window, newest last (a stopped turn's is recorded after its events)."""
