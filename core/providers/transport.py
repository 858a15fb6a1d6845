"""HTTP and SSE plumbing shared by the providers: one client, status-to-error mapping, stall detection."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import re
import ssl
from contextlib import asynccontextmanager
from typing import Any, AsyncGenerator, AsyncIterator, Callable, cast

import httpx
from httpx_sse import EventSource, ServerSentEvent

from contextual.core import bounded_json, secrets
from contextual.core.providers.base import ContextLengthExceeded, ProviderError, RoleOrderRefused
from contextual.core.providers.context_errors import is_context_error, prompt_tokens_in, window_in
from contextual.core.providers.locality import on_this_network
from contextual.core.providers.role_order import refuses_role_order
from contextual.core.providers.retry import RetryPolicy, TransientError, parse_retry_after
from contextual.core.textsafe import one_line

# 408/409 are what OpenAI's own clients retry; 529 is Anthropic's "overloaded".
RETRYABLE_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
ERROR_BODY_LIMIT = 64 * 1024


def check_base_url(name: str, base_url: str) -> str:
    if not base_url.startswith(("http://", "https://")):
        raise ProviderError(f"{name}: base URL must start with http:// or https://, got {base_url!r}")
    return base_url.rstrip("/")


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One verifying TLS context for every client of the process: building one reads the CA bundle (~50 ms) and
    a run makes several clients (the provider's, the window probe's, the tokenizer probe's)."""
    return httpx.create_ssl_context()


def make_client(policy: RetryPolicy) -> httpx.AsyncClient:
    # Waiting for the response's head is a read too: a local server may send nothing until its first token
    timeout = httpx.Timeout(connect=policy.connect_timeout, read=max(policy.read_timeout, policy.first_byte_timeout),
                            write=policy.read_timeout, pool=policy.connect_timeout)
    return httpx.AsyncClient(timeout=timeout, verify=tls_context())


def scrub(text: str, secret: str | None) -> str:
    """Servers sometimes echo keys: the key in use, every key in the process registry (core.secrets) and every
    key variable in the environment now are redacted before the text becomes a message. The one place
    providers redact."""
    env_keys = (v for k, v in os.environ.items() if secrets.is_key_variable(k))
    return secrets.redact(text, secrets.usable((*((secret,) if secret else ()), *secrets.known(), *env_keys)))


def error_message(body: bytes) -> tuple[Any, str]:
    """(parsed JSON or None, the server's own message) from an error body in any of the usual shapes."""
    text = body.decode("utf-8", "replace")
    try:
        data = bounded_json.loads(text)
    except ValueError:
        # Proxies answer with HTML pages; their tags are noise in a one-line error.
        return None, re.sub(r"<[^>]*>", " ", text).strip() or "(empty body)"
    found: Any = data
    if isinstance(data, dict):
        found = data.get("error", data.get("detail", data.get("message", data)))
        if isinstance(found, dict):
            found = found.get("message", found)
    return data, found if isinstance(found, str) else json.dumps(found)


def status_error(name: str, response: httpx.Response, body: bytes, api_key: str | None) -> ProviderError:
    status = response.status_code
    data, message = error_message(body)
    # the server's words are cut to a line; what to do about them is not
    hint = status_hint(name, status, str(response.url), api_key)
    line = one_line(scrub(f"{name}: HTTP {status}: {message}", api_key)) + scrub(hint, api_key)
    if is_context_error(status, data, message):   # before the retryable check: Ollama says it with a 500
        return ContextLengthExceeded(line, status=status, server_tokens=prompt_tokens_in(data, message),
                                     server_window=window_in(data, message))
    if refuses_role_order(message):             # before the retryable check: llama.cpp says it with a 500
        return RoleOrderRefused(line, status=status)
    if status in RETRYABLE_STATUSES:
        return TransientError(line, status=status, retry_after=parse_retry_after(response.headers.get("retry-after")))
    return ProviderError(line, status=status)


def status_hint(provider: str, status: int, url: str, api_key: str | None) -> str:
    """What to do about a refusal the user can fix: a key (which variables it is read from, never its value), a
    model name, or a base URL that misses or doubles `/v1`. '' for any other status."""
    first, second = secrets.key_variables(provider)
    if status == 401:
        if not api_key:
            return f" — no key was sent: set {first} (or {second})"
        return f" — check the key: it is read from {first}, else {second}"
    if status == 403:
        return f" — the key ({first}, else {second}) may not give access to this model or endpoint"
    if status != 404:
        return ""
    path = url.split("://", 1)[-1].partition("/")[2]
    if provider == "openai" and not re.search(r"(^|/)v1/", path):
        base = url.removesuffix("/chat/completions")
        return f" — OpenAI-style base URLs usually end in /v1 (this one is {base})"
    if provider == "anthropic" and "/v1/v1/" in f"/{path}":
        base = url.removesuffix("/v1/messages")
        return f" — Anthropic base URLs end before /v1 (this one is {base})"
    return " — is the model name one the server serves? (/model in the app lists them)"


def decode_object(name: str, event: ServerSentEvent) -> dict[str, Any]:
    """A stream event's JSON object; anything else (not JSON, or JSON but no object) is a malformed chunk."""
    try:
        data = bounded_json.loads(event.data)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise TransientError(f"{name}: malformed stream chunk: {one_line(event.data, 80)!r}", malformed=True,
                             reason="malformed stream chunk")
    return data


async def model_listing(client: httpx.AsyncClient, url: str, headers: dict[str, str]) -> dict[str, Any]:
    """A models listing (``{"data": [{"id": ...}]}``, both wires; read by model_info.listed_models); a server that
    has no listing, cannot be reached or answers something else is a ProviderError of one line."""
    try:
        response = await client.get(url, headers=headers, timeout=10)
    except httpx.HTTPError as exc:
        raise ProviderError(f"cannot reach {url}: {one_line(str(exc) or type(exc).__name__)}") from None
    if response.status_code != 200:
        raise ProviderError(f"GET {url} answered {response.status_code} {response.reason_phrase}".rstrip(),
                            status=response.status_code)
    try:
        listing = bounded_json.loads(response.text) if response.content else None
    except ValueError:
        listing = None
    if not isinstance(listing, dict):
        raise ProviderError(f"GET {url} did not answer a JSON model listing")
    return listing


@asynccontextmanager
async def event_stream(client: httpx.AsyncClient, url: str, *, name: str, headers: dict[str, str],
                       body: dict[str, Any], api_key: str | None, policy: RetryPolicy,
                       is_progress: Callable[[ServerSentEvent], bool], error_of: Callable[[Any], ProviderError],
                       max_events: int | None = None) -> AsyncIterator[AsyncIterator[ServerSentEvent]]:
    """POST ``body`` and give the server-sent events; every failure comes out as a ProviderError. ``error_of``
    reads the API's error object, in a stream or as the whole body of a 200 that is not one; ``max_events``: the
    events counted as progress one reply may hold (``_events_with_limits``)."""
    headers = {**headers, "accept": "text/event-stream"}
    try:
        async with client.stream("POST", url, json=body, headers=headers) as response:
            if response.status_code != 200:
                raise status_error(name, response, await _read_capped(response), api_key)
            content_type = response.headers.get("content-type", "")
            if "text/event-stream" not in content_type:
                raise _not_a_stream(name, url, content_type, await _read_capped(response), api_key, error_of)
            events = _events_with_limits(name, response, policy, is_progress, max_events)
            try:
                yield events
            finally:
                await events.aclose()
    except httpx.TimeoutException as exc:
        raise TransientError(f"{name}: {_timeout_kind(exc)} timed out talking to {url}",
                             reason=f"{_timeout_kind(exc)} timed out") from None
    except httpx.ConnectError as exc:
        detail = one_line(scrub(str(exc), api_key), 120) or type(exc).__name__
        # Nothing listening on this machine or network is most often a local server not started (yet)
        hint = ": is the server (llama-server, Ollama, vLLM…) running there?" if on_this_network(url) else ""
        refused = _refused(exc)
        raise TransientError(f"{name}: connection to {url} failed: {detail}{hint}",
                             reason="connection refused" if refused else "cannot connect", refused=refused) from None
    except httpx.HTTPError as exc:
        detail = one_line(scrub(str(exc), api_key), 120) or type(exc).__name__
        raise TransientError(f"{name}: connection to {url} failed: {detail}", reason="connection lost") from None


def _refused(exc: BaseException) -> bool:
    """Nothing listens there: httpx says "All connection attempts failed", the refusal is in its causes."""
    seen: BaseException | None = exc
    for _ in range(8):          # a chain is short; a loop in one is not followed
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError) or "refused" in str(seen).lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _not_a_stream(name: str, url: str, content_type: str, body: bytes, api_key: str | None,
                  error_of: Callable[[Any], ProviderError]) -> ProviderError:
    """A 200 that is no event stream: an error object (some servers and proxies answer a failure so) is the
    server's error, read as the API's in-stream error is; anything else is a malformed answer, retried."""
    data, message = error_message(body)
    if isinstance(data, dict) and data.get("error"):
        return error_of(data["error"])
    return TransientError(one_line(scrub(f"{name}: expected an event stream, got {content_type or 'no content type'!r}"
                                         f" from {url}: {message}", api_key)), malformed=True,
                          reason=f"not an event stream ({one_line(content_type, 30) or 'no content type'})")


async def _read_capped(response: httpx.Response, limit: int = ERROR_BODY_LIMIT) -> bytes:
    """An error body, but never more than ``limit`` bytes of it (a server may stream one forever)."""
    body = b""
    async for piece in response.aiter_bytes():
        body += piece
        if len(body) >= limit:
            return body[:limit]
    return body


def _timeout_kind(exc: httpx.TimeoutException) -> str:
    if isinstance(exc, httpx.ConnectTimeout):
        return "connecting"
    if isinstance(exc, httpx.ReadTimeout):
        return "reading"
    return "request"


MAX_LINE_CHARS = 1 << 20    # one event's line: a whole reply's JSON (the reply itself is capped far below) fits


class _BoundedLines:
    """The response as EventSource reads it (its headers and its text), ended with one error when a line grows past
    MAX_LINE_CHARS: EventSource buffers a line whole, so a server sending one endless line would fill memory
    before any cap on the reply's characters could look at it."""

    def __init__(self, name: str, response: httpx.Response) -> None:
        self.name, self.response = name, response

    @property
    def headers(self) -> httpx.Headers:
        return self.response.headers

    async def aiter_text(self) -> AsyncIterator[str]:
        run = 0                 # characters of the line not yet ended
        async for text in self.response.aiter_text():
            first = min((i for i in (text.find("\n"), text.find("\r")) if i >= 0), default=-1)
            last = max(text.rfind("\n"), text.rfind("\r"))
            longest = run + (len(text) if first < 0 else first)
            run = run + len(text) if last < 0 else len(text) - last - 1
            if max(longest, run) > MAX_LINE_CHARS:    # lines inside one read are bounded by the read's size
                raise ProviderError(f"{self.name}: a line of the event stream passed {MAX_LINE_CHARS:,} characters: "
                                    "stopped (a server sending one endless line)")
            yield text


async def _events_with_limits(name: str, response: httpx.Response, policy: RetryPolicy,
                             is_progress: Callable[[ServerSentEvent], bool], max_events: int | None = None
                             ) -> AsyncGenerator[ServerSentEvent, None]:
    """Keep-alive comments and pings reset httpx's read timeout, so silence is measured here too:
    the stream fails when nothing counted as progress arrived for ``first_byte_timeout`` seconds before the reply
    began, or for ``read_timeout`` seconds after. A stream that
    keeps talking is capped in wall-clock time (``max_reply_seconds``) and, with ``max_events``, in events: either
    ends it with one error, not retried. (The reply's characters are capped where they are read, but an event may
    carry none: empty deltas, or tool input the agent does not read, kept a reply going for the whole
    ``max_reply_seconds``, half an hour.)"""
    stall_timeout = policy.first_byte_timeout       # until the reply begins; then policy.read_timeout
    events = EventSource(cast(httpx.Response, _BoundedLines(name, response))).aiter_sse()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + stall_timeout
    begun = False
    counted = 0
    cap = loop.time() + policy.max_reply_seconds
    try:
        while True:
            if loop.time() >= cap:   # events arriving back to back never let the timeout below fire
                raise ProviderError(f"{name}: the reply was still streaming after {policy.max_reply_seconds:g}s: "
                                    "stopped (a server that never ends its answer)")
            try:
                async with asyncio.timeout_at(min(deadline, cap)):
                    event = await anext(events)
            except StopAsyncIteration:
                return
            except TimeoutError:
                if loop.time() < cap:
                    said = "stream stalled: no data for" if begun else "no reply began within"
                    raise TransientError(f"{name}: {said} {stall_timeout:g}s",
                                         reason=f"{said} {stall_timeout:g}s") from None
                continue   # the cap: reported at the top of the loop
            if is_progress(event):
                begun, stall_timeout = True, policy.read_timeout
                deadline = loop.time() + stall_timeout
                counted += 1
                if max_events is not None and counted > max_events:
                    raise ProviderError(f"{name}: the reply passed {max_events:,} events without ending: stopped (a "
                                        "server that never ends its answer)")
            yield event
    finally:
        await events.aclose()
