"""Reading a file that something outside put where we look (a script a command runs, a checkout's config).

A FIFO named there would block open() for good, and /dev/zero never ends: the file is opened without waiting,
read only when the open descriptor is a regular file, and never past a bound. (The tools have their own, with
their error codes: core/tools/_regular.py.)"""

from __future__ import annotations

import os
import stat


class NotRegular(OSError):
    """The path is a FIFO, a device, a socket or a folder."""


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """Up to `limit` bytes of a regular file; NotRegular for anything else, OSError when it cannot be opened."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegular(f"{os.fspath(path)} is not a regular file")
        return os.read(fd, limit)
    finally:
        os.close(fd)
