"""The slash commands: one table, read by the input's completion, the palette, /help and the dispatcher. Each row
names its handler object (`tui/slash/`), which talks to the app through `tui.slash.port.AppPort`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from contextual.tui.screen_safe import screen_text
from contextual.tui.slash.compact import Compact
from contextual.tui.slash.context_tools import Compactions, Diff, Ledger, Policies
from contextual.tui.slash.copy import Copy
from contextual.tui.slash.cost import Cost
from contextual.tui.slash.custom import CustomPrompt
from contextual.tui.slash.files import Export, Init
from contextual.tui.slash.hooks import HooksList
from contextual.tui.slash.memory import Memory
from contextual.tui.slash.model import Model
from contextual.tui.slash.permissions import Permissions
from contextual.tui.slash.port import Handler, RunAction
from contextual.tui.slash.reading import MCP, Context, Help
from contextual.tui.slash.sessions import Clear, Fork, Resume, Title
from contextual.tui.slash.theme import Theme
from contextual.tui.slash.undo import Rewind, Undo

if TYPE_CHECKING:
    from contextual.core.custom_commands import CustomCommand
    from contextual.core.trust import Item


@dataclass(frozen=True)
class Command:
    name: str          # with the slash
    usage: str         # arguments, shown in completion and help
    help: str
    handler: Handler

    @property
    def with_usage(self) -> str:
        """The command with its arguments, as the completion, the palette and /help show it ("/compact [N] [text]")."""
        return f"{self.name} {self.usage}".strip()


COMPACT, CONTEXT, RESUME = Compact(), Context(), Resume()     # also behind keys (ctrl+k, ctrl+l, ctrl+r)

COMMANDS: tuple[Command, ...] = (
    Command("/compact", "[N] [instructions]", "summarise older rounds now; N: keep only the last N rounds", COMPACT),
    Command("/context", "", "the next prompt exactly as it will be sent, message by message", CONTEXT),
    Command("/cost", "", "what this session has used so far: input, cached and output tokens, and $ where priced",
            Cost()),
    Command("/rewind", "", "go back to an earlier message: the conversation, and the files if you want", Rewind()),
    Command("/undo", "", "undo the file changes of the most recent turn that made any", Undo()),
    Command("/resume", "", "pick a past session of this project (type to filter, ctrl+t renames)", RESUME),
    Command("/fork", "", "continue in a new session holding a copy of this one (it stays as it is)", Fork()),
    Command("/clear", "", "start a new session (the current one stays on disk)", Clear()),
    Command("/title", "[text]", "name this session (shown in /resume); bare, say its title; - clears it", Title()),
    Command("/model", "[name]", "pick a model the server offers, or switch to NAME", Model()),
    Command("/compactions", "", "the compaction history of this session; enter opens one's card, l what it lost", Compactions()),
    Command("/ledger", "[N]", "what the latest (or Nth) compaction lost; enter re-injects an item", Ledger()),
    Command("/diff", "", "what changed in the prompt between model calls, and where the cache broke (your files: !git diff)", Diff()),
    Command("/policies", "", "replay this session under every context policy; enter makes one live", Policies()),
    Command("/mcp", "", "MCP servers: status, tools, and what their descriptions cost in L1", MCP()),
    Command("/permissions", "", "the permission rules in force and the file each comes from; a adds, d removes "
            "(the project's local rules)", Permissions()),
    Command("/hooks", "", "the hooks in force: event, matcher, command, file, approved or not (re-read from the "
            "files on opening)", HooksList()),
    Command("/memory", "[text]", "the rules files your remembered lines go to; with text, remember it (as # text)",
            Memory()),
    Command("/init", "[AGENTS.md|CODE_LAW.md]", "the agent reads the project and writes or updates that file "
            "(keeping what is in it)", Init()),
    Command("/export", "[--as-sent] [file]", "write this session's transcript (or each request as sent) under "
            "$CONTEXTUAL_HOME/exports/, or to FILE", Export()),
    Command("/copy", "[N]", "copy the latest answer (or the Nth newest) to the clipboard", Copy()),
    Command("/theme", "[name]", "pick a colour theme, or switch to NAME (remembered)", Theme()),
    Command("/help", "", "commands and keys", Help()),
    Command("/quit", "", "leave, as /exit does (the session is saved as it goes)", RunAction("quit")),
)
# Other agents' names for a command, run as it (Claude Code and Codex leave by /exit): not listed, so `/ex` still
# completes to /export alone; a mistyped /exit had answered "did you mean /export?"
ALIASES = {"/exit": "/quit"}
BY_NAME = {c.name: c for c in COMMANDS}
BY_NAME |= {alias: BY_NAME[name] for alias, name in ALIASES.items()}


class CommandTable:
    """One app run's commands (the app's ``command_table``): the built-ins above, then the run's custom commands
    (issue 30.3: Markdown files, core/custom_commands.py), read at launch; the built-ins always win a name."""

    def __init__(self) -> None:
        self.custom: tuple[Command, ...] = ()

    def use_custom(self, found: "Sequence[CustomCommand]") -> None:
        # A project's command file describes itself: shown in /help, the palette and the input's completion alike
        self.custom = tuple(Command(c.name, screen_text(c.argument_hint),
                                    ("(inert) " if c.inert else "") + screen_text(c.description) + _hidden(c),
                                    CustomPrompt(c))
                            for c in found)

    def load_custom(self, project_root: Path, home: Path) -> list[Item]:
        """Read the custom commands for this app run; returns the trust Items of the project commands left inert
        for want of approval (asked with the project's other pieces, core/trust.py)."""
        from contextual.core.custom_commands import load_gated
        gated = load_gated(project_root, home, tuple(BY_NAME))
        self.use_custom([command for command, _ in gated])
        return [item for _, item in gated if item is not None]

    def approve_custom(self, items: Sequence[Item], project_root: Path) -> None:
        """The user approved these pieces as shown: the project commands among them work from now on in this run
        (the trust store keeps the approval for the next; it holds here even when that could not be written)."""
        from contextual.core.custom_commands import approved
        self.use_custom([approved(c.handler.command, items, project_root) for c in self.custom
                         if isinstance(c.handler, CustomPrompt)])

    def all(self) -> tuple[Command, ...]:
        """The built-ins, then the custom commands: what completion, the palette, /help and the dispatcher read."""
        return COMMANDS + self.custom

    def parse(self, text: str) -> tuple[Command, str] | None:
        """'/compact keep the API notes' -> (compact, 'keep the API notes'); None when not a known command."""
        stripped = text.strip()
        if not stripped.startswith("/"):
            return None
        name, _, rest = stripped.partition(" ")
        command = BY_NAME.get(name) or next((c for c in self.custom if c.name == name), None)
        return (command, rest.strip()) if command else None

    def unknown(self, text: str) -> str | None:
        """The notice for a message that starts with a `/word` naming no command, with the nearest command; None
        when it is no such message (the rule: core/slash_commands.py: unknown)."""
        from contextual.core.slash_commands import unknown as unknown_word
        found = unknown_word(text, [c.name for c in self.all()])
        if found is None:
            return None
        first, near = found
        return (f"unknown command {first}" + (f": did you mean {near}?" if near else "")
                + " Not sent (↑ brings it back); /help lists the commands.")

    def complete(self, prefix: str) -> list[Command]:
        return [c for c in self.all() if c.name.startswith(prefix)]

    def completions(self, prefix: str) -> list[tuple[str, str]]:
        """The / completion's rows: (name, aligned label) for each command starting with ``prefix``."""
        found = self.complete(prefix)
        width = max((len(c.with_usage) for c in found), default=0)
        return [(c.name, completion_label(c, width)) for c in found]


def _hidden(command: "CustomCommand") -> str:
    """Your own command wins its name over a project's (core/custom_commands.py): the row says which file it hid."""
    if not command.hides:
        return ""
    return f" (yours; the project's {', '.join(screen_text(str(p)) for p in command.hides)} is hidden)"


def completion_label(command: Command, name_width: int) -> str:
    """One aligned row of the / completion: name and usage padded to the widest, then the help."""
    return f"{command.with_usage:<{name_width}}  {command.help}"
