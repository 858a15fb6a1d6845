"""Read: a file's lines with cat -n numbers, refusing binaries and telling the model about external changes.

The file is streamed in bounded chunks: a line is kept only up to MAX_LINE_CHARS (a 2 GB "line" of a sparse
file is never built), and counting the lines after the slice stops after MAX_SCAN_BYTES."""

from __future__ import annotations

from typing import Any

import codecs
from pathlib import Path

from contextual.core.tools._args import INT, STR, Arg, ArgSpec
from contextual.core.tools._atomic import record_mtime
from contextual.core.tools._cancel import Stop, in_thread
from contextual.core.tools._codec import looks_binary
from contextual.core.tools._regular import check_regular, open_regular
from contextual.core.tools.base import ToolContext, ToolError, ok
from contextual.core.plural import plural

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
# Bigger files are read only in slices (offset/limit), streamed so the whole file never sits in memory.
MAX_WHOLE_FILE_BYTES = 10 * 1024 * 1024
BIG_FILE_SNIFF_BYTES = 1024 * 1024
CHUNK_BYTES = 1024 * 1024
MAX_SCAN_BYTES = 64 * 1024 * 1024      # past this (once the slice has begun) the scan stops: counts are lower bounds
# A line is cut at MAX_LINE_CHARS characters; keeping 4 bytes per character covers any utf-8 text.
_KEEP_LINE_BYTES = MAX_LINE_CHARS * 4 + 4


class ReadTool:
    name = "Read"
    example = ""                # the arguments speak for themselves: no example in L1
    description = "a text file with line numbers, 2000 lines at most; offset (first line) and limit read a part."
    args = ArgSpec((Arg("file_path", STR), Arg("offset", INT, required=False, minimum=1),
                    Arg("limit", INT, required=False, minimum=1)))
    needs_permission = False
    edits_files = False

    def __init__(self, max_whole_file_bytes: int = MAX_WHOLE_FILE_BYTES, max_scan_bytes: int = MAX_SCAN_BYTES) -> None:
        self.max_whole_file_bytes = max_whole_file_bytes
        self.max_scan_bytes = max_scan_bytes

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        offset = args.get("offset", 1)
        limit = args.get("limit", DEFAULT_LIMIT)
        path = ctx.resolve(args["file_path"], must_exist=True)
        rel = ctx.relative(path)
        info = check_regular(path, rel)
        assert info is not None           # missing_ok is off: a missing file raised
        size = info.st_size
        sliced = "offset" in args or "limit" in args
        if size > self.max_whole_file_bytes and not sliced:
            raise ToolError("file_too_large", f"{rel} is {size:,} bytes (over {self.max_whole_file_bytes:,}); "
                                              "read it in slices with offset and limit")
        # The encoding is judged on the whole file (as Edit does), or on its first MB when it is big.
        sniff = size + 1 if size <= self.max_whole_file_bytes else BIG_FILE_SNIFF_BYTES
        stop = Stop(None, ctx.cancel, "Read")
        lines, cut, total, exact = await in_thread(_read_range, path, rel, offset, limit, sniff,
                                                   self.max_scan_bytes, stop, stop=stop)
        if total and offset > total and exact:
            raise ToolError("out_of_range", f"offset {offset} is past the end of {rel} ({total} lines)")

        previous = ctx.mtimes.get(str(path))
        mtime = record_mtime(ctx, path)
        note = f"Note: {rel} was modified externally." if previous is not None and previous != mtime else None

        numbered = []
        for number, (line, length) in enumerate(zip(lines, cut), start=offset):
            if length is not None:
                line = line[:MAX_LINE_CHARS] + f"… [line cut: {length}, first {MAX_LINE_CHARS:,} shown]"
            numbered.append(f"{number:6}\t{line}")
        cut_count = sum(1 for length in cut if length is not None)
        content = "\n".join(numbered)
        end_line = offset + len(lines) - 1 if lines else 0
        truncated = end_line < total or not exact
        data = {"path": rel, "content": content, "start_line": offset if lines else 0, "end_line": end_line,
                "total_lines": total, "mtime": mtime, "truncated": truncated}
        if not exact:
            data["total_lines_is_lower_bound"] = True
        if cut_count:
            data["lines_cut"] = cut_count
        if note:
            data["note"] = note

        parts = [note] if note else []
        if total == 0 and exact:
            parts.append(f"({rel} is empty)")
        else:
            parts.append(content)
            if truncated:
                of = f"{total}" if exact else f"at least {total} (counting stopped at {self.max_scan_bytes:,} bytes)"
                parts.append(f"(showing lines {offset}-{end_line} of {of}; use offset={end_line + 1} to read more)")
            if cut_count:
                parts.append(f"({plural(cut_count, 'line')} longer than {MAX_LINE_CHARS} characters were cut)")
        return ok(data, "\n".join(parts), stats={"lines": len(lines), "bytes": size})


def _read_range(path: Path, rel: str, offset: int, limit: int, sniff_bytes: int, max_scan: int,
                stop: Stop) -> tuple[list[str], list[str | None], int, bool]:
    """Lines offset..offset+limit-1 (1-based), for each the full length when it was cut, the file's line
    count, and whether that count is exact (False when scanning stopped at `max_scan` bytes)."""
    with open_regular(path, rel) as handle:
        head = handle.read(sniff_bytes)
        if looks_binary(head):
            raise ToolError("binary_file", f"{rel} is a binary file; it cannot be shown as text")
        whole = len(head) < sniff_bytes or not handle.read(1)
        encoding = _encoding_for(head, whole)
        handle.seek(0)
        wanted: list[str] = []
        cut: list[str | None] = []
        last = offset + limit - 1
        total, scanned, line_bytes, current = 0, 0, 0, bytearray()
        while chunk := handle.read(CHUNK_BYTES):
            stop.check()
            scanned += len(chunk)
            start = 0
            while True:
                end = chunk.find(b"\n", start)
                piece = chunk[start:] if end == -1 else chunk[start:end]
                if offset <= total + 1 <= last and len(current) < _KEEP_LINE_BYTES:
                    current += piece[:_KEEP_LINE_BYTES - len(current)]
                line_bytes += len(piece)
                if end == -1:
                    break
                total += 1
                if offset <= total <= last:
                    _keep(wanted, cut, bytes(current), line_bytes, encoding)
                current, line_bytes, start = bytearray(), 0, end + 1
            if scanned >= max_scan and total + 1 >= offset:
                if line_bytes and total + 1 <= last:      # a line still going on: show its start
                    _keep(wanted, cut, bytes(current), line_bytes, encoding, more=True)
                return wanted, cut, total + (1 if line_bytes else 0), False
        if line_bytes:                      # a last line without a newline
            total += 1
            if offset <= total <= last:
                _keep(wanted, cut, bytes(current), line_bytes, encoding)
    return wanted, cut, total, True


def _keep(wanted: list[str], cut: list[str | None], raw: bytes, length: int, encoding: str,
          more: bool = False) -> None:
    text = raw.decode(encoding, errors="replace").removesuffix("\r")
    wanted.append(text)
    if more:                                # scanning stopped inside this line
        cut.append(f"over {length:,} bytes")
    elif length > len(raw):                 # only its start was kept
        cut.append(f"{length:,} bytes")
    elif len(text) > MAX_LINE_CHARS:
        cut.append(f"{len(text):,} chars")
    else:
        cut.append(None)


def _encoding_for(head: bytes, whole: bool) -> str:
    """utf-8 (BOM stripped) when the bytes decode as utf-8, else latin-1, as Edit would see the file.
    For a sniffed slice, a multi-byte character cut at its end does not count against utf-8."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=whole)
    except UnicodeDecodeError:
        return "latin-1"
    return "utf-8-sig" if head.startswith(codecs.BOM_UTF8) else "utf-8"
