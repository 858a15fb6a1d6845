"""The engine's side of hooks (core/hooks.py): which hooks an event runs, and the JSON each gets on stdin."""

from __future__ import annotations

import json
from typing import Any

from contextual.core import secrets
from contextual.core.config_files import CLAUDE_MODES
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
        if session is not None:      # the transcript a hook reads holds what came before this event
            try:
                await self._recorder.flush(fsync=False)
            except Exception:        # a write that fails is reported by the turn's own flush, at its end
                pass
        payload = {"hook_event_name": event, "session_id": session.session_id if session is not None else "",
                   "transcript_path": str(session.path) if session is not None else "",
                   "cwd": str(config.project_root),
                   "permission_mode": CLAUDE_MODES.get(config.permission_mode, config.permission_mode), **fields}
        # What leaves the process is redacted like every other output: a key never reaches a hook's stdin.
        payload = secrets.redact_value(payload)
        return await run_hooks(hooks, payload, str(config.project_root))

    async def user_prompt(self, prompt: str) -> HookOutcome:
        return await self._run("UserPromptSubmit", None, {"prompt": prompt})

    async def pre_tool(self, tool: str, args: Any, call_id: str = "") -> HookOutcome:
        return await self._run("PreToolUse", tool, {"tool_name": tool, "tool_input": args, "tool_use_id": call_id})

    async def post_tool(self, tool: str, args: Any, result: dict[str, Any], call_id: str = "") -> HookOutcome:
        response = json.dumps(result, ensure_ascii=False, default=str)
        if len(response) > RESPONSE_CAP:
            response_value: Any = response[:RESPONSE_CAP] + f"… [{len(response) - RESPONSE_CAP:,} characters cut]"
        else:
            response_value = result
        fields = {"tool_name": tool, "tool_input": args, "tool_response": response_value, "tool_use_id": call_id}
        if result.get("status") == "success":
            return await self._run("PostToolUse", tool, fields)
        # Claude Code runs PostToolUse on success only, and PostToolUseFailure with the error otherwise: a ported
        # formatter or linter hook must not run after an Edit that did not happen
        found = result.get("error")
        error: dict[str, Any] = found if isinstance(found, dict) else {}
        said = error.get("message") or result.get("text") or "the call failed"
        return await self._run("PostToolUseFailure", tool, {**fields, "error": str(said),
                                                            "is_interrupt": error.get("code") == "aborted"})

    async def pre_compact(self, trigger: str, instructions: str | None = None) -> HookOutcome:
        """Matched on the trigger (`manual` / `auto`), as Claude Code's PreCompact matchers are."""
        return await self._run("PreCompact", trigger, {"trigger": trigger, "custom_instructions": instructions or ""})

    async def stop(self, answer: str, active: bool = False) -> HookOutcome:
        """`active` (Claude Code's `stop_hook_active`): the turn already goes on because a Stop hook blocked it, so a
        script can let it end rather than loop."""
        return await self._run("Stop", None, {"answer": answer, "last_assistant_message": answer,
                                              "stop_hook_active": active})

    async def session_start(self, source: str) -> HookOutcome:
        """Matched on the source (`startup`, `resume`, `clear`, `compact`), as Claude Code's SessionStart matchers are."""
        return await self._run("SessionStart", source, {"source": source, "model": self._settings.config.model or ""})
