"""All configured MCP servers of a session: started together in the background, their tools offered
as one dict, a version number that moves whenever that set changes, and one-line reports for the UI.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from contextual.core import trust
from contextual.core.mcp import describe
from contextual.core.mcp.config import ServerSpec, load_servers
from contextual.core.mcp.connection import FAILED, READY, ServerConnection
from contextual.core.mcp.search import ToolSearch
from contextual.core.mcp.server_log import RecordLog
from contextual.core.mcp.tool import MCPTool


SAID_ONE_BY_ONE = 5      # a server's tools left out, a line each; past this, one line for the rest (a server that
                         # listed 30,000 of them froze the app adding 30,000 rows to the chat)


def at_most(lines: list[str], rest: str) -> list[str]:
    """`lines`, or their first SAID_ONE_BY_ONE and one more line: `rest` with `{n}` for how many are left out."""
    if len(lines) <= SAID_ONE_BY_ONE:
        return lines
    return lines[:SAID_ONE_BY_ONE] + [rest.format(n=f"{len(lines) - SAID_ONE_BY_ONE:,} more")]


@dataclass(frozen=True)
class ServerRow:
    """What `/mcp` shows for one server."""
    name: str
    transport: str
    target: str                     # the command line or the URL, as the config file writes it
    status: str
    error: str
    tools: tuple[MCPTool, ...]
    tool_tokens: tuple[int, ...]    # what each tool's entry costs in L1
    log: str = ""                   # the file holding the server's stderr ("" when kept in memory)
    rejected: tuple[str, ...] = ()  # listed tools not offered: name and why


@dataclass(frozen=True)
class Listing:
    """What L1 says of the MCP tools: `section` (appended to L1), the ToolSearch tool when the descriptions did
    not fit (`search`), what all of them would cost (`cost`, tokens) and the budget they were held to."""
    section: str
    search: ToolSearch | None
    cost: int
    budget: int | None
    tools: int

    def summary(self) -> str:
        """One line for /mcp and `contextual context`."""
        if self.search is None:
            return (f"MCP tool descriptions: {self.cost} tokens in L1"
                    + (f" (budget {self.budget}, a tenth of the window)" if self.budget is not None else ""))
        return (f"MCP tool descriptions: {self.cost} tokens, over the budget of {self.budget} (a tenth of the "
                f"window): L1 names the servers and their tool counts; ToolSearch finds the tools")


def session_log_folder(home: Path) -> Path:
    """Where this process's MCP logs go: one file per server, and one for the SDK's own messages."""
    return home / "logs" / "mcp" / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"


def route_sdk_logs(folder: Path | None) -> None:
    """The SDK's log records go to a file (or nowhere), never to the terminal: its tracebacks for a server's
    bad output would otherwise print on -p's stderr and over the app."""
    logger = logging.getLogger("mcp")
    logger.propagate = False
    for old in list(logger.handlers):
        logger.removeHandler(old)
        old.close()
    if folder is None:
        logger.addHandler(logging.NullHandler())
        return
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        handler: logging.Handler = RecordLog(folder / "sdk.log")
    except OSError:
        handler = logging.NullHandler()
    logger.addHandler(handler)


class MCPManager:
    def __init__(self, specs: list[ServerSpec], problems: list[str] | None = None,
                 log_folder: Path | None = None) -> None:
        self.log_folder = log_folder
        self.connections = [ServerConnection(spec, self._changed,
                                             None if log_folder is None else log_folder / f"{spec.name}.log")
                            for spec in specs]
        self.version = 0                        # bumped whenever the offered tools change
        self._reports: list[str] = list(problems or [])
        self._tools: dict[str, MCPTool] = {}
        self.listeners: list[Callable[[], None]] = []    # told after any status change (the app refreshes)
        self.unapproved: list[trust.Item] = []           # project files left out for want of approval
        self._said_twice: set[str] = set()               # tool names already said to be offered more than once

    @classmethod
    def from_config(cls, project_root: Path, home: Path, trusted: bool | None = None) -> "MCPManager":
        unapproved: list[trust.Item] = []
        specs, problems = load_servers(project_root, home, trusted=trusted, unapproved=unapproved)
        manager = cls(specs, problems, session_log_folder(home) if specs else None)
        manager.unapproved = unapproved
        return manager

    def __bool__(self) -> bool:
        return bool(self.connections) or bool(self._reports)

    # ---- lifecycle -----------------------------------------------------------------------------
    def start(self) -> None:
        """Start every server in the background; returns at once. Starting twice does nothing."""
        if self.connections:
            route_sdk_logs(self.log_folder)
        for conn in self.connections:
            if not conn.started:
                conn.start()

    async def wait_started(self) -> None:
        """Until every server is ready or has failed (each bounded by its own startup timeout)."""
        await asyncio.gather(*(c.wait_ready() for c in self.connections))

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self.connections), return_exceptions=True)

    def stop_now(self) -> None:
        """The servers' processes ended from any thread, the loop stuck (the process is ending: close cannot run)."""
        from contextual.core.mcp.stdio import stop_now
        stop_now()

    # ---- what the engine reads -----------------------------------------------------------------
    def _changed(self, conn: ServerConnection) -> None:
        if conn.status == FAILED:
            self._reports.append(f"MCP server {conn.spec.name} {'stopped' if self._offers(conn) else 'failed'}: "
                                 f"{conn.error}; its tools are not available")
        if conn.status == READY and conn.rejected:
            log = f" (log: {conn.log_path})" if conn.log_path else ""
            self._reports += at_most([f"MCP server {conn.spec.name}: {problem}; that tool is not offered{log}"
                                      for problem in conn.rejected],
                                     f"MCP server {conn.spec.name}: {{n}} of its tools are not offered{log}")
        if conn.status == READY and conn.too_many:
            self._reports.append(f"MCP server {conn.spec.name} lists more than {len(conn.tools):,} tools: only the "
                                 f"first {len(conn.tools):,} are offered")
        tools: dict[str, MCPTool] = {}
        twice: list[str] = []       # each said once a session, not again at every change of any server
        for c in self.connections:
            if c.status != READY:
                continue
            for listed in c.tools:
                name = describe.tool_name(c.spec.name, listed.name)
                if name in tools:
                    if name not in self._said_twice:
                        self._said_twice.add(name)
                        twice.append(f"MCP tool {name} is offered more than once; only the first is kept")
                    continue
                tools[name] = MCPTool(c, listed)
        self._reports += at_most(twice, "{n} MCP tool names are offered more than once; only the first of each is kept")
        if list(tools) != list(self._tools):
            self._tools = tools
            self.version += 1
        for listener in self.listeners:
            listener()

    def _offers(self, conn: ServerConnection) -> bool:
        return any(t.connection is conn for t in self._tools.values())

    def tools(self) -> dict[str, MCPTool]:
        return dict(self._tools)

    def listing(self, budget: int | None = None) -> Listing:
        """L1's MCP part for a budget of tokens (None: no limit): every tool's entry when they fit, else the
        servers with their tool counts and a ToolSearch tool that finds the rest (core/mcp/search.py)."""
        tools = list(self._tools.values())
        cost = sum(t.tokens for t in tools)
        if budget is None or cost <= budget:
            return Listing(describe.render_section([t.prompt_entry for t in tools]), None, cost, budget, len(tools))
        servers = [(c.spec.name, n) for c in self.connections
                   if (n := sum(1 for t in tools if t.connection is c))]
        return Listing(describe.render_index(servers, cost, budget), ToolSearch(tools), cost, budget, len(tools))

    def report(self, line: str) -> None:
        """A line to say with the next drain (one taken back by an engine that leaves it to the app)."""
        self._reports.append(line)

    def drain_reports(self) -> list[str]:
        """One-line problems (bad config, failed starts, lost servers) not yet shown."""
        out, self._reports = self._reports, []
        return out

    def rows(self) -> list[ServerRow]:
        out = []
        for c in self.connections:
            s = c.spec
            # as written: a token passed as `--token ${GITHUB_TOKEN}` (no *_API_KEY name to redact it by) showed whole
            target = s.written or (s.url if s.url else " ".join((s.command, *s.args)))
            tools = tuple(t for t in self._tools.values() if t.connection is c)
            out.append(ServerRow(s.name, s.transport, target, c.status, c.error, tools,
                                 tuple(t.tokens for t in tools), str(c.log_path or ""),
                                 tuple(c.rejected)))
        return out


async def start_servers(engine: object, project_root: Path, home: Path, *, wait: bool) -> MCPManager | None:
    """Start the configured servers for an engine. Headless runs `wait` (bounded by each server's startup
    timeout) so the first prompt already lists their tools; the app does not, and tools join as servers come up."""
    manager = MCPManager.from_config(project_root, home)
    if not manager:
        return None
    manager.start()
    if wait:
        try:
            await manager.wait_started()
        except BaseException:
            # Ctrl-C while a server starts (`context`, `-p`): the caller never gets the manager to close, and a
            # server's task cancelled by asyncio alone kept waiting inside the SDK until its startup timeout, so
            # the process hung after "interrupted". Closing cancels its anyio scope, which the SDK does honour.
            await manager.close()
            raise
    engine.attach_mcp(manager)          # type: ignore[attr-defined]
    return manager
