"""The narrow set of things a slash command may ask of the app (as `tui.surfaces.Surfaces` is for the router)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, Sequence

from contextual.core.config import Config
from contextual.core.messages import Message
from contextual.tui.host import Host, Opened
from contextual.tui.prompt_view import Shown
from contextual.tui.remembered import Remembered
from contextual.tui.textual_app import TextualApp
from contextual.tui.widgets.status_line import StatusLine

if TYPE_CHECKING:      # annotations only: the app's first frame does not wait for the engine's imports
    from contextual.core.agent import Engine
    from contextual.core.custom_commands import CustomCommand
    from contextual.tui.shell_output import ShellShown


class Listed(Protocol):
    """What /help shows of a command (tui/commands.Command; that module imports this one)."""
    @property
    def with_usage(self) -> str: ...
    @property
    def help(self) -> str: ...


class Listing(Protocol):
    def all(self) -> Sequence[Listed]: ...


class AppPort(TextualApp, Protocol):
    host: Host
    remembered: Remembered
    unsent: str                        # a message typed before any model was chosen
    theme: str                         # Textual's colour theme (set by name from /theme)

    @property
    def shown(self) -> Shown | None: ...      # the prompt shown now (meter, History)

    @property
    def last_sent(self) -> Shown | None: ...  # the prompt of the latest model call

    @property
    def available_themes(self) -> dict[str, Any]: ...

    @property
    def engine(self) -> Engine: ...        # opened on first use when the launch put it off (show_engine changes it)

    @property
    def config(self) -> Config: ...

    @property
    def command_table(self) -> Listing: ...   # this run's commands (tui/commands.py: CommandTable)

    @property
    def status(self) -> StatusLine:
        """The line above the input: what runs now."""

    # ----- state and guards
    def busy(self, what: str) -> bool:
        """True (and says so) when a turn or compaction runs: ``what`` cannot start now."""

    def worker_running(self, group: str) -> bool: ...

    async def started(self) -> None:
        """Wait until the tokenizer is loaded and the server asked."""

    # ----- showing
    async def say(self, text: str, level: str = "info") -> None:
        """A notice in the chat."""

    async def show_shell_output(self, shown: ShellShown) -> None: ...

    async def show_transcript(self, messages: list[Message]) -> None:
        """The chat rebuilt from a session's record, every turn mounted."""

    def show_prompt(self) -> None:
        """History, meter and top bar re-read from the engine's next prompt."""

    async def show_engine(self, opened: Opened) -> None: ...

    def refresh_undoable(self) -> None: ...

    async def mcp_changed(self) -> None: ...

    # ----- screens, input, work
    async def push_screen_wait(self, screen: Any) -> Any:
        """Only from a worker: the screen's result."""

    async def run_action(self, action: str) -> Any: ...

    def pending_input(self) -> str: ...

    def load_input(self, text: str) -> None: ...

    def start_turn(self, text: str, command: CustomCommand | None = None, arguments: str = "",
                   typed: str = "") -> None:
        """Send `text` as the user's next message; for a custom `command`, the engine runs it with `arguments`
        (its shell lines, its granted tools); the chat and the record show what was typed (`typed`, or the
        command's name and arguments), not the prompt made from it."""

    def queue_turn(self, typed: str, command: CustomCommand, arguments: str) -> None:
        """A custom command typed while a turn runs: it waits in the queue, shown as typed, and runs alone."""

    def start_compaction(self, instructions: str | None, keep_rounds: int | None) -> None:
        """The compaction worker (previewed, in the turn group)."""


class Handler(Protocol):
    async def run(self, app: AppPort, argument: str) -> None: ...


class RunAction:
    """A command that is one of Textual's own actions (/quit)."""

    def __init__(self, action: str) -> None:
        self.action = action

    async def run(self, app: AppPort, argument: str) -> None:
        await app.run_action(self.action)
