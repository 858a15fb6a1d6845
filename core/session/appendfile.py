"""The byte-level side of an append-only JSONL file: whole writes, rollback, fsync, torn tails, the last entry."""

from __future__ import annotations

import os
from pathlib import Path

from contextual.core.session.entry_lines import json_objects


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def truncate_quietly(fd: int, size: int) -> None:
    try:
        os.ftruncate(fd, size)
    except OSError:
        pass


def fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def end_torn_line(fd: int) -> None:
    """A line torn by a crash must not swallow the next entry: end it first (it then loads as one bad line)."""
    size = os.fstat(fd).st_size
    if size == 0:
        return
    if os.pread(fd, 1, size - 1) != b"\n":
        write_all(fd, b"\n")
        os.fsync(fd)


def tail_facts(fd: int) -> tuple[str | None, str | None]:
    """The uuid of the last whole entry (to continue the parentUuid chain) and a cwd, reading from the end."""
    size = os.fstat(fd).st_size
    chunk = 64 * 1024
    end = size
    carry = b""
    while end > 0:
        start = max(0, end - chunk)
        data = os.pread(fd, end - start, start) + carry
        lines = data.split(b"\n")
        carry = lines[0] if start > 0 else b""
        for entry in json_objects(reversed(lines[1:] if start > 0 else lines)):
            if isinstance(entry.get("uuid"), str):
                cwd = entry.get("cwd") if isinstance(entry.get("cwd"), str) else None
                return entry["uuid"], cwd
        end = start
    return None, None
