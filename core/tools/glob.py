"""Glob: files whose project-relative path matches a pathlib-style pattern ("**/*.py"), newest first.

Files only (folders are LS's job); .gitignore'd files and .git are skipped; ties in mtime sort by path."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from core.tools._fs import IgnoreRules, check_args, glob_to_regex, walk_files
from core.tools.base import ToolContext, ToolError, fail, ok

MAX_PATHS = 1000


class GlobTool:
    name = "Glob"
    needs_permission = False
    edits_files = False

    def __init__(self, max_paths: int = MAX_PATHS) -> None:
        self.max_paths = max_paths

    async def run(self, args: dict, ctx: ToolContext) -> dict:
        context = dict(args) if isinstance(args, dict) else {}
        started = time.monotonic()
        try:
            check_args(args, {"pattern": str}, {"path": str})
            pattern = args["pattern"].strip()
            if not pattern:
                raise ToolError("invalid_argument", "pattern is empty")
            if pattern.startswith("/") or ".." in Path(pattern).parts:
                raise ToolError("invalid_argument",
                                f"pattern {pattern!r} must be relative to path (no leading '/' or '..'); "
                                "put the folder in path instead")
            base = ctx.resolve(args.get("path"), must_exist=True)
            if not base.is_dir():
                raise ToolError("not_a_directory", f"{ctx.relative(base)} is not a directory")
            matcher = glob_to_regex(pattern.removeprefix("./"))
            found = await asyncio.to_thread(_matching_files, ctx.root, base, matcher)
        except ToolError as exc:
            return fail(exc.code, str(exc), context=context)
        except OSError as exc:
            return fail("io_error", f"cannot search {args.get('path') or '.'}: {exc.strerror or exc}",
                        context=context)
        found.sort(key=lambda item: (-item[1], item[0]))
        total = len(found)
        truncated = total > self.max_paths
        paths = [ctx.relative(path) for path, _mtime in found[:self.max_paths]]
        data = {"pattern": pattern, "paths": paths, "count": total, "truncated": truncated}
        if not paths:
            text = f"No files match {pattern}"
        else:
            text = "\n".join(paths)
            if truncated:
                text += f"\n(showing {self.max_paths} of {total} files, newest first; narrow the pattern)"
        stats = {"duration_ms": round((time.monotonic() - started) * 1000, 1)}
        return ok(data, text, stats=stats, context=context)


def _matching_files(root: Path, base: Path, matcher) -> list[tuple[Path, float]]:
    found = []
    for path in walk_files(root, base, IgnoreRules(root)):
        if matcher.match(path.relative_to(base).as_posix()):
            try:
                found.append((path, path.stat().st_mtime))
            except OSError:
                continue                       # vanished or a dangling link
    return found
