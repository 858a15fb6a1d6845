"""MCP servers over HTTP written without any SDK, for answers a well-behaved SDK server does not send.

HostileHTTP("sse", post_body=N): the older HTTP+SSE transport, whose answer to a POSTed `tools/call` is a body of
N bytes before the call's result comes on the event stream; a client that stops reading that body closes the
connection under the server's write, and `cut` is set.
HostileHTTP("http", blocks=N, form=...): streamable HTTP, whose answer to `tools/call` is N one-letter text blocks,
as a JSON body (form "json") or as one event of an event stream, a `data:` line per block, lines ending in CR LF
(form "sse"). `malformed=True` lists, beside tool `t`, a tool whose inputSchema is a string. `error=CODE` answers
each `tools/call` with JSON-RPC error CODE ("busy: try again later") instead, in the form asked, at HTTP status
`status`, naming as its id the call's own (`error_id="own"`), null ("null") or another request's ("other");
`cut=True` answers it with an event stream that ends before any message (the SDK's own -32000).

    with HostileHTTP("http", blocks=150_000, form="sse") as srv:     # srv.url
        ...
"""

from __future__ import annotations

import json
import queue
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHUNK = 65536


class HostileHTTP:
    def __init__(self, transport: str, *, post_body: int = 0, blocks: int = 0, form: str = "json",
                 malformed: bool = False, error: int | None = None, cut: bool = False, status: int = 200,
                 error_id: str = "own") -> None:
        self.transport, self.post_body, self.blocks, self.form = transport, post_body, blocks, form
        self.malformed, self.error, self.cut_calls = malformed, error, cut
        self.status, self.error_id = status, error_id
        self.calls = 0
        self.cut = threading.Event()
        self._events: queue.Queue[str | None] = queue.Queue()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), type("Handler", (_Handler,), {"fake": self}))
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/{'sse' if transport == 'sse' else 'mcp'}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)

    def __enter__(self) -> "HostileHTTP":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._events.put(None)           # ends the event stream's handler
        self._httpd.shutdown()
        self._httpd.server_close()

    def result(self, message: dict[str, Any]) -> dict[str, Any]:
        method = message.get("method")
        if method == "initialize":
            return {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                    "serverInfo": {"name": "hostile-http", "version": "0"}}
        if method == "tools/list":
            bad = [{"name": "malformed", "inputSchema": "not a schema"}] if self.malformed else []
            return {"tools": [{"name": "t", "description": "Answers.", "inputSchema": {"type": "object"}}, *bad]}
        return {"content": [{"type": "text", "text": "b"}] * self.blocks or [{"type": "text", "text": "ok"}]}


class _Handler(BaseHTTPRequestHandler):
    fake: HostileHTTP
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes = b"", kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.fake.transport != "sse":
            return self._send(405)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(b"event: endpoint\ndata: /messages?session_id=1\n\n")
        self.wfile.flush()
        while (event := self.fake._events.get()) is not None:
            try:
                self.wfile.write(b"event: message\ndata: " + event.encode() + b"\n\n")
                self.wfile.flush()
            except OSError:              # the client went away
                return

    def do_DELETE(self) -> None:
        self._send(405)

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        answer = json.dumps({"jsonrpc": "2.0", "id": message.get("id"), "result": self.fake.result(message)})
        status = 200
        if message.get("method") == "tools/call":
            self.fake.calls += 1
            if self.fake.cut_calls:
                return self._send(200, b": nothing follows\r\n\r\n", "text/event-stream")
            if self.fake.error is not None:
                named = {"own": message.get("id"), "null": None, "other": 424242}[self.fake.error_id]
                answer = json.dumps({"jsonrpc": "2.0", "id": named,
                                     "error": {"code": self.fake.error, "message": "busy: try again later"}})
                status = self.fake.status
        if self.fake.transport == "sse":
            return self._post_sse(message, answer)
        if "id" not in message:
            return self._send(202)
        if self.fake.form == "sse":
            lines = answer.replace("}, {", "},\n{").split("\n")
            return self._send(status, "".join(f"data: {line}\r\n" for line in lines).encode() + b"\r\n",
                              "text/event-stream")
        self._send(status, answer.encode())

    def _post_sse(self, message: dict[str, Any], answer: str) -> None:
        size = self.fake.post_body if message.get("method") == "tools/call" else 0
        self.send_response(202)
        self.send_header("Content-Length", str(size))
        self.end_headers()
        try:
            for start in range(0, size, CHUNK):
                self.wfile.write(b"x" * min(CHUNK, size - start))
            self.wfile.flush()
        except OSError:                  # the client stopped reading and closed the connection
            self.fake.cut.set()
            return
        if "id" in message:
            self.fake._events.put(answer)
