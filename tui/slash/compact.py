"""/compact [N] [instructions] (and ctrl+k): summarise older rounds now, previewed."""

from __future__ import annotations

from contextual.core.plural import plural
from contextual.tui.slash.port import AppPort
from contextual.tui.widgets.prompt_input import PromptInput


class Compact:
    async def run(self, app: AppPort, argument: str) -> None:
        from contextual.core.slash_commands import compact_arguments
        self.start(app, *compact_arguments(argument))

    def start(self, app: AppPort, instructions: str | None = None, keep: int | None = None) -> None:
        from contextual.tui.screens.compact_choice import CompactChoice
        if app.turns.busy("compact"):
            return
        from contextual.core.context.history import rounds
        closed = len(rounds(app.engine.history.messages))
        configured = app.config.keep_rounds
        # at a small window the kept rounds are as many as fit (issue 24): then it archives without asking for N
        fits_fewer = app.engine.prompt.archive_plan() is not None
        if keep is None and closed <= configured and not fits_fewer:
            if closed < 2:
                app.notify(f"Nothing to compact yet: {plural(closed, 'round')} in history.", timeout=4)
                if instructions and not app.query_one(PromptInput).pending().strip():
                    app.query_one(PromptInput).put(f"/compact {instructions}")     # what was typed is not thrown away
                return
            app.push_screen(CompactChoice(closed, configured),
                            lambda n: app.turns.compact(instructions, n) if n else None)
            return
        app.turns.compact(instructions, keep)
