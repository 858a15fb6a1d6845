"""The line printed after the app leaves the terminal: how to come back to the session just closed."""

from __future__ import annotations

from collections.abc import Sequence

from contextual.core.messages import Message


def resume_line(session_id: str | None, messages: Sequence[Message]) -> str | None:
    """What to type to come back, when there is a session with something in it."""
    if not session_id or not any(m.role == "user" for m in messages):
        return None
    return f"Resume this session with `contextual -c` (or `contextual -r {session_id[:8]}`)."
