"""mini-swe-agent trajectories (``trajectory_format`` ``mini-swe-agent-1``, ``*.traj.json``).

A ``messages`` list: system prompt, the task (first user message), then assistant turns (``THOUGHT: …`` + one
bash block) each answered by a user turn ``<returncode>N</returncode><output>…</output>``.
Every assistant turn becomes one Step, so a replay makes exactly as many model calls as the recording.
An assistant turn with zero or several bash blocks (mini-swe-agent rejected it with "Please always provide
EXACTLY ONE action…") stays a step too: its action is the first bash block (empty when there is none), its
output the rejection the agent saw, and ``format_error`` is set. The thought keeps all the other text of the
turn — later bash blocks included — so nothing the agent wrote is lost from the context.
"""

from __future__ import annotations

import re
from pathlib import Path

from core.replay.trajectory import MINI_FORMAT, Step, Trajectory, TrajectoryError, instance_id_of, text_of

_BASH_BLOCK = re.compile(r"```bash[ \t]*\n(.*?)\n?```", re.S)
_THOUGHT_PREFIX = re.compile(r"^\s*THOUGHT\s*:\s*", re.I)
_RETURNCODE = re.compile(r"^\s*<returncode>\s*(-?\d+)\s*</returncode>\s*\n?", re.S)
_PLAIN_OUTPUT = re.compile(r"^<output>\n?(.*?)\n?</output>\s*$", re.S)
_TIMEOUT = re.compile(r"^The last command <command>.*?</command> timed out", re.S)


def is_mini(data: dict) -> bool:
    return data.get("trajectory_format") == MINI_FORMAT or ("messages" in data and "trajectory" not in data)


def load(data: dict, path: Path) -> Trajectory:
    messages = data["messages"]
    if not isinstance(messages, list):
        raise TrajectoryError("'messages' is not a list")
    roles = [m["role"] for m in messages]
    if "assistant" not in roles:
        raise TrajectoryError("no assistant turn")
    first_assistant = roles.index("assistant")
    before = messages[:first_assistant]
    users = [m for m in before if m["role"] == "user"]
    if not users:
        raise TrajectoryError("no task (user message) before the first assistant turn")
    task = text_of(users[0]["content"])
    preamble = [text_of(m["content"]) for m in before if m is not users[0]]
    steps: list[Step] = []
    for index in range(first_assistant, len(messages)):
        message = messages[index]
        if message["role"] != "assistant":
            continue
        following = messages[index + 1] if index + 1 < len(messages) else None
        observation = text_of(following["content"]) if following and following["role"] == "user" else ""
        steps.append(_mini_step(text_of(message["content"]), observation))
    recorded = [{"role": m["role"], "content": text_of(m["content"])} for m in messages]
    return Trajectory(instance_id_of(data, path), task, steps, MINI_FORMAT, path, preamble, recorded,
                      system_prompt_recorded=any(m["role"] == "system" for m in before))


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
