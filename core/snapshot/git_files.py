"""Whether git can read a repository without waiting, checked before git is run there.

git opens `.git/HEAD` (and the index) to decide that a folder is a repository at all. An archive can unpack a FIFO
there: every git call then waited its whole timeout (60 s) on each edit's snapshot, and the warning blamed large
files. Such a repository is said once, by what is wrong, and snapshots are copies of the files instead.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from contextual.core.regular_file import kind_of
from contextual.core.session.paths import find_git_dir


def unreadable(start: Path) -> str | None:
    """What in the repository holding `start` git would wait on ("…/.git/HEAD is a named pipe (FIFO)"), or None
    (no repository, or one whose HEAD, index and git directory are what git expects)."""
    git_dir = find_git_dir(Path(start))
    if git_dir is None:
        return None
    checks = ((git_dir, stat.S_ISDIR, False), (git_dir / "HEAD", stat.S_ISREG, False),
              (git_dir / "index", stat.S_ISREG, True))
    for path, expected, may_be_missing in checks:
        try:
            mode = os.stat(path).st_mode        # stat, never open: a FIFO does not block it
        except FileNotFoundError:
            if may_be_missing:
                continue
            return None                         # not a repository after all: git says so itself, at once
        except OSError:
            return None
        if not expected(mode):
            return f"{path} is {kind_of(mode)}"
    return None
