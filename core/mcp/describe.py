"""How an MCP tool reads in L1: the same shape as the built-in tools (a line of what it does, then
`Arguments: {...}` with `?` for optional keys). The Arguments line is the tool's ArgSpec (built from the
server's JSON Schema by core/tools/_args.py) rendered by the same code as the built-in tools' lines.

Rendering is a pure function of the listing, so the same servers give a byte-identical L1.
"""

from __future__ import annotations

from typing import Any

import re

from contextual.core.plural import plural
from contextual.core.textsafe import one_line
from contextual.core.tools._args import ArgSpec

DESCRIPTION_CHARS = 600        # servers ship essays; the model needs the gist and the arguments
# What is kept of a listed description at all: a server's 50 MB one held the app's loop 3 s to open /mcp (its
# escapes stripped before the cut) and ToolSearch read all its words at every search.
DESCRIPTION_KEPT = 20 * DESCRIPTION_CHARS
PROPERTY_CHARS = 160
# One tool's entry is bounded whatever its schema holds: 20,000 properties with long names made one tool's entry
# 44 MB (11 million tokens, 28 s to count at launch, and ToolSearch returned it whole).
ARGUMENTS_CHARS = 2000         # the Arguments line
PROPERTY_LINES = 40            # the arguments described on lines of their own
NAME_CHARS = 128               # a tool name longer than MCP's own recommended bound is not offered


def tool_name(server: str, tool: str) -> str:
    """`mcp__SERVER__TOOL`, with anything the Action grammar cannot carry replaced by '_'."""
    return f"mcp__{_safe(server)}__{_safe(tool)}"


def shown_name(name: str) -> str:
    """A tool name as the user reads it: `mcp__tracker__list_items` is `tracker · list_items`, the server and the
    tool as /mcp lists them (the id's own spelling, split at its first `__` after the prefix); any other name as
    it is. Only the screens use it: the model, the rules and the session keep the real name."""
    server, _, tool = name.removeprefix("mcp__").partition("__")
    return f"{server} · {tool}" if name.startswith("mcp__") and server and tool else name


def _safe(part: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", part) or "_"


def render_tool(server: str, name: str, description: str | None, schema: dict[str, Any] | None, args: ArgSpec) -> str:
    """The L1 entry of one MCP tool; ``args``: the ArgSpec built from ``schema`` (what the runner checks)."""
    schema = schema if isinstance(schema, dict) else {}
    props = schema.get("properties")
    arguments = args.render()
    if len(arguments) > ARGUMENTS_CHARS:
        arguments = f"{arguments[:ARGUMENTS_CHARS]} … [cut: the arguments take {len(arguments):,} characters]"
    lines = [f"{tool_name(server, name)} — {one_line(description or '(no description)', DESCRIPTION_CHARS)} "
             f"[MCP server {server}]",
             f"Arguments: {arguments}"]
    described = [(key, prop["description"]) for key, prop in (props if isinstance(props, dict) else {}).items()
                 if isinstance(prop, dict) and isinstance(prop.get("description"), str) and prop["description"].strip()]
    lines += [f"  {one_line(key, PROPERTY_CHARS)}: {one_line(text, PROPERTY_CHARS)}"
              for key, text in described[:PROPERTY_LINES]]
    if len(described) > PROPERTY_LINES:
        lines.append(f"  (and {plural(len(described) - PROPERTY_LINES, 'more described argument')})")
    return "\n".join(lines)


def render_section(entries: list[str]) -> str:
    """What joins L1 after the built-in tools; empty when no MCP tool is available."""
    if not entries:
        return ""
    return ("\n\nMCP tools (from the user's MCP servers; call them like any tool, e.g. "
            "Action: mcp__SERVER__TOOL[{...}]):\n\n" + "\n\n".join(entries))


L1_SHARE = 0.10     # of the window: past it, MCP tools are found through ToolSearch instead of listed in L1


def l1_budget(window: int) -> int:
    """The tokens MCP tool descriptions may take in L1."""
    return int(window * L1_SHARE)


def render_index(servers: list[tuple[str, int]], cost: int, budget: int) -> str:
    """L1's MCP part when the descriptions do not fit: the servers and their tool counts, and how to find a tool
    (ToolSearch, core/mcp/search.py). A pure function of the tool set: the same servers give the same bytes."""
    total = sum(n for _, n in servers)
    lines = [f"- {name}: {plural(n, 'tool')}" for name, n in servers]
    return ("\n\nMCP tools (from the user's MCP servers): " + f"{total} tools, too many to describe here (their "
            f"descriptions take about {cost} tokens, over this prompt's {budget} for them). Find the ones you need "
            "with ToolSearch — it returns their descriptions and arguments — then call them like any tool, e.g. "
            "Action: mcp__SERVER__TOOL[{...}].\n"
            'ToolSearch — find MCP tools by words of their name or purpose. Arguments: {"query": str, "limit"?: '
            'int (default 5, at most 20)}\nExample: Action: ToolSearch[{"query": "create issue"}]\n\n'
            "Servers:\n" + "\n".join(lines))
