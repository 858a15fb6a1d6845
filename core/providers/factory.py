"""Build the provider a Config asks for."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from contextual.core.config import ANTHROPIC_BASE_URL, Config, ConfigError
from contextual.core.prompt import PromptMessage
from contextual.core.providers import anthropic, openai
from contextual.core.providers.anthropic import AnthropicProvider
from contextual.core.providers.base import Provider, ProviderError
from contextual.core.providers.locality import on_this_network
from contextual.core.providers.openai import OpenAIProvider
from contextual.core.providers.retry import RetryPolicy

_POLICY_FIELDS = {f.name for f in fields(RetryPolicy)}
# A model on this machine or network reads the whole prompt before its first token: llama.cpp or Ollama on a CPU
# takes minutes on a long one, and a 60 s wait failed the turn with no retry. Esc still stops it at once.
LOCAL_FIRST_BYTE_TIMEOUT = 600.0


def make_provider(config: Config, **overrides: Any) -> Provider:
    """Overrides: ``base_url``, ``api_key``, ``policy``, ``client``, ``sleep``, or any RetryPolicy field
    (``read_timeout=0.5``, ``base_delay=0.01``...), which is applied on top of ``policy``."""
    base_url = overrides.pop("base_url", None) or config.base_url
    api_key = overrides.pop("api_key", config.api_key)
    policy = overrides.pop("policy", None) or RetryPolicy(max_retries=config.max_retries)
    if base_url and on_this_network(str(base_url)):
        policy = replace(policy, first_byte_timeout=max(policy.first_byte_timeout, LOCAL_FIRST_BYTE_TIMEOUT))
    tuned = {k: overrides.pop(k) for k in list(overrides) if k in _POLICY_FIELDS}
    if tuned:
        policy = replace(policy, **tuned)
    unknown = sorted(set(overrides) - {"client", "sleep"})
    if unknown:
        raise TypeError(f"make_provider: unknown override(s): {', '.join(unknown)}")
    if config.provider not in ("openai", "anthropic"):
        raise ConfigError(f"unknown provider {config.provider!r}: use one of openai, anthropic")
    if config.provider == "openai" and not base_url:
        raise ConfigError("no endpoint configured: set CONTEXTUAL_BASE_URL (or pass --base-url), "
                          "e.g. http://localhost:11434/v1 for Ollama")
    try:
        if config.provider == "anthropic":
            return AnthropicProvider(base_url or ANTHROPIC_BASE_URL, api_key, policy=policy, **overrides)
        return OpenAIProvider(str(base_url), api_key, policy=policy, **overrides)
    except ProviderError as exc:   # a malformed base URL is a settings problem
        raise ConfigError(str(exc)) from None


def prompt_fields(provider: str, messages: list[PromptMessage]) -> dict[str, Any]:
    """The request body fields that carry the prompt, exactly as that provider module sends them."""
    fields: dict[str, Any] = (anthropic if provider == "anthropic" else openai).prompt_fields(messages)
    return fields
