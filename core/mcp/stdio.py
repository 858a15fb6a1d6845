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
from contextlib import asynccontextmanager, suppress
from typing import IO, Any, AsyncIterator

import anyio

MAX_LINE_BYTES = 64 * 1024 * 1024     # one message; the result cap (max_output_tokens) cuts far below this
STOP_GRACE = 2.0                      # seconds after stdin closes, then after SIGTERM, before SIGKILL
_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


class _TooLong:
    def __init__(self, head: bytes, size: int) -> None:
        self.head, self.size = head, size


async def _lines(stdout: Any) -> AsyncIterator[bytes | _TooLong]:
    pending: list[bytes] = []
    size = 0
    head = b""
    async for chunk in stdout:
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if size + len(piece) > MAX_LINE_BYTES:
                head = head or (b"".join(pending) + piece)[:400]
                pending = []
            elif not head:
                pending.append(piece)
            size += len(piece)
            if end < 0:
                break
            yield _TooLong(head, size) if head else b"".join(pending)
            pending, size, head, start = [], 0, b"", end + 1


def _parse(line: bytes | _TooLong, log: IO[str]) -> Any:
    """A SessionMessage, or None for a line to skip (said in the log)."""
    from mcp import types
    from mcp.shared.message import SessionMessage
    if isinstance(line, _TooLong):
        found = _ID.search(line.head)
        log.write(f"[contextual] discarded a {line.size:,}-byte line from the server (over {MAX_LINE_BYTES:,})\n")
        if found is None:
            return None
        error = types.ErrorData(code=-32603, message=f"the server's answer was {line.size:,} bytes, over the "
                                                     f"{MAX_LINE_BYTES:,} a message may hold; it was discarded")
        return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=json.loads(found.group(1)), error=error))
    if not line.strip():
        return None
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError:
        text = line[:200].decode("utf-8", "replace")
        log.write(f"[contextual] skipped a line that is not a JSON-RPC message: {text!r}\n")
        return None


async def _stop(process: Any) -> None:
    """Close stdin; then SIGTERM, then SIGKILL the server's process group, each after STOP_GRACE seconds."""
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with anyio.move_on_after(STOP_GRACE):
            while process.returncode is None:
                await anyio.sleep(0.02)
        if process.returncode is not None:
            break
        with suppress(OSError):
            os.killpg(process.pid, sig)
    with anyio.move_on_after(STOP_GRACE):
        while process.returncode is None:       # the loop must see the death before the pipes close
            await anyio.sleep(0.02)
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdout.aclose()


@asynccontextmanager
async def stdio_streams(command: str, args: list[str], env: dict[str, str], log: IO[str]) -> AsyncIterator[Any]:
    """(read, write) streams for the SDK's Client, as its stdio_client gives them; stderr goes to `log`."""
    from mcp.client.stdio import get_default_environment
    from mcp.shared.message import SessionMessage
    process = await anyio.open_process([command, *args], env=get_default_environment() | env, stderr=log,
                                       start_new_session=True)
    read_writer, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        assert process.stdout is not None
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with read_writer:
                async for line in _lines(process.stdout):
                    message = _parse(line, log)
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

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                read_stream.close()
                write_stream.close()
                await _stop(process)
            tg.cancel_scope.cancel()
