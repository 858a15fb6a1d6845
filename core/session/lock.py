"""One writer per session file.

The lock is ``fcntl.flock`` on the session file itself: the kernel drops it when the holder dies (even on
SIGKILL), so there is never a stale lock to clean up. Who holds it is written to ``<id>.jsonl.lock`` beside
the session, only so the refusal can name the holder.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
from pathlib import Path

from core.session.paths import FILE_MODE


class SessionError(Exception):
    """A session file cannot be used; the message is one line a user can act on."""


class SessionLocked(SessionError):
    def __init__(self, path: Path, holder: dict | None) -> None:
        self.path = path
        self.holder = holder
        if holder:
            who = f"process {holder.get('pid')} on {holder.get('host')}"
        else:
            who = "another process"
        super().__init__(
            f"session {path.stem} is open in {who}; close it there (or use /undo there) "
            f"or start a new session without --continue/--resume")


def holder_file(session_path: Path) -> Path:
    return session_path.with_name(session_path.name + ".lock")


def read_holder(session_path: Path) -> dict | None:
    try:
        data = json.loads(holder_file(session_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def try_lock(fd: int, session_path: Path) -> None:
    """Take the exclusive lock on an open session fd, or raise SessionLocked naming the holder."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SessionLocked(session_path, read_holder(session_path)) from None
    _write_holder(session_path)


def _write_holder(session_path: Path) -> None:
    info = json.dumps({"pid": os.getpid(), "host": socket.gethostname()})
    target = holder_file(session_path)
    tmp = target.with_name(target.name + f".{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        try:
            os.write(fd, info.encode())
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except OSError:
        pass  # the holder note is a courtesy; the flock is the lock


def release(fd: int, session_path: Path) -> None:
    try:
        holder = read_holder(session_path)
        if holder and holder.get("pid") == os.getpid() and holder.get("host") == socket.gethostname():
            holder_file(session_path).unlink(missing_ok=True)
    finally:
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        except OSError:
            pass


def is_locked(session_path: Path) -> dict | None:
    """The holder (or {}) when another writer holds the session, None when it is free. For `contextual undo`."""
    try:
        fd = os.open(session_path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return read_holder(session_path) or {}
    finally:
        os.close(fd)  # closing drops our probe lock
    return None
