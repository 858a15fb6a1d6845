"""LS: one folder's entries (folders end with '/'), honouring .gitignore, never showing .git."""

from __future__ import annotations

import os
import time

from core.tools._fs import IgnoreRules, check_args
from core.tools.base import ToolContext, ToolError, fail, ok

MAX_ENTRIES = 1000


class LSTool:
    name = "LS"
    needs_permission = False
    edits_files = False

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries

    async def run(self, args: dict, ctx: ToolContext) -> dict:
        context = dict(args) if isinstance(args, dict) else {}
        started = time.monotonic()
        try:
            check_args(args, {}, {"path": str})
            folder = ctx.resolve(args.get("path"), must_exist=True)
            rel = ctx.relative(folder)
            if not folder.is_dir():
                raise ToolError("not_a_directory", f"{rel} is a file; use Read to see it")
            rules = IgnoreRules(ctx.root)
            # A folder named explicitly is listed even when .gitignore hides it (only .git stays hidden).
            explicit = rules.ignored_on_the_way(folder)
            dirs, files = [], []
            with os.scandir(folder) as scan:
                for entry in scan:
                    child = folder / entry.name
                    is_dir = entry.is_dir()          # follows symlinks: a link to a folder lists as one
                    if entry.name == ".git" or (not explicit and rules.ignored(child, is_dir)):
                        continue
                    (dirs if is_dir else files).append(entry.name)
        except ToolError as exc:
            return fail(exc.code, str(exc), context=context)
        except OSError as exc:
            return fail("io_error", f"cannot list {args.get('path') or '.'}: {exc.strerror or exc}",
                        context=context)
        entries = [name + "/" for name in sorted(dirs)] + sorted(files)
        total = len(entries)
        truncated = total > self.max_entries
        entries = entries[:self.max_entries]
        data = {"path": rel, "entries": entries, "count": total, "dirs": len(dirs), "files": len(files),
                "truncated": truncated}
        header = f"{rel}/ ({len(dirs)} folders, {len(files)} files)" if rel != "." else \
            f"./ ({len(dirs)} folders, {len(files)} files)"
        lines = [header, *("  " + entry for entry in entries)]
        if truncated:
            lines.append(f"  … and {total - self.max_entries} more (list a subfolder, or use Glob)")
        stats = {"duration_ms": round((time.monotonic() - started) * 1000, 1)}
        return ok(data, "\n".join(lines), stats=stats, context=context)
