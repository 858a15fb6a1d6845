"""An MCP server written without any SDK, for the hostile cases a well-behaved SDK server cannot produce: tools
whose input schema nests HOSTILE_DEPTH levels or is not an object, beside one good tool; HOSTILE_BLOCKS=N answers
every call with N one-letter text blocks; HOSTILE_FLOOD=1 floods log notifications from the handshake on;
HOSTILE_NAME=TEXT lists one more tool named and described TEXT; HOSTILE_PAGES=N lists N tools a page, each page with
a cursor to one more, without end; HOSTILE_QUOTES=N answers every call with a line of 100,001 braces then a string
of N escaped quotes that never ends; HOSTILE_WIDE=N lists one more tool of N described properties with long names;
HOSTILE_ITEMS=N answers every call with an array of N short strings beside its text; HOSTILE_ORPHAN=PATH
answers a call by starting a child that writes its pid to PATH and holds the server's output open, then exiting;
HOSTILE_STUCK=PATH outlives its input's end and ignores SIGTERM, writing to PATH when each came ("eof T", "term T",
T from time.time()), so only SIGKILL ends it; HOSTILE_CLASH=N lists N pairs of tools whose names differ only where
mcp__ ids write '_' ("c-0" and "c.0"); HOSTILE_LONG=N lists N tools of 200-character names; HOSTILE_ESSAY=N lists
one more tool described by N characters of two-letter words; HOSTILE_ERROR=CODE answers every call with a JSON-RPC
error of that code; HOSTILE_RESULT and HOSTILE_CHATTER: see below.

    python tests/fakes/hostile_mcp.py         # stdio, one JSON-RPC message a line
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from typing import Any


def deep(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"inner": schema}}
    return {"type": "object", "properties": {"arg": schema}}


def tools() -> list[dict[str, Any]]:
    return [{"name": "deep", "description": "nests too deep", "inputSchema": deep(int(os.environ.get("HOSTILE_DEPTH", "200")))},
            {"name": "malformed", "description": "schema is a string", "inputSchema": "not a schema"},
            {"name": "good", "description": "Echoes its text.",
             "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
            *([{"name": os.environ["HOSTILE_NAME"], "description": os.environ["HOSTILE_NAME"],
                "inputSchema": {"type": "object"}}] if os.environ.get("HOSTILE_NAME") else []),
            *([{"name": "wide", "description": "takes every argument there is", "inputSchema": wide(
                int(os.environ["HOSTILE_WIDE"]))}] if os.environ.get("HOSTILE_WIDE") else []),
            *[{"name": f"c{sep}{n}", "inputSchema": {"type": "object"}}
              for n in range(int(os.environ.get("HOSTILE_CLASH", "0"))) for sep in "-."],
            *[{"name": f"long{n}_" + "n" * 200, "inputSchema": {"type": "object"}}
              for n in range(int(os.environ.get("HOSTILE_LONG", "0")))],
            *([{"name": "essay", "description": "ab " * (int(os.environ["HOSTILE_ESSAY"]) // 3),
                "inputSchema": {"type": "object"}}] if os.environ.get("HOSTILE_ESSAY") else [])]


def wide(count: int) -> dict[str, Any]:
    """An object schema of `count` described string properties, each named by 200 characters more than it needs."""
    names = [f"argument_{n:06d}_" + "x" * 200 for n in range(count)]
    return {"type": "object", "properties": {name: {"type": "string", "description": "d" * 100} for name in names}}


def hostile_content(kind: str) -> list[dict[str, Any]]:
    """HOSTILE_RESULT: "resource:N" one embedded resource of N characters of text; "deep:N" one text block of JSON
    nested N levels; "binary": an image whose data is not base64 and a blob of 10 MB."""
    if kind.startswith("deep:"):
        depth = int(kind.split(":")[1])
        return [{"type": "text", "text": "[" * depth + '"end"' + "]" * depth}]
    if kind.startswith("resource:"):
        return [{"type": "resource", "resource": {"uri": "file:///big.txt", "mimeType": "text/plain",
                                                  "text": "r" * int(kind.split(":")[1])}}]
    return [{"type": "image", "mimeType": "image/png", "data": "!!! not base64 !!!"},
            {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "QUFB" * 2_500_000}}]


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    method, ident = message.get("method"), message.get("id")
    if ident is None or method is None:         # a notification, or the client's answer to our request
        return None
    if method == "initialize":
        result: dict[str, Any] = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                                  "serverInfo": {"name": "hostile", "version": "0"}}
    elif method == "tools/list" and os.environ.get("HOSTILE_PAGES"):
        page, size = int((message.get("params") or {}).get("cursor") or 0), int(os.environ["HOSTILE_PAGES"])
        result = {"tools": [{"name": f"p{page}_{n}", "inputSchema": {"type": "object"}} for n in range(size)],
                  "nextCursor": str(page + 1)}
    elif method == "tools/list":
        result = {"tools": tools()}
    elif method == "tools/call" and os.environ.get("HOSTILE_ERROR"):
        error = {"code": int(os.environ["HOSTILE_ERROR"]), "message": "busy: try again later"}
        return {"jsonrpc": "2.0", "id": ident, "error": error}
    elif method == "tools/call" and os.environ.get("HOSTILE_RESULT"):
        result = {"content": hostile_content(os.environ["HOSTILE_RESULT"])}
    elif method == "tools/call" and os.environ.get("HOSTILE_ITEMS"):     # one block, and an array of N short strings
        items = ["ab"] * int(os.environ["HOSTILE_ITEMS"])
        result = {"content": [{"type": "text", "text": "t"}], "_meta": {"items": items}}
    elif method == "tools/call" and os.environ.get("HOSTILE_BLOCKS"):    # many tiny blocks: small bytes, large parse
        result = {"content": [{"type": "text", "text": "b"}] * int(os.environ["HOSTILE_BLOCKS"])}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "echo " + str(message["params"].get("arguments"))}]}
    else:
        return {"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no such method"}}
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def send(message: dict[str, Any], lock: threading.Lock = threading.Lock()) -> None:
    with lock:
        print(json.dumps(message), flush=True)


def chatter(call: Any) -> None:
    """HOSTILE_CHATTER=1: before each answer, requests the client never advertised (sampling, roots, elicitation),
    an answer to an id it never sent, progress and a log line it did not ask for, then an answer to the call that
    is a string repeating HOSTILE_SAY across its 200th byte (the real answer follows it, too late)."""
    for n, method in enumerate(("sampling/createMessage", "roots/list", "elicitation/create")):
        send({"jsonrpc": "2.0", "id": f"srv-{n}", "method": method, "params": {}})
    said = os.environ.get("HOSTILE_SAY", "")        # a value the server was given, repeated where it should not be
    send({"jsonrpc": "2.0", "id": 424242, "result": {"content": [], "said": said}})
    send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "no", "progress": 1}})
    send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "error", "data": "\x1b]0;t\x07"}})
    send({"jsonrpc": "2.0", "id": call, "result": "not a result " + "." * 140 + said})


def flood() -> None:
    """Log notifications of 10 kB, as fast as the pipe takes them, for as long as the server lives."""
    note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "f" * 10_000}}
    while True:
        send(note)


def stamp(event: str) -> None:
    """HOSTILE_STUCK: when `event` came, in the file it names."""
    with open(os.environ["HOSTILE_STUCK"], "a") as log:
        log.write(f"{event} {time.time()}\n")


if __name__ == "__main__":
    sys.setrecursionlimit(10_000)
    if os.environ.get("HOSTILE_STUCK"):
        signal.signal(signal.SIGTERM, lambda signum, frame: stamp("term"))
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("method") == "tools/call" and os.environ.get("HOSTILE_QUOTES"):
            print(f'{{"jsonrpc": "2.0", "id": {json.dumps(message["id"])}, "result": ' + "{" * 100_001 + '"'
                  + '\\"' * int(os.environ["HOSTILE_QUOTES"]), flush=True)
            continue
        if message.get("method") == "tools/call" and os.environ.get("HOSTILE_ORPHAN"):
            if os.fork() == 0:                  # the child keeps stdout open, in the server's process group
                with open(os.environ["HOSTILE_ORPHAN"], "w") as pidfile:
                    pidfile.write(str(os.getpid()))
                time.sleep(120)
            os._exit(0)
        if message.get("method") == "tools/call" and os.environ.get("HOSTILE_CHATTER"):
            chatter(message["id"])
        reply = answer(message)
        if reply is not None:
            send(reply)
        if message.get("method") == "initialize" and os.environ.get("HOSTILE_FLOOD"):
            threading.Thread(target=flood, daemon=True).start()
    if os.environ.get("HOSTILE_STUCK"):
        stamp("eof")
        while True:
            time.sleep(1)
