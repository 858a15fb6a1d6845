"""The narrow set of things a slash command may ask of the app (as `tui.surfaces.Surfaces` is for the router)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, Sequence

from contextual.core.config import Config
from contextual.core.messages import Message
from contextual.tui.host import Host, Opened
from contextual.tui.prompt_view import Shown
from contextual.tui.remembered import Remembered
from contextual.tui.textual_app import TextualApp

if TYPE_CHECKING:      # annotations only: the app's first frame does not wait for the engine's imports
    from contextual.core.agent import Engine
    from contextual.core.custom_commands import CustomCommand


class Listed(Protocol):
    """What /help shows of a command (tui/commands.Command; that module imports this one)."""
    @property
    def with_usage(self) -> str: ...
    @property
    def help(self) -> str: ...


class Listing(Protocol):
    def all(self) -> Sequence[Listed]: ...


class ShownPort(Protocol):
    """tui/shown_engine.py: ShownEngine."""

    async def show(self, opened: Opened, keep_recent: bool = False) -> None:
        """Show a (new or resumed) engine everywhere."""

    def refresh_undoable(self, known: set[str] | None = None) -> None: ...

    async def show_transcript(self, messages: list[Message]) -> None:
        """The chat rebuilt from a session's record, every turn mounted."""

    async def show_waiting(self, runs: Sequence[tuple[str, str, str]]) -> None:
        """`!command` results waiting for the next message, shown as when they ran."""

    def ensure_session(self) -> None:
        """The session file what comes next is recorded in (made at the first input)."""


class ReadoutsPort(Protocol):
    """tui/readouts.py: Readouts."""

    shown: Shown | None            # the prompt shown now (meter, History)
    last_sent: Shown | None        # the prompt of the latest model call

    def show_prompt(self) -> None:
        """History, meter and top bar re-read from the engine's next prompt."""


class TurnsPort(Protocol):
    """tui/turn_runner.py: TurnRunner."""

    @property
    def running(self) -> bool: ...

    def busy(self, what: str) -> bool:
        """True (and says so) when a turn or compaction runs: ``what`` cannot start now."""

    def start(self, text: str, command: CustomCommand | None = None, arguments: str = "", typed: str = "") -> None:
        """Send `text` as the user's next message; for a custom `command`, the engine runs it with `arguments`
        (its shell lines, its granted tools); the chat and the record show what was typed (`typed`, or the
        command's name and arguments), not the prompt made from it."""

    def queue(self, text: str, command: CustomCommand | None = None, arguments: str = "") -> None:
        """Typed while a turn runs: it waits in the queue, shown as typed (a custom command runs alone)."""

    def compact(self, instructions: str | None, keep_rounds: int | None) -> None:
        """The compaction worker (previewed, in the turn group)."""


class StartupPort(Protocol):
    """tui/startup.py: Startup."""

    async def started(self) -> None:
        """Wait until the tokenizer is loaded and the server asked."""


class AppPort(TextualApp, Protocol):
    host: Host
    remembered: Remembered
    unsent: str                        # a message typed before any model was chosen
    theme: str                         # Textual's colour theme (set by name from /theme)

    @property
    def available_themes(self) -> dict[str, Any]: ...

    @property
    def engine(self) -> Engine: ...        # opened on first use when the launch put it off (shown_engine changes it)

    @property
    def config(self) -> Config: ...

    @property
    def command_table(self) -> Listing: ...   # this run's commands (tui/commands.py: CommandTable)

    # ----- the app's parts a command uses
    @property
    def shown_engine(self) -> ShownPort: ...
    @property
    def readouts(self) -> ReadoutsPort: ...
    @property
    def turns(self) -> TurnsPort: ...
    @property
    def startup(self) -> StartupPort: ...

    # ----- the app's own
    async def say(self, text: str, level: str = "info") -> None:
        """A notice in the chat, which is brought into sight: the command's reply (another tab may show)."""

    async def mcp_changed(self) -> None: ...

    async def push_screen_wait(self, screen: Any) -> Any:
        """Only from a worker: the screen's result."""

    async def run_action(self, action: str) -> Any: ...


class Handler(Protocol):
    async def run(self, app: AppPort, argument: str) -> None: ...


class RunAction:
    """A command that is one of Textual's own actions (/quit)."""

    def __init__(self, action: str) -> None:
        self.action = action

    async def run(self, app: AppPort, argument: str) -> None:
        await app.run_action(self.action)
