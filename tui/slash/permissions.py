"""/permissions (Claude Code's name): the permission rules in force and where each comes from; the screen adds and
removes the project's local rules (tui/screens/permissions.py over core/permission_list.py)."""

from __future__ import annotations

from contextual.tui.slash.port import AppPort


class Permissions:
    async def run(self, app: AppPort, argument: str) -> None:
        from contextual.core.permission_list import RuleBook
        from contextual.tui.screens.permissions import PermissionsScreen
        engine = app.engine                       # its settings are every engine's; its grants this session's
        app.push_screen(PermissionsScreen(RuleBook(engine.settings, engine.allowed_for_session)))
