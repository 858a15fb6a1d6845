"""What a quit does before the app exits (ctrl+q, ctrl+c twice, /quit, a hang-up, a kill, a panic): the draft
remembered, the turn stopped (a running command's processes ended), what the launch had still to do dropped, the
session closed, the MCP servers stopped. Owned by the app (``ContextualApp.closing``)."""

from __future__ import annotations

import contextlib
from typing import Protocol

from textual.worker import WorkerError

from contextual.core import secrets
from contextual.tui.host import Host
from contextual.tui.remembered import Remembered
from contextual.tui.shown_engine import ShownEngine
from contextual.tui.startup import Startup
from contextual.tui.textual_app import TextualApp
from contextual.tui.turn_runner import TurnRunner
from contextual.tui.widgets.prompt_input import PromptInput


class ClosingApp(TextualApp, Protocol):
    """What the close asks of the app (the app knows Closing; Closing knows only this and the parts it is handed)."""

    host: Host
    remembered: Remembered


class Closing:
    def __init__(self, app: ClosingApp, turns: TurnRunner, startup: Startup, shown: ShownEngine) -> None:
        self.app = app
        self.turns = turns
        self.startup = startup
        self.shown = shown

    async def close_all(self) -> None:
        """On the loop, waiting for each: the turn's worker ends as CANCELLED, the session's last lines written."""
        self._keep_draft()
        self.turns.stop()
        self.startup.stop()
        for worker in list(self.app.workers):
            # The turn just cancelled ends as CANCELLED, and waiting on it raises: that is the quit working.
            with contextlib.suppress(WorkerError):     # cancelled, failed, or never started
                await worker.wait()
        await self.shown.close()
        if hasattr(self.app.host, "stop_mcp"):
            await self.app.host.stop_mcp()

    def close_now(self) -> None:
        """What close_all does, at once, from any thread: a hang-up's close stuck past its deadline
        (tui/hangup.py)."""
        self._keep_draft()
        self.shown.abandon()
        if hasattr(self.app.host, "stop_mcp_now"):
            self.app.host.stop_mcp_now()

    def _keep_draft(self) -> None:
        prompt = self.app.query_one_optional(PromptInput)       # the main screen's, when it is on top
        draft = prompt.text if prompt is not None else ""
        if draft.strip():            # a message being written is not lost: ↑ brings it back next time
            self.app.remembered.add_input(secrets.redact(draft))
