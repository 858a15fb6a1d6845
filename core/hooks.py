"""Hooks (issue 30.4): shell commands run on the engine's events, in Claude Code's shape so its users can port theirs.

In any config file (TOML; Claude Code's settings.json `hooks` object, table for table):

    [[hooks.PreToolUse]]
    matcher = "Bash|Write"                 # a regular expression on the tool's name; "" or "*" = every tool
    hooks = [{ type = "command", command = "python3 ~/bin/guard.py", timeout = 30 }]

Events: PreToolUse and PostToolUse (matched on the tool's name), PreCompact, Stop (the end of a turn). Each command
gets one JSON object on stdin: `hook_event_name`, `session_id`, `cwd`, and `tool_name`/`tool_input` (and
`tool_response` after the call), `trigger` for PreCompact, `answer` for Stop. A PreToolUse hook blocks the call by
exiting 2 (its stderr is the reason), by printing `{"decision": "block", "reason": "…"}` or Claude Code's
`{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "…"}}`; the model gets the
reason as the call's error. Commands see `CLAUDE_PROJECT_DIR` (and `CONTEXTUAL_PROJECT_DIR`): the project's folder,
as Claude Code's hook commands expect (`"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh`). A PostToolUse hook that blocks sends its reason to the model with the result.
Each run is bounded: `timeout` seconds (default 60; then its process group is killed) and 64 KB of each output
read. A project's own hooks (its .contextual/config.toml, or a config.local.toml it shipped) are inert until the
user approves them (core/trust.py); the user's `$CONTEXTUAL_HOME/config.toml` hooks always run.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from dataclasses import dataclass, replace
from typing import Any, Mapping

EVENTS = ("PreToolUse", "PostToolUse", "PreCompact", "Stop")
DEFAULT_TIMEOUT = 60.0
OUTPUT_CAP = 64 * 1024
REASON_CAP = 2_000
BLOCK_EXIT = 2          # Claude Code's convention: exit 2 blocks, stderr says why


@dataclass(frozen=True)
class Hook:
    event: str
    matcher: str
    command: str
    timeout: float
    source: str
    approved: bool = True

    def matches(self, tool: str | None) -> bool:
        if tool is None or self.matcher in ("", "*"):
            return True
        try:
            return re.fullmatch(self.matcher, tool) is not None
        except re.error:
            return self.matcher == tool

    def describe(self) -> str:
        on = f"{self.event} {self.matcher}" if self.matcher not in ("", "*") else self.event
        return f"on {on}: run {self.command}"


@dataclass(frozen=True)
class Hooks:
    hooks: tuple[Hook, ...] = ()

    def for_event(self, event: str, tool: str | None = None) -> list[Hook]:
        return [h for h in self.hooks if h.approved and h.event == event and h.matches(tool)]

    def held_back(self) -> "Hooks":
        """These hooks, inert until approved."""
        return Hooks(tuple(replace(h, approved=False) for h in self.hooks))

    def all_approved(self) -> "Hooks":
        return Hooks(tuple(replace(h, approved=True) for h in self.hooks))

    def content(self) -> str:
        """What an approval is bound to: every hook's event, matcher, command and timeout."""
        return json.dumps([[h.event, h.matcher, h.command, h.timeout] for h in self.hooks])

    def __add__(self, other: "Hooks") -> "Hooks":
        return Hooks(self.hooks + other.hooks)

    def __bool__(self) -> bool:
        return bool(self.hooks)


def parse_hooks(table: object, source: str) -> Hooks:
    """The `[hooks]` table of one config file; ValueError with a one-line reason when it is malformed."""
    if not isinstance(table, dict):
        raise ValueError(f"invalid hooks in {source}: expected [[hooks.EVENT]] tables")
    out: list[Hook] = []
    for event, groups in table.items():
        if event not in EVENTS:
            raise ValueError(f"unknown hook event {event!r} in {source}: use one of {', '.join(EVENTS)}")
        if not isinstance(groups, list):
            raise ValueError(f"invalid hooks.{event} in {source}: expected [[hooks.{event}]] entries")
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                raise ValueError(f"invalid hooks.{event} in {source}: each entry needs hooks = [{{command = …}}]")
            matcher = str(group.get("matcher", ""))
            for hook in group["hooks"]:
                command = hook.get("command") if isinstance(hook, dict) else None
                if not isinstance(command, str) or not command.strip() or hook.get("type", "command") != "command":
                    raise ValueError(f"invalid hook in hooks.{event} of {source}: needs type = \"command\" and "
                                     "a command")
                timeout = hook.get("timeout", DEFAULT_TIMEOUT)
                if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
                    raise ValueError(f"invalid hook timeout in hooks.{event} of {source}: {timeout!r}")
                out.append(Hook(event, matcher, command, float(timeout), source))
    return Hooks(tuple(out))


@dataclass(frozen=True)
class HookOutcome:
    blocked: bool = False
    reason: str = ""
    notes: tuple[str, ...] = ()      # a hook that could not start, failed or ran out of time: for the user


def _kill(proc: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


async def _read_capped(stream: asyncio.StreamReader | None) -> bytes:
    if stream is None:
        return b""
    data = b""
    while chunk := await stream.read(OUTPUT_CAP):
        if len(data) < OUTPUT_CAP:        # the rest is read and dropped: the command never blocks on a full pipe
            data += chunk[:OUTPUT_CAP - len(data)]
    return data


async def run_bounded(command: str, payload: bytes, cwd: str, timeout: float,
                      env: Mapping[str, str] | None = None) -> tuple[int | None, str, str]:
    """Run a shell line with `payload` on stdin: (exit code, stdout, stderr), each output read up to OUTPUT_CAP;
    the code is None when it ran past `timeout` (its process group is killed). Hooks and custom commands' shell
    lines run through it."""
    proc = await asyncio.create_subprocess_shell(command, cwd=cwd, env=env, stdin=asyncio.subprocess.PIPE,
                                                 stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                 start_new_session=True)

    async def talk() -> tuple[bytes, bytes]:
        assert proc.stdin is not None
        try:
            proc.stdin.write(payload)
            await proc.stdin.drain()
            proc.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            pass
        out, err = await asyncio.gather(_read_capped(proc.stdout), _read_capped(proc.stderr))
        await proc.wait()
        return out, err
    try:
        out, err = await asyncio.wait_for(talk(), timeout)
    except asyncio.TimeoutError:
        _kill(proc)
        await proc.wait()
        return None, "", ""
    except asyncio.CancelledError:     # esc / Ctrl-C: nothing outlives the turn
        _kill(proc)
        raise
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def _decision(out: str) -> dict[str, Any] | None:
    text = out.strip()
    if not text.startswith("{"):
        return None
    try:
        answer = json.loads(text)
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None


def _denied(answer: dict[str, Any] | None) -> str | None:
    """The reason of a block in either JSON form Claude Code documents (None: no block): the older
    `{"decision": "block", "reason"}` and PreToolUse's `{"hookSpecificOutput": {"permissionDecision": "deny",
    "permissionDecisionReason"}}` — a guard ported from Claude Code that answers the second must not fail open."""
    if answer is None:
        return None
    if answer.get("decision") == "block":
        return str(answer.get("reason") or "")
    specific = answer.get("hookSpecificOutput")
    if isinstance(specific, dict) and specific.get("permissionDecision") == "deny":
        return str(specific.get("permissionDecisionReason") or "")
    return None


def hook_environment(cwd: str) -> dict[str, str]:
    """A hook's environment: this process's (the key variables are gone from it at start-up) and the project's
    folder under the name Claude Code's hook commands use."""
    return {**os.environ, "CLAUDE_PROJECT_DIR": cwd, "CONTEXTUAL_PROJECT_DIR": cwd}


async def run_hooks(hooks: list[Hook], payload: Mapping[str, Any], cwd: str) -> HookOutcome:
    """Run each hook in order; the first that blocks ends the run, and its reason is the outcome's."""
    data = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8")
    notes: list[str] = []
    env = hook_environment(cwd)
    for hook in hooks:
        try:
            code, out, err = await run_bounded(hook.command, data, cwd, hook.timeout, env)
        except OSError as exc:
            notes.append(f"hook {hook.command!r} could not start: {exc}")
            continue
        if code is None:
            notes.append(f"hook {hook.command!r} ran past {hook.timeout:g} s and was stopped")
            continue
        denied = _denied(_decision(out))
        if code == BLOCK_EXIT or denied is not None:
            said = err.strip() if code == BLOCK_EXIT else str(denied)
            reason = said[:REASON_CAP] or f"blocked by the hook {hook.command!r}"
            return HookOutcome(True, reason, tuple(notes))
        if code != 0:
            notes.append(f"hook {hook.command!r} exited {code}: {err.strip()[:200]}".rstrip(": "))
    return HookOutcome(False, "", tuple(notes))
