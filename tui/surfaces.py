"""The parts the event router is handed, each as the narrow protocol it uses (the router knows none of the parts'
modules: they import it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from contextual.core.prompt import PromptView

if TYPE_CHECKING:      # annotations only: the app's first frame does not wait for the engine's imports
    from contextual.core.agent import Engine


class Readings(Protocol):
    """tui/readouts.py: Readouts."""

    def show_prompt(self, view: PromptView | None = None) -> None:
        """History, meter and top bar from the next prompt (``view`` when the engine sent one, else re-read)."""

    def call_started(self) -> None:
        """A model call began: the prompt shown now is the one it sent (the /context cache marker compares)."""

    def refresh_topbar(self) -> None:
        """The top bar and the mode line under the input (the edit dialog's shift+tab changed the mode)."""


class Stopping(Protocol):
    """tui/turn_runner.py: TurnRunner."""

    def stop(self) -> None:
        """Cancel the running turn (its worker): the engine records it as interrupted."""


class Showing(Protocol):
    """tui/shown_engine.py: ShownEngine."""

    @property
    def engine(self) -> Engine:
        """The engine shown: its compaction log and its turns' fittings, newest last."""
