"""Edit: replace one exact string in a file (or every copy with replace_all), all or nothing, atomically.

An empty old_string creates the file when it does not exist yet, or fills it when it is empty (as Claude
Code does); on a file with content it is refused, since it would say nothing about where to edit."""

from __future__ import annotations

from typing import Any

from pathlib import Path

from contextual.core.tools._args import BOOL, STR, Arg, ArgSpec
from contextual.core.tools._atomic import announce_change, atomic_write, record_mtime
from contextual.core.tools._codec import TextStyle, encode_text
from contextual.core.tools._diff import changed_line_span, unified_diff
from contextual.core.tools._regular import check_regular, read_text_file
from contextual.core.tools.base import ToolContext, ToolError, ok
from contextual.core.plural import plural

MAX_EDIT_BYTES = 10 * 1024 * 1024


def apply_edit(text: str, old: str, new: str, replace_all: bool, rel: str, style: TextStyle,
               label: str = "") -> tuple[str, int]:
    """The text after one edit and how many copies were replaced; ToolError when it cannot apply."""
    if old == new:
        raise ToolError("invalid_argument", f"{label}old_string and new_string are identical; nothing to change")
    if style.crlf:
        # The file is held with \n newlines; a model copying CRLF text must still match.
        old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    if old == "":
        if text:
            raise ToolError("invalid_argument",
                            f"{label}old_string is empty but {rel} has content; quote the text to replace, "
                            "or use Write to replace the whole file")
        return new, 1
    count = text.count(old)
    if count == 0:
        raise ToolError("no_match", f"{label}old_string was not found in {rel}; "
                                    "Read the file and copy the text exactly (whitespace included)")
    if count > 1 and not replace_all:
        raise ToolError("not_unique", f"{label}old_string matches {count} times in {rel}; add surrounding "
                                      "lines to make it unique, or set replace_all to true")
    if replace_all:
        return text.replace(old, new), count
    return text.replace(old, new, 1), 1


def load_for_edit(path: Path, rel: str, creating_allowed: bool) -> tuple[str, TextStyle, bool]:
    """(text, style, exists) of the file about to be edited."""
    if check_regular(path, rel, missing_ok=True) is None:
        if not creating_allowed:
            raise ToolError("not_found", f"{rel} does not exist (an empty old_string creates it)")
        return "", TextStyle(), False
    text, style = read_text_file(path, rel, MAX_EDIT_BYTES)
    return text, style, True


async def commit_edit(ctx: ToolContext, path: Path, rel: str, old_text: str, new_text: str,
                      style: TextStyle) -> dict[str, Any]:
    """Write the new text atomically and describe the change (the shared tail of Edit and MultiEdit)."""
    payload = encode_text(new_text, style)         # fails before anything is touched
    await announce_change(ctx, [path])
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, payload)
    record_mtime(ctx, path)
    diff, added, removed = unified_diff(old_text, new_text, rel)
    first, last = changed_line_span(old_text, new_text)
    return {"path": rel, "first_line": first, "last_line": last, "diff": diff,
            "lines_added": added, "lines_removed": removed, "bytes": len(payload)}


def edit_text(data: dict[str, Any], created: bool) -> str:
    action = "Created" if created else "Edited"
    head = (f"{action} {data['path']}: {plural(data['replacements'], 'replacement')}, lines "
            f"{data['first_line']}-{data['last_line']} (+{data['lines_added']} -{data['lines_removed']})")
    return head + ("\n" + data["diff"] if data["diff"] else "")


EDIT_ARGS = (Arg("old_string", STR), Arg("new_string", STR), Arg("replace_all", BOOL, required=False))


class EditTool:
    name = "Edit"
    description = ("in a file you have Read, replace old_string (exact text, without Read's line numbers; it must "
                   "occur once, or set replace_all).")
    args = ArgSpec((Arg("file_path", STR), *EDIT_ARGS))
    example = ""                # flat arguments: no example in L1 (it costs tokens on every call)
    needs_permission = True
    edits_files = True

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        path = ctx.resolve_editable(args["file_path"])
        rel = ctx.relative(path)
        old, new = args["old_string"], args["new_string"]
        text, style, exists = load_for_edit(path, rel, creating_allowed=old == "")
        new_text, count = apply_edit(text, old, new, bool(args.get("replace_all")), rel, style)
        data = await commit_edit(ctx, path, rel, text, new_text, style)
        data = {"path": data.pop("path"), "replacements": count, **data}
        if not exists:
            data["created"] = True
        stats = {"bytes": data.pop("bytes")}
        return ok(data, edit_text(data, not exists), stats=stats)
