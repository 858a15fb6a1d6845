"""ToolSearch: how the model finds MCP tools when their descriptions would not fit L1's budget (issue 26).

Past the budget (describe.l1_budget: a tenth of the window), L1 names the servers and how many tools each has,
not every tool, and stays byte-identical while the tool set does (its cached prefix never moves). The model asks
ToolSearch with a few words; the matching tools' L1 entries (description and arguments) come back as an
observation, in L3, and the tools are called by name as usual.
"""

from __future__ import annotations

import re
from typing import Any, Protocol, Sequence

from contextual.core.tools._args import INT, STR, Arg, ArgSpec
from contextual.core.tools.base import ToolContext, ok
from contextual.core.tools.names import TOOL_SEARCH

DEFAULT_RESULTS = 5
MAX_RESULTS = 20
_WORD = re.compile(r"[a-z0-9]+")


class Searchable(Protocol):
    name: str
    server: str
    description: str
    prompt_entry: str


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def rank(tools: Sequence[Searchable], query: str, limit: int) -> list[Searchable]:
    """The best matches first: a query word in the tool's name counts three times one in its description; an
    exact tool name (or mcp__ name) is returned alone; ties keep configuration order."""
    wanted = _words(query)
    exact = query.strip().lower()
    scored: list[tuple[int, int, Searchable]] = []
    for index, tool in enumerate(tools):
        if exact and exact in (tool.name.lower(), tool.name.lower().rsplit("__", 1)[-1]):
            score = 1_000
        else:
            name, text = _words(tool.name), _words(tool.description)
            score = 3 * len(wanted & name) + len(wanted & text)
        if score:
            scored.append((-score, index, tool))
    scored.sort(key=lambda s: (s[0], s[1]))
    if scored and scored[0][0] == -1_000:           # asked by name: that tool alone
        return [tool for score, _, tool in scored if score == -1_000][:limit]
    return [tool for _, _, tool in scored[:limit]]


class ToolSearch:
    name = TOOL_SEARCH
    example = ""
    description = ("find MCP tools by words of their name or purpose; returns their descriptions and arguments "
                   "(then call them as Action: mcp__SERVER__TOOL[{...}]).")
    args = ArgSpec((Arg("query", STR), Arg("limit", INT, required=False)),
                   note=f"limit: how many tools to return (default {DEFAULT_RESULTS}, at most {MAX_RESULTS}).")
    needs_permission = False        # it reads the listing the servers already gave
    edits_files = False

    def __init__(self, tools: Sequence[Searchable]) -> None:
        self.tools = list(tools)

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        limit = max(1, min(int(args.get("limit") or DEFAULT_RESULTS), MAX_RESULTS))
        found = rank(self.tools, str(args["query"]), limit)
        if not found:
            text = (f"no MCP tool matches {args['query']!r} among {len(self.tools)}; try other words "
                    "(a purpose, an object: 'issue', 'create', 'search')")
        else:
            text = "\n\n".join(tool.prompt_entry for tool in found)
        return ok(text, text, stats={"found": len(found), "of": len(self.tools)})
