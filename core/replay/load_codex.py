"""Codex CLI rollout JSONL (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) into the neutral shape of
core/replay/trajectory.py.

Lines are ``{"timestamp", "type", "payload"}`` (older files put the item itself on the line, after a first line
``{"id", "timestamp", "instructions"}``):
- ``session_meta``: the id; ``base_instructions`` (newer files) is the system prompt, ``instructions`` the
  user's AGENTS.md instructions (preamble).
- ``response_item``: ``message`` (``developer`` messages and user messages holding ``<environment_context>``,
  ``<user_instructions>`` or AGENTS.md are preamble; the first other user message is the task; a later one is
  the reply to the step before it; assistant text is the thought of the next call, or a step of its own when
  no call follows); ``function_call`` / ``custom_tool_call`` / ``local_shell_call`` / ``web_search_call`` are
  steps (calls with nothing between them came in one reply: one step), answered by the
  ``function_call_output`` / ``custom_tool_call_output`` with their ``call_id``
  (a shell output wrapped as ``{"output", "metadata"}`` is unwrapped: our Bash returns the text alone, and
  the baseline gets the same, which favours it); ``reasoning`` is skipped (encrypted or a summary).
- ``compacted``: the agent replaced its history by a summary; recorded as a condensation for the baseline.
- ``codex exec --json`` streams (``thread.started``, ``item.completed`` …): ``command_execution`` (its
  ``bash -lc`` wrapper taken off), ``file_change``, ``mcp_tool_call`` and ``web_search`` items are steps,
  ``agent_message`` text their thought; the stream holds no user prompt (the task is a placeholder) and no
  system prompt; ``reasoning``, ``todo_list`` and ``error`` items are skipped.
- Skipped on purpose: ``event_msg`` (the UI's copies of the same items; a ``user_message`` one gives the task
  only when no response item does), ``turn_context``, ``record_type``
  state lines, ``ghost_snapshot`` and any type we do not know.
"""

from __future__ import annotations

from typing import Any

import json
import shlex
from pathlib import Path

from contextual.core.replay.load_events import TASK_NOT_RECORDED, Steps, message_step, parse_args, stem, tool_step
from contextual.core.replay.trajectory import CODEX_FORMAT, Condensation, Trajectory, TrajectoryError, text_of

_ITEMS = {"message", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output",
          "local_shell_call", "web_search_call", "reasoning"}
_CALLS = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call")
_CONTEXT = ("<environment_context>", "<user_instructions>", "# AGENTS.md", "<permissions instructions>")


_EXEC_EVENTS = {"thread.started", "turn.started", "item.started", "item.updated", "item.completed",
                "turn.completed", "turn.failed"}


def is_codex(rows: list[dict[str, Any]]) -> bool:
    return any(r.get("type") in ("response_item", "session_meta", "compacted") or r.get("type") in _ITEMS
               or r.get("type") in _EXEC_EVENTS for r in rows)


def _item(row: dict[str, Any]) -> dict[str, Any] | None:
    if row.get("type") in ("response_item", "compacted") and isinstance(row.get("payload"), dict):
        return {**row["payload"], "type": "compacted"} if row["type"] == "compacted" else row["payload"]
    return row if row.get("type") in _ITEMS else None


def _output(output: Any) -> str:
    if isinstance(output, str):
        try:
            value = json.loads(output)
        except ValueError:
            return output
        inner = value.get("output") if isinstance(value, dict) else None
        return inner if isinstance(inner, str) else output
    if isinstance(output, dict):
        return str(output.get("output") or output.get("content") or "")
    if isinstance(output, list):
        return "\n".join(str(p.get("text", "")) for p in output if isinstance(p, dict))
    return ""


def _call(item: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    kind = item.get("type")
    if kind == "local_shell_call":
        return "local_shell", parse_args(item.get("action"))
    if kind == "web_search_call":
        return "web_search", parse_args(item.get("action"))
    if kind == "custom_tool_call":
        return str(item.get("name")), parse_args(item.get("input"))
    return str(item.get("name")), parse_args(item.get("arguments"))


def _instructions(meta: dict[str, Any]) -> tuple[list[str], bool]:
    """(preamble texts, whether the system prompt itself is recorded) from the session's metadata."""
    base = meta.get("base_instructions")
    base = base.get("text") if isinstance(base, dict) else base
    texts = [t for t in (base, meta.get("instructions")) if isinstance(t, str) and t.strip()]
    return texts, bool(isinstance(base, str) and base.strip())


def _unwrapped(command: Any) -> str:
    """`/bin/zsh -lc "date"` -> `date`: the command the model wrote, not the shell Codex ran it in."""
    text = str(command or "")
    try:
        words = shlex.split(text)
    except ValueError:
        return text
    if len(words) == 3 and words[0].rsplit("/", 1)[-1] in ("bash", "zsh", "sh") and words[1] in ("-lc", "-c"):
        return words[2]
    return text


def _load_exec(rows: list[dict[str, Any]], path: Path) -> Trajectory:
    """A `codex exec --json` stream: completed items in order."""
    steps, thought = Steps(), list[str]()
    for row in rows:
        got = row.get("item") if row.get("type") == "item.completed" else None
        item: dict[str, Any] = got if isinstance(got, dict) else {}
        kind = item.get("type")
        if kind == "agent_message":
            thought.append(str(item.get("text") or ""))
            continue
        if kind == "command_execution":
            code = item.get("exit_code")
            step = tool_step("\n".join(thought), "shell", {"command": _unwrapped(item.get("command"))},
                             str(item.get("aggregated_output") or item.get("output") or ""),
                             returncode=code if isinstance(code, int) else None)
        elif kind in ("file_change", "mcp_tool_call", "web_search"):
            name = f"{item.get('server')}.{item.get('tool')}" if kind == "mcp_tool_call" else kind
            args = {k: v for k, v in item.items() if k not in ("id", "type", "status", "result", "server", "tool")}
            result = item.get("result")
            step = tool_step("\n".join(thought), name, args,
                             "" if result is None else json.dumps(result, ensure_ascii=False))
        else:
            continue
        steps.add(step)
        thought = []
    if thought:
        steps.add(message_step("\n".join(thought), ""))
    thread = next((str(r["thread_id"]) for r in rows if r.get("type") == "thread.started" and r.get("thread_id")),
                  stem(path))
    return Trajectory(thread, TASK_NOT_RECORDED, steps.steps, CODEX_FORMAT, path, system_prompt_recorded=False)


def load(rows: list[dict[str, Any]], path: Path) -> Trajectory:
    if not any(r.get("type") in ("response_item", "session_meta") or r.get("type") in _ITEMS for r in rows):
        return _load_exec(rows, path)
    meta = next((r.get("payload", r) for r in rows if r.get("type") == "session_meta"),
                rows[0] if rows and "instructions" in rows[0] and "type" not in rows[0] else {})
    meta = meta if isinstance(meta, dict) else {}
    preamble, recorded = _instructions(meta)
    items = [i for i in (_item(r) for r in rows) if i is not None]
    outputs = {str(i.get("call_id")): _output(i.get("output")) for i in items
               if i.get("type") in ("function_call_output", "custom_tool_call_output")}
    task, thought = "", list[str]()
    steps = Steps()
    condensations: list[Condensation] = []
    reply = 0                 # calls with nothing between them came in one reply
    for item in items:
        kind = item.get("type")
        reply += kind not in _CALLS
        if kind == "message":
            text, role = text_of(item.get("content") or ""), item.get("role")
            if role in ("developer", "system") or (role == "user" and text.lstrip().startswith(_CONTEXT)):
                preamble.append(text)
            elif role == "user" and not task:
                task = text
            elif role == "user" and thought:
                steps.add(message_step("\n".join(thought), text))
                thought = []
            elif role == "user" and steps:
                steps.reply_to_last(text)
            elif role == "assistant":
                thought.append(text)
        elif kind in _CALLS:
            name, args = _call(item)
            steps.add(tool_step("\n".join(thought), name, args, outputs.get(str(item.get("call_id")), "")), reply)
            thought = []
        elif kind == "compacted":
            condensations.append(Condensation(len(steps), frozenset(range(len(steps))), str(item.get("message") or "")))
    if thought:
        steps.add(message_step("\n".join(thought), ""))
    if not task:      # a rollout whose user turns are only in the UI's copies
        task = next((str(r["payload"].get("message") or "") for r in rows if r.get("type") == "event_msg"
                     and isinstance(r.get("payload"), dict) and r["payload"].get("type") == "user_message"), "")
    if not task:
        raise TrajectoryError("no task: no user message in the rollout")
    # `instructions` is the AGENTS.md text the rollout also sends as a user message: counted once
    preamble = [text for i, text in enumerate(preamble)
                if not any(text in other for j, other in enumerate(preamble) if j != i and len(other) > len(text))]
    name = str(meta.get("id") or stem(path))
    return Trajectory(name, task, steps.steps, CODEX_FORMAT, path, preamble, system_prompt_recorded=recorded,
                      condensations=condensations)
