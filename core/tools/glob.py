"""Glob: files whose path below `path` matches a pattern ("**/*.py"), newest first.

Files only (folders are LS's job); .git is skipped, and what .gitignore hides, which the result names (the files
that match, or when nothing does, the folders not entered); ties in mtime sort by path."""

from __future__ import annotations

from typing import Any, Callable

import os
from pathlib import Path

from contextual.core.tools._args import STR, Arg, ArgSpec
from contextual.core.tools._cancel import Stop, in_thread
from contextual.core.tools._globs import compile_glob
from contextual.core.tools._walk import Hidden, IgnoreRules, some_of, walk_files
from contextual.core.tools.base import ToolContext, ToolError, ok
from contextual.core.plural import plural

MAX_PATHS = 1000
TIME_LIMIT_S = 60.0


class GlobTool:
    name = "Glob"
    example = ""                # the arguments speak for themselves: no example in L1
    description = 'find files by path pattern, newest first: "*.py" in the top folder, "**/*.py" in every folder.'
    args = ArgSpec((Arg("pattern", STR), Arg("path", STR, required=False)))
    needs_permission = False
    edits_files = False

    def __init__(self, max_paths: int = MAX_PATHS, time_limit_s: float = TIME_LIMIT_S) -> None:
        self.max_paths = max_paths
        self.time_limit_s = time_limit_s

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
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
        matcher = compile_glob(pattern.removeprefix("./"))
        stop = Stop(self.time_limit_s, ctx.cancel, "Glob")
        hidden = Hidden()
        found = await in_thread(_matching_files, ctx.root, base, matcher, stop, hidden, stop=stop)
        visible = [item for item in found if not ctx.withholds(item[0])]
        withheld, found = len(found) - len(visible), visible
        found.sort(key=lambda item: (-item[1], item[0]))
        total = len(found)
        truncated = total > self.max_paths
        paths = [path for path, _mtime in found[:self.max_paths]]
        data = {"pattern": pattern, "paths": paths, "count": total, "truncated": truncated}
        if withheld:
            data["withheld"] = withheld
        if not paths:
            text = f"No files match {pattern}"
        else:
            text = "\n".join(paths)
            if truncated:
                text += f"\n(showing {self.max_paths} of {total} files, newest first; narrow the pattern)"
        if withheld:
            text += f"\n({plural(withheld, 'matching file')} withheld by a Read deny rule)"
        text += _hidden_note(hidden, base, matcher, ctx, found_any=bool(paths))
        return ok(data, text)


def _hidden_note(hidden: Hidden, base: Path, matcher: Callable[[str], bool], ctx: ToolContext, found_any: bool) -> str:
    """What .gitignore hid that the model may be looking for: matching files, else the folders not entered."""
    prefix = len(str(base)) + 1
    matching = [path for path in hidden.files if matcher(path[prefix:])]
    names = some_of(matching, ctx.root, ctx.withholds)
    if names:
        return f"\n(.gitignore hides matching files too: {names}; Read opens a file by path)"
    folders = some_of(hidden.folders, ctx.root, ctx.withholds)
    if folders and not found_any:
        return f"\n(.gitignore hides {folders}, not searched; set path to a folder to look inside it)"
    return ""


def _matching_files(root: Path, base: Path, matcher: Callable[[str], bool], stop: Stop, hidden: Hidden
                    ) -> list[tuple[str, float]]:
    """(project-relative path, mtime) of each file whose path below `base` matches."""
    found = []
    base_prefix, root_prefix = len(str(base)) + 1, len(str(root)) + 1
    for path in walk_files(root, base, IgnoreRules(root), stop.check, hidden):
        if matcher(path[base_prefix:]):
            try:
                found.append((path[root_prefix:], os.stat(path).st_mtime))
            except OSError:
                continue                       # vanished or a dangling link
    return found
