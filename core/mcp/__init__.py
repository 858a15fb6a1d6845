"""MCP servers (issue 17): their tools join L1 as `mcp__SERVER__TOOL` and run like built-in tools.

Only `connection.py` and the transports it opens (`stdio.py`, `http_bound.py`) import the `mcp` SDK, and only
when a server starts, so a project without MCP servers never pays for the import.
"""
