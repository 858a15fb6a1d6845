"""OpenHands trajectories into the neutral shape of core/replay/trajectory.py, every version we know of:

- an event list (``tests/runtime/trajs/*.json``, a downloaded trajectory), ``{"history": [...]}``, or an
  evaluation ``output.jsonl`` (one instance a line: ``{"instance_id", "instruction", "history", ...}``);
- events of OpenHands 0.x (``{"id", "source", "action"|"observation", "args"|"content"+"extras", "cause",
  "tool_call_metadata"}``), the 2024 evaluation pairs (``history: [[action, observation], ...]``), the older
  flat events (arguments beside ``action``, no ``source``), and the V1 SDK's typed events (``kind``:
  ``SystemPromptEvent``, ``MessageEvent``, ``ActionEvent``, ``ObservationEvent``, ``AgentErrorEvent``,
  ``Condensation``…).

What becomes what. The first user message is the task; the ``system`` event (or ``SystemPromptEvent``) is the
system prompt, with the tool schemas it records (sent with every call), and a workspace ``recall`` observation
the context the agent added (all preamble). Each agent action is a step: a tool call (``execute_bash``,
``str_replace_editor view|create|str_replace|insert``, ``execute_ipython_cell``, ``think``, ``finish``,
browsing, MCP…), or a ``message`` (the agent answered in words; the user's next message is its reply). Calls of
one model reply (one ``model_response`` id, V1 ``llm_response_id``) are one step. The observation answering a
call (by ``cause``, or by tool call id) is its output as the agent read it: a command's output with the prefix,
suffix and ``[Command finished with exit code N]`` lines OpenHands adds, an error with its ``[Error occurred in
processing last action]`` line, anything past the run's ``max_message_chars`` cut in the middle.
``condensation`` actions (and V1 ``Condensation``) are recorded so the baseline drops what the agent dropped.
Skipped on purpose: ``agent_state_changed``, ``change_agent_state``, ``null`` observations, ``recall`` actions,
streaming/token/state events, and any kind we do not know (a new version's events cost nothing).
"""

from __future__ import annotations

from typing import Any

import json
from pathlib import Path

from contextual.core.replay.load_events import Steps, message_step, parse_args, stem, tool_step
from contextual.core.replay.trajectory import OPENHANDS_FORMAT, Condensation, Step, Trajectory, TrajectoryError, text_of

_V1_KINDS = {"SystemPromptEvent", "MessageEvent", "ActionEvent", "ObservationEvent", "AgentErrorEvent",
             "UserRejectObservation", "Condensation", "CondensationSummaryEvent"}
_SKIPPED_OBSERVATIONS = {"null", "agent_state_changed", "recall", "condense"}
MAX_MESSAGE_CHARS = 30_000      # OpenHands' LLMConfig.max_message_chars default: longer observations are cut
# Actions logged without tool_call_metadata (before native function calls): the tool each stands for.
_LEGACY_TOOLS = {"run": "execute_bash", "run_ipython": "execute_ipython_cell", "read": "str_replace_editor",
                 "edit": "str_replace_editor", "write": "str_replace_editor", "browse": "browser",
                 "browse_interactive": "browser", "think": "think", "finish": "finish", "delegate": "delegate",
                 "call_tool_mcp": "mcp"}
_META_KEYS = {"id", "timestamp", "source", "message", "action", "observation", "cause", "args", "extras",
              "content", "tool_call_metadata", "llm_metrics", "timeout", "success", "hidden"}


def _event_like(row: Any) -> bool:
    return isinstance(row, dict) and "type" not in row and (
        "action" in row or "observation" in row or row.get("kind") in _V1_KINDS)


def is_openhands(rows: list[Any]) -> bool:
    if any(isinstance(r, dict) and isinstance(r.get("history"), list) for r in rows):
        return True
    if any(isinstance(r, list) and len(r) == 2 and all(isinstance(x, dict) for x in r) for r in rows):
        return True
    return any(_event_like(r) for r in rows)


def load(rows: list[Any], path: Path) -> list[Trajectory]:
    if any(isinstance(r, dict) and isinstance(r.get("history"), list) for r in rows):
        return [_trajectory(r["history"], str(r.get("instance_id") or stem(path)), path, r.get("instruction"),
                            _max_chars(r))
                for r in rows if isinstance(r, dict) and isinstance(r.get("history"), list)]
    return [_trajectory(rows, stem(path), path)]


def _flatten(history: list[Any]) -> list[dict[str, Any]]:
    """The events in order, whatever the version: pairs unpacked, flat arguments moved into `args`."""
    events: list[dict[str, Any]] = []
    for item in history:
        for event in item if isinstance(item, list) else [item]:
            if not isinstance(event, dict) or not event:
                continue
            if "kind" not in event and not all(isinstance(event.get(k, ""), str) for k in ("action", "observation")):
                continue             # not an event we can read (its type is not a name): skipped
            if "kind" in event or "args" in event or "extras" in event or "observation" in event:
                events.append(event)
            else:          # flat: {"action": "run", "command": ..., "thought": ...}
                events.append({**{k: v for k, v in event.items() if k in _META_KEYS},
                               "args": {k: v for k, v in event.items() if k not in _META_KEYS}})
    return events


def _max_chars(row: dict[str, Any]) -> int:
    """The run's `max_message_chars` when its metadata records it, else OpenHands' default."""
    value = _dict(_dict(row.get("metadata")).get("llm_config")).get("max_message_chars")
    return value if isinstance(value, int) else MAX_MESSAGE_CHARS


def _trajectory(history: list[Any], name: str, path: Path, instruction: str | None = None,
                max_chars: int = 0) -> Trajectory:
    events = _flatten(history)
    if any(e.get("kind") in _V1_KINDS for e in events):
        return _v1(events, name, path, instruction)
    return _v0(events, name, path, instruction, max_chars or MAX_MESSAGE_CHARS)


# --- OpenHands 0.x ---------------------------------------------------------------------------------------------

def _v0(events: list[dict[str, Any]], name: str, path: Path, instruction: str | None, max_chars: int) -> Trajectory:
    task = instruction or ""
    preamble: list[str] = []
    system: list[str] = []
    by_cause = {str(e.get("cause")): e for e in events
                if "observation" in e and isinstance(e.get("cause"), (int, str))}
    by_call = {str(_meta(e).get("tool_call_id")): e for e in events if "observation" in e and _meta(e)}
    # the oldest logs have no ids: an action is answered by the observation right after it
    by_place = {id(e): nxt for e, nxt in zip(events, events[1:])
                if "action" in e and "observation" in nxt and nxt.get("cause") is None}
    steps = Steps()
    step_of_event: dict[str, int] = {}
    condensations: list[Condensation] = []
    pending: Step | None = None          # an agent message waiting for the user's reply
    for event in events:
        action, source = event.get("action"), event.get("source")
        args = _dict(event.get("args"))
        if action == "system":         # the system prompt, and the tool schemas sent with every call
            system.append(str(args.get("content") or event.get("message") or ""))
            if args.get("tools"):
                system.append(json.dumps(args["tools"], ensure_ascii=False))
        elif action == "message" and source != "agent":
            text = str(args.get("content") or event.get("message") or "")
            if not task:
                task = text
            elif pending is not None:
                steps.add(message_step(pending.thought, text))
                pending = None
            elif steps and text != task:
                steps.reply_to_last(text)
        elif event.get("observation") == "recall" and source != "agent":
            preamble += _recall_text(event)
        elif action == "condensation":
            condensations.append(_condensation(args, step_of_event, len(steps) + (pending is not None)))
        elif event.get("observation") == "condense" and condensations:
            last_c = condensations[-1]
            condensations[-1] = Condensation(last_c.before_step, last_c.dropped, str(event.get("content") or ""))
        elif action and source != "user" and source != "environment":
            if pending is not None:
                steps.add(message_step(pending.thought, ""))
                pending = None
            if action == "message" and not _meta(event):
                pending = Step(str(args.get("content") or event.get("message") or ""), "", "", None)
                continue
            if action in ("recall", "change_agent_state", "null"):
                continue
            answer = (by_cause.get(str(event.get("id"))) or by_call.get(str(_meta(event).get("tool_call_id")))
                      or by_place.get(id(event)))
            tool, call_args = _call(event, args)
            thought = str(args.get("thought") or _response_text(_meta(event)) or "")
            reply = _dict(_meta(event).get("model_response")).get("id") or None
            step_of_event[str(event.get("id"))] = steps.add(
                tool_step(thought, tool, call_args, _observation_text(answer, max_chars),
                          bool(answer and answer.get("observation") == "error"), _exit_code(answer)), reply)
    if pending is not None:
        steps.add(message_step(pending.thought, ""))
    if not task:
        raise TrajectoryError("no task: no user message event")
    system = [s for s in system if s]
    return Trajectory(name, task, steps.steps, OPENHANDS_FORMAT, path, system + preamble,
                      system_prompt_recorded=bool(system), condensations=condensations)


def _dict(value: Any) -> dict[str, Any]:
    """A field that should hold an object: anything else reads as empty (a log's oddity costs that field only)."""
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _meta(event: dict[str, Any] | None) -> dict[str, Any]:
    return _dict(_dict(event).get("tool_call_metadata"))


def _call(event: dict[str, Any], args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(tool name, arguments as the model sent them) of one action event."""
    meta = _meta(event)
    name = meta.get("function_name")
    if name:
        for choice in _list(_dict(meta.get("model_response")).get("choices")):
            for call in _list(_dict(_dict(choice).get("message")).get("tool_calls")):
                if _dict(call).get("id") == meta.get("tool_call_id"):
                    return str(name), parse_args(_dict(call.get("function")).get("arguments"))
        return str(name), {k: v for k, v in args.items() if k != "thought"}
    action = str(event.get("action"))
    tool = _LEGACY_TOOLS.get(action, action)
    kept = {k: v for k, v in args.items() if k not in ("thought", "is_confirmed", "confirmation_state",
                                                          "security_risk", "keep_prompt", "blocking", "hidden")
            and v not in ("", None, {}, [])}     # empty fields are OpenHands' defaults, not what the model sent
    if action == "read" and "command" not in kept:
        kept = {"command": "view", **kept}
    return tool, kept


def _response_text(meta: dict[str, Any]) -> str:
    for choice in _list(_dict(meta.get("model_response")).get("choices")):
        content = _dict(_dict(choice).get("message")).get("content")
        if isinstance(content, (str, list)) and content:
            return text_of(content)
    return ""


def _observation_text(answer: dict[str, Any] | None, max_chars: int = 0) -> str:
    """What the agent read for one observation (openhands/memory/conversation_memory.py's rules), cut in the
    middle past `max_chars` as OpenHands cuts it (a file view is not: the editor already bounded it)."""
    text = _observation_body(answer)
    if max_chars <= 0 or len(text) <= max_chars or _dict(answer).get("observation") == "read":
        return text
    half = max_chars // 2
    return f"{text[:half]}\n[... Observation truncated due to length ...]\n{text[-half:]}"


def _observation_body(answer: dict[str, Any] | None) -> str:
    if not answer or answer.get("observation") in _SKIPPED_OBSERVATIONS:
        return ""
    content = str(answer.get("content") or "")
    kind = answer.get("observation")
    extras = _dict(answer.get("extras"))
    if kind == "run" and isinstance(extras.get("metadata"), dict):
        return _with_metadata(content, extras["metadata"])
    if kind == "error":
        return f"{content}\n[Error occurred in processing last action]"
    if kind == "user_rejected":
        return f"OBSERVATION:\n{content}\n[Last action has been rejected by the user]"
    return content


def _with_metadata(content: str, meta: dict[str, Any]) -> str:
    """A command's output as OpenHands shows it to the model (0.x CmdOutputObservation.to_agent_observation,
    V1 TerminalObservation.to_llm_content): prefix, output, suffix, then the shell's state."""
    text = f"{meta.get('prefix') or ''}{content}{meta.get('suffix') or ''}"
    if meta.get("working_dir"):
        text += f"\n[Current working directory: {meta['working_dir']}]"
    if meta.get("py_interpreter_path"):
        text += f"\n[Python interpreter: {meta['py_interpreter_path']}]"
    if meta.get("exit_code", -1) not in (-1, None):
        text += f"\n[Command finished with exit code {meta['exit_code']}]"
    return text


def _exit_code(answer: dict[str, Any] | None) -> int | None:
    extras = _dict(_dict(answer).get("extras"))
    meta = _dict(extras.get("metadata"))
    code = meta.get("exit_code", extras.get("exit_code", (answer or {}).get("exit_code")))
    return code if isinstance(code, int) and code != -1 else None


def _recall_text(event: dict[str, Any]) -> list[str]:
    """The workspace context a recall observation gave the agent: every text it carried."""
    extras = _dict(event.get("extras"))
    texts = []               # its `content` ("Added workspace context") is a log line, not sent
    for key in ("repo_instructions", "additional_agent_instructions", "conversation_instructions"):
        texts.append(str(extras.get(key) or ""))
    for agent in _list(extras.get("microagent_knowledge")):
        if isinstance(agent, dict):
            texts.append(str(agent.get("content") or ""))
    return [t for t in texts if t.strip()]


def _condensation(args: dict[str, Any], step_of_event: dict[str, int], before: int) -> Condensation:
    forgotten = {str(i) for i in _list(args.get("forgotten_event_ids"))}
    start, end = args.get("forgotten_events_start_id"), args.get("forgotten_events_end_id")
    if isinstance(start, int) and isinstance(end, int):
        forgotten |= {str(i) for i in range(start, end + 1)}
    dropped = frozenset(step for event_id, step in step_of_event.items() if event_id in forgotten)
    return Condensation(before, dropped, str(args.get("summary") or ""))


# --- OpenHands V1 (software-agent-sdk) -----------------------------------------------------------------------------

def _parts_text(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("text") or "")
    if isinstance(value, (list, str)):
        return text_of([p for p in value if isinstance(p, dict)] if isinstance(value, list) else value)
    return ""


def _v1(events: list[dict[str, Any]], name: str, path: Path, instruction: str | None) -> Trajectory:
    task = instruction or ""
    system: list[str] = []
    outputs: dict[str, tuple[str, bool, int | None]] = {}     # by tool call id: text, error, exit code
    for event in events:
        kind, call_id = event.get("kind"), str(event.get("tool_call_id"))
        if kind == "ObservationEvent":
            observation = _dict(event.get("observation"))
            text = _parts_text(observation.get("content")) or str(observation.get("output") or "")
            meta = _dict(observation.get("metadata"))
            text = _with_metadata(text, meta) if meta else text
            extended = _parts_text(event.get("extended_content"))
            code = observation.get("exit_code", meta.get("exit_code"))
            outputs[call_id] = (f"{text}\n{extended}" if extended else text, bool(observation.get("is_error")),
                                code if isinstance(code, int) and code != -1 else None)
        elif kind == "AgentErrorEvent":
            outputs[call_id] = (str(event.get("error") or ""), True, None)
        elif kind == "UserRejectObservation":
            reason = str(event.get("rejection_reason") or "User rejected the action")
            outputs[call_id] = (f"Action rejected: {reason}", True, None)
    steps = Steps()
    step_of_event: dict[str, int] = {}
    condensations: list[Condensation] = []
    pending: str | None = None
    for event in events:
        kind = event.get("kind")
        if kind == "SystemPromptEvent":
            system.append(_parts_text(event.get("system_prompt")))
            if event.get("tools"):
                system.append(json.dumps(event["tools"], ensure_ascii=False))
        elif kind == "MessageEvent":
            text = _parts_text(_dict(event.get("llm_message")).get("content"))
            if event.get("source") == "agent":
                if pending is not None:
                    steps.add(message_step(pending, ""))
                pending = text
            elif not task:
                task = text
            elif pending is not None:
                steps.add(message_step(pending, text))
                pending = None
        elif kind == "ActionEvent":
            if pending is not None:
                steps.add(message_step(pending, ""))
                pending = None
            call = _dict(event.get("tool_call"))
            output, error, code = outputs.get(str(event.get("tool_call_id")), ("", False, None))
            args = parse_args(call.get("arguments")) if "arguments" in call else \
                {k: v for k, v in _dict(event.get("action")).items() if k != "kind"}   # the parsed action
            step_of_event[str(event.get("id"))] = steps.add(
                tool_step(_parts_text(event.get("thought")), str(event.get("tool_name") or call.get("name")),
                          args, output, error, code), event.get("llm_response_id"))
        elif kind == "Condensation":
            condensations.append(_condensation(event, step_of_event, len(steps)))
    if pending is not None:
        steps.add(message_step(pending, ""))
    if not task:
        raise TrajectoryError("no task: no user message event")
    system = [s for s in system if s]
    return Trajectory(name, task, steps.steps, OPENHANDS_FORMAT, path, system, system_prompt_recorded=bool(system),
                      condensations=condensations)
