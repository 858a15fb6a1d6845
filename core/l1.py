"""L1 for the engine's tools: picks the tool objects from the registry and hands them to prompts/ (text only)."""

from __future__ import annotations

from typing import Iterable

from contextual.core.tools.registry import default_tools
from contextual.prompts.system_prompt import build_system_prompt


def system_prompt(tools: Iterable[str] | None = None) -> str:
    """L1 describing every built-in tool, or only the named ones (in the registry's order)."""
    builtins = default_tools()
    wanted = set(builtins) if tools is None else set(tools)
    return build_system_prompt(tool for name, tool in builtins.items() if name in wanted)
