"""Scripted fake LLM servers (OpenAI-compatible and Anthropic) speaking each API's real streaming wire format.

    with FakeLLMServer(kind="openai", script=["Thought: hi\\nAction: Finish[ok]", Fault("429", retry_after=0)]) as srv:
        provider = OpenAIProvider(srv.base_url)           # srv.base_url ends in /v1 for openai only
        ...
        srv.requests[0]["messages"]; srv.requests[0].headers["authorization"]; srv.token_counts[0]

The server runs in a background thread on 127.0.0.1 (so a child process can use it too), answers one script
item per request, in order, and streams replies over chunked SSE in small deltas with real usage fields.
Run it standalone with ``python -m tests.fakes.llm_server --kind openai --script script.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import socket
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Union

from contextual.core.tokens import PER_MESSAGE_OVERHEAD, count
from tests.fakes import anthropic_rules
from tests.fakes.server_flavors import Flavor, context_error_body, get_route, post_route, vllm_over_window

EXHAUSTED_REPLY = "Thought: done\nAction: Finish[script exhausted]"
DEFAULT_REPLY = "Thought: done\nAction: Finish[ok]"
DEFAULT_PARTIAL = "Thought: I will start by looking at the"


@dataclass(frozen=True)
class Reply:
    """One streamed answer. Usage numbers default to the server's own cl100k counts."""
    text: str
    usage_input: int | None = None        # all prompt tokens, cached ones included
    usage_output: int | None = None
    reasoning: str | None = None          # openai: delta.reasoning_content; anthropic: a thinking block
    delay_first_byte: float = 0.0
    chunk_delay: float = 0.0              # pause between deltas
    cached_tokens: int = 0                # openai prompt_tokens_details.cached_tokens; anthropic cache_read_input_tokens
    cache_creation_tokens: int = 0        # anthropic cache_creation_input_tokens
    chunk_size: int = 5                   # characters per delta
    raw_usage: Any = None                 # sent verbatim as the usage object (malformed usage tests)
    # openai: delta.tool_calls entries, each as it is in a chunk after the text; anthropic: tool_use blocks
    # ({"name", "input"}, an "id" optional), each streamed as its start and its input in input_json_delta pieces
    tool_calls: tuple[Any, ...] = ()
    finish_reason: str | None = None      # openai: the finish chunk's reason (default "stop"; "tool_calls" after calls)


FAULT_KINDS = frozenset({
    "400", "401", "403", "404", "429", "500", "502", "503", "504", "529",
    "400_context_length", "drop_mid_stream", "slow_first_byte", "malformed_chunk", "wrong_content_type",
    "endless", "error_event", "endless_text", "endless_line", "deep_chunk", "deep_error_body", "json_error_200",
    "quote_chunk", "endless_empty",
})
DEEP = 3000   # nesting of the deep JSON faults: far past Python's recursion limit
QUOTES = 100_000


@dataclass(frozen=True)
class Fault:
    """A failure in place of one answer.

    kind: an HTTP status ("400" "401" "403" "404" "429" "500" "502" "503" "504" "529": an error body in the
    API's format), "400_context_length", "drop_mid_stream" (streams ``text`` then closes the connection with
    no end marker), "slow_first_byte" (waits ``seconds`` then streams ``text``), "malformed_chunk" (a data
    line that is not JSON, then a clean end), "wrong_content_type" (200 text/html), "endless" (keep-alive
    comments / pings every ``interval`` for ``seconds``, default 30, then a close with no end marker),
    "error_event" (a mid-stream error: anthropic ``event: error`` overloaded_error, openai an error chunk;
    ``message`` sets its text, ``error_type`` its type), "endless_text" (text deltas every ``interval`` for ``seconds``, never an end),
    "endless_line" (one `data:` line that never ends: 64 KiB every ``interval`` for ``seconds``),
    "endless_empty" (events that carry nothing the agent reads — openai an empty delta, anthropic a tool's input
    piece — every ``interval`` for ``seconds``, never an end),
    "deep_chunk" (a stream chunk nested DEEP levels), "deep_error_body" (an HTTP 400 whose body is nested DEEP),
    "quote_chunk" (a chunk of 65 brackets then a string of QUOTES escaped quotes that never ends, under the line cap),
    "json_error_200" (HTTP 200 with the API's error object as a JSON body, no stream; ``message``, ``error_type``).
    """
    kind: str
    retry_after: float | str | None = None   # sent as the Retry-After header (429/5xx)
    seconds: float | None = None
    text: str | None = None
    message: str | None = None               # the error message in the body
    error_type: str | None = None            # error_event: the error's type (default: one a retry may cure)
    error_code: int | str | None = None      # error_event, openai: the error's "code" (vLLM sends the HTTP status)
    interval: float = 0.2

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}: use one of {', '.join(sorted(FAULT_KINDS))}")


Responder = Callable[[dict[str, Any]], Union[str, Reply, Fault]]
ScriptItem = Union[str, Reply, Fault, Responder]


class RecordedRequest(dict):
    """The parsed JSON body, plus ``headers`` (lower-case names), ``path`` and ``tokens``."""

    def __init__(self, body: dict[str, Any], headers: dict[str, str], path: str, tokens: int) -> None:
        super().__init__(body)
        self.headers = headers
        self.path = path
        self.tokens = tokens


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n\n".join(_text_of(part) for part in content)
    if isinstance(content, dict):
        return str(content.get("text") or content.get("content") or "")
    return ""


def request_tokens(body: dict[str, Any]) -> int:
    """cl100k tokens of every system block and message, each with the per-message overhead core.tokens uses."""
    total = 0
    system = body.get("system")
    blocks = system if isinstance(system, list) else ([system] if system else [])
    for block in blocks:
        total += count(_text_of(block)) + PER_MESSAGE_OVERHEAD
    for message in body.get("messages") or []:
        total += count(_text_of(message.get("content"))) + PER_MESSAGE_OVERHEAD
    return total


def _stop_sequences(body: dict[str, Any]) -> list[str]:
    stops = body.get("stop_sequences", body.get("stop")) or []
    return [stops] if isinstance(stops, str) else [s for s in stops if isinstance(s, str) and s]


def _apply_stop(text: str, stops: list[str]) -> tuple[str, str | None]:
    """What a real server sends when asked to stop at ``stops``: the text before the first one."""
    hits = [(text.find(s), s) for s in stops if s in text]
    if not hits:
        return text, None
    where, which = min(hits)
    return text[:where], which


class _ClientGone(Exception):
    pass


class FakeLLMServer:
    """A scripted OpenAI-compatible (kind="openai") or Anthropic (kind="anthropic") server.

    script: items answered in order, one per request: a str (streamed reply text), a Reply, a Fault, or a
      callable ``(request_json) -> str | Reply | Fault`` used for that one request.
    responder: optional callable used for every request once the script is used up (instead of the
      "script exhausted" answer).
    max_context_tokens: requests counted over this get the API's 400 context-length error (no script item is
      used) and are recorded in ``violations``.
    answer_in_window: max_context_tokens is the model's whole window, prompt and answer: a prompt that fits but
      leaves less than its max_tokens gets a 400 (recorded in ``violations`` too), on the anthropic kind the API's
      (Claude 3.7 and later) "input length and `max_tokens` exceed context limit: P + M > W", on the openai kind
      vLLM's "maximum context length is W tokens. However, you requested … (P in the messages, M in the
      completion)".
    On the anthropic kind a body the real API refuses (tests.fakes.anthropic_rules: roles, blank text, more than
    4 cache breakpoints, tool_use/tool_result pairing, …) gets its 400 invalid_request_error and is recorded in
    ``invalid`` (no script item is used).
    model: the model name the server reports.
    flavor: a local server's extra routes and wording (tests.fakes.server_flavors), openai kind only.
    strict_roles: openai kind: the model's chat template wants a system message first at most and user/assistant
      alternating after it (Mistral's, Devstral's, Gemma's), as llama.cpp applies it: anything else gets llama.cpp's
      HTTP 500 "Jinja Exception: …" (recorded in ``invalid``; no script item is used).
    token_scale: the server's tokenizer against cl100k (counts are scaled by it; a test may change it between
      requests, as a real server's ratio to our count moves from one prompt to the next).
    """

    def __init__(self, kind: str = "openai", script: list[ScriptItem] | None = None, *,
                 responder: Responder | None = None, max_context_tokens: int | None = None,
                 model: str = "fake-model", host: str = "127.0.0.1", port: int = 0,
                 flavor: Flavor | None = None, answer_in_window: bool = False, strict_roles: bool = False) -> None:
        if kind not in ("openai", "anthropic"):
            raise ValueError(f"unknown kind {kind!r}: use openai or anthropic")
        self.kind = kind
        self.flavor = flavor
        self.model = model
        self.responder = responder
        self.max_context_tokens = max_context_tokens
        self.answer_in_window = answer_in_window
        self.token_scale = 1.0
        self.strict_roles = strict_roles and kind == "openai"
        self.requests: list[RecordedRequest] = []
        self.token_counts: list[int] = []
        self.violations: list[dict[str, Any]] = []
        self.invalid: list[dict[str, Any]] = []
        self.exhausted = False
        self.active_streams = 0            # responses being written right now
        self._script: list[ScriptItem] = list(script or [])
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._host, self._port = host, port
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------------------
    def start(self) -> "FakeLLMServer":
        handler = type("Handler", (_Handler,), {"fake": self})
        self._httpd = _QuietServer((self._host, self._port), handler)
        # stop() returns when serve_forever next looks at its shutdown flag, once per poll_interval: at 50 ms each
        # of the suite's several hundred servers took up to 50 ms to end; at 5 ms the idle loop costs ~0.3 % of a core
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.005},
                                        name=f"fake-{self.kind}-llm", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "FakeLLMServer":
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        root = f"http://{self._host}:{self.port}"
        return root + "/v1" if self.kind == "openai" else root

    # -- script ----------------------------------------------------------------------------------------
    def add(self, *items: ScriptItem) -> None:
        """Append answers to the script (safe while serving)."""
        with self._lock:
            self._script.extend(items)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    def wait_for_requests(self, n: int, timeout: float = 10.0) -> bool:
        """Block until ``n`` requests were received (for tests driving a child process)."""
        deadline = time.monotonic() + timeout
        while len(self.requests) < n:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True

    def _next_answer(self, body: dict[str, Any]) -> Reply | Fault:
        with self._lock:
            item: ScriptItem | None = self._script.pop(0) if self._script else None
            if item is None and self.responder is None:
                self.exhausted = True
        if item is None:
            item = self.responder if self.responder is not None else EXHAUSTED_REPLY
        if callable(item) and not isinstance(item, (Reply, Fault)):
            item = item(body)
        if isinstance(item, str):
            return Reply(item)
        if isinstance(item, (Reply, Fault)):
            return item
        raise TypeError(f"script item must be str, Reply, Fault or a callable returning one, got {item!r}")


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass   # clients that hang up are part of the tests


class _Handler(BaseHTTPRequestHandler):
    fake: FakeLLMServer
    protocol_version = "HTTP/1.1"
    timeout = 30   # idle keep-alive connections end by themselves

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # -- request ---------------------------------------------------------------------------------------
    def do_GET(self) -> None:
        fake = self.fake
        answer = get_route(fake.flavor, self.path, fake.model, bool(fake.requests)) if fake.flavor is not None else None
        if answer is None:
            self._send_error(404, f"no route for GET {self.path}")
            return
        self._send_json(*answer)

    def do_POST(self) -> None:
        fake = self.fake
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        expected = "/v1/chat/completions" if fake.kind == "openai" else "/v1/messages"
        try:
            body = json.loads(raw or b"{}")
            assert isinstance(body, dict)
        except (ValueError, AssertionError):
            self._send_error(400, "request body is not a JSON object")
            return
        if self.path.split("?")[0] != expected:
            answer = post_route(fake.flavor, self.path, body, count) if fake.flavor is not None else None
            if answer is None:
                self._send_error(404, f"no route for {self.path}; this fake {fake.kind} server serves {expected}")
            else:
                self._send_json(*answer)
            return
        tokens = request_tokens(body)
        if fake.token_scale != 1.0:
            tokens = math.ceil(tokens * fake.token_scale)
        if fake.flavor is not None:
            tokens = fake.flavor.count(tokens)
        headers = {k.lower(): v for k, v in self.headers.items()}
        with fake._lock:
            fake.requests.append(RecordedRequest(body, headers, self.path, tokens))
            fake.token_counts.append(tokens)
            index = len(fake.requests) - 1
        refused = anthropic_rules.problems(body) if fake.kind == "anthropic" else []
        if fake.strict_roles and not _alternating(body.get("messages")):
            with fake._lock:
                fake.invalid.append({"request": index, "problems": [JINJA_ROLES]})
            self._send_error(500, f"Jinja Exception: {JINJA_ROLES}")
            return
        if refused:
            with fake._lock:
                fake.invalid.append({"request": index, "problems": refused})
            self._send_error(400, refused[0])
            return
        if fake.max_context_tokens is not None and tokens > fake.max_context_tokens:
            with fake._lock:
                fake.violations.append({"request": index, "tokens": tokens, "limit": fake.max_context_tokens})
            self._send_context_error(tokens, fake.max_context_tokens)
            return
        over_window = anthropic_rules.over_window if fake.kind == "anthropic" else vllm_over_window
        too_long = (over_window(tokens, body.get("max_tokens"), fake.max_context_tokens)
                    if fake.answer_in_window and fake.max_context_tokens is not None else None)
        if too_long is not None:
            with fake._lock:
                fake.violations.append({"request": index, "tokens": tokens, "limit": fake.max_context_tokens,
                                        "max_tokens": body.get("max_tokens")})
            self._send_error(400, too_long)
            return
        answer = fake._next_answer(body)
        with fake._lock:
            fake.active_streams += 1
        try:
            if isinstance(answer, Fault):
                self._fault(answer, body, tokens)
            else:
                self._reply(answer, body, tokens)
        except (_ClientGone, OSError):
            self.close_connection = True
        finally:
            with fake._lock:
                fake.active_streams -= 1

    # -- plain responses -------------------------------------------------------------------------------
    def _send_json(self, status: int, payload: dict[str, Any], extra: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_error(self, status: int, message: str, extra: dict[str, str] | None = None,
                    code: str | None = None) -> None:
        if self.fake.kind == "anthropic":
            kind = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                    404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
                    529: "overloaded_error"}.get(status, "api_error")
            payload: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
        else:
            kind = {400: "invalid_request_error", 401: "invalid_request_error", 403: "invalid_request_error",
                    404: "invalid_request_error", 429: "rate_limit_exceeded"}.get(status, "server_error")
            payload = {"error": {"message": message, "type": kind, "param": None, "code": code}}
        self._send_json(status, payload, extra)

    def _send_context_error(self, tokens: int, limit: int) -> None:
        own = context_error_body(self.fake.flavor, tokens, limit) if self.fake.flavor is not None else None
        if own is not None:
            self._send_json(400, own)
        elif self.fake.kind == "anthropic":
            self._send_error(400, f"prompt is too long: {tokens} tokens > {limit} maximum")
        else:
            self._send_error(400, f"This model's maximum context length is {limit} tokens. However, your "
                                  f"messages resulted in {tokens} tokens. Please reduce the length of the messages.",
                             code="context_length_exceeded")

    # -- streaming -------------------------------------------------------------------------------------
    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()

    def _write(self, payload: str) -> None:
        data = payload.encode()
        try:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
        except OSError as exc:
            raise _ClientGone() from exc

    def _event(self, name: str | None, data: Any) -> None:
        text = data if isinstance(data, str) else json.dumps(data)
        self._write((f"event: {name}\n" if name else "") + f"data: {text}\n\n")

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _hang_up(self) -> None:
        """Close the connection without finishing the chunked body: what a dropped stream looks like."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _pause(self, seconds: float) -> None:
        if seconds > 0 and self.fake._stopping.wait(seconds):
            raise _ClientGone()   # the server is shutting down

    def _reply(self, reply: Reply, body: dict[str, Any], tokens: int) -> None:
        text, stop_hit = _apply_stop(reply.text, _stop_sequences(body))
        self._pause(reply.delay_first_byte)
        usage_input = tokens if reply.usage_input is None else reply.usage_input
        usage_output = (count((reply.reasoning or "") + text) if reply.usage_output is None else reply.usage_output)
        if not body.get("stream"):
            self._whole_reply(reply, text, stop_hit, usage_input, usage_output)
            return
        wire = _OpenAIWire(self, body) if self.fake.kind == "openai" else _AnthropicWire(self, body)
        self._start_stream()
        wire.begin(usage_input, reply)
        if reply.reasoning:
            wire.reasoning_start()
            for piece in _pieces(reply.reasoning, reply.chunk_size):
                self._pause(reply.chunk_delay)
                wire.reasoning(piece)
            wire.reasoning_end()
        wire.text_start()
        for piece in _pieces(text, reply.chunk_size):
            self._pause(reply.chunk_delay)
            wire.text(piece)
        for call in reply.tool_calls:
            wire.tool_call(call)
        wire.finish(stop_hit, usage_input, usage_output, reply)
        self._end_stream()

    def _whole_reply(self, reply: Reply, text: str, stop_hit: str | None, usage_input: int, usage_output: int) -> None:
        model = self.fake.model
        if self.fake.kind == "openai":
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if reply.reasoning:
                message["reasoning_content"] = reply.reasoning
            self._send_json(200, {
                "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": _openai_usage(usage_input, usage_output, reply.cached_tokens)})
        else:
            content = ([{"type": "thinking", "thinking": reply.reasoning, "signature": "fake"}] if reply.reasoning
                       else []) + [{"type": "text", "text": text}]
            self._send_json(200, {
                "id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": content,
                "stop_reason": "stop_sequence" if stop_hit else "end_turn", "stop_sequence": stop_hit,
                "usage": {**_anthropic_input_usage(usage_input, reply), "output_tokens": usage_output}})

    # -- faults ----------------------------------------------------------------------------------------
    def _fault(self, fault: Fault, body: dict[str, Any], tokens: int) -> None:
        kind = fault.kind
        if kind.isdigit():
            status = int(kind)
            extra = {"retry-after": str(fault.retry_after)} if fault.retry_after is not None else None
            self._send_error(status, fault.message or _DEFAULT_MESSAGES.get(status, "fake server error"), extra)
        elif kind == "deep_error_body":
            data = ("[" * DEEP + "]" * DEEP).encode()
            self.send_response(400)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        elif kind == "json_error_200":
            self._send_json(200, {"error": {"message": fault.message or "model not found",
                                            "type": fault.error_type or "api_error"}})
        elif kind == "400_context_length":
            self._send_context_error(tokens, self.fake.max_context_tokens or max(1, tokens - 1))
        elif kind == "slow_first_byte":
            self._reply(Reply(fault.text or DEFAULT_REPLY, delay_first_byte=fault.seconds or 1.0), body, tokens)
        elif kind == "wrong_content_type":
            page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
        else:
            self._broken_stream(fault, body, tokens)

    def _broken_stream(self, fault: Fault, body: dict[str, Any], tokens: int) -> None:
        wire = _OpenAIWire(self, body) if self.fake.kind == "openai" else _AnthropicWire(self, body)
        self._start_stream()
        wire.begin(tokens, Reply(""))
        if fault.kind == "drop_mid_stream":
            wire.text_start()
            for piece in _pieces(fault.text or DEFAULT_PARTIAL, 5):
                wire.text(piece)
            self._hang_up()
        elif fault.kind == "malformed_chunk":
            self._write('data: {"choices": [{"delta": {"content": "Thou\n\n' if self.fake.kind == "openai" else
                        'event: content_block_delta\ndata: {"type": "content_block_delta", "delta": {"te\n\n')
            self._end_stream()
        elif fault.kind == "error_event":
            wire.error(fault.message or "Overloaded", fault.error_type, fault.error_code)
            self._end_stream()
        elif fault.kind == "deep_chunk":
            self._write("data: " + "{\"a\": [" * DEEP + "]}" * DEEP + "\n\n")
            self._end_stream()
        elif fault.kind == "quote_chunk":
            self._write('data: {"a": ' + "[" * 65 + '"' + '\\"' * QUOTES + "\n\n")
            self._end_stream()
        elif fault.kind == "endless_text":
            wire.text_start()
            deadline = time.monotonic() + (fault.seconds or 30.0)
            while time.monotonic() < deadline:
                wire.text(fault.text or "and on ")
                self._pause(fault.interval)
            self._hang_up()
        elif fault.kind == "endless_empty":
            wire.text_start()
            piece = {"type": "input_json_delta", "partial_json": ""}
            empty = ({"choices": [{"index": 0, "delta": {}}]} if self.fake.kind == "openai" else
                     {"type": "content_block_delta", "index": 0, "delta": piece})
            deadline = time.monotonic() + (fault.seconds or 30.0)
            while time.monotonic() < deadline:
                self._event(None if self.fake.kind == "openai" else "content_block_delta", empty)
                self._pause(fault.interval)
            self._hang_up()
        elif fault.kind == "endless_line":
            self._write('data: {"choices": [{"delta": {"content": "')
            deadline = time.monotonic() + (fault.seconds or 30.0)
            while time.monotonic() < deadline:
                self._write("x" * 65_536)         # the client hanging up ends this (_ClientGone)
                self._pause(fault.interval)
            self._hang_up()
        elif fault.kind == "endless":
            deadline = time.monotonic() + (fault.seconds or 30.0)
            while time.monotonic() < deadline:
                wire.keep_alive()
                self._pause(fault.interval)
            self._hang_up()


_DEFAULT_MESSAGES = {
    400: "invalid request", 401: "invalid x-api-key / Incorrect API key provided", 403: "permission denied",
    404: "model not found", 429: "rate limit exceeded, slow down", 500: "internal server error",
    502: "bad gateway", 503: "service unavailable", 504: "gateway timeout", 529: "Overloaded",
}


def _pieces(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i:i + size] for i in range(0, len(text), size)]


def _openai_usage(prompt: int, completion: int, cached: int) -> dict[str, Any]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached}}


# llama.cpp's answer when Mistral's or Devstral's template raises (its server log: "Jinja Exception: …", HTTP 500)
JINJA_ROLES = ("After the optional system message, conversation roles must alternate user and assistant roles except "
               "for tool calls and results")


def _alternating(messages: Any) -> bool:
    roles = [m.get("role") for m in messages] if isinstance(messages, list) else []
    rest = roles[1:] if roles[:1] == ["system"] else roles
    return all(role == ("user" if i % 2 == 0 else "assistant") for i, role in enumerate(rest))


def _anthropic_input_usage(total_input: int, reply: Reply) -> dict[str, int]:
    return {"input_tokens": max(0, total_input - reply.cached_tokens - reply.cache_creation_tokens),
            "cache_creation_input_tokens": reply.cache_creation_tokens,
            "cache_read_input_tokens": reply.cached_tokens}


class _OpenAIWire:
    """chat.completion.chunk events, finish chunk, usage chunk (when asked), then [DONE]."""

    def __init__(self, handler: _Handler, body: dict[str, Any]) -> None:
        self.h = handler
        self.include_usage = bool((body.get("stream_options") or {}).get("include_usage"))

    def _chunk(self, delta: dict[str, Any], finish: str | None = None, **extra: Any) -> None:
        self.h._event(None, {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()),
                             "model": self.h.fake.model,
                             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra})

    def begin(self, usage_input: int, reply: Reply) -> None:
        self._chunk({"role": "assistant", "content": ""})

    def reasoning_start(self) -> None:
        pass

    def reasoning(self, piece: str) -> None:
        self._chunk({"reasoning_content": piece})

    def reasoning_end(self) -> None:
        pass

    def text_start(self) -> None:
        pass

    def text(self, piece: str) -> None:
        self._chunk({"content": piece})

    def tool_call(self, call: Any) -> None:
        self._chunk({"tool_calls": [call]})

    def finish(self, stop_hit: str | None, usage_input: int, usage_output: int, reply: Reply) -> None:
        self._chunk({}, reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop"))
        if self.include_usage:
            self.h._event(None, {"id": "chatcmpl-fake", "object": "chat.completion.chunk",
                                 "created": int(time.time()), "model": self.h.fake.model, "choices": [],
                                 "usage": _openai_usage(usage_input, usage_output, reply.cached_tokens)
                                 if reply.raw_usage is None else reply.raw_usage})
        self.h._event(None, "[DONE]")

    def error(self, message: str, kind: str | None = None, code: int | str | None = None) -> None:
        self.h._event(None, {"error": {"message": message, "type": kind or "server_error", "code": code}})

    def keep_alive(self) -> None:
        self.h._write(": keep-alive\n\n")


class _AnthropicWire:
    """message_start, content blocks (thinking, text), message_delta with output usage, message_stop."""

    def __init__(self, handler: _Handler, body: dict[str, Any]) -> None:
        self.h = handler
        self.index = -1

    def begin(self, usage_input: int, reply: Reply) -> None:
        self.h._event("message_start", {"type": "message_start", "message": {
            "id": "msg_fake", "type": "message", "role": "assistant", "content": [], "model": self.h.fake.model,
            "stop_reason": None, "stop_sequence": None,
            "usage": {**_anthropic_input_usage(usage_input, reply), "output_tokens": 1}
            if reply.raw_usage is None else reply.raw_usage}})

    def _block_start(self, block: dict[str, Any]) -> None:
        self.index += 1
        self.h._event("content_block_start", {"type": "content_block_start", "index": self.index,
                                              "content_block": block})

    def _delta(self, delta: dict[str, Any]) -> None:
        self.h._event("content_block_delta", {"type": "content_block_delta", "index": self.index, "delta": delta})

    def _block_stop(self) -> None:
        self.h._event("content_block_stop", {"type": "content_block_stop", "index": self.index})

    def reasoning_start(self) -> None:
        self._block_start({"type": "thinking", "thinking": ""})

    def reasoning(self, piece: str) -> None:
        self._delta({"type": "thinking_delta", "thinking": piece})

    def reasoning_end(self) -> None:
        self._delta({"type": "signature_delta", "signature": "ZmFrZQ=="})
        self._block_stop()

    def text_start(self) -> None:
        self._block_start({"type": "text", "text": ""})
        self.keep_alive()   # the real API sends a ping early in the stream

    def text(self, piece: str) -> None:
        self._delta({"type": "text_delta", "text": piece})

    def tool_call(self, call: Any) -> None:
        self._block_stop()
        self._block_start({"type": "tool_use", "id": call.get("id", f"toolu_fake{self.index + 1}"),
                           "name": call["name"], "input": {}})
        for piece in _pieces(json.dumps(call.get("input", {})), 7):
            self._delta({"type": "input_json_delta", "partial_json": piece})

    def finish(self, stop_hit: str | None, usage_input: int, usage_output: int, reply: Reply) -> None:
        self._block_stop()
        reason = "tool_use" if reply.tool_calls else "stop_sequence" if stop_hit else "end_turn"
        self.h._event("message_delta", {"type": "message_delta",
                                        "delta": {"stop_reason": reason,
                                                  "stop_sequence": stop_hit},
                                        "usage": {"output_tokens": usage_output}
                                        if reply.raw_usage is None else reply.raw_usage})
        self.h._event("message_stop", {"type": "message_stop"})

    def error(self, message: str, kind: str | None = None, code: int | str | None = None) -> None:
        self.h._event("error", {"type": "error", "error": {"type": kind or "overloaded_error", "message": message}})

    def keep_alive(self) -> None:
        self.h._event("ping", {"type": "ping"})


def _item_from_json(item: Any) -> ScriptItem:
    if isinstance(item, str):
        return item
    if isinstance(item, dict) and "fault" in item:
        return Fault(item.pop("fault"), **item)
    if isinstance(item, dict) and "text" in item:
        return Reply(**item)
    raise ValueError(f"script item must be a string, {{\"text\": ...}} or {{\"fault\": ...}}: {item!r}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve a scripted fake LLM until interrupted.")
    parser.add_argument("--kind", choices=("openai", "anthropic"), default="openai")
    parser.add_argument("--script", help="JSON list of replies: strings, {\"text\": ...} or {\"fault\": ...}")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--max-context-tokens", type=int)
    parser.add_argument("--answer-in-window", action="store_true",
                        help="anthropic: prompt + max_tokens must fit --max-context-tokens, as the real API has it")
    args = parser.parse_args(argv)
    script: list[ScriptItem] = []
    if args.script:
        with open(args.script, encoding="utf-8") as handle:
            script = [_item_from_json(item) for item in json.load(handle)]
    with FakeLLMServer(args.kind, script, port=args.port, max_context_tokens=args.max_context_tokens,
                       answer_in_window=args.answer_in_window) as srv:
        print(srv.base_url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
