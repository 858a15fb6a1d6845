"""Tools open regular files only, and read them with a byte cap.

A FIFO blocks open() for ever, a character device (/dev/zero) never ends, a socket cannot be read: the type
is checked with os.stat before opening and again on the open descriptor (O_NONBLOCK, so even a FIFO swapped
in between cannot block), and every read stops at a bound."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from contextual.core.regular_file import kind_of
from contextual.core.tools._codec import TextStyle, decode_text
from contextual.core.tools.base import ToolError


def _refuse(mode: int, rel: str) -> ToolError:
    if stat.S_ISDIR(mode):
        return ToolError("is_directory", f"{rel} is a directory; use LS to list it")
    return ToolError("not_regular_file", f"{rel} is {kind_of(mode)}, not a regular file; tools only read and "
                                         "write regular files")


def check_regular(path: Path | str, rel: str, *, missing_ok: bool = False) -> os.stat_result | None:
    """The file's stat when it is a regular file; None when it is missing and that is allowed."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if missing_ok:
            return None
        raise ToolError("not_found", f"{rel} does not exist") from None
    if not stat.S_ISREG(info.st_mode):
        raise _refuse(info.st_mode, rel)
    return info


def open_regular(path: Path | str, rel: str) -> BinaryIO:
    """A binary handle on a regular file, never blocking in open()."""
    check_regular(path, rel)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise ToolError("not_found", f"{rel} does not exist") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):                 # replaced between the stat and the open
        os.close(fd)
        raise _refuse(mode, rel)
    return os.fdopen(fd, "rb")


def read_bounded(path: Path | str, rel: str, max_bytes: int) -> bytes:
    """The whole file, or ToolError("file_too_large") past `max_bytes` (read at most max_bytes + 1)."""
    with open_regular(path, rel) as handle:
        raw = handle.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise ToolError("file_too_large", f"{rel} is over {max_bytes:,} bytes; it is too large to handle whole")
    return raw


def read_text_file(path: Path, rel: str, max_bytes: int) -> tuple[str, TextStyle]:
    """A regular text file's text and style; ToolError for binaries, other file types and oversize files."""
    decoded = decode_text(read_bounded(path, rel, max_bytes))
    if decoded is None:
        raise ToolError("binary_file", f"{rel} is a binary file; it cannot be shown or edited as text")
    return decoded
