"""Write: a whole file, atomically, creating folders; an existing file keeps its newline style and encoding."""

from __future__ import annotations

import time

from core.tools._fs import (TextStyle, announce_change, atomic_write, check_args, decode_text, encode_text,
                            record_mtime, unified_diff)
from core.tools.base import ToolContext, ToolError, fail, ok

HEAD_LINES = 50


class WriteTool:
    name = "Write"
    needs_permission = True
    edits_files = True

    async def run(self, args: dict, ctx: ToolContext) -> dict:
        context = dict(args) if isinstance(args, dict) else {}
        started = time.monotonic()
        try:
            check_args(args, {"file_path": str, "content": str}, {})
            path = ctx.resolve(args["file_path"])
            rel = ctx.relative(path)
            if path == ctx.root or path.is_dir():
                raise ToolError("is_directory", f"{rel} is a directory, not a file")
            content = args["content"]
            created = not path.exists()
            old_text, style = None, TextStyle()
            if not created:
                decoded = decode_text(path.read_bytes())
                if decoded is not None:
                    old_text, style = decoded
                    # New text in the file's own encoding when it fits, else plain utf-8.
                    if style.encoding != "utf-8" and not _fits(content, style.encoding):
                        style = TextStyle(crlf=style.crlf)
            payload = encode_text(content, style)
            await announce_change(ctx, [path])
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, payload)
            record_mtime(ctx, path)
        except ToolError as exc:
            return fail(exc.code, str(exc), context=context)
        except OSError as exc:
            return fail("io_error", f"cannot write {args.get('file_path')}: {exc.strerror or exc}", context=context)

        lines = content.splitlines()
        diff = None
        if old_text is not None:
            diff, _added, _removed = unified_diff(old_text, content.replace("\r\n", "\n") if style.crlf else content,
                                                  rel)
        data = {"path": rel, "created": created, "lines": len(lines), "bytes": len(payload),
                "diff": diff, "head": "\n".join(lines[:HEAD_LINES])}
        verb = "Created" if created else "Overwrote"
        text = f"{verb} {rel} ({len(lines)} lines, {len(payload)} bytes)"
        if diff:
            text += "\n" + diff
        elif created:
            text += "\n" + data["head"] + ("\n…" if len(lines) > HEAD_LINES else "")
        stats = {"bytes": len(payload), "duration_ms": round((time.monotonic() - started) * 1000, 1)}
        return ok(data, text, stats=stats, context=context)


def _fits(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
        return True
    except UnicodeEncodeError:
        return False
