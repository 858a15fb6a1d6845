"""Sessions on disk: one JSONL file per session, per project (CONTRACT "Session files")."""

from core.session.index import SessionInfo, find_session, latest_session, list_sessions
from core.session.loader import LoadedSession, load_session
from core.session.lock import SessionError, SessionLocked, is_locked
from core.session.paths import sessions_dir
from core.session.writer import SessionWriteError, SessionWriter

__all__ = [
    "LoadedSession", "SessionError", "SessionInfo", "SessionLocked", "SessionWriteError", "SessionWriter",
    "find_session", "is_locked", "latest_session", "list_sessions", "load_session", "sessions_dir",
]
