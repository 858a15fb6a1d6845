"""Reading a file that something outside put where we look (a script a command runs, a checkout's config).

A FIFO named there would block open() for good, and /dev/zero never ends: the file is opened without waiting,
read only when the open descriptor is a regular file, and never past a bound. (The tools have their own, with
their error codes: core/tools/_regular.py.)"""

from __future__ import annotations

import os
import stat

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def kind_of(mode: int) -> str:
    """What a path that is not a regular file is, in words ("a named pipe (FIFO)")."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


class NotRegular(OSError):
    """The path is a FIFO, a device, a socket or a folder; `kind` says which, in words."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(f"{path} is {kind}, not a regular file")
        self.kind = kind


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """Up to `limit` bytes of a regular file; NotRegular for anything else, OSError when it cannot be opened."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(os.fspath(path), kind_of(mode))
        return os.read(fd, limit)
    finally:
        os.close(fd)
