"""MultiEdit: several Edit steps on one file, applied in order in memory, then one atomic write (or none)."""

from __future__ import annotations

import time

from core.tools._fs import check_args
from core.tools.base import ToolContext, ToolError, fail, ok
from core.tools.edit import apply_edit, commit_edit, edit_text, load_for_edit


def _check_edits(edits: list) -> list[dict]:
    if not edits:
        raise ToolError("invalid_argument", "edits must hold at least one edit")
    for number, edit in enumerate(edits, start=1):
        try:
            check_args(edit, {"old_string": str, "new_string": str}, {"replace_all": bool})
        except ToolError as exc:
            raise ToolError("invalid_argument", f"edit {number}: {exc}") from None
    return edits


class MultiEditTool:
    name = "MultiEdit"
    needs_permission = True
    edits_files = True

    async def run(self, args: dict, ctx: ToolContext) -> dict:
        context = dict(args) if isinstance(args, dict) else {}
        started = time.monotonic()
        try:
            check_args(args, {"file_path": str, "edits": list}, {})
            edits = _check_edits(args["edits"])
            path = ctx.resolve(args["file_path"])
            rel = ctx.relative(path)
            if path.is_dir():
                raise ToolError("is_directory", f"{rel} is a directory, not a file")
            # Only a first edit with an empty old_string may create the file.
            text, style, exists = load_for_edit(path, rel, creating_allowed=edits[0]["old_string"] == "")
            current, replacements = text, 0
            for number, edit in enumerate(edits, start=1):
                try:
                    current, count = apply_edit(current, edit["old_string"], edit["new_string"],
                                                bool(edit.get("replace_all")), rel, style,
                                                label=f"edit {number} of {len(edits)}: ")
                except ToolError as exc:
                    raise ToolError(exc.code, f"{exc}; no edit was applied, {rel} is unchanged") from None
                replacements += count
            data = await commit_edit(ctx, path, rel, text, current, style)
        except ToolError as exc:
            return fail(exc.code, str(exc), context=context)
        except OSError as exc:
            return fail("io_error", f"cannot edit {args.get('file_path')}: {exc.strerror or exc}", context=context)
        data = {"path": data.pop("path"), "replacements": replacements, "edits_applied": len(edits), **data}
        if not exists:
            data["created"] = True
        stats = {"bytes": data.pop("bytes"), "duration_ms": round((time.monotonic() - started) * 1000, 1)}
        return ok(data, edit_text(data, not exists), stats=stats, context=context)
