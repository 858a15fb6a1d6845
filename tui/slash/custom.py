"""A custom slash command (issue 30.3): its Markdown prompt, with the arguments put in, sent as the user's next
message (the engine runs its shell lines and grants its tools: Engine.run_command); an inert one (a project command
that needs approval) only says why."""

from __future__ import annotations

from typing import TYPE_CHECKING

from contextual.tui.slash.port import AppPort

if TYPE_CHECKING:
    from contextual.core.custom_commands import CustomCommand


class CustomPrompt:
    def __init__(self, command: "CustomCommand") -> None:
        self.command = command

    async def run(self, app: AppPort, argument: str) -> None:
        if self.command.inert:
            await app.say(f"{self.command.name} does nothing: {self.command.inert}", "warning")
            return
        if app.turns.running:     # queued as a typed message is (it was refused, and the text lost)
            app.turns.queue(self.command.as_typed(argument), self.command, argument)
            return
        app.turns.start(self.command.expand(argument), self.command, argument)
