"""Field sessions (issue 24): a recorded agent trajectory replayed as a multi-turn session through the real CLI.

A mini-swe-agent trajectory is one long turn. Here it is split into turns of ``STEPS_PER_TURN`` steps: the
first turn's message is the recorded task, each later one a short "continue" message; every turn is one
``contextual -p ... --continue`` run (the real headless CLI, the real engine, a session file on disk) against
the scripted server of tests/fakes/llm_server.py, which counts every request itself (cl100k, or a small model's
tokenizer: ``token_ratio`` 1.3) and reports that count as the usage.

What the scripted model sends and where the observations come from — the honest part:
- each step's action is the real Bash tool with the recorded command, kept whole but commented out line by line
  (same size in the history), followed by ``cat .field/NNN.out; exit CODE``: the repository the agent worked in
  is not here, so the command cannot be re-run; instead the real Bash tool runs a real, deterministic command
  that prints the recorded observation, and exits with the recorded return code;
- the model's thought is the recorded thought; a turn ends with a short Finish;
- a summary request (the compactor's) is answered with an A5-shaped summary that names the rounds the request
  held ("covers part-3."), so a later prompt can show which rounds a summary covers.

Each turn's message carries a marker "(part K of N)"; a round is present in a prompt when its marker is, and
covered when a summary in that prompt says "covers part-K.".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contextual.core.replay.loaders import load_trajectory
from contextual.core.replay.trajectory import Step, Trajectory
from contextual.core.tokens import PER_MESSAGE_OVERHEAD, count
from tests.cli_helpers import cli_env, contextual, session_text
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.fakes.server_flavors import Flavor

STEPS_PER_TURN = 10
CHUNK = 400                  # characters per streamed delta: the wire stays real, the replay quick
SUMMARY_PROMPT_START = "You are archiving the OLD part"
MARKER = re.compile(r"\(part (\d+) of \d+\)")
COVERS = re.compile(r"covers part-(\d+)\.")
# A tool result's own byte counters are not a dropped message; every other "dropped" is.
ZERO_COUNTERS = re.compile(r'"(?:stdout|stderr)_dropped_bytes": ?0\b')


def turns_of(trajectory: Trajectory, size: int = STEPS_PER_TURN) -> list[list[Step]]:
    steps = trajectory.steps
    return [steps[i:i + size] for i in range(0, len(steps), size)]


def message_of(trajectory: Trajectory, turn: int, total: int) -> str:
    marker = f"(part {turn} of {total})"
    return f"{trajectory.task}\n\n{marker}" if turn == 1 else f"continue {marker}"


def command_of(step: Step, number: int) -> str:
    recorded = "\n".join("# " + line for line in step.action.splitlines())
    run = f"cat .field/{number:03d}.out; exit {step.returncode or 0}"
    return f"{recorded}\n{run}" if recorded else run


def action_of(step: Step, number: int) -> str:
    thought = " ".join(step.thought.split()) or "next step"
    return f"Thought: {thought}\nAction: Bash[{json.dumps({'command': command_of(step, number)})}]"


def raw_tokens(trajectory: Trajectory, steps: list[Step] | None = None) -> int:
    """cl100k tokens of a session kept verbatim: the task and each step's response and observation."""
    return count(trajectory.task) + sum(count(s.response) + count(s.output) + 2 * PER_MESSAGE_OVERHEAD
                                        for s in (trajectory.steps if steps is None else steps))


def request_text(body: dict[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False)


def is_summary_request(body: dict[str, Any]) -> bool:
    system = body.get("system")
    if isinstance(system, list) and system:
        text = system[0].get("text", "")
    else:
        text = (body.get("messages") or [{}])[0].get("content", "")
    return isinstance(text, str) and text.startswith(SUMMARY_PROMPT_START)


def summary_for(body: dict[str, Any]) -> str:
    text = request_text(body)
    parts = sorted({int(n) for n in MARKER.findall(text)} | {int(n) for n in COVERS.findall(text)})
    covered = " ".join(f"covers part-{n}." for n in parts) or "covers nothing."
    return ("## 📌 Archived Session Summary\n*(Contains context from the earlier rounds)*\n\n"
            f"### 🎯 Objectives & Status\n* replayed session; {covered}\n")


class ScriptedAgent:
    """The server's responder: summary requests get a summary, the others the next recorded action in order."""

    def __init__(self) -> None:
        self.queue: list[str] = []
        self.summary_requests: list[int] = []      # indices into the server's requests
        self.served = 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        index = self.served
        self.served += 1
        if is_summary_request(body):
            self.summary_requests.append(index)
            return Reply(summary_for(body), chunk_size=CHUNK)
        text = self.queue.pop(0) if self.queue else "Thought: done\nAction: Finish[script exhausted]"
        return Reply(text, chunk_size=CHUNK)


@dataclass
class FieldRun:
    window: int
    ratio: float
    turns: int
    raw: int                                       # raw_tokens × ratio: the whole session kept verbatim
    raw_before_last: int                           # the same for the history the last turn's message meets
    counts: list[int]
    violations: list[dict[str, Any]]
    summary_counts: list[int]
    missing: list[tuple[int, int]]                 # (request, round) absent from a prompt with no summary covering it
    dropped: list[str]                             # where "dropped" was found
    kept_rounds: list[int] = field(default_factory=list)   # rounds present verbatim in each turn's last prompt
    agent_counts: list[int] = field(default_factory=list)  # the agent's requests (not summary calls)
    returncodes: list[int] = field(default_factory=list)
    stderr: str = ""

    @property
    def largest(self) -> int:
        return max(self.counts, default=0)

    @property
    def outgrows(self) -> bool:
        """The history the last turn's message meets, kept verbatim, is larger than the window."""
        return self.raw_before_last > self.window


def rounds_in(body: dict[str, Any]) -> tuple[set[int], set[int]]:
    """(rounds whose message is in the prompt, rounds a summary in the prompt covers)."""
    present: set[int] = set()
    covered: set[int] = set()
    for message in body.get("messages") or []:
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        if message.get("role") == "user":
            present |= {int(n) for n in MARKER.findall(text)}
        covered |= {int(n) for n in COVERS.findall(text)}
    if isinstance(body.get("system"), list):
        covered |= {int(n) for n in COVERS.findall(json.dumps(body["system"], ensure_ascii=False))}
    return present, covered


def write_observations(project: Path, trajectory: Trajectory) -> None:
    folder = project / ".field"
    folder.mkdir(parents=True, exist_ok=True)
    for number, step in enumerate(trajectory.steps):
        (folder / f"{number:03d}.out").write_text(step.output, encoding="utf-8")


def play(path: Path, project: Path, home: Path, window: int, ratio: float = 1.0, *,
         steps_per_turn: int = STEPS_PER_TURN, timeout: float = 120) -> FieldRun:
    """Replay the trajectory at ``path`` as a multi-turn session in ``project`` and report what the server saw."""
    trajectory = load_trajectory(path)
    write_observations(project, trajectory)
    turns = turns_of(trajectory, steps_per_turn)
    agent = ScriptedAgent()
    flavor = Flavor("llamacpp", n_ctx=window, token_ratio=ratio) if ratio != 1.0 else None
    earlier = [step for turn in turns[:-1] for step in turn]
    run = FieldRun(window, ratio, len(turns), int(raw_tokens(trajectory) * ratio),
                   int(raw_tokens(trajectory, earlier) * ratio), [], [], [], [], [])
    turn_of_request: list[int] = []
    number = 0
    with FakeLLMServer("openai", responder=agent, max_context_tokens=window, flavor=flavor) as srv:
        env = cli_env(home, srv.base_url, "openai", CONTEXTUAL_CONTEXT_WINDOW=str(window))
        for turn, steps in enumerate(turns, start=1):
            for step in steps:
                agent.queue.append(action_of(step, number))
                number += 1
            agent.queue.append(f"Thought: part {turn} is done\nAction: Finish[part {turn} done]")
            args = ["-p", message_of(trajectory, turn, len(turns)), "--permission-mode", "bypass",
                    "--max-steps", str(steps_per_turn + 5)] + (["--continue"] if turn > 1 else [])
            before = len(srv.requests)
            result = contextual(args, project, env, timeout=timeout)
            run.returncodes.append(result.returncode)
            run.stderr += result.stderr
            turn_of_request += [turn] * (len(srv.requests) - before)
            agent.queue.clear()
        requests = list(srv.requests)
        run.counts = list(srv.token_counts)
        run.violations = list(srv.violations)
    summaries = set(agent.summary_requests)
    run.summary_counts = [run.counts[i] for i in sorted(summaries) if i < len(run.counts)]
    run.agent_counts = [count for i, count in enumerate(run.counts) if i not in summaries]
    for index, body in enumerate(requests):
        if index in summaries:
            continue
        present, covered = rounds_in(body)
        turn = turn_of_request[index]
        run.missing += [(index, k) for k in range(1, turn) if k not in present and k not in covered]
        if index + 1 == len(requests) or turn_of_request[index + 1] != turn:
            run.kept_rounds.append(len({k for k in present if k < turn}))
    run.dropped = dropped_mentions(requests, run.stderr, session_text(home), trajectory)
    return run


def dropped_mentions(requests: list[Any], stderr: str, stored: str, trajectory: Trajectory) -> list[str]:
    """Where the word "dropped" (or a drop_round adjustment) appears, beyond what the trajectory itself says."""
    recorded = sum(text.lower().count("dropped") for step in trajectory.steps
                   for text in (step.output, step.action, step.thought)) + trajectory.task.lower().count("dropped")
    found = []
    for where, text in [("stderr", stderr), ("session file", ZERO_COUNTERS.sub("", stored))] + \
            [(f"request {i}", request_text(body)) for i, body in enumerate(requests)]:
        lowered = text.lower()
        if "drop_round" in lowered or lowered.count("dropped") > (recorded if where != "stderr" else 0):
            found.append(where)
    return found

