"""A byte limit on every HTTP response an MCP server sends (streamable HTTP and SSE), like the stdio transport's
line limit (core/mcp/stdio.py): the SDK reads a response whole before it parses it, so without a limit one answer
could hold all of memory. Past the limit the response stream fails, and the call that waited on it fails with it.
So it does when one of its messages holds more JSON objects than a stdio line may (core/mcp/http_messages.py),
before the SDK parses it; on the long-lived event stream too, each of whose events the SDK bounds in bytes itself.

The SDK brings its own HTTP stack (httpx2); this module wraps that stack's transport and is the only one of ours
that touches it (the providers' httpx is separate).
"""

from __future__ import annotations

from typing import Any, AsyncIterator

import httpx2

from contextual.core.mcp.http_messages import Answering, Messages, ServerClosedCodes
from contextual.core.mcp.stdio import MAX_LINE_BYTES

MAX_RESPONSE_BYTES = MAX_LINE_BYTES     # one answer, as on stdio; the result cap (max_output_tokens) cuts far below


class ResponseTooLarge(httpx2.StreamError):
    """A server's response went past the limit. A StreamError: the SDK then answers the waiting request with an
    error naming it (a JSON body), or ends that request's event stream; the connection itself lives on."""


class EventRefused(httpx2.SSEError):
    """An event of an event stream went past the limit: an SSEError, which the SDK names when it fails the request
    that waited on the stream (any other error there it reports as a stream that ended without an answer)."""


class _Counted(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, limit: int | None, events: bool,
                 closed: ServerClosedCodes | None, answering: Answering) -> None:
        self.inner, self.limit, self.events, self.closed, self.answering = inner, limit, events, closed, answering

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        messages = Messages(self.events, self.closed, self.answering)
        async for chunk in self.inner:
            seen += len(chunk)
            if self.limit is not None and seen > self.limit:
                await self._refuse(f"passed {self.limit:,} bytes, the most a message may hold")
            await self._count(messages.feed(chunk))         # before the chunk that ends the message
            yield chunk
        await self._count(messages.close())                 # a JSON body is parsed once it has ended

    async def _count(self, why: str | None) -> None:
        if why is not None:
            await self._refuse(why)

    async def _refuse(self, why: str) -> None:
        await self.inner.aclose()
        raise (EventRefused if self.events else ResponseTooLarge)(f"the server's answer {why}; it was discarded")

    async def aclose(self) -> None:
        await self.inner.aclose()


class BoundedTransport(httpx2.AsyncBaseTransport):
    def __init__(self, limit: int, closed: ServerClosedCodes | None = None) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.limit = limit
        self.closed = closed

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        events = response.headers.get("content-type", "").split(";")[0].strip().lower() == "text/event-stream"
        stream: Any = response.stream
        # the long-lived notification stream (GET) is not bounded as a whole: the SDK bounds each of its events
        get = request.method == "GET"
        response.stream = _Counted(stream, None if get else self.limit, events, self._noting(request, response, events),
                                   Answering() if get else Answering(_body(request), events or response.is_error))
        return response

    def _noting(self, request: httpx2.Request, response: httpx2.Response, events: bool) -> ServerClosedCodes | None:
        """`closed` where the SDK reads this response's messages: the GET stream; over streamable HTTP a POST's
        answer, but for 202 Accepted and a redirect (it reads neither); over the older SSE transport no POST's."""
        if request.method == "GET" or self.closed is None:
            return self.closed
        status = response.status_code
        return self.closed if self.closed.streamable and status != 202 and not 300 <= status < 400 else None

    async def aclose(self) -> None:
        await self.inner.aclose()


def _body(request: httpx2.Request) -> bytes | None:
    try:
        return request.content          # the SDK POSTs each message as one JSON body, read already
    except httpx2.RequestNotRead:
        return None


def bounded_client(headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None,
                   auth: httpx2.Auth | None = None, closed: ServerClosedCodes | None = None) -> httpx2.AsyncClient:
    """The SDK's client settings (its timeouts; redirects left to the SDK) over a bounded transport. Its signature
    is the SDK's client factory's: the SSE transport builds its client through it, so the body of the answer to each
    message it POSTs (the result itself comes on the event stream) is bounded too — unbounded, a server that answered
    a POST with an endless body grew memory until the call's timeout, and past it. `closed` notes the requests the
    server itself answered with error -32000."""
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT
    return httpx2.AsyncClient(headers=headers or None, transport=BoundedTransport(MAX_RESPONSE_BYTES, closed),
                              auth=auth,
                              timeout=timeout or httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT))
