"""The session index: one small sidecar per session, so listing never reads whole session files.

``<id>.jsonl.index.json`` holds the listing fields plus the byte size of the session file it describes. The
writer rewrites it (atomically) at every flush and on close. When a sidecar is behind its session (a crash
between a write and the next flush) only the bytes after the recorded size are read; when it is missing, the
head and tail of the session are read (counts are then unknown unless the file is small).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from contextual.core.atomic import atomic_write
from contextual.core.session.entry_checks import problem
from contextual.core.session.entry_lines import json_objects
from contextual.core.session.paths import (FILE_MODE, SESSION_SUFFIX, find_sessions_dirs, project_real_path,
                                is_valid_session_id, sessions_dir)

INDEX_SUFFIX = ".index.json"
INDEX_FORMAT = 2      # 2: user_ids, so a rewind takes its rounds back from the listing
FIRST_PROMPT_CHARS = 200
# A session with no sidecar smaller than this is scanned whole (cheap); larger ones only head and tail.
FULL_SCAN_LIMIT = 512 * 1024
TAIL_BYTES = 64 * 1024


@dataclass
class SessionInfo:
    id: str
    path: Path
    cwd: str | None = None
    first_prompt: str | None = None
    started: str | None = None
    updated: str | None = None
    rounds: int | None = None          # None: unknown (no index, large file)
    compactions: int | None = None
    last_tokens: int | None = None
    last_failed: bool = False          # its last turn failed (a turn_failed entry, and no turn after it)
    answered: bool = True              # a model has answered in it at least once

    @property
    def offered(self) -> bool:
        """Whether `-c` and /resume offer it: not a session whose every turn failed before any model reply (a
        refused connection, a refused key), which `-c` then continued with the failed prompt inside. Its file
        keeps the prompt: `-r ID` still opens it."""
        return self.answered or not self.last_failed


@dataclass
class IndexState:
    """Listing fields, built by observing entries one at a time (the writer and the scanner share it)."""
    session_id: str
    cwd: str | None = None
    first_prompt: str | None = None
    started: str | None = None
    updated: str | None = None
    rounds: int | None = 0
    compactions: int | None = 0
    last_tokens: int | None = None
    size: int = 0                      # bytes of the session file this state describes
    user_ids: list[str] = field(default_factory=list)   # the user messages' uuids, in order: what a rewind takes back
    last_failed: bool = False          # optional in a sidecar: one written without it reads False
    answered: bool = False             # an assistant entry seen; optional in a sidecar: one without it reads True
    extra: dict[str, Any] = field(default_factory=dict)

    def observe(self, entry: dict[str, Any]) -> None:
        if problem(entry) is not None:       # a line the loader skips counts for nothing here either
            return
        stamp = entry.get("timestamp")
        if isinstance(stamp, str):
            self.started = self.started or stamp
            # the latest time seen, not the last line's: a fork copies its parent's older stamps after its own
            # first entry, and `-c` then continued the parent instead of the fork just made
            self.updated = stamp if self.updated is None or stamp > self.updated else self.updated
        if self.cwd is None and isinstance(entry.get("cwd"), str):
            self.cwd = entry["cwd"]
        kind = entry.get("type")
        meta = entry.get("meta")
        if kind == "user" and not (isinstance(meta, dict) and "stop_hook" in meta):   # a Stop hook's: no new round
            if self.rounds is not None:
                self.rounds += 1
            self.last_failed = self.last_failed and isinstance(meta, dict) and "undo" in meta   # a turn begins
            if isinstance(entry.get("uuid"), str):
                self.user_ids.append(entry["uuid"])
            if self.first_prompt is None:
                content = (entry.get("message") or {}).get("content")
                if isinstance(content, str):
                    self.first_prompt = content.strip()[:FIRST_PROMPT_CHARS]
        elif kind == "assistant":
            self.answered = True
        elif kind == "system":
            subtype = entry.get("subtype")
            if subtype == "compact_boundary":
                if self.compactions is not None:
                    self.compactions += 1
                post = entry.get("compactMetadata", {}).get("postTokens")     # shape checked by entry_checks.problem
                self.last_tokens = post if isinstance(post, int) else None
            elif subtype == "turn_failed":
                self.last_failed = True
            elif subtype == "user_shell" and self.first_prompt is None:     # a session begun by a `!command`
                self.first_prompt = f"!{entry['shell']['command']}"[:FIRST_PROMPT_CHARS]
            elif subtype == "usage" and not entry.get("purpose"):      # a summary's call is not the prompt's size
                self.last_tokens = entry["usage"]["input_tokens"] + entry["usage"]["output_tokens"]
            elif subtype == "rewind" and entry.get("toUuid") in self.user_ids:
                # back to before that message: its round and the ones after are gone (the loader's `_before`)
                kept = self.user_ids.index(entry["toUuid"])
                del self.user_ids[kept:]
                self.rounds = kept if self.rounds is not None else None
                self.last_tokens = None
                self.last_failed = False
                if not kept:
                    self.first_prompt = None

    def to_info(self, path: Path) -> SessionInfo:
        return SessionInfo(id=self.session_id, path=path, cwd=self.cwd, first_prompt=self.first_prompt,
                           started=self.started, updated=self.updated, rounds=self.rounds,
                           compactions=self.compactions, last_tokens=self.last_tokens,
                           last_failed=self.last_failed, answered=self.answered)


def index_file(session_path: Path) -> Path:
    return session_path.with_name(session_path.name + INDEX_SUFFIX)


def write_index(session_path: Path, state: IndexState) -> None:
    """Atomic rewrite (tmp + rename) so a reader never sees half a sidecar."""
    target = index_file(session_path)
    data = json.dumps({"format": INDEX_FORMAT, **{k: v for k, v in asdict(state).items() if k != "extra"}},
                      ensure_ascii=False).encode("utf-8", errors="replace")
    atomic_write(target, data, FILE_MODE, durable=False)      # a cache, written at every batch


def read_index(session_path: Path) -> IndexState | None:
    try:
        raw = json.loads(index_file(session_path).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or raw.get("format") != INDEX_FORMAT:
        return None
    try:
        return IndexState(session_id=str(raw["session_id"]), cwd=raw.get("cwd"),
                          first_prompt=raw.get("first_prompt"), started=raw.get("started"),
                          updated=raw.get("updated"), rounds=raw.get("rounds"),
                          compactions=raw.get("compactions"), last_tokens=raw.get("last_tokens"),
                          size=int(raw["size"]), user_ids=[str(u) for u in raw.get("user_ids") or []],
                          last_failed=raw.get("last_failed") is True, answered=raw.get("answered") is not False)
    except (KeyError, TypeError, ValueError):
        return None


def _observe_bytes(state: IndexState, data: bytes) -> None:
    for entry in json_objects(data.split(b"\n")):
        state.observe(entry)


def _complete_prefix(data: bytes) -> bytes:
    """Only whole lines: a line still being written is left for the next look."""
    cut = data.rfind(b"\n")
    return data[:cut + 1] if cut >= 0 else b""


def current_state(session_path: Path, *, full_scan_limit: int = FULL_SCAN_LIMIT) -> IndexState:
    """The listing fields for one session, reading as little of it as possible."""
    session_id = session_path.name[:-len(SESSION_SUFFIX)]
    size = session_path.stat().st_size
    state = read_index(session_path)
    if state is not None and state.size == size:
        return state
    with open(session_path, "rb") as handle:
        if state is not None and state.size < size:
            handle.seek(state.size)
            tail = _complete_prefix(handle.read(size - state.size))
            _observe_bytes(state, tail)
            state.size += len(tail)
            return state
        state = IndexState(session_id=session_id)
        if size <= full_scan_limit:
            data = _complete_prefix(handle.read(size))
            _observe_bytes(state, data)
            state.size = len(data)
            return state
        # Large and unindexed: the head gives cwd, start and first prompt; the tail gives the latest figures.
        head = _complete_prefix(handle.read(TAIL_BYTES))
        _observe_bytes(state, head)
        handle.seek(max(0, size - TAIL_BYTES))
        tail = handle.read()
        first_newline = tail.find(b"\n")
        tail = _complete_prefix(tail[first_newline + 1:]) if first_newline >= 0 else b""
        first_prompt = state.first_prompt  # a prompt seen only in the tail is not the first one
        state.rounds = state.compactions = None
        _observe_bytes(state, tail)
        state.first_prompt = first_prompt
        state.size = -1  # never trusted as an index
        return state


def session_paths(folder: Path) -> list[Path]:
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [folder / name for name in names
            if name.endswith(SESSION_SUFFIX) and is_valid_session_id(name[:-len(SESSION_SUFFIX)])]


def list_sessions(home: Path, project_root: Path | None = None) -> list[SessionInfo]:
    """Sessions of one project (or of all projects) that are offered (SessionInfo.offered), most recently updated
    first."""
    folders = [sessions_dir(home, project_root)] if project_root is not None else find_sessions_dirs(home)
    infos: list[SessionInfo] = []
    for folder in folders:
        for path in session_paths(folder):
            try:
                info = current_state(path).to_info(path)
            except OSError:
                continue  # deleted while listing
            if info.offered:
                infos.append(info)
    infos.sort(key=lambda info: (info.updated or "", info.id), reverse=True)
    return infos


def latest_session(home: Path, project_root: Path) -> Path | None:
    """The latest session whose recorded cwd is this project's real path (escaped names can collide)."""
    real = project_real_path(project_root)
    for info in list_sessions(home, project_root):
        if info.cwd == real:
            return info.path
    return None


def find_session(home: Path, project_root: Path, session_id: str) -> Path | None:
    """By exact id, or by a unique id prefix, within this project."""
    folder = sessions_dir(home, project_root)
    if is_valid_session_id(session_id):
        exact = folder / f"{session_id}{SESSION_SUFFIX}"
        if exact.is_file():
            return exact
    matches = [p for p in session_paths(folder) if p.name.startswith(session_id)]
    return matches[0] if len(matches) == 1 else None
