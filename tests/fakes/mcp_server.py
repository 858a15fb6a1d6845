"""A small MCP server written with the official SDK, for tests: two tools, over stdio or streamable HTTP.

    python tests/fakes/mcp_server.py                 # stdio
    with HttpMCPServer() as srv: srv.url, srv.headers_seen   # streamable HTTP on 127.0.0.1, in-process

`list_items` returns a large JSON list; `broken` always fails. FAKE_MCP_MODE changes `list_items` for the
failure tests: "die" exits the process mid-call, "hang" never answers, "big:N" answers N characters, "env:NAME"
answers the length of $NAME as the server sees it. FAKE_MCP_PIDFILE gets the server's pid. The hostile start-ups:
FAKE_MCP_START="crash" exits before the handshake, "garbage" prints non-JSON lines on stdout and a traceback-like
text on stderr first, "say:NAME" prints NAME=value on stderr, "hang" never answers the handshake; FAKE_MCP_EXTRA_TOOLS=N adds N more tools (a server with 10,000 tools); FAKE_MCP_DEEP=N adds
a tool whose input schema nests N levels.
"""

from __future__ import annotations

import os

if __name__ == "__main__" and os.environ.get("FAKE_MCP_PIDFILE"):
    # lets a test kill the server between calls; first, before the SDK's imports (a second or more on a loaded
    # machine): a server given up on while it imports has its pid known too
    with open(os.environ["FAKE_MCP_PIDFILE"], "w") as _pidfile:
        _pidfile.write(str(os.getpid()))

import json
import socket
import sys
import threading
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

ITEM_COUNT = 200


def item(i: int) -> dict[str, Any]:
    return {"id": 1000 + i, "title": f"Issue number {i}", "url": f"https://tracker.example/issues/{1000 + i}",
            "state": "open" if i % 3 else "closed", "labels": ["bug", f"area-{i % 5}"],
            "body": f"Steps to reproduce issue {i}. " + "The widget flickers when resized. " * 8}


def build_server() -> MCPServer:
    server = MCPServer("fake-tracker")

    @server.tool()
    async def list_items(state: str = "all", limit: int = ITEM_COUNT) -> str:
        """List the tracker's issues as JSON (id, title, url, state, labels, body)."""
        mode = os.environ.get("FAKE_MCP_MODE", "")
        if mode == "die":
            os._exit(3)
        if mode.startswith("big:"):
            return "x" * int(mode[4:])
        if mode.startswith("env:"):
            return json.dumps({"length": len(os.environ.get(mode[4:], ""))})
        if mode == "hang":
            import anyio
            await anyio.sleep_forever()
        items = [item(i) for i in range(ITEM_COUNT) if state in ("all", item(i)["state"])][:limit]
        return json.dumps(items)

    @server.tool()
    def broken(reason: str) -> str:
        """Always fails, with the reason given."""
        raise ToolError(f"the tracker is read-only today ({reason})")

    extra = int(os.environ.get("FAKE_MCP_EXTRA_TOOLS", "0"))
    if extra:
        # One tool built by the SDK, copied under N names: building each from a function takes the SDK ~1.6 ms,
        # 16 s for ten thousand (the copies list and call the same as built ones).
        server.add_tool(_numbered, name="tool_00000", description=_described(0))
        registry = server._tool_manager._tools
        for i in range(1, extra):
            registry[f"tool_{i:05d}"] = registry["tool_00000"].model_copy(
                update={"name": f"tool_{i:05d}", "description": _described(i)})
    return server


def _described(i: int) -> str:
    return f"Tool number {i} of a server that offers far too many tools."


def _numbered(value: str = "") -> str:
    return f"a numbered tool: {value}"


def _deep_schema(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"inner": schema}}
    return {"type": "object", "properties": {"arg": schema}}


def _hostile_start() -> None:
    start = os.environ.get("FAKE_MCP_START", "")
    if start == "crash":
        print("fake server: cannot open the tracker database", file=sys.stderr)
        sys.exit(2)
    if start == "garbage":
        print("Traceback (most recent call last):\n  fake server noise on stderr", file=sys.stderr)
        sys.stdout.write("this is not JSON\n{\"half\": \n\x00\x01 binary noise\n")
        sys.stdout.flush()
    if start.startswith("say:"):    # says a variable's value on stderr, as a chatty server logs its config
        name = start.removeprefix("say:")
        print(f"{name}={os.environ.get(name, '')}", file=sys.stderr, flush=True)
    if start == "hang":             # never answers the handshake (its pidfile says it is up)
        threading.Event().wait()


class HttpMCPServer:
    """The same server over streamable HTTP (or the older SSE transport) on 127.0.0.1, from a thread of the test process.
    The socket listens before the thread starts, so a client may connect at once."""

    def __init__(self, transport: str = "http") -> None:
        import uvicorn
        self.headers_seen: list[dict[str, str]] = []
        server = build_server()
        app = server.sse_app(host="127.0.0.1") if transport == "sse" else server.streamable_http_app(host="127.0.0.1")
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}/{'sse' if transport == 'sse' else 'mcp'}"
        self._server = uvicorn.Server(uvicorn.Config(self._record(app), log_level="error", lifespan="on"))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True)

    def _record(self, app: Any) -> Any:
        async def asgi(scope: dict, receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                self.headers_seen.append({k.decode(): v.decode() for k, v in scope["headers"]})
            await app(scope, receive, send)
        return asgi

    def __enter__(self) -> "HttpMCPServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()


if __name__ == "__main__":
    _hostile_start()
    built = build_server()
    if os.environ.get("FAKE_MCP_DEEP"):
        deep = _deep_schema(int(os.environ["FAKE_MCP_DEEP"]))
        built.add_tool(lambda arg=None: "deep", name="deep_tool", description="A tool whose schema nests too deep.")
        built._tool_manager._tools["deep_tool"].parameters = deep
    sys.exit(built.run())
