"""The nine tools the agent can call, keyed by the names the model writes in `Action: Name[...]`."""

from __future__ import annotations

from core.tools.base import Tool
from core.tools.bash import BashTool
from core.tools.edit import EditTool
from core.tools.glob import GlobTool
from core.tools.grep import GrepTool
from core.tools.ls import LSTool
from core.tools.multiedit import MultiEditTool
from core.tools.read import ReadTool
from core.tools.todowrite import TodoWriteTool
from core.tools.write import WriteTool

TOOL_ORDER = ("LS", "Glob", "Grep", "Read", "Edit", "MultiEdit", "Write", "Bash", "TodoWrite")


def default_tools() -> dict[str, Tool]:
    tools: list[Tool] = [LSTool(), GlobTool(), GrepTool(), ReadTool(), EditTool(), MultiEditTool(),
                         WriteTool(), BashTool(), TodoWriteTool()]
    by_name = {tool.name: tool for tool in tools}
    return {name: by_name[name] for name in TOOL_ORDER}
