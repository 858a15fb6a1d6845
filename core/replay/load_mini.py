"""mini-swe-agent trajectories (``trajectory_format`` ``mini-swe-agent-1`` / ``-1.1``, ``*.traj.json``).

A ``messages`` list: system prompt, the task (first user message), then assistant turns (``THOUGHT: …`` + one
bash block) each answered by a user turn ``<returncode>N</returncode><output>…</output>``.
mini-swe-agent 2.x also records tool calling: the assistant message carries ``tool_calls`` and
``extra.actions`` (``[{"command", "tool_call_id"}]``) and each action is answered by a ``tool`` message; with
the Responses API a turn is a response object (``"object": "response"``, ``output`` items) answered by
``function_call_output`` items. Several actions of one turn play as one command (joined by newlines) whose
output is their outputs in order. ``exit`` messages (the run's end, not a model call) are skipped.
Every assistant turn becomes one Step, so a replay makes exactly as many model calls as the recording.
An assistant turn with zero or several bash blocks (mini-swe-agent rejected it with "Please always provide
EXACTLY ONE action…") stays a step too: its action is the first bash block (empty when there is none), its
output the rejection the agent saw, and ``format_error`` is set. The thought keeps all the other text of the
turn — later bash blocks included — so nothing the agent wrote is lost from the context.
"""

from __future__ import annotations

from typing import Any

import json
import re
from pathlib import Path

from contextual.core.replay.trajectory import MINI_FORMAT, Step, Trajectory, TrajectoryError, instance_id_of, text_of

_BASH_BLOCK = re.compile(r"```bash[ \t]*\n(.*?)\n?```", re.S)
_THOUGHT_PREFIX = re.compile(r"^\s*THOUGHT\s*:\s*", re.I)
_RETURNCODE = re.compile(r"^\s*<returncode>\s*(-?\d+)\s*</returncode>\s*\n?", re.S)
_PLAIN_OUTPUT = re.compile(r"^<output>\n?(.*?)\n?</output>\s*$", re.S)
_TIMEOUT = re.compile(r"^The last command <command>.*?</command> timed out", re.S)


def is_mini(data: dict[str, Any]) -> bool:
    return str(data.get("trajectory_format", "")).startswith("mini-swe-agent") or (
        "messages" in data and "trajectory" not in data)


def _role(message: dict[str, Any]) -> str:
    if message.get("role"):
        return str(message["role"])
    if message.get("object") == "response":
        return "assistant"
    return "tool" if message.get("type") == "function_call_output" else "other"


def _text(message: dict[str, Any]) -> str:
    if message.get("object") == "response":        # Responses API: the text of its message items
        return "\n".join(text_of(item.get("content") or "") for item in message.get("output") or []
                         if isinstance(item, dict) and item.get("type") == "message")
    if message.get("type") == "function_call_output":
        return str(message.get("output") or "")
    content = message.get("content")
    return "" if content is None else text_of(content)


def _commands(message: dict[str, Any]) -> list[str]:
    """The commands of a tool-calling turn (mini-swe-agent 2.x), in order; [] for a text turn."""
    actions = (message.get("extra") or {}).get("actions")
    if isinstance(actions, list) and actions and all(isinstance(a, dict) and isinstance(a.get("command"), str)
                                                      for a in actions):
        return [a["command"] for a in actions]
    calls = [c.get("function") for c in message.get("tool_calls") or [] if isinstance(c, dict)]
    calls += [item for item in message.get("output") or []
              if isinstance(item, dict) and item.get("type") == "function_call"]
    commands = []
    for call in calls:
        try:
            args = json.loads(call.get("arguments") or "{}") if isinstance(call, dict) else {}
        except ValueError:
            args = {}
        if isinstance(args, dict) and isinstance(args.get("command"), str):
            commands.append(args["command"])
    return commands


def _sent(message: dict[str, Any]) -> str:
    """A message as the model received it: its text, and for a tool-calling turn the calls it made."""
    text = _text(message)
    commands = _commands(message) if _role(message) == "assistant" else []
    return text + "".join(f"\nbash {json.dumps({'command': c})}" for c in commands)


def load(data: dict[str, Any], path: Path) -> Trajectory:
    messages = data["messages"]
    if not isinstance(messages, list):
        raise TrajectoryError("'messages' is not a list")
    messages = [m for m in messages if isinstance(m, dict) and _role(m) != "exit"]
    roles = [_role(m) for m in messages]
    if "assistant" not in roles:
        raise TrajectoryError("no assistant turn")
    first_assistant = roles.index("assistant")
    before = messages[:first_assistant]
    users = [m for m in before if _role(m) == "user"]
    if not users:
        raise TrajectoryError("no task (user message) before the first assistant turn")
    task = _text(users[0])
    if not task.strip():
        raise TrajectoryError("no task: the first user message is empty")
    preamble = [_text(m) for m in before if m is not users[0]]
    steps: list[Step] = []
    for index in range(first_assistant, len(messages)):
        if roles[index] != "assistant":
            continue
        answers = []
        for following in messages[index + 1:]:
            if _role(following) not in ("user", "tool"):
                break
            answers.append(following)
        steps.append(_turn(messages[index], answers))
    recorded = [{"role": "user" if _role(m) in ("tool", "other") else _role(m), "content": _sent(m)}
                for m in messages]
    return Trajectory(instance_id_of(data, path), task, steps, MINI_FORMAT, path, preamble, recorded,
                      system_prompt_recorded=any(_role(m) == "system" for m in before))


def _turn(message: dict[str, Any], answers: list[dict[str, Any]]) -> Step:
    """One assistant turn and what answered it: a text turn as mini-swe-agent 1.x wrote it, or tool calls."""
    commands = _commands(message)
    if not commands:
        return _mini_step(_text(message), _text(answers[0]) if answers else "")
    text = _text(message)
    action = "\n".join(commands)
    outputs = [_mini_output(_text(a)) for a in answers]
    codes = [code for _, code in outputs if code is not None]
    return Step(thought=_THOUGHT_PREFIX.sub("", text, count=1).strip(), action=action,
                output="\n".join(out for out, _ in outputs), returncode=codes[-1] if codes else None,
                response=text if action in text else f"{text}\n{action}".strip(),
                timed_out=any(_TIMEOUT.match(_text(a)) for a in answers))


def _mini_step(response: str, observation: str) -> Step:
    blocks = list(_BASH_BLOCK.finditer(response))
    if blocks:
        first = blocks[0]
        action = first.group(1)
        rest = response[:first.start()].rstrip() + ("\n\n" + response[first.end():].strip()
                                                     if response[first.end():].strip() else "")
    else:
        action, rest = "", response
    thought = _THOUGHT_PREFIX.sub("", rest, count=1).strip()
    output, returncode = _mini_output(observation)
    return Step(thought=thought, action=action, output=output, returncode=returncode, response=response,
                format_error=len(blocks) != 1, timed_out=bool(_TIMEOUT.match(observation)))


def _mini_output(observation: str) -> tuple[str, int | None]:
    """`<returncode>N</returncode>\\n<output>X</output>` -> (X, N). Anything else (a long output cut to
    head/elided/tail with its warning, a format error, a timeout notice, the final diff) is kept whole
    after the returncode tag, since that is what the agent read."""
    match = _RETURNCODE.match(observation)
    if not match:
        return observation, None
    rest = observation[match.end():]
    plain = _PLAIN_OUTPUT.match(rest)
    return (plain.group(1) if plain else rest), int(match.group(1))
