"""`contextual` (and -c / -r) opens the app here: the host, the session to resume, the run and the close."""

from __future__ import annotations

import asyncio
import sys

from contextual.core.config import Config
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
    app = ContextualApp(host, opened)
    result = app.run()
    try:
        asyncio.run(host.aclose())
    except Exception:
        pass
    return int(result or 0)
