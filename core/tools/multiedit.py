"""MultiEdit: several Edit steps on one file, applied in order in memory, then one atomic write (or none)."""

from __future__ import annotations

from typing import Any

from contextual.core.tools._args import LIST, STR, Arg, ArgSpec
from contextual.core.tools.base import ToolContext, ToolError, ok
from contextual.core.tools.edit import EDIT_ARGS, apply_edit, commit_edit, edit_text, load_for_edit


class MultiEditTool:
    name = "MultiEdit"
    description = "several Edits on one file, in order; all or none."
    args = ArgSpec((Arg("file_path", STR),
                    Arg("edits", LIST, items=ArgSpec(EDIT_ARGS), item_label="edit", min_items=1)))
    example = '{"file_path": "a.py", "edits": [{"old_string": "x = 1", "new_string": "x = 2"}]}'   # nested: shown
    needs_permission = True
    edits_files = True

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        edits = args["edits"]
        path = ctx.resolve_editable(args["file_path"])
        rel = ctx.relative(path)
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
        data = {"path": data.pop("path"), "replacements": replacements, "edits_applied": len(edits), **data}
        if not exists:
            data["created"] = True
        return ok(data, edit_text(data, not exists), stats={"bytes": data.pop("bytes")})
