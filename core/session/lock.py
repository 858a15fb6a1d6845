"""One writer per session file.

The lock is the OS lock on the session file's own descriptor, taken through ``filelock.lock_descriptor`` (flock on
Unix, LockFileEx on Windows): the kernel drops it when the holder dies (even on SIGKILL), so there is never a stale
lock to clean up. Where the platform has no such primitive (ENOSYS) it degrades to filelock's marker-file lock
(``<id>.jsonl.softlock``, removed on release). Who holds it is written to ``<id>.jsonl.lock`` beside the session,
only so the refusal can name the holder.
"""

from __future__ import annotations

from typing import Any

import errno
import json
import os
import socket
from pathlib import Path

import filelock

from contextual.core.atomic import atomic_write
from contextual.core.session.paths import FILE_MODE


class SessionError(Exception):
    """A session file cannot be used; the message is one line a user can act on."""


class SessionLocked(SessionError):
    def __init__(self, path: Path, holder: dict[str, Any] | None) -> None:
        self.path = path
        self.holder = holder
        super().__init__(
            f"session {path.stem} is open in {self.who}; close it there, "
            f"or start a new session without --continue/--resume")

    @property
    def who(self) -> str:
        """The holder as the user reads it."""
        if self.holder:
            return f"process {self.holder.get('pid')} on {self.holder.get('host')}"
        return "another process"


def holder_file(session_path: Path) -> Path:
    return session_path.with_name(session_path.name + ".lock")


def read_holder(session_path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(holder_file(session_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def try_lock(fd: int, session_path: Path) -> None:
    """Take the exclusive lock on an open session fd, or raise SessionLocked naming the holder."""
    if not _lock(fd, session_path):
        raise SessionLocked(session_path, read_holder(session_path))
    _write_holder(session_path)


_soft_locks: dict[int, filelock.SoftFileLock] = {}     # fd -> its marker lock, where there is no native lock


def _lock(fd: int, session_path: Path) -> bool:
    try:
        return filelock.lock_descriptor(fd, blocking=False)
    except OSError as exc:
        if exc.errno != errno.ENOSYS:
            raise
    soft = filelock.SoftFileLock(str(session_path) + ".softlock", timeout=0)
    try:
        soft.acquire()
    except filelock.Timeout:
        return False
    _soft_locks[fd] = soft
    return True


def _unlock(fd: int) -> None:
    soft = _soft_locks.pop(fd, None)
    if soft is not None:
        soft.release()
        return
    try:
        filelock.unlock_descriptor(fd)
    except OSError:
        pass


def _write_holder(session_path: Path) -> None:
    info = json.dumps({"pid": os.getpid(), "host": socket.gethostname()})
    target = holder_file(session_path)
    try:
        atomic_write(target, info.encode(), FILE_MODE)
    except OSError:
        pass  # the holder note is a courtesy; the flock is the lock


def release(fd: int, session_path: Path) -> None:
    try:
        holder = read_holder(session_path)
        if holder and holder.get("pid") == os.getpid() and holder.get("host") == socket.gethostname():
            holder_file(session_path).unlink(missing_ok=True)
    finally:
        _unlock(fd)


def is_locked(session_path: Path) -> dict[str, Any] | None:
    """The holder (or {}) when another writer holds the session, None when it is free. For `contextual undo`."""
    try:
        fd = os.open(session_path, os.O_RDONLY)
    except OSError:
        return None
    try:
        if not _lock(fd, session_path):
            return read_holder(session_path) or {}
        _unlock(fd)
    finally:
        os.close(fd)  # closing drops our probe lock
    return None
