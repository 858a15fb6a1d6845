"""A stdio transport for MCP servers, bounded where the SDK's is not.

The SDK's reader joins its buffer to every chunk, so one 50 MB line costs minutes of copying; it also logs a
traceback to the terminal for each line that is not JSON-RPC. Here lines are gathered in linear time, a line
past MAX_LINE_BYTES is discarded (its request answered with an error naming the size), and a line that is not a
message is written to the server's log file and skipped. The server runs in its own process group, so stopping
it stops whatever it started.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from contextlib import aclosing, asynccontextmanager, suppress
from itertools import islice
from typing import IO, Any, AsyncGenerator, AsyncIterator

import anyio

from contextual.core.bounded_json import outside_strings
from contextual.core.plural import plural
from contextual.core.mcp.server_log import ServerLog, head, pump

MAX_LINE_BYTES = 64 * 1024 * 1024     # one message; the result cap (max_output_tokens) cuts far below this
# Parsed and validated, a JSON object costs the SDK about a hundred times its bytes: 2,000,000 one-word content
# blocks in a 62 MB line took 5.3 GB. A message is refused past this many objects, counted
# outside its strings; ten thousand tools with small schemas are about 40,000.
MAX_OBJECTS = 100_000
# Nor do objects alone: 9,000,000 two-letter strings in an array, a 54 MB line of 4 objects, took 14 s to parse, the
# event loop held and Ctrl-C unheard. A message is refused past this many values, counted as the commas
# outside its strings (each array item and object member but the first); a 60 MB string alone parses in about 2 s.
MAX_VALUES = 1_000_000
MAX_SCHEMA_DEPTH = 32                 # a tool's input schema nesting deeper is rejected (that tool only)
# The whole of a stop before SIGKILL: half after stdin closes, half after SIGTERM. Each wait was this long, so every
# exit after a stuck server took twice it; the servers are stopped together, so ending takes one.
STOP_GRACE = 2.0
STOP_NOW_GRACE = 1.0                  # the process is ending (stop_now): SIGTERM, then SIGKILL this much later
_RUNNING: set[int] = set()            # the process groups of the servers started and not yet stopped
_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


def objects_in(message: bytes) -> int:
    """The JSON objects a message holds, counted outside its strings; 0 when it cannot hold more than MAX_OBJECTS."""
    return sum(1 for _ in outside_strings(message, "{")) if message.count(b"{") > MAX_OBJECTS else 0


def refusal(message: bytes) -> str | None:
    """Why a message is refused before it is parsed (it would cost too much to parse), or None."""
    objects = objects_in(message)
    if objects > MAX_OBJECTS:
        return f"holds {objects:,} JSON objects, over the {MAX_OBJECTS:,} a message may hold"
    if message.count(b",") > MAX_VALUES and sum(1 for _ in islice(outside_strings(message, ","), MAX_VALUES)) \
            >= MAX_VALUES:
        return f"holds more than {MAX_VALUES:,} JSON values, the most a message may hold"
    return None


class _TooLong:
    def __init__(self, head: bytes, size: int) -> None:
        self.head, self.size = head, size


async def _lines(stdout: Any) -> AsyncGenerator[bytes | _TooLong, None]:
    pending: list[bytes] = []
    size = 0
    first = b""             # the line's first bytes (its id, for the error), kept without joining the whole line
    too_long = False
    async for chunk in stdout:
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if len(first) < 400:
                first += piece[:400 - len(first)]
            if size + len(piece) > MAX_LINE_BYTES:
                too_long, pending = True, []
            elif not too_long:
                pending.append(piece)
            size += len(piece)
            if end < 0:
                break
            yield _TooLong(first, size) if too_long else b"".join(pending)
            pending, size, first, too_long, start = [], 0, b"", False, end + 1


def _depth(value: Any, limit: int) -> int:
    """How deep `value` nests, counting no further than `limit` + 1 (no recursion: any depth is safe)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if level > limit:
            return level
        deepest = max(deepest, level)
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def _tool_problem(tool: Any) -> str | None:
    """Why one listed tool cannot be offered, or None."""
    from mcp import types
    name = tool.get("name") if isinstance(tool, dict) else None
    if not isinstance(name, str):
        return "a listed tool has no name"
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict):
        return f"tool {name!r}: its inputSchema is not an object"
    if _depth(schema, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH:
        return f"tool {name!r}: its inputSchema nests deeper than {MAX_SCHEMA_DEPTH} levels"
    try:
        types.Tool.model_validate(tool)
    except ValueError as exc:
        return f"tool {name!r}: {' '.join(str(exc).split())[:160]}"
    return None


def without_bad_tools(result: Any, rejected: list[str], log: ServerLog) -> bool:
    """Drop from a tools/list answer's result each tool that cannot be offered, saying why in `rejected` and the
    log; whether any was."""
    listed = result.get("tools") if isinstance(result, dict) else None
    if not isinstance(result, dict) or not isinstance(listed, list):
        return False
    kept: list[Any] = []
    problems: list[str] = []
    for tool in listed:
        problem = _tool_problem(tool)
        if problem is None:
            kept.append(tool)
        else:
            problems.append(problem)
    result["tools"] = kept
    rejected += problems
    log.write("".join(f"[contextual] rejected {problem}\n" for problem in problems))
    return bool(problems)


def _parse(line: bytes | _TooLong, log: ServerLog, rejected: list[str]) -> Any:
    """A SessionMessage, or None for a line to skip (said in the log). A tools/list answer loses only the tools
    that are malformed; any other answer that does not validate becomes an error for its request, not a wait."""
    from mcp import types
    from mcp.shared.message import SessionMessage
    if isinstance(line, _TooLong):
        found = _ID.search(line.head)
        log.write(f"[contextual] discarded a {line.size:,}-byte line from the server (over {MAX_LINE_BYTES:,})\n")
        if found is None:
            return None
        return _error(json.loads(found.group(1)), f"the server's answer was {line.size:,} bytes, over the "
                                                  f"{MAX_LINE_BYTES:,} a message may hold; it was discarded")
    if not line.strip():
        return None
    why = refusal(line)
    if why is not None:
        found = _ID.search(line[:4096])
        log.write(f"[contextual] discarded a line from the server: it {why}\n")
        if found is None:
            return None
        return _error(json.loads(found.group(1)), f"the server's answer {why}; it was discarded")
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError as exc:
        cause = _cause(exc)
    else:
        # Valid JSON-RPC, a tools/list answer may still hold a tool the SDK refuses: one inputSchema that was a
        # string failed the whole listing, and the server with it. Each tool is checked; only the bad ones leave.
        without_bad_tools(getattr(message, "result", None), rejected, log)
        if isinstance(message, types.JSONRPCError) and message.error.code == types.CONNECTION_CLOSED:
            # The SDK's own code for a connection that closed; JSON-RPC leaves -32000 to a server's own errors, and
            # one answered with it read as a server gone: its tools left L1 while it ran on.
            message.error.code = types.INTERNAL_ERROR
        return SessionMessage(message)
    try:
        doc = json.loads(line)
    except (ValueError, RecursionError):
        doc = None
    if isinstance(doc, dict) and without_bad_tools(doc.get("result"), rejected, log):
        try:
            return SessionMessage(types.jsonrpc_message_adapter.validate_python(doc, by_name=False))
        except ValueError as exc:
            cause = _cause(exc)
    log.write(f"[contextual] skipped a line that is not a valid JSON-RPC message ({cause}): {head(line, 200)!r}\n")
    if isinstance(doc, dict) and isinstance(doc.get("id"), (int, str)) and "method" not in doc:
        return _error(doc["id"], f"the server's answer is not valid MCP: {cause}")
    return None


def _cause(exc: ValueError) -> str:
    """Why a line is not a message, without quoting the line: pydantic's text repeats the input cut mid-value, so
    a key the server echoed left a piece of itself that redaction no longer knew, in the log and the error."""
    errors = getattr(exc, "errors", None)
    found = errors(include_url=False, include_input=False) if callable(errors) else None
    if found:
        said = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}".lstrip(": ") for e in found)
        text = f"{plural(len(found), 'validation error')}: {said}"
    else:
        text = " ".join(str(exc).split())
    return head(text, 200)


def _error(ident: int | str, message: str) -> Any:
    from mcp import types
    from mcp.shared.message import SessionMessage
    error = types.ErrorData(code=-32603, message=message)
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=ident, error=error))


def _ended(process: Any) -> bool:
    """The server and everything it started in its process group are gone."""
    return process.returncode is not None and not _group_alive(process.pid)


async def _stop(process: Any) -> None:
    """Close stdin; then SIGTERM, then SIGKILL the server's process group, each after half of STOP_GRACE. The group
    is ended even when the server itself already has: a child it left behind ran on after we did."""
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with anyio.move_on_after(STOP_GRACE / 2):
            while not _ended(process):
                await anyio.sleep(0.02)
        if _ended(process):
            break
        with suppress(OSError):
            os.killpg(process.pid, sig)
    with anyio.move_on_after(STOP_GRACE):
        while process.returncode is None:       # the loop must see the death before the pipes close
            await anyio.sleep(0.02)
    # Every pipe, stderr's too, closed here: a transport left open is closed by the garbage collector after the
    # event loop, which printed "Event loop is closed" at exit (a server flooding notifications)
    with anyio.move_on_after(STOP_GRACE), suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.aclose()


def stop_now(grace: float = STOP_NOW_GRACE) -> None:
    """SIGTERM every running server's process group, SIGKILL those left after `grace`: from any thread, beside a
    loop that is stuck (the process is ending, tui/hangup.py), where _stop cannot run."""
    groups = list(_RUNNING)
    for pgid in groups:
        with suppress(OSError):
            os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while (left := [g for g in groups if _group_alive(g)]) and time.monotonic() < deadline:
        time.sleep(0.02)        # no loop to wait on here
    for pgid in left:
        with suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except OSError:             # there but not ours to signal: nothing more to do
        return False
    return True


@asynccontextmanager
async def stdio_streams(command: str, args: list[str], env: dict[str, str], log: IO[str],
                        rejected: list[str] | None = None) -> AsyncIterator[Any]:
    """(read, write) streams for the SDK's Client, as its stdio_client gives them; stderr goes to `log`, and each
    listed tool dropped as malformed is said in `rejected` (its name and why)."""
    rejected = [] if rejected is None else rejected
    from mcp.client.stdio import get_default_environment
    with anyio.CancelScope(shield=True):
        # A cancel delivered while the process spawns would lose it, running: a loaded machine's server had
        # written its pid before the spawn returned here (clean-clone CI)
        process = await anyio.open_process([command, *args], env=get_default_environment() | env,
                                           stderr=subprocess.PIPE, start_new_session=True)
        _RUNNING.add(process.pid)           # its own session: its process group has its pid
    try:
        async with _served(process, log, rejected) as streams:
            yield streams
    finally:
        if process.returncode is None:      # cancelled before the streams' own stop ran
            with anyio.CancelScope(shield=True):
                await _stop(process)
        _RUNNING.discard(process.pid)


@asynccontextmanager
async def _served(process: Any, log: IO[str], rejected: list[str]) -> AsyncIterator[Any]:
    """The running process's streams; on the way out the process is stopped before its pipes close."""
    from mcp.shared.message import SessionMessage
    server_log = ServerLog(log)          # its stderr and our notes, redacted (core/mcp/server_log.py)
    read_writer, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        assert process.stdout is not None
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with read_writer:
                async with aclosing(_lines(process.stdout)) as lines:
                    async for line in lines:
                        message = _parse(line, server_log, rejected)
                        if message is not None:
                            await read_writer.send(message)

    async def writer() -> None:
        assert process.stdin is not None
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with write_reader:
                async for message in write_reader:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((data + "\n").encode())
        await read_writer.aclose()          # a server that stopped reading ends the session, no request hangs

    async def watcher() -> None:
        # The server exited: what it started may still hold its stdout open, and a call would wait its whole
        # timeout on a server that is gone. Ending the group ends the output, which ends the session.
        await process.wait()
        await _stop(process)

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        tg.start_soon(watcher)
        tg.start_soon(pump, process.stderr, server_log)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                read_stream.close()
                write_stream.close()
                await _stop(process)
            tg.cancel_scope.cancel()
