"""FileAnalyzer (seed 001 8.7, 8.11; issue 7): which files the archived history worked on, with their
current content, so the summary's "📂 File System State" is built from the truth on disk.

Ranking: modified (Write/Edit/MultiEdit that succeeded) first, then the number of messages mentioning the
file, then the most recent mention. Only files inside the project root (symlinks resolved) are ever named.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Iterable

from contextual.core.messages import Message
from contextual.core.react import stored_action
from contextual.core.tools.registry import BUILTIN_TOOLS

# Read from the tools' own flags (history names the tool; the flag says whether it changes files).
MODIFYING_TOOLS = frozenset(tool.name for tool in BUILTIN_TOOLS if tool.edits_files)
FILE_TOOLS = MODIFYING_TOOLS | {"Read"}
LISTING_TOOLS = frozenset({"Grep", "Glob", "LS"})

# A path in prose needs a slash or one of these extensions: "utils.ts" counts, "e.g." does not.
KNOWN_EXTENSIONS = frozenset("""
py pyi ts tsx js jsx mjs cjs json toml yaml yml md rst txt ini cfg conf sh bash zsh fish rs go java kt kts
c h cc cpp cxx hpp hh cs rb php swift scala sql html htm css scss sass less vue svelte lua pl r m mm
ex exs erl hs ml clj dart zig nim proto graphql gql xml csv tsv env lock gradle tf hcl
ipynb tex bib
""".split())
BARE_FILE_NAMES = frozenset({"Makefile", "Dockerfile", "Justfile", "Procfile", "Gemfile", "Rakefile"})

_PATH_RUN = re.compile(r"[\w./~@-]+")
_BINARY_PROBE = 8192
MAX_CHARS_PER_FILE = 200_000    # a 1,000-line cap means little for a minified one-line file


@dataclass(frozen=True)
class IncludedFile:
    path: str            # relative to the project root, POSIX separators
    modified: bool
    mentions: int
    content: str
    lines: int           # lines included
    truncated: bool
    total_lines: int = 0


@dataclass(frozen=True)
class FileReport:
    files: list[IncludedFile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(f.path for f in self.files)


@dataclass
class _Reference:
    path: str
    modified: bool = False
    mentions: int = 0
    last_index: int = -1


class _Collector:
    """Accumulates references, keyed by the resolved path relative to the root."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.refs: dict[str, _Reference] = {}
        self._resolved: dict[tuple[str, str], str | None] = {}

    def relative(self, raw: str, base: Path | None = None) -> str | None:
        """The root-relative path of `raw`, or None when it is outside the root or not a path."""
        key = (raw, str(base or ""))
        if key in self._resolved:
            return self._resolved[key]
        result = None
        if raw and "\x00" not in raw:
            candidate = Path(os.path.expanduser(raw)) if raw.startswith("~") else Path(raw)
            if not candidate.is_absolute():
                candidate = (base or self.root) / candidate
            try:
                resolved = Path(os.path.realpath(candidate))
            except (OSError, ValueError):
                resolved = None
            if resolved is not None and resolved != self.root and self.root in resolved.parents:
                result = resolved.relative_to(self.root).as_posix()
        self._resolved[key] = result
        return result

    def existing_file(self, raw: str, base: Path | None = None) -> str | None:
        rel = self.relative(raw, base)
        if rel is not None and (self.root / rel).is_file():
            return rel
        return None

    def mention(self, paths: Iterable[str], index: int, modified: bool = False) -> None:
        for rel in set(paths):
            ref = self.refs.setdefault(rel, _Reference(rel))
            ref.mentions += 1
            ref.last_index = max(ref.last_index, index)
            ref.modified = ref.modified or modified

    def ranked(self) -> list[_Reference]:
        return sorted(self.refs.values(), key=lambda r: (not r.modified, -r.mentions, -r.last_index, r.path))


def analyze_files(messages: list[Message], project_root: str | os.PathLike[str], limit: int = 5,
                  max_lines: int = 1000) -> FileReport:
    """The top `limit` files the messages worked on, each with its current content (≤ max_lines lines)."""
    root = Path(os.path.realpath(project_root))
    collector = _Collector(root)
    # A call's paths are counted once, when its result is known: the assistant step and the tool
    # result both carry the args. Keyed by call_id ("" for a step that has none: the next result pairs).
    pending: dict[str, tuple[str, list[str], int]] = {}
    for index, message in enumerate(messages):
        if message.role == "summary":
            continue
        meta = message.meta or {}
        tool = meta.get("tool_name")
        given = meta.get("args")
        args: dict[str, Any] = given if isinstance(given, dict) else {}
        call_key = str(meta.get("call_id") or "")
        if message.role == "tool":
            result = _parse_result(message.content)
            called = pending.pop(call_key, None) or (tool or "", _arg_paths(tool or "", args), index)
            _settle_call(collector, called, result)
            if tool in LISTING_TOOLS and result is not None:
                collector.mention(_listed_paths(collector, result.get("data"), args), index)
            continue
        text = message.content
        if message.role == "assistant" and tool:
            pending[call_key] = (tool, _arg_paths(tool, args), index)
            text = _thought_only(text)   # the Action's own arguments are counted with its result
        collector.mention([p for p in (collector.existing_file(raw) for raw in _text_candidates(text)) if p],
                          index)
    for called in pending.values():      # calls that never got a result (aborted)
        _settle_call(collector, called, None, finished=False)
    return _read_ranked(collector, limit, max_lines)


def _settle_call(collector: _Collector, called: tuple[str, list[str], int], result: dict[str, Any] | None,
                 finished: bool = True) -> None:
    tool, raw_paths, index = called
    paths = [p for p in (collector.relative(raw) for raw in raw_paths) if p]
    if finished and result is not None and result.get("status") == "error":
        # A failed call did not touch the file; it still counts if the file is real (a failed Edit).
        collector.mention([p for p in paths if (collector.root / p).is_file()], index)
        return
    collector.mention(paths, index, modified=finished and tool in MODIFYING_TOOLS)


def _arg_paths(tool: str, args: dict[str, Any]) -> list[str]:
    """The file(s) a call names: file_path (or path, for the file tools), plus per-edit file_path."""
    paths: list[str] = []
    keys = ("file_path", "path") if tool in FILE_TOOLS else ("file_path",)
    for key in keys:
        if isinstance(args.get(key), str):
            paths.append(args[key])
            break
    for edit in args.get("edits") or []:   # MultiEdit variants that name the file per edit
        if isinstance(edit, dict) and isinstance(edit.get("file_path"), str):
            paths.append(edit["file_path"])
    return paths


def _parse_result(content: str) -> dict[str, Any] | None:
    try:
        value = json.loads(content)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _listed_paths(collector: _Collector, data: Any, args: dict[str, Any]) -> set[str]:
    """Existing files named in a Grep/Glob/LS result, relative to the root or to the searched folder."""
    base = collector.relative(args["path"]) if isinstance(args.get("path"), str) else None
    bases = [None] + ([collector.root / base] if base else [])
    found: set[str] = set()
    for raw in _strings(data):
        raw = raw.split(":", 1)[0].strip()     # "src/a.py:12: text" -> "src/a.py"
        if not _looks_like_path(raw):
            continue
        for candidate_base in bases:
            rel = collector.existing_file(raw, candidate_base)
            if rel:
                found.add(rel)
                break
    return found


def _strings(value: Any, depth: int = 0) -> Iterable[str]:
    if depth > 6:
        return
    if isinstance(value, str):
        if len(value) < 1024:
            yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and _looks_like_path(key):
                yield key
            yield from _strings(item, depth + 1)
    elif isinstance(value, list):
        for item in value[:500]:
            yield from _strings(item, depth + 1)


def _thought_only(text: str) -> str:
    """A step's words before its Action line (a thought may quote "Action:": it is still the thought)."""
    found = stored_action(text)
    return text if found is None else found.head


def _text_candidates(text: str) -> Iterable[str]:
    for match in _PATH_RUN.finditer(text or ""):
        token = match.group(0).lstrip("@").rstrip(".,;:")
        if match.start() >= 3 and text[match.start() - 3:match.start()] == "://":
            continue   # the rest of a URL
        if _looks_like_path(token):
            yield token


def _looks_like_path(token: str) -> bool:
    if not token or token.startswith("//") or len(token) > 512:
        return False
    name = token.rsplit("/", 1)[-1]
    if "/" in token:
        return any(ch.isalnum() for ch in token)
    if name in BARE_FILE_NAMES:
        return True
    stem, dot, ext = name.rpartition(".")
    return bool(dot) and bool(stem.strip(".")) and ext.lower() in KNOWN_EXTENSIONS


def _read_ranked(collector: _Collector, limit: int, max_lines: int) -> FileReport:
    files: list[IncludedFile] = []
    notes: list[str] = []
    for ref in collector.ranked():
        if len(files) >= limit:
            break
        path = collector.root / ref.path
        if path.is_dir():
            continue
        if not path.exists():
            notes.append(f"{ref.path} was deleted since; skipped")
            continue
        try:
            read = _read_text(path, max_lines)
        except OSError as exc:
            notes.append(f"{ref.path} could not be read ({exc.strerror or exc}); skipped")
            continue
        if read is None:
            notes.append(f"{ref.path} is a binary file; skipped")
            continue
        content, lines, total, truncated = read
        files.append(IncludedFile(ref.path, ref.modified, ref.mentions, content, lines, truncated, total))
    return FileReport(files, notes)


def _read_text(path: Path, max_lines: int) -> tuple[str, int, int, bool] | None:
    """(content, lines included, total lines, truncated), or None for a binary file; OSError for anything that is
    not a regular file. Opened without waiting (a file the turn wrote that a command made a FIFO held the
    compaction, and the process's exit, for good), and no line is held whole past what can be kept (a file of one
    200 MB line)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file")
    with os.fdopen(fd, "rb") as handle:
        if b"\x00" in handle.read(_BINARY_PROBE):
            return None
        handle.seek(0)
        kept: list[bytes] = []
        size = 0
        total = 0
        while raw_line := handle.readline(MAX_CHARS_PER_FILE + 1):
            if len(kept) >= max_lines or size + len(raw_line) > MAX_CHARS_PER_FILE:
                total += _lines_from(raw_line, handle)
                break
            kept.append(raw_line)
            size += len(raw_line)
            total += 1
    content = b"".join(kept).decode("utf-8", errors="replace")
    return content, len(kept), total, total > len(kept)


def _lines_from(start: bytes, handle: BinaryIO) -> int:
    """The lines from `start` (a line, or its first part) to the file's end, counted a block at a time."""
    newlines, last = start.count(b"\n"), start
    for block in iter(lambda: handle.read(1 << 20), b""):
        newlines, last = newlines + block.count(b"\n"), block
    return newlines + (0 if last.endswith(b"\n") else 1)
