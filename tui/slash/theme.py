"""`/theme [name]`: bare, the picker (Textual's own); with a name, that theme at once (remembered, as a pick is)."""

from __future__ import annotations

from contextual.tui.slash.port import AppPort


class Theme:
    async def run(self, app: AppPort, argument: str) -> None:
        name = argument.strip()
        if not name:
            await app.run_action("change_theme")
            return
        names = sorted(app.available_themes)
        chosen = next((n for n in names if n.lower() == name.lower()), None)
        if chosen is None:
            await app.say(f"no theme {name!r}; there are: {', '.join(names)}", "error")
            return
        app.theme = chosen                  # the app's watcher remembers it
        await app.say(f"theme: {chosen}")
