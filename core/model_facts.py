"""What we know about a model: its context window and its prices (issue 16.4).

The window, in order: the user's own setting (flag, environment, config file: never overridden), what the
server says (core.providers.model_info, asked once at startup with a short timeout), the table of known
models (core/model_table.toml, plus [models."NAME"] tables in config), else the configured default.
"""

from __future__ import annotations

import asyncio
import tomllib
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Mapping, Protocol

from contextual.core import package_data
from contextual.core.config import Config
from contextual.core.config_files import MODEL_PRICE_KEYS
from contextual.core.providers.locality import on_this_network

if TYPE_CHECKING:      # the probe's module pulls in httpx: imported when the server is asked
    from contextual.core.providers.model_info import Probe

PRICE_FIELDS = MODEL_PRICE_KEYS


@dataclass(frozen=True)
class ModelFacts:
    name: str                        # the table entry that matched
    window: int | None = None
    input: float | None = None       # US dollars per million tokens
    cached_input: float | None = None
    cache_write: float | None = None
    output: float | None = None
    max_output: int | None = None    # the most tokens one answer may have (the answer's reserve never asks more)


@lru_cache(maxsize=1)
def builtin_table() -> dict[str, dict[str, Any]]:
    models: dict[str, dict[str, Any]] = tomllib.loads(package_data.read_text("core/model_table.toml"))["models"]
    return models


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return float(value)


def _key(model: str) -> str:
    """'openrouter/openai/gpt-4o-mini:free' -> 'gpt-4o-mini' (provider prefix and Ollama tag dropped)."""
    return model.rsplit("/", 1)[-1].split(":", 1)[0].strip().lower()


def lookup(model: str | None, overrides: Mapping[str, Any] | None = None) -> ModelFacts | None:
    """The longest table entry the model's name starts with; config entries replace built-in fields."""
    if not model:
        return None
    table = {k.lower(): dict(v) for k, v in builtin_table().items()}
    for name, entry in (overrides or {}).items():
        if isinstance(entry, dict):
            table[name.lower()] = {**table.get(name.lower(), {}), **entry}
    key = _key(model)
    exact = model.strip().lower()
    matches = [name for name in table if exact == name or key.startswith(name)]
    if not matches:
        return None
    name = exact if exact in table else max(matches, key=len)
    entry = table[name]
    window = _number(entry.get("window"))
    max_output = _number(entry.get("max_output"))
    return ModelFacts(name, window=int(window) if window is not None and window >= 256 else None,
                      max_output=int(max_output) if max_output else None,
                      **{f: _number(entry.get(f)) for f in PRICE_FIELDS})


class TokenUsage(Protocol):
    """One call's token figures as a provider's UsageChunk and the engine's UsageEvent both hold them."""
    @property
    def input_tokens(self) -> int: ...          # cached ones included
    @property
    def output_tokens(self) -> int: ...
    @property
    def cached_tokens(self) -> int: ...
    @property
    def cache_creation_tokens(self) -> int: ...


def cost(usage: TokenUsage, model: str | None, overrides: Mapping[str, Any] | None = None) -> float | None:
    """US dollars for one call's usage; None when the model's prices are unknown."""
    facts = lookup(model, overrides)
    if facts is None or facts.input is None or facts.output is None:
        return None
    price_in, price_out = facts.input, facts.output
    total_in, cached, written = usage.input_tokens, usage.cached_tokens, usage.cache_creation_tokens
    fresh = max(0, total_in - cached - written)
    dollars = (fresh * price_in
               + cached * (facts.cached_input if facts.cached_input is not None else price_in)
               + written * (facts.cache_write if facts.cache_write is not None else price_in)
               + usage.output_tokens * price_out)
    return dollars / 1_000_000


def with_output_limit(config: Config) -> Config:
    """The model's own answer limit where the table knows it: the answer's reserve never asks more."""
    try:
        facts = lookup(config.model, config.models)
    except package_data.InstallDamaged:
        return config
    limit = facts.max_output if facts is not None else None
    return config if limit == config.output_limit else replace(config, output_limit=limit)


def window_from_table(config: Config) -> Config:
    config = with_output_limit(config)
    facts = lookup(config.model, config.models)
    if config.window_explicit or facts is None or facts.window is None:
        return config
    return config.with_window(facts.window, f"table: {facts.name}")


async def resolve_window(config: Config, timeout: float | None = None) -> Config:
    """The config with the best window we can know; never raises, never waits past ``timeout``. A server that did
    not answer at all is marked (``server_unreached``): the window it would have stated is asked for again later.
    A window the server stated in an earlier run's error replaces the one that error replaced
    (core/server_windows.py)."""
    from contextual.core.server_windows import with_kept_window
    return with_kept_window(await _resolve(config, timeout))


async def _resolve(config: Config, timeout: float | None) -> Config:
    config = replace(with_output_limit(config), server_unreached=False, window_replaced=None, window_guessed=False,
                     window_note=None)
    if not config.model or not config.base_url:
        return config
    if config.window_explicit:
        # the user's window stands, but the tokenizer is still unknown: a local server may count for us, so the
        # first request of a small window is fitted by its count, not by a guess
        # (both asked at once: a server still loading its model would make the launch wait for each in turn)
        if config.provider == "openai" and on_this_network(config.base_url):
            _, probe = await asyncio.gather(_measure_tokenizer(config, timeout), _probe(config, timeout))
            return replace(config, window_note=_set_over_stated(config, probe))
        return config
    if config.provider == "openai":   # the Anthropic API states no window: the table knows its models
        probe = await _probe(config, timeout)
        found = probe.found if probe is not None else None
        if found is not None:
            if found.source.startswith("llama.cpp"):
                await _measure_tokenizer(config, timeout)
            config = config.with_window(found.window, f"server: {found.source}")
            return config if found.trained is None else replace(
                config, window_guessed=True, window_note=ollama_default_note(found.window, found.trained))
        config = replace(config, server_unreached=probe is not None and not probe.reached)
    try:
        return window_from_table(config)
    except package_data.InstallDamaged:    # the default window serves; the CLI names the damage at start
        return config


async def _probe(config: Config, timeout: float | None) -> Probe | None:
    """What the server states about its window; None when asking it failed in a way it should not."""
    from contextual.core.providers.model_info import detect_window
    try:
        return await detect_window(config.base_url or "", config.model or "", config.api_key,
                                   timeout=probe_timeout(config.base_url or "", timeout))
    except Exception:   # detection is a nicety: a surprise in it must never stop a start
        return None


def _set_over_stated(config: Config, probe: Probe | None) -> str | None:
    """A window set larger than the one a local server states (`--context-window 8192` against llama.cpp's `-c
    4096`): said at launch, as every prompt past the server's would be rejected until one teaches it. The setting
    stands (a server may state a figure that is not the one it enforces, as per-slot windows are not)."""
    found = probe.found if probe is not None else None
    if found is None or found.trained is not None or found.window >= config.context_window:
        return None
    return (f"the server states a window of {found.window:,} tokens ({found.source}), smaller than the "
            f"{config.context_window:,} set ({config.window_source}): a prompt past {found.window:,} will be rejected "
            f"and the window learned from the error; --context-window {found.window} avoids that")


def unreached_note(config: Config) -> str:
    """What the app and `-p` say when the server did not answer at launch: the window used and where it is from."""
    where = config.window_source.split(":", 1)
    source = f"the model table's ({where[1].strip()})" if where[0] == "table" and len(where) > 1 else "the default"
    return (f"the server at {config.base_url} did not answer: using {source} window of {config.context_window:,} "
            "tokens; its own is asked for after the first call that succeeds")


def recheck_note(before: Config, after: Config) -> str:
    """What is said when the server, down at launch (or Ollama, its model not loaded then), states a window other
    than the one used so far."""
    where = after.window_source.split(": ", 1)[-1]
    now = "answers now and states" if before.server_unreached else "has loaded the model and states"
    return (f"the server {now} a window of {after.context_window:,} tokens ({where}), not the "
            f"{before.context_window:,} used so far: using {after.context_window:,} from now on")


def ollama_default_note(window: int, trained: int) -> str:
    """What the launch says when Ollama states no num_ctx: the window is its default, not the model's length."""
    return (f"Ollama serves num_ctx {window:,} unless it is set (not the model's own {trained:,}) and past it drops "
            f"the oldest messages without an error: using {window:,} until the loaded model states its window; "
            f"set OLLAMA_CONTEXT_LENGTH or num_ctx (and --context-window) to use more")


def smaller_window_note(before: Config, window: int) -> str:
    """What is said when a server rejected a prompt and stated a smaller window than ``before``'s, now in use."""
    return (f"the server's window is {window:,} tokens, not the {before.context_window:,} set "
            f"({before.window_source}): using {window:,} from now on (--context-window {window} or "
            f"context_window = {window} in a config makes it the setting)")


def probe_timeout(base_url: str, asked: float | None = None) -> float:
    """How long startup asks a server about its model: ``asked`` when given, longer for a local server."""
    from contextual.core.providers.model_info import LOCAL_PROBE_TIMEOUT, PROBE_TIMEOUT
    if asked is not None:
        return asked
    return LOCAL_PROBE_TIMEOUT if on_this_network(base_url) else PROBE_TIMEOUT


async def _measure_tokenizer(config: Config, timeout: float | None) -> None:
    """llama.cpp counts with its model's tokenizer at /tokenize: a first calibration before any call.
    The sample is the system prompt, the part of every request that is always there."""
    from contextual.core.providers.model_info import tokenize_count
    from contextual.core.tokens import calibration_for, count
    calibration = calibration_for(config.home)
    if calibration.calibrated(config.model):
        return
    try:
        from contextual.core.l1 import system_prompt as build_system_prompt
        sample = await asyncio.to_thread(build_system_prompt)
        server = await tokenize_count(config.base_url or "", sample, config.api_key,
                                      timeout=probe_timeout(config.base_url or "", timeout))
    except Exception:   # a nicety, like detection itself
        return
    if server:      # counted in a thread: the tokenizer may still be loading, which holds no event loop
        calibration.measure(config.model, await asyncio.to_thread(count, sample), server)
