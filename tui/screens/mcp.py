"""/mcp: the configured MCP servers, their status, their tools, and what their descriptions cost in L1."""

from __future__ import annotations

from typing import Any

from contextual.tui.css import stylesheet
from contextual.core.plural import plural
from contextual.tui.format import one_line, tokens
from contextual.tui.screen_safe import screen_text
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

STATUS_STYLE = {"ready": "bold green", "starting": "bold yellow", "failed": "bold red", "stopped": "dim"}


SHOWN_TOOLS = 100       # per server, of its tools and of those rejected: a server may list ten thousand
# The names' column: one tool's name of 128 wide characters took the whole width, and every server's status,
# command line and error (the middle column) showed as nothing.
NAME_CELLS = 32


def render_servers(rows: list[Any], l1_total: int, summary: str = "") -> Text | Table:
    """One block per server: name, status (with the one-line reason when it failed), then its tools."""
    if not rows and summary:
        return Text(summary)
    if not rows:
        return Text("No MCP servers configured. Add them to .mcp.json at the project root or to "
                    "$CONTEXTUAL_HOME/mcp.json: {\"mcpServers\": {\"NAME\": {\"command\": ..., \"args\": [...]}}}")
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True, max_width=NAME_CELLS, overflow="ellipsis")
    table.add_column()
    table.add_column(justify="right", no_wrap=True)
    mcp_total = sum(sum(r.tool_tokens) for r in rows)
    table.add_row(Text("MCP tools in L1", style="bold"),
                  Text(f"{plural(sum(len(r.tools) for r in rows), 'tool')} of {plural(len(rows), 'server')}"),
                  Text(f"{tokens(mcp_total)} of {tokens(l1_total)} tok", style="bold"))
    if summary:         # within the budget, or past it: L1 names the servers, ToolSearch finds the tools
        table.add_row("", Text(summary, style="yellow" if "ToolSearch" in summary else "dim"), "")
    for row in rows:
        table.add_row("", "", "")
        status = Text(row.status, style=STATUS_STYLE.get(row.status, ""))
        if row.error:
            status.append(f" · {one_line(row.error, 90)}", style="red")
        table.add_row(Text(row.name, style="bold cyan"), Text.assemble(f"{row.transport} · ",
                                                                     one_line(row.target, 60)),
                      Text(f"{tokens(sum(row.tool_tokens))} tok"))
        table.add_row("", status, "")
        for problem in row.rejected[:SHOWN_TOOLS]:
            table.add_row("", Text(f"rejected {one_line(problem, 90)}", style="red"), "")
        if len(row.rejected) > SHOWN_TOOLS:
            table.add_row("", Text(f"… {len(row.rejected) - SHOWN_TOOLS} more rejected", style="red"), "")
        if row.log:
            table.add_row("", Text(f"log: {row.log}", style="dim"), "")
        for tool, size in zip(row.tools[:SHOWN_TOOLS], row.tool_tokens):
            # the name as the server lists it: its escapes reached the terminal
            table.add_row(Text(f"  {screen_text(tool.listed.name)}"),
                          Text(one_line(tool.description or "", 70), style="dim"),
                          Text(f"{tokens(size)} tok"))
        if len(row.tools) > SHOWN_TOOLS:
            table.add_row(Text(f"  … {len(row.tools) - SHOWN_TOOLS} more", style="dim"), "", "")
    return table


class MCPScreen(ModalScreen[None]):
    CSS_PATH = stylesheet(__name__)
    BINDINGS = [Binding("escape,q,enter", "dismiss", "close")]

    def __init__(self, rows: list[Any], l1_total: int, summary: str = "") -> None:
        super().__init__()
        self.rows, self.l1_total, self.summary = rows, l1_total, summary

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="mcp-box"):
            yield Static(render_servers(self.rows, self.l1_total, self.summary), id="mcp-servers")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#mcp-box").border_title = "MCP servers"      # its key: the footer
