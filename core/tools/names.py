"""The tools' names, without the tools: config's permission rules and hooks check names as the app launches, and
the tools themselves (the registry) load later. tests/test_tool_names.py holds these to the classes' own names."""

from __future__ import annotations

BUILTIN = ("LS", "Glob", "Grep", "Read", "Edit", "MultiEdit", "Write", "Bash", "TodoWrite")    # in prompt order
TOOL_SEARCH = "ToolSearch"          # joins the tools when MCP tools are searched (core/mcp/search.py)

# A tool's name in other letters (`bash(rm:*)`, a hook matcher `bash`) matched no call: a deny rule or a guard hook
# that held nothing, silently.
_BY_LOWER = {name.lower(): name for name in (*BUILTIN, TOOL_SEARCH)}


def named_otherwise(name: str) -> str | None:
    """The tool `name` means when it is one of ours in other letters (`bash`: "Bash"); None when it is written as
    ours, or names none of ours (Claude Code's WebFetch: no call can match it)."""
    meant = _BY_LOWER.get(name.lower())
    return meant if meant is not None and meant != name else None
