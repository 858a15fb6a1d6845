"""SessionWriter: appends entries as they happen, from a writer task, never blocking the event loop.

``append_*`` builds and serialises the entry at once (a snapshot: later changes to a dict cannot alter what was
recorded) and queues the line. The writer task writes queued lines with ``os.write`` on an O_APPEND fd in a worker
thread: each line reaches the kernel as soon as it is written, so a crash of this process loses nothing already
written; ``flush(fsync=True)`` also forces it to the disk. Without a running event loop (a CLI command, a test, the
app's hang-up deadline with its loop stuck: tui/hangup.py) lines are written at once, synchronously. Lines leave the
queue in the thread that wrote them, one write at a time, so a synchronous write while the task's batch is at the
disk neither repeats nor interleaves it.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import contextual.core
from contextual.core.events import UsageEvent
from contextual.core.messages import Message, new_id
from contextual.core.session import lock as session_lock
from contextual.core.session import schema
from contextual.core.clock import now_iso
from contextual.core import secrets as key_registry
from contextual.core.session.entries import dumps_line, message_body
from contextual.core.session.appendfile import end_torn_line, fsync_dir, tail_facts, truncate_quietly, write_all
from contextual.core.session.index import IndexState, current_state, write_index
from contextual.core.session.lock import SessionError
from contextual.core.session.paths import (FILE_MODE, GitBranch, is_valid_session_id, make_private_dirs,
                                project_real_path, session_file)

if TYPE_CHECKING:
    from contextual.core.tools.base import Todo


class SessionWriteError(SessionError):
    """The disk refused a write; the lines stay queued and are retried at the next flush."""


@dataclass
class _FlushWaiter:
    target: int
    fsync: bool
    future: asyncio.Future[None]


class SessionWriter:
    def __init__(self, path: Path, fd: int, *, session_id: str, cwd: str, version: str,
                 git: GitBranch | None, last_uuid: str | None, index: IndexState,
                 secrets: tuple[str, ...]) -> None:
        self.session_id = session_id
        self.path = path
        self.cwd = cwd
        self.version = version
        self._fd = fd
        self._git = git
        self._last_uuid = last_uuid
        self._index = index
        self._secrets = secrets
        self._pending: deque[tuple[bytes, dict[str, Any]]] = deque()
        self._enqueued = 0          # lines ever queued
        self._written = 0           # lines ever written
        self._waiters: list[_FlushWaiter] = []
        self._fsync_due = False
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[Any] | None = None
        self._closed = False                # no more appends
        self._released = False              # the fd closed and the lock let go
        self._writing = threading.Lock()    # held while lines go to the fd and leave the queue, and at the release

    # ----------------------------------------------------------------- opening

    @classmethod
    def create(cls, home: Path, project_root: Path, *, session_id: str | None = None,
               version: str = contextual.core.__version__, secrets: list[str] | None = None) -> "SessionWriter":
        """A new session file, locked for this writer."""
        session_id = session_id or new_id()
        if not is_valid_session_id(session_id):
            raise SessionError(f"invalid session id {session_id!r}: use letters, digits, '-', '_' or '.'")
        path = session_file(home, project_root, session_id)
        make_private_dirs(path.parent)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, FILE_MODE)
        except FileExistsError:
            raise SessionError(f"session {session_id} already exists at {path}; resume it instead") from None
        try:
            os.fchmod(fd, FILE_MODE)
            session_lock.try_lock(fd, path)
            fsync_dir(path.parent)
        except BaseException:
            os.close(fd)
            raise
        cwd = project_real_path(project_root)
        return cls(path, fd, session_id=session_id, cwd=cwd, version=version, git=GitBranch(Path(cwd)),
                   last_uuid=None, index=IndexState(session_id=session_id), secrets=key_registry.usable(secrets))

    @classmethod
    def reopen(cls, path: Path, *, version: str = contextual.core.__version__,
               secrets: list[str] | None = None) -> "SessionWriter":
        """Append to an existing session (resume), locked for this writer."""
        path = Path(path)
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND)
        except FileNotFoundError:
            raise SessionError(f"no session file at {path}") from None
        try:
            session_lock.try_lock(fd, path)
            os.fchmod(fd, FILE_MODE)
            end_torn_line(fd)
            last_uuid, cwd = tail_facts(fd)
            index = current_state(path, full_scan_limit=1 << 62)
        except BaseException:
            os.close(fd)
            raise
        session_id = path.name.removesuffix(".jsonl")
        cwd = index.cwd or cwd or str(path.parent)
        git = GitBranch(Path(cwd)) if Path(cwd).is_dir() else None
        return cls(path, fd, session_id=session_id, cwd=cwd, version=version, git=git,
                   last_uuid=last_uuid, index=index, secrets=key_registry.usable(secrets))

    # ----------------------------------------------------------------- appending

    def append_message(self, msg: Message) -> None:
        """A user / assistant / tool / summary message (history as stored, plus the full observation)."""
        self._append(message_body(msg), uuid=msg.id)

    def append_tool_use(self, call_id: str, name: str, args: Any, parent: Message) -> None:
        self._append(schema.tool_use_body(call_id, name, args), parent_uuid=parent.id)

    def append_usage(self, usage: UsageEvent) -> None:
        self._append(schema.usage_body(usage.input_tokens, usage.output_tokens, usage.cached_tokens,
                                       usage.cache_creation_tokens, usage.model, usage.sent, usage.purpose))

    def append_permission(self, record: schema.PermissionRecord) -> None:
        """The user's answer to the permission dialog (its place in the record says which call it answered)."""
        self._append(record.to_entry())

    def append_turn_end(self, record: schema.TurnEnd) -> None:
        """Why the turn ended without an answer (stopped by the user, or failed), after its last message."""
        self._append(record.to_entry())

    def append_todos(self, todos: list[Todo]) -> None:
        self._system("todos", todos=todos)

    def append_compaction(self, record: schema.CompactionRecord, summary: Message | None) -> None:
        """The compact_boundary entry and, when there is one, the summary (isCompactSummary).

        On load, history becomes every summary so far, the record's pinned messages and the messages from its
        ``kept_from_id`` on (none when it is None). The writer fsyncs right after these entries.
        """
        self._append(record.to_entry())
        if summary is not None:
            body = message_body(summary if summary.role == "summary" else
                                Message("summary", summary.content, summary.full, summary.meta, summary.id))
            body["compactMetadata"] = record.metadata()
            self._append(body, uuid=summary.id)
        self._fsync_due = True

    def append_pins(self, ids: list[str]) -> None:
        """The pinned message ids after a change (issue 19.3); on load the latest entry wins."""
        self._system("pins", pinned=list(ids))

    def append_entry(self, entry: dict[str, Any]) -> None:
        """Any other entry (ghost snapshots, undo notes); common fields are filled in when absent."""
        self._append(dict(entry), uuid=entry.get("uuid"))

    def _system(self, subtype: str, **fields: Any) -> None:
        self._append(schema.system_body(subtype, **fields))

    def _append(self, body: dict[str, Any], *, uuid: str | None = None, parent_uuid: str | None = None) -> None:
        if self._closed:
            raise SessionError(f"session {self.session_id} is closed; nothing more can be recorded")
        entry: dict[str, Any] = {
            "uuid": uuid or new_id(),
            "parentUuid": parent_uuid if parent_uuid is not None else self._last_uuid,
            "sessionId": self.session_id,
            "timestamp": now_iso(),
            "type": body.get("type", "system"),
        }
        if "subtype" in body:
            entry["subtype"] = body["subtype"]
        entry["cwd"] = self.cwd
        if self._git is not None and self._git.branch:
            entry["gitBranch"] = self._git.branch
        entry["version"] = self.version
        entry.update(body)  # a generic entry's own fields win
        entry = key_registry.redact_value(entry, key_registry.usable(self._secrets + key_registry.known()))
        line = dumps_line(entry)
        self._last_uuid = entry["uuid"]
        self._pending.append((line, entry))
        self._enqueued += 1
        self._kick()

    # ----------------------------------------------------------------- writing

    def _kick(self) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self._write_pending_sync()
            return
        if self._needs_task():
            self._start_task()
        assert self._wake is not None
        self._wake.set()

    async def start(self) -> None:
        if self._needs_task():
            self._start_task()

    def _needs_task(self) -> bool:
        # A task left behind by an event loop that has since closed will never run again.
        return (self._task is None or self._task.done()
                or self._task.get_loop() is not asyncio.get_running_loop())

    def _start_task(self) -> None:
        self._wake = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"session-writer-{self.session_id}")
        if self._pending or self._waiters:
            self._wake.set()

    async def _run(self) -> None:
        try:
            await self._serve()
        except asyncio.CancelledError:
            # a flush waiting on this task would wait forever (an event loop closing mid-turn hung its close): it
            # fails, and what is queued stays queued for the next flush, close or close_sync
            self._fail_waiters(SessionWriteError(f"cannot write session {self.path}: its writer was stopped"))
            raise

    async def _serve(self) -> None:
        assert self._wake is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending or self._waiters:
                fsync = self._fsync_due or any(w.fsync for w in self._waiters if w.target <= self._enqueued)
                try:
                    await asyncio.to_thread(self._write_queued, fsync)
                except Exception as exc:  # noqa: BLE001 - a dead writer task would hang every flush
                    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
                    self._fail_waiters(SessionWriteError(f"cannot write session {self.path}: {reason}"))
                    break  # the lines stay queued; the next append or flush retries
                if fsync:
                    self._fsync_due = False
                self._resolve_waiters(fsynced=fsync)

    def _write_queued(self, fsync: bool) -> None:
        """The lines queued now, written and taken off the queue (in any thread)."""
        with self._writing:
            if self._released:          # closed from another thread meanwhile (close_sync wrote what it could)
                if self._pending:
                    raise SessionWriteError(f"cannot write session {self.path}: it is closed")
                return
            batch = list(self._pending)
            self._write_lines(batch, fsync)
            for _ in batch:
                self._pending.popleft()
            self._written += len(batch)

    def _write_lines(self, batch: list[tuple[bytes, dict[str, Any]]], fsync: bool) -> None:
        # One batch at a time (_write_queued): the index only ever counts written entries.
        if batch:
            before = self._index.size if self._index.size >= 0 else os.fstat(self._fd).st_size
            try:
                write_all(self._fd, b"".join(line for line, _ in batch))
            except OSError:
                truncate_quietly(self._fd, before)  # no half batch: the retry writes whole lines
                raise
            for _, entry in batch:
                self._index.observe(entry)
            self._index.size = os.fstat(self._fd).st_size
        if fsync:
            os.fsync(self._fd)
        if self._git is not None and fsync:
            self._git.refresh()  # at turn ends and compactions: a branch switch shows from the next entry
        try:
            write_index(self.path, self._index)
        except OSError:
            pass    # the index is a cache rebuilt from the session file; failing here must not rewrite the lines

    def _write_pending_sync(self) -> None:
        try:
            self._write_queued(self._fsync_due)
        except OSError as exc:
            raise SessionWriteError(f"cannot write session {self.path}: {exc.strerror or exc}") from exc
        self._fsync_due = False

    def _resolve_waiters(self, *, fsynced: bool) -> None:
        still: list[_FlushWaiter] = []
        for waiter in self._waiters:
            if waiter.target <= self._written and (fsynced or not waiter.fsync):
                if not waiter.future.done():
                    waiter.future.set_result(None)
            else:
                still.append(waiter)
        self._waiters = still

    def _fail_waiters(self, error: Exception) -> None:
        for waiter in self._waiters:
            if not waiter.future.done():
                waiter.future.set_exception(error)
        self._waiters = []

    async def flush(self, fsync: bool = False) -> None:
        """Wait until everything appended so far is written (and on disk when fsync)."""
        if self._needs_task():
            self._start_task()
        future = asyncio.get_running_loop().create_future()
        self._waiters.append(_FlushWaiter(self._enqueued, fsync, future))
        assert self._wake is not None
        self._wake.set()
        await future

    async def close(self) -> None:
        """Flush, fsync, release the lock. Safe to call twice."""
        if self._closed:
            return
        try:
            await self.flush(fsync=True)
        finally:
            self._closed = True
            if self._task is not None:
                self._task.cancel()
                try:
                    await self._task
                except (asyncio.CancelledError, Exception):
                    pass
            self._release()

    def close_sync(self) -> None:
        """For code without an event loop, or beside a loop that is stuck (any thread): write what is queued,
        fsync, release."""
        if self._closed:
            return
        try:
            self._fsync_due = True
            self._write_pending_sync()
        finally:
            self._closed = True
            self._release()

    def _release(self) -> None:
        with self._writing:             # not while a batch is at the disk; once, whoever closes first
            if self._released:
                return
            self._released = True
            try:
                session_lock.release(self._fd, self.path)
            finally:
                os.close(self._fd)

    @property
    def closed(self) -> bool:
        return self._closed
