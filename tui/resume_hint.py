"""The line printed after the app leaves the terminal: how to come back to the session just closed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from contextual.core.messages import Message
from contextual.tui.format import short_id


def resume_line(session_id: str | None, messages: Sequence[Message], home: Path, project_root: Path,
                waiting: int = 0) -> str | None:
    """What to type to come back, when there is a session with something in it. `-c` only when it is the session
    `-c` opens (the project's latest): after /resume of an older one, or with a newer session beside it (another
    window, a `-p` run), `-c` opened another session than the line promised. ``waiting``: `!command` results no
    message took yet, kept in the session for the next one (said, so a quit does not seem to drop them)."""
    if not session_id or not (waiting or any(m.role == "user" for m in messages)):
        return None
    line = _resume(session_id, home, project_root)
    if waiting:
        what = "your `!command`" if waiting == 1 else f"your {waiting} `!command`s"
        line += f" The output of {what} waits there for your next message."
    return line


def _resume(session_id: str, home: Path, project_root: Path) -> str:
    from contextual.core.session import latest_session      # at quit only: not a launch's import
    try:
        latest = latest_session(home, project_root)
    except OSError:
        latest = None
    if latest is not None and latest.name.startswith(session_id):
        return f"Resume this session with `contextual -c` (or `contextual -r {short_id(session_id)}`)."
    return f"Resume this session with `contextual -r {short_id(session_id)}`."
