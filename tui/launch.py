"""`contextual` (and -c / -r) opens the app here: the host, the session to resume, the run and the close."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence

from contextual.core.config import Config
from contextual.core.messages import Message
from contextual.tui.app import ContextualApp
from contextual.tui.host import RealHost


def run_app(config: Config, resume_id: str | None = None, continue_latest: bool = False) -> int:
    """`contextual` (and -c / -r): open the app; returns the exit code."""
    host = RealHost(config)
    opened = None
    if resume_id or continue_latest:
        try:
            opened = host.resume(resume_id)
        except Exception as exc:
            print(f"contextual: {exc}", file=sys.stderr)
            return 1
    app = ContextualApp(host, opened, open_after_first_frame=True)
    app.run()
    try:
        asyncio.run(host.aclose())
    except Exception:
        pass
    # Printed once the app has left the terminal (alternate screen gone), so it stays in the scrollback.
    line = resume_line(app.engine.session_id, app.engine.history.messages)
    if line:
        print(line)
    # Textual leaves return_code at 1 when the app died of an unhandled exception (its run() returns None).
    return app.return_code or 0


def resume_line(session_id: str | None, messages: Sequence[Message]) -> str | None:
    """What to type to come back, when there is a session with something in it."""
    if not session_id or not any(m.role == "user" for m in messages):
        return None
    return f"Resume this session with `contextual -c` (or `contextual -r {session_id[:8]}`)."
