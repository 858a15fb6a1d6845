"""An MCP server's tool as a Contextual tool: same runner, permissions, timeout, cancellation and events.

Every call asks permission in `default` mode unless a rule allows it (we cannot know what a foreign tool
does), and none is taken to edit files (file snapshots cover only our own edit tools).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from contextual.core.mcp import describe, results
from contextual.core.mcp.connection import CallFailed, ListedTool
from contextual.core.tokens import count
from contextual.core.tools._args import spec_from_json_schema
from contextual.core.tools.base import ToolContext, ToolError


class MCPTool:
    needs_permission = True
    edits_files = False
    example = ""                    # the L1 entry shows the arguments; servers give no example call

    def __init__(self, connection: Any, listed: ListedTool) -> None:
        self.connection = connection
        self.listed = listed
        self.server = connection.spec.name
        self.name = describe.tool_name(self.server, listed.name)
        self.description = listed.description or ""
        self.schema = listed.input_schema
        self.args = spec_from_json_schema(listed.input_schema)     # what core/tools/runner.py validates
        self.prompt_entry = describe.render_tool(self.server, listed.name, listed.description, listed.input_schema,
                                                 self.args)
        self._tokens: int | None = None

    @property
    def tokens(self) -> int:
        """What this tool's L1 entry costs (counted once: a server may list thousands)."""
        if self._tokens is None:
            self._tokens = count(self.prompt_entry)
        return self._tokens

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        """The server's answer as a C1 result; ToolError for a timeout, a lost server or a cancelled call.
        Cancelling the awaiting task cancels the request (the SDK tells the server)."""
        started = time.monotonic()
        call = asyncio.ensure_future(self.connection.call(self.listed.name, args))
        stop = asyncio.ensure_future(ctx.cancel.wait())
        try:
            done, _ = await asyncio.wait({call, stop}, return_when=asyncio.FIRST_COMPLETED)
            if call not in done:
                raise ToolError("cancelled", f"{self.name} was cancelled")
            result = call.result()
        except CallFailed as exc:
            raise ToolError(exc.code, str(exc)) from None
        finally:
            stop.cancel()
            call.cancel()
        return results.to_c1(self.server, self.listed.name, result, int((time.monotonic() - started) * 1000),
                             max_tokens=getattr(self.connection.spec, "max_output_tokens", None))
