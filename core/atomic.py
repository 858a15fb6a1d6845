"""Replacing a file whole, the one way: a uniquely named temp file beside it (two processes never share one),
written and fsynced, given the mode, then renamed over the target. A reader sees the old file or the new one,
never half of either, and a crash leaves at worst a stray temp file, never a torn target."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def atomic_write(path: Path, data: bytes, mode: int | None = None, *, durable: bool = True) -> None:
    """``mode``: the new file's permission bits; by default the old file's, else what the umask allows.
    ``durable=False`` skips the fsync, for caches rebuilt from elsewhere and written often (the session index)."""
    if mode is None:
        mode = _mode_of(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _mode_of(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
