"""Sessions on disk: one JSONL file per session, per project (CONTRACT "Session files").

The names below are loaded on first use (PEP 562): the app's launch needs only ``paths`` (where its settings
live), not the loader, the writer or the lock.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

_WHERE = {
    "SessionInfo": "index", "find_session": "index", "latest_session": "index", "list_sessions": "index",
    "LoadedSession": "loader", "load_session": "loader", "Tail": "tail", "read_tail": "tail",
    "SessionError": "lock", "SessionLocked": "lock", "is_locked": "lock",
    "sessions_dir": "paths",
    "SessionWriteError": "writer", "SessionWriter": "writer",
}

__all__ = ["LoadedSession", "SessionError", "SessionInfo", "SessionLocked", "SessionWriteError", "SessionWriter", "Tail",
           "find_session", "is_locked", "latest_session", "list_sessions", "load_session", "read_tail", "sessions_dir"]

if TYPE_CHECKING:
    from contextual.core.session.index import SessionInfo, find_session, latest_session, list_sessions
    from contextual.core.session.loader import LoadedSession, load_session
    from contextual.core.session.tail import Tail, read_tail
    from contextual.core.session.lock import SessionError, SessionLocked, is_locked
    from contextual.core.session.paths import sessions_dir
    from contextual.core.session.writer import SessionWriteError, SessionWriter


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'contextual.core.session' has no attribute {name!r}")
    return getattr(import_module(f"contextual.core.session.{_WHERE[name]}"), name)
