"""`# text` in the app (Claude Code's memory shortcut): one line appended to a rules file, which L2 sends from the
next call on (core/context/rules.py reads a changed file again).

The project's file is its AGENTS.md, else its CLAUDE.md, else its CODE_LAW.md, else a new AGENTS.md; the user's
is `$CONTEXTUAL_HOME/AGENTS.md`, which leads L2 in every project. A link is never written through: it may
point anywhere."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from contextual.core.context.rules import USER_RULES, find_rules_files

PREFERRED = ("agents.md", "claude.md", "code_law.md")


class NotRemembered(ValueError):
    pass


def project_file(root: Path) -> Path:
    found = {p.name.lower(): p for p in find_rules_files(root)}
    return next((found[name] for name in PREFERRED if name in found), root / "AGENTS.md")


def user_file(home: Path) -> Path:
    return home / USER_RULES


def remember(text: str, path: Path) -> Path:
    """Append `- text` as a line of its own; the file and its folder are made when missing."""
    line = " ".join(text.split())
    if not line:
        raise NotRemembered("nothing to remember")
    if path.is_symlink():
        raise NotRemembered(f"{path.name} is a link: add the line to the file it points to yourself")
    if path.exists() and not path.is_file():
        raise NotRemembered(f"{path.name} is not a regular file (a FIFO, a device or a folder): nothing written")
    path.parent.mkdir(parents=True, exist_ok=True)
    ends_open = path.is_file() and path.stat().st_size > 0 and _last_byte(path) != b"\n"
    # without waiting: a checkout's AGENTS.md that is a FIFO held open() for a reader for good, the app frozen
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0), 0o644)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotRemembered(f"{path.name} is not a regular file: nothing written")
    with os.fdopen(fd, "ab") as handle:
        handle.write((("\n" if ends_open else "") + f"- {line}\n").encode("utf-8"))
    return path


def _last_byte(path: Path) -> bytes:
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1)
