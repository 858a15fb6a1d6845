"""The engine's side of hooks (core/hooks.py): which hooks an event runs, and the JSON each gets on stdin."""

from __future__ import annotations

import json
from typing import Any

from contextual.core import secrets
from contextual.core.engine.recorder import Recorder
from contextual.core.engine.settings import Settings
from contextual.core.hooks import HookOutcome, run_hooks

RESPONSE_CAP = 100_000      # characters of a tool's result a PostToolUse hook is given


class HookRunner:
    def __init__(self, settings: Settings, recorder: Recorder) -> None:
        self._settings = settings
        self._recorder = recorder

    async def _run(self, event: str, tool: str | None, fields: dict[str, Any]) -> HookOutcome:
        config = self._settings.config
        hooks = config.hooks.for_event(event, tool)
        if not hooks:
            return HookOutcome()
        session = self._recorder.session
        payload = {"hook_event_name": event, "session_id": session.session_id if session is not None else "",
                   "cwd": str(config.project_root), **fields}
        # What leaves the process is redacted like every other output: a key never reaches a hook's stdin.
        payload = secrets.redact_value(payload)
        return await run_hooks(hooks, payload, str(config.project_root))

    async def pre_tool(self, tool: str, args: Any) -> HookOutcome:
        return await self._run("PreToolUse", tool, {"tool_name": tool, "tool_input": args})

    async def post_tool(self, tool: str, args: Any, result: dict[str, Any]) -> HookOutcome:
        response = json.dumps(result, ensure_ascii=False, default=str)
        if len(response) > RESPONSE_CAP:
            response_value: Any = response[:RESPONSE_CAP] + f"… [{len(response) - RESPONSE_CAP:,} characters cut]"
        else:
            response_value = result
        return await self._run("PostToolUse", tool, {"tool_name": tool, "tool_input": args,
                                                     "tool_response": response_value})

    async def pre_compact(self, trigger: str) -> HookOutcome:
        return await self._run("PreCompact", None, {"trigger": trigger})

    async def stop(self, answer: str) -> HookOutcome:
        return await self._run("Stop", None, {"answer": answer})
