"""The one way a tool runs: validate its declared arguments, call it, turn every failure into a C1 `error`
result with a code, time it (stats.duration_ms) and make the result valid Unicode before it enters history."""

from __future__ import annotations

from typing import Any

import asyncio
import time

from contextual.core.textsafe import valid_json_value
from contextual.core.tools.base import Tool, ToolContext, ToolError, fail, path_of


async def run_tool(tool: Tool, args: object, ctx: ToolContext) -> dict[str, Any]:
    started = time.monotonic()
    context = dict(args) if isinstance(args, dict) else {}
    try:
        if not ctx.root.is_dir():
            # Deleted or moved under the running app: each tool would fail its own way (bash "cannot start",
            # LS ". is a file", snapshots "git is not installed"), none of them saying why
            raise ToolError("project_gone", f"the project folder {ctx.root} no longer exists (deleted or moved); "
                                            "nothing was run")
        result = await tool.call(tool.args.validate(args), ctx)
        if not isinstance(result, dict) or result.get("status") not in ("success", "error"):
            raise TypeError(f"returned {type(result).__name__}, not a C1 result")
    except ToolError as exc:
        result = fail(exc.code, str(exc))
    except OSError as exc:
        where = path_of(context) or exc.filename or "."
        result = fail("io_error", f"{tool.name} cannot use {where}: {exc.strerror or exc}")
    except asyncio.CancelledError:
        raise
    except Exception as exc:            # a tool bug becomes an observation, never a crashed turn
        result = fail("internal_error", f"{tool.name} failed: {type(exc).__name__}: {exc}")
    if not result.get("context"):
        result["context"] = context
    # A tool that timed its own work (Bash: the process; replay: the recording) keeps its figure.
    result["stats"] = {"duration_ms": round((time.monotonic() - started) * 1000, 1), **(result.get("stats") or {})}
    clean: dict[str, Any] = valid_json_value(result)
    return clean
