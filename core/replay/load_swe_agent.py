"""SWE-agent trajectories (``*.traj``), every variant, into the neutral shape of core/replay/loaders.py.

- Text commands (SWE-agent 0.x, e.g. ``pydicom__pydicom-1458.traj``): ``trajectory[]`` of ``{action,
  observation, thought, response}`` and a ``history`` of the messages sent (demonstrations flagged ``is_demo``).
- Function calling (SWE-agent 1.x): the same ``trajectory[]``, or only a ``history`` whose assistant messages carry
  ``action`` and ``tool_calls`` and whose ``tool`` messages are the observations (the demonstration files); an
  empty ``trajectory`` falls back to the ``history``, a missing ``history`` to the first step's ``query``.

The task is the first non-demonstration user message of ``history``; everything before it is the preamble.
SWE-agent 1.x records each prompt it sent (``trajectory[].query``; ``messages`` in early 1.0 files), after its
history processors (e.g. old observations elided): the baseline uses those prompts as they are. An assistant
message's ``tool_calls`` are part of what it sent, so their arguments count with its text.
The actions stay SWE-agent's own commands (``open``, ``goto``, ``search_file``, ``edit 1:3``…); the stored forms
(core/context/digest.py) know them.
"""

from __future__ import annotations

from typing import Any

import re
from pathlib import Path

from contextual.core.replay.trajectory import SWE_AGENT_FORMAT, Step, Trajectory, TrajectoryError, instance_id_of, text_of

_FENCE = re.compile(r"```[\w-]*[ \t]*\n(.*?)\n?```", re.S)


def is_swe_agent(data: dict[str, Any]) -> bool:
    if isinstance(data.get("trajectory"), list):
        return True
    history = data.get("history")
    # SWE-agent history items are messages (a `role`); an OpenHands history of events has none
    return isinstance(history, list) and any(isinstance(m, dict) and "action" in m and "role" in m for m in history)


def _task_and_preamble(history: list[dict[str, Any]]) -> tuple[str, list[str]]:
    preamble: list[str] = []
    task = ""
    for message in history:
        if message.get("role") == "assistant" and not message.get("is_demo"):
            break
        text = text_of(message.get("content", ""))
        if message.get("role") == "user" and not message.get("is_demo") and not task:
            task = text
        else:
            preamble.append(text)
    if not task:
        raise TrajectoryError("no task: history has no non-demonstration user message before the first action")
    return task, preamble


def _sent_text(message: dict[str, Any]) -> str:
    """A message's text as sent: its content, and for an assistant message the calls it made."""
    text = text_of(message.get("content") or "")
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            text += f"\n{function.get('name', '')} {function.get('arguments', '')}"
    return text


def _recorded(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the agent sent, in order; a `tool` message is the observation it read."""
    return [{"role": "assistant" if m.get("role") == "assistant" else ("system" if m.get("role") == "system"
                                                                       else "user"),
             "content": _sent_text(m), "demo": bool(m.get("is_demo"))}
            for m in history if isinstance(m, dict)]


def _queries(entries: list[Any]) -> list[list[dict[str, Any]]] | None:
    """The prompt of each step as SWE-agent 1.x recorded it, when every step has one."""
    queries = []
    for entry in entries:
        query = entry.get("query", entry.get("messages")) if isinstance(entry, dict) else None
        if not isinstance(query, list) or not query or not all(isinstance(m, dict) and m for m in query):
            return None
        queries.append([{"role": str(m.get("role") or "user"), "content": _sent_text(m)} for m in query])
    return queries or None


def _step(action: str, observation: str, thought: str, response: str) -> Step:
    action = action.rstrip("\n")
    thought = thought.strip()
    if not thought and response:
        thought = _FENCE.sub("", response).strip()
    if response and action and action not in response:     # function calling: the call is not in the text
        response = f"{response}\n{action}"
    return Step(thought=thought, action=action, output=observation, returncode=None,
                response=response or f"{thought}\n{action}")


def load(data: dict[str, Any], path: Path) -> Trajectory:
    history = [m for m in data.get("history") or [] if isinstance(m, dict)]
    entries = [e for e in data.get("trajectory") or [] if isinstance(e, dict)]
    if not history and entries and isinstance(entries[0].get("query"), list):
        history = [m for m in entries[0]["query"] if isinstance(m, dict)]      # the first prompt holds the task
    task, preamble = _task_and_preamble(history)
    steps: list[Step] = []
    if entries:
        for entry in entries:
            steps.append(_step(str(entry.get("action") or ""), str(entry.get("observation") or ""),
                               str(entry.get("thought") or ""), str(entry.get("response") or "")))
    else:
        live = [m for m in history if not m.get("is_demo")]
        for index, message in enumerate(live):
            if message.get("role") != "assistant" or "action" not in message:
                continue
            following = live[index + 1] if index + 1 < len(live) else None
            observation = (text_of(following.get("content", ""))
                           if following and following.get("role") in ("tool", "user") else "")
            content = text_of(message.get("content", ""))
            response = content if str(message.get("action") or "") in content else \
                f"{content}\n{message.get('action') or ''}".strip()
            steps.append(_step(str(message.get("action") or ""), observation,
                               str(message.get("thought") or content), response))
    recorded = _recorded(history) if history else None
    queries = _queries(entries) if entries else None
    system = any(m.get("role") == "system" for m in history)
    return Trajectory(instance_id_of(data, path), task, steps, SWE_AGENT_FORMAT, path, preamble, recorded,
                      system_prompt_recorded=system, queries=queries)
