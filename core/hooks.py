"""Hooks (issue 30.4): shell commands run on the engine's events, in Claude Code's shape so its users can port theirs.

In any config file (TOML; Claude Code's settings.json `hooks` object, table for table):

    [[hooks.PreToolUse]]
    matcher = "Bash|Write"                 # Claude Code's: "" or "*" every tool; only letters, digits, _ and | an
    hooks = [{ type = "command", command = "python3 ~/bin/guard.py", timeout = 30 }]    # exact list; else a regex

Events: SessionStart (before a session's first message is sent; matched on its source, `startup`, `resume`, `clear`
or `compact`: core/engine/turn_input.py), UserPromptSubmit (before the user's message is sent), PreToolUse, PostToolUse
(a call that succeeded) and PostToolUseFailure (one that failed; matched on the tool's name), PreCompact (matched
on its trigger, `manual` / `auto`), Stop (the model answered: a block makes the turn go on, with the reason as its
next message, core/context/continuation.py). Each command gets one JSON object on stdin: Claude Code's common
fields (`hook_event_name`, `session_id`, `transcript_path`: the session's JSONL file, `cwd`, `permission_mode` in
Claude Code's names) and the event's own (`source`, `model`; `prompt`; `tool_name`, `tool_input`, `tool_use_id`,
`tool_response`; `trigger`, `custom_instructions`; `stop_hook_active`, `last_assistant_message` and our
`answer`). Exit 2 blocks (stderr says why); another non-zero exit is a warning to the user; exit 0 with JSON on
stdout answers as Claude Code's do: `decision: "block"` + `reason`, `hookSpecificOutput.permissionDecision`
(`deny`, `allow`: no permission prompt, though a deny rule and plan mode still win, `ask`: the prompt even where a
rule or mode would allow, `defer`: no say) with `permissionDecisionReason` and `updatedInput` (shallow-merged into
the call's input, which is then checked and run), `additionalContext` (to the model; a SessionStart or
UserPromptSubmit hook's plain stdout too), `continue: false` + `stopReason` (the turn ends; it outranks a block),
`systemMessage` (to the user). Claude Code's events and hook types we do not run are read and said once
(Hooks.notes), never silently dropped. Commands see `CLAUDE_PROJECT_DIR` (and `CONTEXTUAL_PROJECT_DIR`): the
project's folder, as Claude Code's hook commands expect (`"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh`).
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
from typing import Any, Collection, Mapping

from contextual.core import bounded_json, secrets
from contextual.core.config_text import unknown_keys
from contextual.core.tools.names import named_otherwise

EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "PreCompact", "Stop")
TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})     # their matcher names a tool
# Claude Code's other events: a config naming them still loads, and says once that they do not run here.
NOT_RUN = ("SessionEnd", "Notification", "SubagentStart", "SubagentStop",
           "PermissionRequest", "PermissionDenied", "PostCompact", "StopFailure", "Setup", "ConfigChange",
           "CwdChanged", "FileChanged", "InstructionsLoaded", "TaskCreated", "TaskCompleted", "TeammateIdle",
           "WorktreeCreate", "WorktreeRemove", "Elicitation", "ElicitationResult", "UserPromptExpansion")
# A hook's keys Claude Code knows that change when or how it runs, and this runner does not honour (the hook still
# runs, on every matching event, in the foreground, with sh): said once too. `statusMessage` (a spinner's text) is
# only not shown.
NOT_HONOURED = ("async", "asyncRewake", "once", "if", "shell")
GROUP_KEYS = ("matcher", "hooks")
HOOK_KEYS = ("type", "command", "timeout", "statusMessage", *NOT_HONOURED)
DECISIONS = ("allow", "deny", "ask", "defer")
DEFAULT_TIMEOUT = 60.0
OUTPUT_CAP = 64 * 1024
REASON_CAP = 2_000
CONTEXT_CAP = 10_000    # what a hook adds to the model's context, as Claude Code bounds it; beyond it, a cut is said
BLOCK_EXIT = 2          # Claude Code's convention: exit 2 blocks, stderr says why
CONTEXT_STDOUT = ("SessionStart", "UserPromptSubmit")     # events whose plain stdout on exit 0 is the model's context


@dataclass(frozen=True)
class Hook:
    event: str
    matcher: str
    command: str
    timeout: float
    source: str
    approved: bool = True

    def matches(self, subject: str | None) -> bool:
        """Claude Code's rule: "" or "*" matches all; a matcher of only letters, digits, _ and | is an exact name
        or a list of them (`Edit|Write`); anything else is a regular expression searched in the name
        (`mcp__.*`, `Notebook.*`, `^Bash`). An invalid one never gets here: parse_hooks refuses it."""
        if subject is None or self.matcher in ("", "*"):
            return True
        if _PLAIN.fullmatch(self.matcher):
            return subject in self.matcher.split("|")
        return re.search(self.matcher, subject) is not None

    @property
    def key(self) -> tuple[str, str, str, float, str]:
        """The hook as configured, whether approved or not."""
        return self.event, self.matcher, self.command, self.timeout, self.source

    def describe(self) -> str:
        on = f"{self.event} {self.matcher}" if self.matcher not in ("", "*") else self.event
        return f"on {on}: run {self.command}"


_PLAIN = re.compile(r"[A-Za-z0-9_|]+")


@dataclass(frozen=True)
class Hooks:
    hooks: tuple[Hook, ...] = ()
    notes: tuple[str, ...] = ()       # what the config asked for and is not run here: for the user, once

    def for_event(self, event: str, subject: str | None = None) -> list[Hook]:
        """The approved hooks of `event` whose matcher takes `subject` (a tool's name, PreCompact's trigger)."""
        return [h for h in self.hooks if h.approved and h.event == event and h.matches(subject)]

    def held_back(self) -> "Hooks":
        """These hooks, inert until approved."""
        return Hooks(tuple(replace(h, approved=False) for h in self.hooks), self.notes)

    def all_approved(self) -> "Hooks":
        return Hooks(tuple(replace(h, approved=True) for h in self.hooks), self.notes)

    def content(self) -> str:
        """What an approval is bound to: every hook's event, matcher, command and timeout."""
        return json.dumps([[h.event, h.matcher, h.command, h.timeout] for h in self.hooks])

    def __add__(self, other: "Hooks") -> "Hooks":
        return Hooks(self.hooks + other.hooks, self.notes + other.notes)

    def __bool__(self) -> bool:
        return bool(self.hooks)


def parse_hooks(table: object, source: str, settings: Collection[str] = ()) -> Hooks:
    """The `[hooks]` table of one config file; ValueError with a one-line reason when it is malformed. Claude
    Code's events, hook types and keys that are not run here load as notes (one line each), not as errors: a
    pasted Claude Code config starts, and says what of it does nothing. Any other key is an error (`settings`: the
    file's top-level keys, said to belong above the table when one is found in it)."""
    if not isinstance(table, dict):
        raise ValueError(f"invalid hooks in {source}: expected [[hooks.EVENT]] tables")
    out: list[Hook] = []
    notes: list[str] = []
    for event, groups in table.items():
        if event not in EVENTS and event not in NOT_RUN:
            raise ValueError(f"unknown hook event {event!r} in {source}: use one of {', '.join(EVENTS)}")
        if not isinstance(groups, list):
            raise ValueError(f"invalid hooks.{event} in {source}: expected [[hooks.{event}]] entries")
        if event in NOT_RUN:
            notes.append(f"hooks.{event} in {source} is not run: Contextual has no {event} event (its hooks "
                         f"run on {', '.join(EVENTS)})")
            continue
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                raise ValueError(f"invalid hooks.{event} in {source}: each entry needs hooks = [{{command = …}}]")
            _refuse_unknown(group, GROUP_KEYS, f"[[hooks.{event}]]", source, settings)
            matcher = str(group.get("matcher", ""))
            if event in TOOL_EVENTS and _PLAIN.fullmatch(matcher):
                for name in matcher.split("|"):
                    if (meant := named_otherwise(name)) is not None:     # a guard matching nothing fails open
                        raise ValueError(f"invalid matcher {matcher!r} in hooks.{event} of {source}: tool names "
                                         f"are case-sensitive: {meant}, not {name}")
            if matcher not in ("", "*") and not _PLAIN.fullmatch(matcher):
                try:
                    re.compile(matcher)
                except re.error as exc:        # a guard whose matcher never matches would fail open
                    raise ValueError(f"invalid matcher {matcher!r} in hooks.{event} of {source}: not a regular "
                                     f"expression ({exc})") from None
            for hook in group["hooks"]:
                kind = hook.get("type", "command") if isinstance(hook, dict) else None
                if isinstance(kind, str) and kind != "command":
                    notes.append(f"a {kind!r} hook in hooks.{event} of {source} is not run: only type = "
                                 "\"command\" hooks run here")
                    continue
                if isinstance(hook, dict):
                    _refuse_unknown(hook, HOOK_KEYS, f"[[hooks.{event}.hooks]]", source, settings)
                command = hook.get("command") if isinstance(hook, dict) else None
                if not isinstance(command, str) or not command.strip():
                    raise ValueError(f"invalid hook in hooks.{event} of {source}: needs type = \"command\" and "
                                     "a command")
                timeout = hook.get("timeout", DEFAULT_TIMEOUT)
                if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
                    raise ValueError(f"invalid hook timeout in hooks.{event} of {source}: {timeout!r}")
                ignored = [key for key in NOT_HONOURED if key in hook]
                if ignored:
                    notes.append(f"hook {command!r} in hooks.{event} of {source}: {', '.join(ignored)} not "
                                 "supported here; it runs on every matching event, in the foreground, with sh")
                out.append(Hook(event, matcher, command, float(timeout), source))
    return Hooks(tuple(out), tuple(notes))


def _refuse_unknown(entry: dict[str, Any], known: tuple[str, ...], table: str, source: str,
                    settings: Collection[str]) -> None:
    """A key no hook has: a typo, or a setting written below the hook's table, where TOML puts it (an appended
    `context_window = 8192` went into the hook entry and was never seen)."""
    unknown = set(entry) - set(known)
    if unknown:
        named = unknown_keys(unknown, known, table, settings)
        raise ValueError(f"unknown key(s) in a {table} entry of {source}: {named}")


@dataclass(frozen=True)
class HookOutcome:
    blocked: bool = False
    reason: str = ""
    notes: tuple[str, ...] = ()      # a hook that failed, ran out of time, or its `systemMessage`: for the user
    decision: str = ""               # PreToolUse's permissionDecision that is not a block: "allow", "ask" or ""
    decision_reason: str = ""
    updated_input: dict[str, Any] | None = None     # PreToolUse's `updatedInput`, the hooks' merged in order
    context: tuple[str, ...] = ()    # `additionalContext` (and a UserPromptSubmit hook's plain stdout): for the model
    stop: str | None = None          # `continue: false`: the turn ends, with `stopReason` (or a line saying so)


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
        answer = bounded_json.loads(text)     # nested deeper, it would break every later walk of updatedInput
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


class _Answers:
    """What the hooks of one event said so far (run_hooks), made into one HookOutcome."""

    def __init__(self, event: str) -> None:
        self.event = event
        self.notes: list[str] = []
        self.context: list[str] = []
        self.decision, self.decision_reason = "", ""
        self.updated: dict[str, Any] | None = None
        self.stop: str | None = None

    def take(self, hook: Hook, answer: dict[str, Any] | None, out: str) -> None:
        """One hook's exit-0 answer (its block was taken before)."""
        name = repr(hook.command)
        if answer is None:
            text = out.strip()
            if text.startswith("{"):      # a guard's answer that does not parse must not pass unnoticed
                self.notes.append(f"hook {name} printed JSON that does not parse: its answer is not read")
            elif text and self.event in CONTEXT_STDOUT:      # Claude Code adds it to the model's context
                self.context.append(_capped_context(text))
            return
        if isinstance(answer.get("systemMessage"), str) and answer["systemMessage"].strip():
            self.notes.append(f"hook {name}: {secrets.head(answer['systemMessage'].strip(), REASON_CAP)}")
        if answer.get("continue") is False:
            reason = str(answer.get("stopReason") or "").strip()
            self.stop = secrets.head(reason, REASON_CAP) or f"the {self.event} hook {name} stopped the turn"
        specific = answer.get("hookSpecificOutput")
        specific = specific if isinstance(specific, dict) else {}
        added = specific.get("additionalContext")
        if isinstance(added, str) and added.strip():
            self.context.append(_capped_context(added.strip()))
        if self.event != "PreToolUse":
            return
        decision = specific.get("permissionDecision")
        if decision is None and answer.get("decision") == "approve":      # Claude Code's older spelling of allow
            decision = "allow"
        if decision is not None and decision not in DECISIONS:
            self.notes.append(f"hook {name} answered permissionDecision {decision!r}, not one of "
                              f"{', '.join(DECISIONS)}: not read")
        elif decision == "ask" or (decision == "allow" and self.decision != "ask"):
            self.decision = decision     # ask outranks allow, as in Claude Code (a deny ended the run before)
            self.decision_reason = str(specific.get("permissionDecisionReason") or answer.get("reason") or "")
        updated = specific.get("updatedInput")
        if isinstance(updated, dict):
            self.updated = {**(self.updated or {}), **updated}
        elif updated is not None:
            self.notes.append(f"hook {name} answered updatedInput that is not a JSON object: not used")

    def outcome(self, blocked: bool = False, reason: str = "") -> HookOutcome:
        return HookOutcome(blocked, reason, tuple(self.notes), self.decision, self.decision_reason, self.updated,
                           tuple(self.context), self.stop)


def _capped_context(text: str) -> str:
    if len(text) <= CONTEXT_CAP:
        return text
    return (f"{secrets.head(text, CONTEXT_CAP)}\n"
            f"[hook output cut: {len(text) - CONTEXT_CAP:,} more characters not shown]")


async def run_hooks(hooks: list[Hook], payload: Mapping[str, Any], cwd: str) -> HookOutcome:
    """Run each hook in order; the first that blocks ends the run, and its reason is the outcome's. Exit 2 blocks
    with its stderr; JSON on stdout is read on exit 0 (a deny is taken on any exit: stricter than Claude Code,
    which drops it, so a guard that exits 1 after denying does not fail open); any other exit is a warning."""
    data = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8")
    said = _Answers(str(payload.get("hook_event_name", "")))
    env = hook_environment(cwd)
    for hook in hooks:
        try:
            code, out, err = await run_bounded(hook.command, data, cwd, hook.timeout, env)
        except OSError as exc:
            said.notes.append(f"hook {hook.command!r} could not start: {exc}")
            continue
        if code is None:
            said.notes.append(f"hook {hook.command!r} ran past {hook.timeout:g} s and was stopped")
            continue
        answer = _decision(out)
        denied = _denied(answer) if code != BLOCK_EXIT else None
        if code == BLOCK_EXIT or denied is not None:
            if code == 0:        # the rest of a JSON block is read too: `continue: false` outranks it, as in Claude Code
                said.take(hook, answer, out)
            reason = secrets.head(err.strip() if code == BLOCK_EXIT else str(denied), REASON_CAP)
            return said.outcome(True, reason or f"blocked by the hook {hook.command!r}")
        if code != 0:
            said.notes.append(f"hook {hook.command!r} exited {code}: {secrets.head(err.strip(), 200)}".rstrip(": "))
            continue
        said.take(hook, answer, out)
        if said.stop is not None:
            break
    return said.outcome()
