"""One MCP server: started in a background task that holds the SDK client open, listed once, called
from any task, and closed by setting an event so the SDK unwinds its transport in the task that opened it.
"""

from __future__ import annotations

import asyncio
import functools
import tempfile
import time
from pathlib import Path
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable

from contextual.core.mcp import describe
from contextual.core.mcp.config import ServerSpec
from contextual.core.mcp.server_log import ServerLog, open_log, without_inputs
from contextual.core import secrets, textsafe

if TYPE_CHECKING:       # the HTTP transport's modules load with an HTTP server only
    from contextual.core.mcp.http_messages import ServerClosedCodes

STARTING, READY, FAILED, STOPPED = "starting", "ready", "failed", "stopped"
LIST_PAGES = 50                       # a paginator that never ends cannot hang the start
# Each page is bounded (core/mcp/stdio.py: MAX_OBJECTS), their sum too: 50 pages of 45,000 tiny tools took 3.3 GB
# and two minutes to list and count; one page holds at most about this many.
MAX_TOOLS = 50_000


class CallFailed(Exception):
    """A call that did not produce a result; `code` is the C1 error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class ListedTool:
    name: str
    description: str | None
    input_schema: dict[str, Any]


def one_line(exc: BaseException) -> str:
    """The innermost useful message of an exception (task groups wrap the real cause)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    # redacted before the cut: a token in a URL the message quotes kept its start when cut first
    return textsafe.one_line(secrets.redact(without_inputs(str(exc))), 200) or type(exc).__name__


class ServerConnection:
    def __init__(self, spec: ServerSpec, on_change: Callable[["ServerConnection"], None],
                 log_path: Path | None = None) -> None:
        self.spec = spec
        self.log_path = log_path              # the server's stderr and what we skipped of its output
        self.status = STARTING
        self.error = ""
        self.tools: list[ListedTool] = []
        self._on_change = on_change
        self._client: Any = None
        self._stop = asyncio.Event()
        self._ready = asyncio.Event()          # set once the server is ready or has failed
        self._task: asyncio.Task[Any] | None = None
        self._scope: Any = None
        self._timed_out = False
        self.rejected: list[str] = []         # listed tools not offered, each with its name and why
        self.too_many = False                 # it listed more than MAX_TOOLS: the first are offered
        self._stderr = self._open_log()

    def _open_log(self) -> Any:
        if self.log_path is not None:
            try:
                return open_log(self.log_path)
            except OSError:
                self.log_path = None
        return tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")

    # ---- lifecycle -----------------------------------------------------------------------------
    @property
    def started(self) -> bool:
        return self._task is not None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._hold(), name=f"mcp:{self.spec.name}")

    async def wait_ready(self) -> None:
        await self._ready.wait()

    def _transport(self) -> Any:
        """An async context manager yielding the SDK's (read, write) streams."""
        if self.spec.transport in ("http", "sse"):
            from contextual.core.mcp.http_messages import ServerClosedCodes
            closed = ServerClosedCodes(streamable=self.spec.transport == "http")
            if self.spec.transport == "http":
                return _watched(_http_streams(self.spec.url, self.spec.headers, closed), each=self._checker(closed))
            from mcp.client.sse import sse_client

            from contextual.core.mcp import http_bound
            factory = functools.partial(http_bound.bounded_client, closed=closed)
            return _watched(sse_client(self.spec.url, headers=self.spec.headers or None, httpx_client_factory=factory),
                            each=self._checker(closed))
        from contextual.core.mcp.stdio import stdio_streams
        return _watched(stdio_streams(self.spec.command, list(self.spec.args), dict(self.spec.env), self._stderr,
                                      self.rejected), self._stream_ended)

    def _checker(self, closed: ServerClosedCodes) -> Callable[[Any], None]:
        """Over HTTP the SDK parses the messages itself: a tools/list answer loses its malformed tools here, as a
        stdio server's do in our transport (one inputSchema that was a string failed the whole server), an error
        -32000 the server itself sent (`closed`) is its error, not the SDK's word for a cut stream, and an error
        naming id null answers the call whose POST it answered."""
        from mcp import types

        from contextual.core.mcp.stdio import without_bad_tools
        log = ServerLog(self._stderr)

        def check(item: Any) -> None:
            message = getattr(item, "message", None)
            if isinstance(message, types.JSONRPCResponse):
                without_bad_tools(message.result, self.rejected, log)
            elif isinstance(message, types.JSONRPCError):
                if message.id is None:          # the answer to a POST names no id: it is still that POST's call's
                    message.id = closed.null_answered()
                if message.error.code == types.CONNECTION_CLOSED and closed.taken(message.id):
                    message.error.code = types.INTERNAL_ERROR
        return check

    def _stream_ended(self) -> None:
        """The server's stdout ended while we were not closing it: the process is gone, even between calls."""
        if not self._stop.is_set() and self.status == READY:
            self._fail(self._reason(RuntimeError("the server exited")))
            self._stop.set()

    async def _hold(self) -> None:
        import anyio
        from mcp import Client
        timer = asyncio.get_running_loop().call_later(self.spec.startup_timeout, self._startup_expired)
        try:
            with anyio.CancelScope() as self._scope:
                async with Client(self._transport(), read_timeout_seconds=self.spec.startup_timeout) as client:
                    self.tools = await self._list(client)
                    timer.cancel()
                    self._client = client
                    self._set(READY)
                    await self._stop.wait()
            if self._timed_out and self.status == STARTING:
                self._fail(f"did not start within {self.spec.startup_timeout:g} s")
        except Exception as exc:           # any start failure is one line; the session goes on
            self._fail(self._reason(exc))
        finally:
            timer.cancel()
            self._client = None
            if self.status in (STARTING, READY):
                self._set(STOPPED)
            self._ready.set()

    def _startup_expired(self) -> None:
        if self.status == STARTING and self._scope is not None:
            self._timed_out = True
            self._scope.cancel()

    async def _list(self, client: Any) -> list[ListedTool]:
        tools: list[ListedTool] = []
        cursor = None
        for _ in range(LIST_PAGES):
            page = await client.list_tools(cursor=cursor)
            for t in page.tools:
                if len(t.name) > describe.NAME_CHARS:       # an id no model would write back, cost in L1 for nothing
                    self.rejected.append(f"a tool named {textsafe.one_line(t.name, 40)!r} ({len(t.name):,} "
                                         f"characters, over {describe.NAME_CHARS})")
                    continue
                tools.append(ListedTool(t.name, t.description and t.description[:describe.DESCRIPTION_KEPT],
                                        dict(t.input_schema or {})))
            cursor = page.next_cursor
            if len(tools) > MAX_TOOLS:
                self.too_many = True
                return tools[:MAX_TOOLS]
            if not cursor:
                break
        return tools

    def _reason(self, exc: BaseException) -> str:
        reason = one_line(exc)
        tail = self.stderr_tail()
        reason = f"{reason} (stderr: {tail})" if tail and tail not in reason else reason
        return f"{reason}; log: {self.log_path}" if self.log_path is not None else reason

    def stderr_tail(self) -> str:
        """The server's last stderr line: usually the reason it failed."""
        try:
            self._stderr.flush()
            self._stderr.seek(max(0, self._stderr.seek(0, 2) - 4000))
            lines = [ln.strip() for ln in self._stderr.read().splitlines()
                     if ln.strip() and not ln.startswith("[contextual]")]
        except (OSError, ValueError):
            return ""
        return lines[-1][:200] if lines else ""

    def _set(self, status: str) -> None:
        self.status = status
        if status != STARTING:
            self._ready.set()
        self._on_change(self)

    def _fail(self, reason: str) -> None:
        if self.status in (FAILED, STOPPED):
            return
        self.error = reason
        self.tools = []
        self._set(FAILED)

    async def close(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._scope is not None and self.status == STARTING:
            self._scope.cancel()
        if self._task is not None:
            done, _ = await asyncio.wait({self._task}, timeout=timeout)
            if not done:
                self._task.cancel()
        self._stderr.close()

    # ---- calls ---------------------------------------------------------------------------------
    async def call(self, tool: str, args: dict[str, Any], timeout: float | None = None) -> Any:
        """The SDK's CallToolResult; CallFailed for timeouts and lost servers (which are marked failed)."""
        from mcp.shared.exceptions import MCPError
        from mcp.types import CONNECTION_CLOSED
        client = self._client
        if client is None or self.status != READY:
            raise CallFailed("server_unavailable", f"MCP server {self.spec.name} is not running"
                             + (f": {self.error}" if self.error else ""))
        limit = timeout or self.spec.tool_timeout
        started = time.monotonic()
        try:
            return await client.call_tool(tool, args, read_timeout_seconds=limit)
        except MCPError as exc:
            # by the clock, not the code: a server's own error with the SDK's timeout code (-32001, in the range
            # JSON-RPC leaves to servers) read as "did not answer within 120 s" at once
            if time.monotonic() - started >= limit:
                raise CallFailed("timeout", f"MCP server {self.spec.name} did not answer {tool} within "
                                            f"{limit:g} s") from None
            if exc.code == CONNECTION_CLOSED:
                said = one_line(exc)        # the SDK's transport may say why (an event stream refused: http_bound)
                self._fail(self._reason(RuntimeError("the server stopped (connection closed)" if said == "Connection "
                                                     "closed" else f"the connection closed ({said})")))
                self._stop.set()
                raise CallFailed("server_unavailable", f"MCP server {self.spec.name} stopped during {tool}: "
                                                       f"{self.error}; its tools are removed") from None
            raise CallFailed("mcp_error", f"{tool} on MCP server {self.spec.name}: {one_line(exc)}") from None


@asynccontextmanager
async def _watched(transport: Any, on_end: Callable[[], None] | None = None,
                   each: Callable[[Any], None] | None = None) -> AsyncIterator[Any]:
    """The transport's streams, with the end of the server's output reported as it happens (not at the next call)
    and `each` message seen before the SDK reads it."""
    import anyio
    async with transport as (read, write):
        send, receive = anyio.create_memory_object_stream[Any](0)

        async def pump() -> None:
            async with send:
                async for item in read:
                    if each is not None:
                        each(item)
                    await send.send(item)
            if on_end is not None:
                on_end()

        async with anyio.create_task_group() as tg:
            tg.start_soon(pump)
            try:
                yield receive, write
            finally:
                tg.cancel_scope.cancel()


@asynccontextmanager
async def _http_streams(url: str, headers: dict[str, str], closed: ServerClosedCodes) -> AsyncIterator[Any]:
    """Streamable HTTP with the configured headers (auth tokens) on every request, the SDK's timeouts and
    redirect policy, and a bound on each answer (core/mcp/http_bound.py), which notes the server's own -32000s."""
    from mcp.client.streamable_http import streamable_http_client

    from contextual.core.mcp import http_bound
    # Every answer bounded alike: a JSON body by our transport, an event of a streamed answer by the SDK (whose own
    # default, 1 MiB, would refuse a result stdio takes).
    async with http_bound.bounded_client(headers or None, closed=closed) as http:
        async with streamable_http_client(url, http_client=http,
                                          max_sse_event_size=http_bound.MAX_RESPONSE_BYTES) as streams:
            yield streams
