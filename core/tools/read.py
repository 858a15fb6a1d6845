"""Read: a file's lines with cat -n numbers, refusing binaries and telling the model about external changes."""

from __future__ import annotations

import asyncio
import codecs
import time
from pathlib import Path

from core.tools._fs import check_args, looks_binary, positive_int, record_mtime
from core.tools.base import ToolContext, ToolError, fail, ok

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
# Bigger files are read only in slices (offset/limit), streamed so the whole file never sits in memory.
MAX_WHOLE_FILE_BYTES = 10 * 1024 * 1024
BIG_FILE_SNIFF_BYTES = 1024 * 1024


class ReadTool:
    name = "Read"
    needs_permission = False
    edits_files = False

    def __init__(self, max_whole_file_bytes: int = MAX_WHOLE_FILE_BYTES) -> None:
        self.max_whole_file_bytes = max_whole_file_bytes

    async def run(self, args: dict, ctx: ToolContext) -> dict:
        context = dict(args) if isinstance(args, dict) else {}
        started = time.monotonic()
        try:
            check_args(args, {"file_path": str}, {"offset": int, "limit": int})
            offset = positive_int(args, "offset", 1)
            limit = positive_int(args, "limit", DEFAULT_LIMIT)
            path = ctx.resolve(args["file_path"], must_exist=True)
            rel = ctx.relative(path)
            if path.is_dir():
                raise ToolError("is_directory", f"{rel} is a directory; use LS to list it")
            size = path.stat().st_size
            sliced = args.get("offset") is not None or args.get("limit") is not None
            if size > self.max_whole_file_bytes and not sliced:
                raise ToolError("file_too_large",
                                f"{rel} is {size:,} bytes (over {self.max_whole_file_bytes:,}); "
                                "read it in slices with offset and limit")
            # The encoding is judged on the whole file (as Edit does), or on its first MB when it is big.
            sniff = size + 1 if size <= self.max_whole_file_bytes else BIG_FILE_SNIFF_BYTES
            lines, total = await asyncio.to_thread(_read_range, path, rel, offset, limit, sniff)
        except ToolError as exc:
            return fail(exc.code, str(exc), context=context)
        except OSError as exc:
            return fail("io_error", f"cannot read {args.get('file_path')}: {exc.strerror or exc}", context=context)

        if total and offset > total:
            return fail("out_of_range", f"offset {offset} is past the end of {rel} ({total} lines)", context=context)

        previous = ctx.mtimes.get(str(path))
        mtime = record_mtime(ctx, path)
        note = f"Note: {rel} was modified externally." if previous is not None and previous != mtime else None

        numbered, cut = [], 0
        for number, line in enumerate(lines, start=offset):
            if len(line) > MAX_LINE_CHARS:
                line = line[:MAX_LINE_CHARS] + f"… [line cut: {len(line):,} chars, first {MAX_LINE_CHARS:,} shown]"
                cut += 1
            numbered.append(f"{number:6}\t{line}")
        content = "\n".join(numbered)
        end_line = offset + len(lines) - 1 if lines else 0
        truncated = end_line < total
        data = {"path": rel, "content": content, "start_line": offset if lines else 0, "end_line": end_line,
                "total_lines": total, "mtime": mtime, "truncated": truncated}
        if cut:
            data["lines_cut"] = cut
        if note:
            data["note"] = note

        parts = [note] if note else []
        if total == 0:
            parts.append(f"({rel} is empty)")
        else:
            parts.append(content)
            if truncated:
                parts.append(f"(showing lines {offset}-{end_line} of {total}; "
                             f"use offset={end_line + 1} to read more)")
            if cut:
                parts.append(f"({cut} line(s) longer than {MAX_LINE_CHARS} characters were cut)")
        stats = {"lines": len(lines), "bytes": size, "duration_ms": round((time.monotonic() - started) * 1000, 1)}
        return ok(data, "\n".join(parts), stats=stats, context=context)


def _read_range(path: Path, rel: str, offset: int, limit: int, sniff_bytes: int) -> tuple[list[str], int]:
    """Lines offset..offset+limit-1 (1-based) and the file's total line count, streaming the file."""
    with path.open("rb") as handle:
        head = handle.read(sniff_bytes)
        if looks_binary(head):
            raise ToolError("binary_file", f"{rel} is a binary file; it cannot be shown as text")
        whole = len(head) < sniff_bytes or not handle.read(1)
        encoding = _encoding_for(head, whole)
        handle.seek(0)
        wanted: list[str] = []
        total = 0
        last = offset + limit - 1
        for raw in handle:
            total += 1
            if offset <= total <= last:
                line = raw.decode(encoding, errors="replace")
                wanted.append(line.rstrip("\n").removesuffix("\r"))
    return wanted, total


def _encoding_for(head: bytes, whole: bool) -> str:
    """utf-8 (BOM stripped) when the bytes decode as utf-8, else latin-1, as Edit would see the file.
    For a sniffed slice, a multi-byte character cut at its end does not count against utf-8."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=whole)
    except UnicodeDecodeError:
        return "latin-1"
    return "utf-8-sig" if head.startswith(codecs.BOM_UTF8) else "utf-8"
