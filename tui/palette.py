"""The command palette (ctrl+p): the slash commands, listed before anything is typed, and Textual's own system
commands less the ones the app does its own way (Theme is /theme; Screenshot saves where the user can find it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Protocol, runtime_checkable

from textual import on
from textual.app import App, SystemCommand
from textual.command import CommandList, CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher
from textual.widgets import Input, OptionList

from contextual.tui import commands
from contextual.tui.format import unparsed


@runtime_checkable
class CommandRunner(Protocol):
    command_table: commands.CommandTable

    async def run_command(self, command: commands.Command, argument: str) -> None: ...


# the one row over a screen other than the main one: it runs nothing (choosing it only closes the palette)
NOT_HERE = "Slash commands run from the main screen"
NOT_HERE_HELP = "close this and the screen under it (esc, esc), then run it there"


def _nothing() -> None:
    """The hint's row runs nothing."""


class SlashCommands(Provider):
    """The slash commands in Textual's command palette, listed before anything is typed."""

    # The palette reads a str prompt or help as markup, and a custom command's description and argument hint are
    # a file's text (`[/]` in one ended the app at ctrl+p, `[message]` vanished): each goes as plain Content.
    # Each entry reads as Textual's own do ("Screenshot" over "Save an SVG…"): the command as typed, with its
    # arguments, over what it does. The arguments came under the description, after its wrapped end.
    async def discover(self) -> Hits:
        if not self._over_main():
            yield DiscoveryHit(NOT_HERE, _nothing, help=NOT_HERE_HELP)
            return
        for command in self._table().all():
            yield DiscoveryHit(unparsed(command.with_usage), self._runner(command), help=unparsed(command.help))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        if not self._over_main():
            # `/compact` typed over /help said "No matches found", and not why: one row that says it instead (for a
            # command's name only: its help's many letters matched nearly anything, "keys" too)
            score = max((matcher.match(c.name) for c in self._table().all()), default=0)
            if score > 0 or query.lstrip().startswith("/"):
                yield Hit(max(score, 0.01), NOT_HERE, _nothing, help=NOT_HERE_HELP)
            return
        for command in self._table().all():
            score = matcher.match(f"{command.name} {command.help}")
            if score > 0:
                yield Hit(score, plain_highlight(matcher, command.with_usage), self._runner(command),
                          help=unparsed(command.help))

    def _over_main(self) -> bool:
        """Whether the palette was opened over the main screen. Over another (/help, a dialog) a slash command
        opened its own screen on top of it (/compact's dialog over /help) or acted behind it: they run from where
        they are typed, as the main screen's keys do (ctrl+k, ctrl+l: the app's MAIN_ONLY)."""
        return self.screen is self.app.screen_stack[0]

    def _app(self) -> CommandRunner:
        app = self.app
        assert isinstance(app, CommandRunner)
        return app

    def _table(self) -> commands.CommandTable:
        return self._app().command_table

    def _runner(self, command: commands.Command) -> Callable[[], Any]:
        app = self._app()
        return lambda: app.run_command(command, "")


class Palette(CommandPalette):
    """Textual's palette, whose page keys do nothing where its list has no row of room (a terminal 4 rows tall):
    there OptionList's own page keys read where its rows are, never worked out without room (KeyError)."""

    # A list with no column of room wrapped its rows at width 0 and ended the app (ValueError in Rich's chop_cells,
    # a terminal 4 columns wide): it keeps a few columns and the screen clips it
    DEFAULT_CSS = "Palette CommandList { min-width: 8; }"

    # A double click (or a second enter) is handed to the palette twice before the first closes it: the second ran
    # the command chosen again (two /help screens) and said the palette closed again. Once closed (the close itself
    # happens once: tui/dismiss_once.py), these are not the palette's: Textual's own handlers, after these, skipped.
    # A search typed as it closed (an esc typed before ctrl+p came back up to the app as the palette opened) started
    # a search whose batch found the list gone and ended the app.
    @on(OptionList.OptionSelected)
    @on(Input.Submitted)
    @on(Input.Changed)
    def _closed_already(self, event: OptionList.OptionSelected | Input.Submitted | Input.Changed) -> None:
        if not self.is_active:
            event.prevent_default()
            event.stop()

    def _action_command_list(self, action: str) -> None:
        if action.startswith("page_") and not self.query_one(CommandList).scrollable_content_region:
            return
        super()._action_command_list(action)


def plain_highlight(matcher: Matcher, candidate: str) -> Content:
    """Matcher.highlight without reading the candidate as markup: the letters matched, styled."""
    content = Content(candidate)
    score, offsets = matcher.fuzzy_search.match(matcher.query, candidate)
    if not score:
        return content
    for offset in offsets:
        if not candidate[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


def system_commands(app: App[Any], textual_own: Iterable[SystemCommand], home: Path) -> Iterable[SystemCommand]:
    """Textual's system commands without its Theme (the palette lists /theme) and with a Screenshot that says
    where it wrote (``home``/screenshots) instead of Textual's, which saves into the working directory."""
    for command in textual_own:
        if command.title == "Theme":
            continue
        if command.title == "Screenshot":
            folder = home / "screenshots"
            yield SystemCommand("Screenshot", unparsed(f"Save an SVG of this screen in {folder}"),
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
