"""Permission for one tool call: decided by the rules, else asked (PermissionRequest and its future), recorded in
the session, and remembered for the session or written as rules ("allow always")."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncGenerator

from contextual.core import permissions
from contextual.core.engine.recorder import Recorder
from contextual.core.engine.settings import Settings
from contextual.core.events import (Notice, PermissionAnswer, PermissionDecided, PermissionDecision,
                                    PermissionRequest)
from contextual.core.session.schema import PermissionRecord
from contextual.core.tools.base import Tool


class PermissionGate:
    def __init__(self, settings: Settings, recorder: Recorder, interactive: bool) -> None:
        self._settings = settings
        self._recorder = recorder
        self.interactive = interactive
        self.allowed_for_session: set[str] = set()
        # A custom command's allowed-tools: rules granted without asking for the one turn it starts (`grant_for_turn`).
        self.turn_grants: tuple[str, ...] = ()
        # What the user answered, each after the call it answered: a chat rebuilt from the record shows them where
        # the live chat did (restored on resume, as the compaction log is).
        self.decided: list[PermissionRecord] = []

    def grant_for_turn(self, grants: tuple[str, ...]) -> None:
        """The rules that hold without asking for the turn starting now; () when it ends."""
        self.turn_grants = grants

    def restore(self, decided: list[PermissionRecord]) -> None:
        self.decided[:] = decided

    async def check(self, tool: Tool, name: str, args: Any, call: str | None = None, hook: str = "",
                    hook_reason: str = ""
                    ) -> AsyncGenerator[PermissionRequest | PermissionDecided | Notice | dict[str, Any], None]:
        """Yields a PermissionRequest (and waits on its future) and what was decided, or a refusal/denial result
        (a C1 dict). ``args``: the call's arguments as the model wrote them (JSON), or as a PreToolUse hook
        rewrote them; ``call``: the id of the message that made the call (the last one recorded). ``hook``: a
        PreToolUse hook's permissionDecision (core/hooks.py): "allow" skips the asking, "ask" asks where the rules
        or the mode would allow; a deny rule and plan mode win over either, as in Claude Code."""
        config = self._settings.config
        mode, rules, root = config.permission_mode, config.permissions, config.project_root
        # In a thread: under a Bash deny rule the check reads the files a line runs and asks git about its hooks
        # (core/files_run.py), which a slow disk or repository must not turn into a frozen screen.
        verdict = await asyncio.to_thread(permissions.decide, tool, args, mode, rules, root,
                                          self.allowed_for_session | set(self.turn_grants))
        if hook == "allow" and verdict == "ask":
            verdict = "allow"
        elif hook == "ask" and verdict == "allow":
            verdict = "ask"
        if verdict == "allow":
            return
        if verdict == "deny":
            yield await asyncio.to_thread(permissions.rule_denial, name, args, rules, root)
            return
        if verdict == "plan":
            yield permissions.plan_refusal(name)
            return
        if not self.interactive:
            yield permissions.hook_refusal(name, hook_reason) if hook == "ask" else permissions.refusal(name, mode)
            return
        if hook == "ask":
            yield Notice(f"a PreToolUse hook asks you to confirm this {name} call"
                         + (f": {hook_reason}" if hook_reason else ""), "warning")
        future: asyncio.Future[PermissionAnswer] = asyncio.get_running_loop().create_future()
        proposal = permissions.always_rules(name, args, root)
        yield PermissionRequest(name, args, permissions.preview(name, args, root), future, proposal,
                                tool.edits_files and mode == "default")
        answer = await future
        decision: PermissionDecision = answer.decision
        always = proposal if decision == "allow_always" else None
        once_only = ""
        if always is not None and not always.rules:     # no rule would match it again: allowed once, and why
            decision, once_only = "allow_once", always.why
        note = answer.note if decision == "deny" else ""
        record = PermissionRecord(name, decision, always.rules if always is not None else (), once_only, note, call)
        self.decided.append(record)
        self._recorder.permission(record)
        yield PermissionDecided(name, decision, record.rules, once_only, note)
        if decision == "allow_always" and always is not None:   # rules in the local project file, and this session
            try:
                permissions.add_allow_rules(root, always.rules, config.home)
            except ValueError as exc:
                self._recorder.warn_after_call(str(exc))
            self.allowed_for_session.update(always.rules)
        elif decision == "allow_session":
            self.allowed_for_session.add(name)
        elif decision == "accept_edits":        # for this edit and every later one of the run, as shift+tab's mode
            self._settings.accept_edits()
        elif decision != "allow_once":
            yield permissions.denial(name, answer.note)
