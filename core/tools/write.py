"""Write: a whole file, atomically, creating folders; an existing file keeps its newline style and encoding."""

from __future__ import annotations

from typing import Any

from contextual.core.tools._args import STR, Arg, ArgSpec
from contextual.core.tools._atomic import announce_change, atomic_write, record_mtime
from contextual.core.tools._codec import TextStyle, decode_text, encode_text, fits
from contextual.core.tools._diff import unified_diff
from contextual.core.tools._regular import check_regular, read_bounded
from contextual.core.tools.base import ToolContext, ok

HEAD_LINES = 50
# An existing file bigger than this is replaced without a diff (it is not read).
MAX_DIFF_BYTES = 10 * 1024 * 1024


class WriteTool:
    name = "Write"
    example = ""                # the arguments speak for themselves: no example in L1
    description = "create a file or replace all of it; prefer Edit for changes."
    args = ArgSpec((Arg("file_path", STR), Arg("content", STR)))
    needs_permission = True
    edits_files = True

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        path = ctx.resolve_editable(args["file_path"])
        rel = ctx.relative(path)
        content = args["content"]
        existing = check_regular(path, rel, missing_ok=True)      # a FIFO or device is refused here
        created = existing is None
        old_text, style = None, TextStyle()
        if existing is not None and existing.st_size <= MAX_DIFF_BYTES:
            decoded = decode_text(read_bounded(path, rel, MAX_DIFF_BYTES))
            if decoded is not None:
                old_text, style = decoded
                # New text in the file's own encoding when it fits, else plain utf-8.
                if style.encoding != "utf-8" and not fits(content, style.encoding):
                    style = TextStyle(crlf=style.crlf)
        payload = encode_text(content, style)
        await announce_change(ctx, [path])
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, payload)
        record_mtime(ctx, path)

        lines = content.splitlines()
        diff = None
        if old_text is not None:
            diff, _added, _removed = unified_diff(old_text, content.replace("\r\n", "\n") if style.crlf else content,
                                                  rel)
        data: dict[str, Any] = {"path": rel, "created": created, "lines": len(lines), "bytes": len(payload),
                "diff": diff, "head": "\n".join(lines[:HEAD_LINES])}
        verb = "Created" if created else "Overwrote"
        text = f"{verb} {rel} ({len(lines)} lines, {len(payload)} bytes)"
        if diff:
            text += "\n" + diff
        elif created:
            text += "\n" + data["head"] + ("\n…" if len(lines) > HEAD_LINES else "")
        return ok(data, text, stats={"bytes": len(payload)})
