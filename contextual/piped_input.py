"""Standard input for `-p`, as `codex exec` and Claude Code's `-p` read it: `git diff | contextual -p "review"`.

Read only when it is a pipe, a socket or a file, never a terminal nor /dev/null. A pipe that sends nothing within
``FIRST_BYTE_WAIT`` seconds is left alone (CI runners hold stdin open without writing to it); `-p -` waits for it.
Bounded: over ``LIMIT_BYTES`` the turn is not started and the user is told.
"""

from __future__ import annotations

import os
import select
import stat
from dataclasses import dataclass

FIRST_BYTE_WAIT = 1.0
LIMIT_BYTES = 2_000_000


@dataclass(frozen=True)
class Piped:
    text: str | None = None        # what was read (None: nothing to add)
    notice: str | None = None      # one line for stderr when input was there but left alone
    error: str | None = None       # one line: the turn must not start


def _readable_kind(fd: int) -> str | None:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:                # closed
        return None
    if os.isatty(fd):
        return None
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return "pipe"
    return None                    # /dev/null and other devices: nothing a user piped


def read_piped(fd: int = 0, *, wait: bool = False) -> Piped:
    """Standard input when piped; ``wait`` (for `-p -`) waits as long as the pipe stays open and silent."""
    kind = _readable_kind(fd)
    if kind is None:
        if wait:
            return Piped(error="-p - reads the task from standard input, but nothing is piped into it")
        return Piped()
    if kind == "pipe" and not wait and not select.select([fd], [], [], FIRST_BYTE_WAIT)[0]:
        return Piped(notice=f"standard input sent nothing within {FIRST_BYTE_WAIT:g} s; not read "
                            "(use -p - to wait for it)")
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        size += len(chunk)
        if size > LIMIT_BYTES:
            return Piped(error=f"standard input is over {LIMIT_BYTES // 1_000_000} MB; nothing was sent to the "
                               "model (pass a smaller part, or name the file with @path in the prompt)")
        chunks.append(chunk)
    text = b"".join(chunks).decode("utf-8", errors="replace")
    return Piped(text=text if text.strip() else None)


def with_piped(prompt: str, piped: str | None) -> str:
    """The task text, then what was piped in (the text alone when `-p -` made the input the task)."""
    if not piped:
        return prompt
    if prompt in ("", "-"):
        return piped
    return f"{prompt}\n\n<stdin>\n{piped.rstrip()}\n</stdin>"
