"""LS: one folder's entries (folders end with '/'), honouring .gitignore, never showing .git."""

from __future__ import annotations

from typing import Any

import os

from pathlib import Path

from contextual.core.tools._args import STR, Arg, ArgSpec
from contextual.core.tools._cancel import Stop, in_thread
from contextual.core.tools._walk import IgnoreRules
from contextual.core.tools.base import ToolContext, ToolError, ok
from contextual.core.plural import plural

MAX_ENTRIES = 1000
WITHHELD_MARK = "  [withheld]"


class LSTool:
    name = "LS"
    example = ""                # the arguments speak for themselves: no example in L1
    description = 'list one folder (not recursively); folders end with "/".'
    args = ArgSpec((Arg("path", STR, required=False),),
                   note="default: the root.")
    needs_permission = False
    edits_files = False

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        folder = ctx.resolve(args.get("path"), must_exist=True)
        rel = ctx.relative(folder)
        if not folder.is_dir():
            raise ToolError("not_a_directory", f"{rel} is a file; use Read to see it")
        stop = Stop(None, ctx.cancel, "LS")
        dirs, files, ignored = await in_thread(_list, ctx, folder, stop, stop=stop)
        # Names with undecodable bytes are shown as \xNN by the runner; Read/LS accept that form back.
        # A file a Read deny rule covers is listed but marked, so the model knows it exists and is off limits.
        prefix = "" if rel == "." else rel + "/"
        marked = [name for name in files if ctx.withholds(prefix + name)]
        entries = [name + "/" for name in sorted(dirs)] + sorted(
            name + WITHHELD_MARK if name in marked else name for name in files)
        total = len(entries)
        truncated = total > self.max_entries
        entries = entries[:self.max_entries]
        data = {"path": rel, "entries": entries, "count": total, "dirs": len(dirs), "files": len(files),
                "truncated": truncated}
        if marked:
            data["withheld"] = len(marked)
        if ignored:
            data["ignored"] = ignored
        shown = "./" if rel == "." else f"{rel}/"
        lines = [f"{shown} ({len(dirs)} folders, {len(files)} files)", *("  " + entry for entry in entries)]
        if truncated:
            lines.append(f"  … and {total - self.max_entries} more (list a subfolder, or use Glob)")
        if ignored:     # else the model takes a .gitignore'd .env or build/ for missing; Read still opens them
            lines.append(f"({ignored} more hidden by .gitignore; Read and LS still open them by path)")
        if marked:
            lines.append(f"({plural(len(marked), 'file')} marked{WITHHELD_MARK}: "
                         "a Read deny rule withholds their contents)")
        return ok(data, "\n".join(lines))


def _list(ctx: ToolContext, folder: Path, stop: Stop) -> tuple[list[str], list[str], int]:
    """Folder and file names, and how many .gitignore hid (a huge folder is listed in a worker thread that stops
    on cancel)."""
    rules = IgnoreRules(ctx.root)
    # A folder named explicitly is listed even when .gitignore hides it (only .git stays hidden).
    explicit = rules.ignored_on_the_way(folder)
    chain = rules.chain(folder)
    dirs: list[str] = []
    files: list[str] = []
    ignored = 0
    with os.scandir(folder) as scan:
        for entry in scan:
            stop.check()
            try:
                is_dir = entry.is_dir()          # follows symlinks: a link to a folder lists as one
                if entry.name == ".git":
                    continue
                if not explicit and rules.ignored(folder / entry.name, is_dir, chain):
                    ignored += 1
                    continue
            except (OSError, RuntimeError):     # a symlink loop: listed as the file it claims to be; Read says why
                is_dir = False
            (dirs if is_dir else files).append(entry.name)
    return dirs, files, ignored
