"""The wire-neutral prompt: what ContextBuilder produces and providers render."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PromptRole = Literal["system", "summary", "user", "assistant"]
Layer = Literal["L1", "L2", "L3", "input", "scratchpad", "todo"]

SUMMARY_PREFIX = ("Another language model started this task and produced a summary of its work. "
                  "This is a summary of earlier work in this session; use it to continue:\n\n")


@dataclass(frozen=True)
class PromptMessage:
    role: PromptRole
    content: str
    layer: Layer
    # Anthropic: put a cache_control breakpoint after this message (end of the stable prefix).
    cache_breakpoint: bool = False


def as_wire_dicts(messages: list[PromptMessage]) -> list[dict[str, str]]:
    """The OpenAI-compatible rendering ({role, content}); used by --dump and the /context view."""
    return [{"role": "system" if m.role == "summary" else m.role, "content": m.content} for m in messages]
