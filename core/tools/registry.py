"""The tools the agent can call, keyed by the names the model writes in `Action: Name[...]`.

The nine built-in tools come first in a fixed order (L1 must render the same every time); tools found at run
time (MCP servers' `mcp__NAME__TOOL`) follow them (core/engine/toolbox.py: Toolbox.sync)."""

from __future__ import annotations

from contextual.core.tools.base import Tool
from contextual.core.tools.bash import BashTool
from contextual.core.tools.edit import EditTool
from contextual.core.tools.glob import GlobTool
from contextual.core.tools.grep import GrepTool
from contextual.core.tools.ls import LSTool
from contextual.core.tools.multiedit import MultiEditTool
from contextual.core.tools.read import ReadTool
from contextual.core.tools.todowrite import TodoWriteTool
from contextual.core.tools.write import WriteTool

BUILTIN_TOOLS = (LSTool, GlobTool, GrepTool, ReadTool, EditTool, MultiEditTool, WriteTool, BashTool, TodoWriteTool)


def default_tools() -> dict[str, Tool]:
    """Fresh instances of the built-in tools, in prompt order."""
    tools: dict[str, Tool] = {}
    for cls in BUILTIN_TOOLS:
        tool: Tool = cls()
        tools[tool.name] = tool
    return tools
