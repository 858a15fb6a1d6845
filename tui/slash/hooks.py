"""/hooks (Claude Code's name): the hooks in force, each with its event, matcher, command, file and whether it runs;
opening it re-reads the config files and puts what they say in force (core/hook_list.py says why)."""

from __future__ import annotations

from contextual.tui.slash.port import AppPort


class HooksList:
    async def run(self, app: AppPort, argument: str) -> None:
        from contextual.core.hook_list import list_hooks
        from contextual.tui.screens.hooks import HooksScreen
        app.push_screen(HooksScreen(list_hooks(app.engine.settings)))      # the settings every engine shares
