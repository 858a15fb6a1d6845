"""A byte limit on every HTTP response an MCP server sends (streamable HTTP and SSE), like the stdio transport's
line limit (core/mcp/stdio.py): the SDK reads a response whole before it parses it, so without a limit one answer
could hold all of memory. Past the limit the response stream fails, and the call that waited on it fails with it.

The SDK brings its own HTTP stack (httpx2); this module wraps that stack's transport and is the only one of ours
that touches it (the providers' httpx is separate).
"""

from __future__ import annotations

from typing import Any, AsyncIterator

import httpx2

from contextual.core.mcp.stdio import MAX_LINE_BYTES

MAX_RESPONSE_BYTES = MAX_LINE_BYTES     # one answer, as on stdio; the result cap (max_output_tokens) cuts far below


class ResponseTooLarge(httpx2.StreamError):
    """A server's response went past the limit. A StreamError: the SDK then answers the waiting request with an
    error naming it (a JSON body), or ends that request's event stream; the connection itself lives on."""


class _Counted(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, limit: int) -> None:
        self.inner, self.limit = inner, limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self.inner:
            seen += len(chunk)
            if seen > self.limit:
                await self.inner.aclose()
                raise ResponseTooLarge(f"the server's answer passed {self.limit:,} bytes, the most a message may "
                                       "hold; it was discarded")
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


class BoundedTransport(httpx2.AsyncBaseTransport):
    def __init__(self, limit: int) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.limit = limit

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        if request.method == "GET":     # the long-lived notification stream: the SDK bounds each of its events
            return response
        stream: Any = response.stream
        response.stream = _Counted(stream, self.limit)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def bounded_client(headers: dict[str, str] | None) -> httpx2.AsyncClient:
    """The SDK's client settings (its timeouts; redirects left to the SDK) over a bounded transport."""
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT
    return httpx2.AsyncClient(headers=headers or None, transport=BoundedTransport(MAX_RESPONSE_BYTES),
                              timeout=httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT))
