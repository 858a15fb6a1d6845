"""Ask an OpenAI-compatible server how large its model's window is (once, at startup, with a short timeout).

Local servers say it in their own places; each probe below reads one, in the order of how exactly it
describes the running server (the window the server enforces beats the one the model was trained for):

1. llama.cpp ``GET /props``: default_generation_settings.n_ctx, the slot's window (what ``-c`` set).
2. Ollama ``GET /api/ps``: ``context_length`` of the model while it is loaded (the window it was loaded with);
   ``POST /api/show``: ``num_ctx`` in parameters when the model sets it.
3. ``GET /v1/models`` entry of the model: vLLM ``max_model_len``, OpenRouter/LM Studio ``context_length``
   (or ``max_context_length``), llama.cpp ``meta.n_ctx``.
4. Ollama with neither: its default num_ctx (``OLLAMA_DEFAULT_NUM_CTX``), at most the model's own
   ``<arch>.context_length``, which is what the model was trained for, not what Ollama runs it with;
   llama.cpp ``meta.n_ctx_train`` (what the model was trained for).

Every probe runs at once; any failure (refused, 404, timeout, garbage) just means "the server did not say", and
whether any probe had an answer at all (a 404 is one) tells a server that is up from one that is not (``Probe``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import httpx

from contextual.core import bounded_json
from contextual.core.providers.base import MIN_WINDOW, ListedModel, token_count
from contextual.core.providers.transport import tls_context

PROBE_TIMEOUT = 2.0          # seconds for all probes together
# A server on this machine or the local network gets longer: one still loading its model answers slowly, and a
# local model's small window is where a wrong guess (the 200k default) hurts; a refused port still fails at once.
LOCAL_PROBE_TIMEOUT = 8.0
_BODY_LIMIT = 1 << 20        # a /v1/models list larger than this is not read


# Ollama's num_ctx when neither the model nor the request sets it: 4k below 24 GiB of VRAM (32k up to 48 GiB, 256k
# above; docs/context-length.mdx of ollama/ollama), and 4,096 flat before that; a window too small is the safe guess.
OLLAMA_DEFAULT_NUM_CTX = 4096
OLLAMA_DEFAULT_SOURCE = "ollama default num_ctx"


@dataclass(frozen=True)
class Found:
    window: int
    source: str              # e.g. "llama.cpp /props"
    rank: int                # lower wins
    trained: int | None = None   # Ollama's default num_ctx: the model's own context length, beyond it


@dataclass(frozen=True)
class Probe:
    """What asking the server gave: the best window it states (None: none), and whether it answered at all (False:
    refused or silent, as a server not started yet is: its window is asked again once a call succeeds)."""
    found: Found | None
    reached: bool


_UNREACHED = object()        # a probe with no HTTP answer at all (refused, timed out): not "the server did not say"


def server_root(base_url: str) -> str:
    """http://host:8080/v1 -> http://host:8080 (llama.cpp and Ollama serve their own routes at the root)."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def _window(value: Any) -> int | None:
    n = token_count(value)
    return n if n is not None and n >= MIN_WINDOW else None


def from_props(data: Any) -> list[Found]:
    settings = data.get("default_generation_settings") if isinstance(data, dict) else None
    n = _window(settings.get("n_ctx")) if isinstance(settings, dict) else None
    if n is None and isinstance(data, dict):
        n = _window(data.get("n_ctx"))
    return [Found(n, "llama.cpp /props", 1)] if n else []


def from_show(data: Any) -> list[Found]:
    """Ollama's num_ctx when the model sets it. Its model_info context_length is what the model was trained for:
    Ollama runs it at num_ctx, by default OLLAMA_DEFAULT_NUM_CTX (at most that length), and past it drops the
    oldest messages without an error (ollama/ollama#4967, #14259), so nothing here would ever compact."""
    if not isinstance(data, dict):
        return []
    found: list[Found] = []
    parameters = data.get("parameters")
    if isinstance(parameters, str):
        for line in parameters.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "num_ctx" and parts[1].isdigit() and _window(int(parts[1])):
                found.append(Found(int(parts[1]), "ollama /api/show num_ctx", 2))
    info = data.get("model_info")
    if isinstance(info, dict):
        for key, value in info.items():
            window = _window(value)
            if isinstance(key, str) and key.endswith(".context_length") and window:
                found.append(Found(min(window, OLLAMA_DEFAULT_NUM_CTX), OLLAMA_DEFAULT_SOURCE, 4, trained=window))
                break
    return found


def from_ps(data: Any, model: str) -> list[Found]:
    """Ollama's ``/api/ps``: the window the model is loaded with now (``ollama ps``'s CONTEXT), while it is."""
    entries = data.get("models") if isinstance(data, dict) else None
    names = {model, model if ":" in model else model + ":latest"}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and names & {entry.get("name"), entry.get("model")}:
            window = _window(entry.get("context_length"))
            return [Found(window, "ollama /api/ps context_length", 2)] if window else []
    return []


def from_models(data: Any, model: str) -> list[Found]:
    entries = data.get("data") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return []
    entries = [e for e in entries if isinstance(e, dict)]
    mine = [e for e in entries if e.get("id") == model] or (entries if len(entries) == 1 else [])
    if not mine:
        return []
    entry = mine[0]
    found: list[Found] = []
    for key in ("max_model_len", "context_length", "max_context_length", "context_window"):
        n = _window(entry.get(key))
        if n:
            found.append(Found(n, f"/v1/models {key}", 3))
            break
    meta = entry.get("meta")
    if isinstance(meta, dict):
        for key, rank in (("n_ctx", 3), ("n_ctx_train", 5)):
            window = _window(meta.get(key))
            if window:
                found.append(Found(window, f"/v1/models meta.{key}", rank))
    return found


def listed_models(listing: dict[str, Any]) -> list[ListedModel]:
    """The models a listing offers, sorted by id, each with the window its entry states (read as the window probe
    reads the running model's entry: from_models)."""
    entries = listing.get("data")
    listed: dict[str, ListedModel] = {}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and "id" in entry:
            name = str(entry["id"])
            found = from_models({"data": [entry]}, name)
            listed[name] = ListedModel(name, min(found, key=lambda f: f.rank).window if found else None)
    return [listed[name] for name in sorted(listed)]


async def tokenize_count(base_url: str, text: str, api_key: str | None = None, *,
                         timeout: float = PROBE_TIMEOUT) -> int | None:
    """How many tokens llama.cpp's ``POST /tokenize`` makes of ``text`` (its model's own tokenizer), or None."""
    headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    async with httpx.AsyncClient(timeout=httpx.Timeout(timeout), headers=headers, verify=tls_context()) as client:
        try:
            async with asyncio.timeout(timeout):
                data = await _json(client, "POST", server_root(base_url) + "/tokenize", json={"content": text})
        except TimeoutError:
            return None
    tokens = data.get("tokens") if isinstance(data, dict) else None
    return len(tokens) if isinstance(tokens, list) else None


async def _json(client: httpx.AsyncClient, method: str, url: str, **kwargs: Any) -> Any:
    """The JSON of a 200 answer; None for any other answer; _UNREACHED when no answer came."""
    try:
        async with client.stream(method, url, **kwargs) as response:
            if response.status_code != 200:
                return None
            body = b""
            async for piece in response.aiter_bytes():
                body += piece
                if len(body) > _BODY_LIMIT:
                    return None
        return bounded_json.loads(body.decode("utf-8", "replace"))
    except httpx.TransportError:
        return _UNREACHED
    except (httpx.HTTPError, ValueError):
        return None


async def detect_window(base_url: str, model: str, api_key: str | None = None, *,
                        timeout: float = PROBE_TIMEOUT) -> Probe:
    """The best window the server states for ``model`` (none when it states none in ``timeout`` seconds), and
    whether it answered at all."""
    root = server_root(base_url)
    headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    async with httpx.AsyncClient(timeout=httpx.Timeout(timeout), headers=headers, verify=tls_context()) as client:
        probes = [
            (from_props, _json(client, "GET", root + "/props")),
            (from_show, _json(client, "POST", root + "/api/show", json={"model": model})),
            (lambda d: from_ps(d, model), _json(client, "GET", root + "/api/ps")),
            (lambda d: from_models(d, model), _json(client, "GET", base_url.rstrip("/") + "/models")),
        ]
        tasks = [asyncio.ensure_future(probe) for _, probe in probes]
        await asyncio.wait(tasks, timeout=timeout)   # what answered in time counts; the rest is dropped
        answers = [t.result() if t.done() and t.exception() is None else _UNREACHED for t in tasks]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    reached = any(data is not _UNREACHED for data in answers)
    found = [f for (read, _), data in zip(probes, answers) if data is not _UNREACHED for f in read(data)]
    return Probe(min(found, key=lambda f: f.rank) if found else None, reached)
