"""A server's log file: its stderr and what we skipped of its stdout, redacted and bounded.

A server given `${TRACKER_API_KEY}` in its env printed it to stderr, and the child's stderr went straight to a file
anyone could read: the one place a key reached the disk whole. The child's stderr now
comes through `pump`, every line redacted like the session (core/secrets.py); the file is the user's alone.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import IO, Any

from contextual.core import secrets

LOG_CAP = 8 << 20          # a server that floods stderr keeps its first 8 MB; the rest is drained, not written
LINE_CAP = 4096            # a longer line keeps its start
_INPUT = re.compile(r"input_value=.*?, input_type=")      # pydantic's quote of what it refused


def without_inputs(text: str) -> str:
    """pydantic's error text repeats the input it refused, cut mid-value (`'Bearer tk-1234...wxyz'`): pieces of a
    key that redaction cannot know. The SDK's messages and log records lose that part (stdio's own errors never
    quote it: stdio._cause)."""
    return _INPUT.sub("input_value=(not shown), input_type=", text)


def open_log(path: Path) -> IO[str]:
    """The log file, created for the user alone (its folder too)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    return os.fdopen(fd, "a+", encoding="utf-8", errors="replace")


class ServerLog:
    """Writes to `file` redacted, up to LOG_CAP characters; says once where it stopped."""

    def __init__(self, file: IO[str], cap: int = LOG_CAP) -> None:
        self.file = file
        self.cap = cap
        self.written = 0

    def write(self, text: str) -> None:
        if self.written >= self.cap:
            return
        text = secrets.redact_shown(text)      # read with cat or less: a server's escapes are not run
        if self.written + len(text) >= self.cap:
            text = text[:self.cap - self.written] + f"\n[contextual] the log stops here, at {self.cap:,} characters\n"
        self.written += len(text)
        self.file.write(text)
        self.file.flush()

    def line(self, raw: bytes, dropped: int = 0) -> None:
        """One stderr line (without its end); `dropped`: how many bytes of it went unkept."""
        size = len(raw) + dropped
        text = head(raw, LINE_CAP) if size > LINE_CAP else raw.decode("utf-8", "replace")
        if size > LINE_CAP:
            text += f" [… {size - LINE_CAP:,} more bytes of this line]"
        self.write(text + "\n")


def head(raw: bytes | str, limit: int) -> str:
    """The first `limit` characters of `raw`, redacted before the cut (core/secrets.py: head)."""
    text = raw[:limit + secrets.KEY_ROOM]
    return secrets.head(text.decode("utf-8", "replace") if isinstance(text, bytes) else text, limit)


async def pump(stream: Any, log: ServerLog) -> None:
    """Copies a child's stderr into `log` line by line until it closes; past LINE_CAP a line's rest is dropped as
    it arrives, so a line without an end costs no memory."""
    pending = bytearray()
    dropped = 0
    while True:
        try:
            chunk = await stream.receive(65536)
        except Exception:           # closed, or the child went away: the log ends there
            break
        pending += chunk
        while (end := pending.find(b"\n")) >= 0:
            log.line(bytes(pending[:end]), dropped)
            del pending[:end + 1]
            dropped = 0
        if len(pending) > LINE_CAP + secrets.KEY_ROOM:
            dropped += len(pending) - (LINE_CAP + secrets.KEY_ROOM)
            del pending[LINE_CAP + secrets.KEY_ROOM:]
    if pending:
        log.line(bytes(pending), dropped)


class RecordLog(logging.Handler):
    """The SDK's own log records (its tracebacks quote a server's answers and the URLs it failed on) into `path`
    as a server's stderr goes: redacted, capped, the user's alone; the file is made at the first record."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.log: ServerLog | None = None

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if self.log is None:
                self.log = ServerLog(open_log(self.path))
            self.log.write(without_inputs(self.format(record)) + "\n")
        except Exception:           # logging's own rule: a failing handler says so on stderr, never raises
            self.handleError(record)

    def close(self) -> None:
        if self.log is not None:
            self.log.file.close()
        super().close()
