"""The engine's tools: the built-in ones, MCP tools as their servers come and go, the ToolContext they share,
and L1 (which describes exactly these tools)."""

from __future__ import annotations

from typing import Any, TYPE_CHECKING

from contextual.core import secrets
from contextual.core.engine.prompt_state import PromptState
from contextual.core.engine.settings import Settings
from contextual.core.events import EngineEvent, Notice, PromptChanged, ToolsChanged
from contextual.core.tools.base import BeforeChange, Todo, Tool, ToolContext
from contextual.core.tools.runner import run_tool


if TYPE_CHECKING:       # the MCP layer is imported only when a server is configured
    from contextual.core.mcp.manager import Listing, MCPManager


class Toolbox:
    def __init__(self, settings: Settings, tools: dict[str, Tool], system_prompt: str) -> None:
        self.tools = tools
        self.base_tools = dict(tools)                # the built-in tools; MCP tools join at run time
        self.base_system_prompt = system_prompt      # L1 without MCP tools
        self.mcp: MCPManager | None = None           # when servers are configured
        self._mcp_version = 0
        self._budget = 0
        self.settings = settings
        self.listing: Listing | None = None          # what L1 says of the MCP tools (set at the first sync)
        # A Read deny rule covers every tool that shows file contents or names (the config in force now).
        self.ctx = ToolContext(root=settings.config.project_root, withheld=lambda rel: settings.config.permissions
                               .withholds(rel, str(settings.config.project_root)))

    def attach(self, manager: MCPManager) -> None:
        self.mcp = manager

    def guard_changes(self, hook: BeforeChange | None) -> None:
        """What runs before a tool changes a file (the turn's snapshot), or None between turns."""
        self.ctx.before_change = hook

    def restore_todos(self, todos: list[Todo]) -> None:
        self.ctx.todos[:] = todos

    def sync(self, prompt: PromptState, announce: bool) -> list[EngineEvent]:
        """Take in MCP servers that came up or went away: the tool set and L1 change together (and only then),
        announced (``announce``) once the session has sent a prompt; their one-line problems become notices."""
        if self.mcp is None:
            return []
        out: list[EngineEvent] = [Notice(line, "warning") for line in self.mcp.drain_reports()]
        from contextual.core.mcp.describe import l1_budget
        budget = l1_budget(self.settings.config.context_window)
        if self.mcp.version != self._mcp_version or (self.mcp.version and budget != self._budget):
            self._mcp_version, self._budget = self.mcp.version, budget
            before = set(self.tools)
            self.listing = self.mcp.listing(budget)
            self.tools = {**self.base_tools, **self.mcp.tools()}
            if self.listing.search is not None:       # the descriptions did not fit: L1 says how to find them
                self.tools[self.listing.search.name] = self.listing.search
            prompt.set_system_prompt(self.base_system_prompt + self.listing.section)
            if announce:
                out.append(ToolsChanged(tuple(sorted(set(self.tools) - before)),
                                        tuple(sorted(before - set(self.tools))),
                                        prompt.builder.cache.message(prompt.builder.system_prompt)))
            out.append(PromptChanged(prompt.next_prompt))      # the meter and /context read L1 anew
        return out

    async def run(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        # A key a tool printed (a .env file, `env`) never reaches the model, the screen or the session.
        result: dict[str, Any] = secrets.redact_value(await run_tool(self.tools[name], args, self.ctx))
        return result
