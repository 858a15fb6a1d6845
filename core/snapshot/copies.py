"""Copy-mode snapshots (outside git): a file's bytes saved before a tool changes it, and content fingerprints."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from pathlib import Path

DIRECTORY = "<directory>"   # the path is a directory: not a file we can restore
SPECIAL = "<special>"       # a FIFO, a device or a socket: nothing to hash or copy


def fingerprint(path: Path) -> str | None:
    """sha256 of the file's bytes (a symlink: of its target text), None when nothing is there."""
    if path.is_symlink():
        return "link:" + hashlib.sha256(os.fsencode(os.readlink(path))).hexdigest()
    if not path.exists():
        return None
    if path.is_dir():
        return DIRECTORY
    # Without waiting in open(): a file the turn wrote that a command then made a FIFO (`mkfifo`) blocked the turn's
    # end on the event loop for good, deaf to Esc and Ctrl-C
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return SPECIAL
    digest = hashlib.sha256()
    with os.fdopen(fd, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def save_copy(source: Path, destination: Path) -> None:
    destination.parent.mkdir(parents=True, exist_ok=True)
    if source.is_symlink():
        if destination.is_symlink() or destination.exists():
            destination.unlink()
        os.symlink(os.readlink(source), destination)
    else:
        shutil.copy2(source, destination)   # copy2 keeps the mode bits and mtime


def restore_copy(copy: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        target.unlink()
    save_copy(copy, target)
