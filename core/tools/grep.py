"""Grep: a Python regex over the project's text files (or one file), line by line, honouring .gitignore."""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from core.tools._fs import IgnoreRules, check_args, decode_text, glob_to_regex, walk_files
from core.tools.base import ToolContext, ToolError, fail, ok

MAX_MATCHES = 500
MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_LINE_CHARS = 500


@dataclass
class _Search:
    regex: re.Pattern
    max_matches: int
    matches: list[dict] = field(default_factory=list)
    files: set[str] = field(default_factory=set)
    truncated: bool = False
    skipped_large: int = 0
    skipped_binary: int = 0


class GrepTool:
    name = "Grep"
    needs_permission = False
    edits_files = False

    def __init__(self, max_matches: int = MAX_MATCHES, max_file_bytes: int = MAX_FILE_BYTES) -> None:
        self.max_matches = max_matches
        self.max_file_bytes = max_file_bytes

    async def run(self, args: dict, ctx: ToolContext) -> dict:
        context = dict(args) if isinstance(args, dict) else {}
        started = time.monotonic()
        try:
            check_args(args, {"pattern": str}, {"path": str, "glob": str, "ignore_case": bool})
            pattern = args["pattern"]
            if not pattern:
                raise ToolError("invalid_argument", "pattern is empty")
            try:
                regex = re.compile(pattern, re.IGNORECASE if args.get("ignore_case") else 0)
            except re.error as exc:
                raise ToolError("invalid_regex", f"invalid regular expression {pattern!r}: {exc}") from None
            base = ctx.resolve(args.get("path"), must_exist=True)
            file_filter = _file_filter(args.get("glob"))
            search = _Search(regex, self.max_matches)
            await asyncio.to_thread(self._search, ctx, base, file_filter, search)
        except ToolError as exc:
            return fail(exc.code, str(exc), context=context)
        except OSError as exc:
            return fail("io_error", f"cannot search {args.get('path') or '.'}: {exc.strerror or exc}",
                        context=context)
        data = {"pattern": pattern, "matches": search.matches, "match_count": len(search.matches),
                "file_count": len(search.files), "truncated": search.truncated}
        lines = [f"{m['path']}:{m['line']}: {m['text']}" for m in search.matches]
        if not lines:
            lines.append(f"No matches for {pattern}")
        if search.truncated:
            lines.append(f"(stopped at {self.max_matches} matches; narrow the pattern, path or glob)")
        skipped = []
        if search.skipped_large:
            skipped.append(f"{search.skipped_large} file(s) over {self.max_file_bytes // (1024 * 1024)} MB")
        if search.skipped_binary and base.is_file():
            skipped.append("a binary file")
        if skipped:
            lines.append(f"(skipped {', '.join(skipped)})")
        stats = {"duration_ms": round((time.monotonic() - started) * 1000, 1),
                 "skipped_large_files": search.skipped_large, "skipped_binary_files": search.skipped_binary}
        return ok(data, "\n".join(lines), stats=stats, context=context)

    def _search(self, ctx: ToolContext, base: Path, file_filter, search: _Search) -> None:
        # A file named explicitly is searched even if .gitignore hides it.
        files = [base] if base.is_file() else walk_files(ctx.root, base, IgnoreRules(ctx.root))
        for path in files:
            rel_to_base = path.name if path == base else path.relative_to(base).as_posix()
            if file_filter is not None and not file_filter(rel_to_base):
                continue
            self._search_file(ctx, path, search)
            if search.truncated:
                return

    def _search_file(self, ctx: ToolContext, path: Path, search: _Search) -> None:
        try:
            if path.stat().st_size > self.max_file_bytes:
                search.skipped_large += 1
                return
            decoded = decode_text(path.read_bytes())
        except OSError:
            return
        if decoded is None:
            search.skipped_binary += 1
            return
        rel = ctx.relative(path)
        for number, line in enumerate(decoded[0].splitlines(), start=1):
            if not search.regex.search(line):
                continue
            if len(search.matches) >= search.max_matches:
                search.truncated = True
                return
            text = line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + "…"
            search.matches.append({"path": rel, "line": number, "text": text})
            search.files.add(rel)


def _file_filter(glob: str | None):
    """A glob without '/' tests the file name (like rg -g '*.py'); with '/', the path below `path`."""
    if glob is None or not glob.strip():
        return None
    glob = glob.strip()
    regex = glob_to_regex(glob.removeprefix("./"))
    if "/" in glob:
        return lambda rel: bool(regex.match(rel))
    return lambda rel: bool(regex.match(rel.rsplit("/", 1)[-1]))
