"""`contextual` (and -c / -r) opens the app here: the host, the session to resume, the run and the close."""

from __future__ import annotations

import asyncio
import sys
from contextual.core import tokens
from contextual.core.config import Config
from contextual.tui.app import ContextualApp
from contextual.tui.host import RealHost


def run_app(config: Config, resume_id: str | None = None, continue_latest: bool = False,
            first_message: str = "") -> int:
    """`contextual` (and -c / -r, and a PROMPT sent first): open the app; returns the exit code."""
    host = RealHost(config)
    tokens.remember_counts(config.home)     # counts of earlier runs show before the tokenizer has loaded
    path = None
    if resume_id or continue_latest:
        try:
            path = host.session_path(resume_id)
        except Exception as exc:
            print(f"contextual: {exc}", file=sys.stderr)
            return 1
    # The engine, and a resumed session's whole record, are read once the first frame is on screen.
    app = ContextualApp(host, open_after_first_frame=True, resume=path, quit_on_hangup=True,
                        first_message=first_message)
    app.run()
    tokens.save_counts()
    if app.startup.error is not None:
        print(f"contextual: {app.startup.error}", file=sys.stderr)
        return 1
    try:
        asyncio.run(host.aclose())
    except Exception:
        pass
    # Printed once the app has left the terminal (alternate screen gone), so it stays in the scrollback.
    if app.shown_engine.resume_hint:
        print(app.shown_engine.resume_hint)
    if app.failure is not None:         # Textual's input thread died (tui/input_died.py): not a success
        print(f"contextual: {app.failure}", file=sys.stderr)
        return 1
    # Textual leaves return_code at 1 when the app died of an unhandled exception (its run() returns None).
    return app.return_code or 0

