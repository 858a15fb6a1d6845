"""Real environment faults for CLI tests: a read-only directory and a full disk.

root ignores file permissions, so as root both come from a small tmpfs mount (read-only, or filled to the last
block); without root a chmod makes a directory read-only and the full disk is skipped. Where mounting is not
permitted the test is skipped with the reason.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from pathlib import Path
from typing import Iterator

import pytest


def _mount_tmpfs(path: Path, options: str) -> None:
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"needs a tmpfs mount, not permitted here: {done.stderr.strip() or done.returncode}")


def _unmount(path: Path) -> None:
    # lazily when busy: a test that failed with a file still open there must not leave the mount behind
    if subprocess.run(["umount", str(path)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


@contextlib.contextmanager
def read_only_dir(path: Path) -> Iterator[Path]:
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        path.chmod(0o555)
        try:
            yield path
        finally:
            path.chmod(0o755)
        return
    _mount_tmpfs(path, "ro,size=64k")
    try:
        yield path
    finally:
        _unmount(path)


@contextlib.contextmanager
def full_disk(path: Path) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("a full disk needs a tmpfs mount, which needs root")
    path.mkdir(parents=True, exist_ok=True)
    _mount_tmpfs(path, "size=256k")
    try:
        fd = os.open(path / "filler", os.O_WRONLY | os.O_CREAT)     # take every block; inodes stay free
        try:
            while True:
                os.write(fd, b"\0" * 4096)
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
        finally:
            os.close(fd)
        yield path
    finally:
        _unmount(path)
