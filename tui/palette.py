"""The slash commands in Textual's command palette (ctrl+p), listed before anything is typed."""

from __future__ import annotations

from typing import Any, Callable, Protocol, runtime_checkable

from textual.command import DiscoveryHit, Hit, Hits, Provider

from contextual.tui import commands


@runtime_checkable
class CommandRunner(Protocol):
    async def run_command(self, command: commands.Command, argument: str) -> None: ...


class SlashCommands(Provider):
    """The slash commands in Textual's command palette, listed before anything is typed."""

    async def discover(self) -> Hits:
        for command in commands.all_commands():
            yield DiscoveryHit(f"{command.name}  {command.help}", self._runner(command), help=command.usage or None)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in commands.all_commands():
            score = matcher.match(f"{command.name} {command.help}")
            if score > 0:
                yield Hit(score, matcher.highlight(f"{command.name}  {command.help}"), self._runner(command),
                          help=command.usage or None)

    def _runner(self, command: commands.Command) -> Callable[[], Any]:
        app = self.app
        assert isinstance(app, CommandRunner)
        return lambda: app.run_command(command, "")
