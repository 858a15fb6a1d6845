"""The one-writer lock degrades cleanly where the OS has no file lock (issue 16.5), still naming the holder."""

from __future__ import annotations

import errno
import os
import socket
from pathlib import Path

import pytest

from contextual.core.session import SessionLocked, SessionWriter, is_locked
from contextual.core.session import lock as session_lock


def test_without_an_os_lock_a_marker_file_keeps_one_writer_and_names_the_holder(tmp_path: Path, monkeypatch):
    def no_native_lock(fd: int, **_: object) -> bool:
        raise OSError(errno.ENOSYS, "no native lock on this platform")

    monkeypatch.setattr(session_lock.filelock, "lock_descriptor", no_native_lock)
    project = tmp_path / "proj"
    project.mkdir()
    writer = SessionWriter.create(tmp_path / "home", project)
    marker = Path(str(writer.path) + ".softlock")
    assert marker.exists()
    with pytest.raises(SessionLocked) as refused:
        SessionWriter.reopen(writer.path)
    assert f"process {os.getpid()} on {socket.gethostname()}" in str(refused.value)
    assert is_locked(writer.path) == {"pid": os.getpid(), "host": socket.gethostname()}
    writer.close_sync()
    assert not marker.exists() and is_locked(writer.path) is None
    again = SessionWriter.reopen(writer.path)          # released: the next writer gets it
    again.close_sync()


def test_other_lock_failures_are_not_mistaken_for_a_missing_lock(tmp_path: Path, monkeypatch):
    def broken(fd: int, **_: object) -> bool:
        raise OSError(errno.EBADF, "bad descriptor")

    monkeypatch.setattr(session_lock.filelock, "lock_descriptor", broken)
    project = tmp_path / "proj"
    project.mkdir()
    with pytest.raises(OSError):
        SessionWriter.create(tmp_path / "home", project)
