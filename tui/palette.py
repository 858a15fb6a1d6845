"""The command palette (ctrl+p): the slash commands, listed before anything is typed, and Textual's own system
commands less the ones the app does its own way (Theme is /theme; Screenshot saves where the user can find it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Protocol, runtime_checkable

from textual.app import App, SystemCommand
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


def system_commands(app: App[Any], textual_own: Iterable[SystemCommand], home: Path) -> Iterable[SystemCommand]:
    """Textual's system commands without its Theme (the palette lists /theme) and with a Screenshot that says
    where it wrote (``home``/screenshots) instead of Textual's, which saves into the working directory."""
    for command in textual_own:
        if command.title == "Theme":
            continue
        if command.title == "Screenshot":
            folder = home / "screenshots"
            yield SystemCommand("Screenshot", f"Save an SVG of this screen in {folder}",
                                lambda: app.set_timer(0.1, lambda: save_screenshot(app, folder)))
            continue
        yield command


def save_screenshot(app: App[Any], folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        written = app.save_screenshot(path=str(folder))
    except OSError as exc:
        app.notify(f"screenshot not saved: {exc}", severity="error", timeout=6)
        return
    app.notify(f"screenshot saved: {written}", timeout=6)
