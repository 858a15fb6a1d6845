"""The recorded agent's own prompts: the baseline every replay figure is also taken against.

A policy that costs more than what the agent it replaces sent costs the user more (the shared trajectories
README, "Baseline"). Call k is everything the agent had sent before its k-th action, nothing removed:
- when the file records each prompt (SWE-agent 1.x ``trajectory[].query``), exactly those prompts;
- when it records the messages (mini-swe-agent ``messages``, SWE-agent ``history``), exactly those, up to the
  k-th assistant message that is not a demonstration;
- otherwise (OpenHands, Claude Code, Codex logs keep events, not prompts) rebuilt as the agent's framing
  would send them: the system text and context it recorded, the task, then each earlier step's recorded
  response and recorded observation as they appear in the log. Where the log records that the agent
  condensed or compacted its context, later calls leave out what it dropped and carry its summary.
  Tool schemas are not in these logs and are left out, which favours the baseline.

Like for like. When a log does not record the agent's system prompt (Claude Code sessions, most Codex
rollouts, OpenHands histories without a ``system`` event), the baseline has none, and comparing our L1 with
nothing would charge our system prompt against an agent that had one too. Such trajectories are compared
without the system message on both sides: the baseline as rebuilt (it has no system prompt) against our
prompts with L1 left out (``ReplayRun.figures(..., without_l1=True)``). The report says so beside every such
figure and keeps the figure with our L1 next to it (core/replay/report.py: ``*_with_l1``), so a reader sees
both.
"""

from __future__ import annotations

from typing import Any

from contextual.core.replay.trajectory import Step, Trajectory

SYSTEM_NOT_RECORDED = "system prompt not recorded: compared without L1 on both sides"
SYSTEM_RECORDED = "system prompt recorded: compared as sent (our L1 against the agent's system prompt)"


def like_for_like(traj: Trajectory) -> bool:
    """True when the figures of `traj` leave our L1 out (the log has no system prompt to set against it)."""
    return not traj.system_prompt_recorded


def agent_calls(traj: Trajectory, steps: list[Step] | None = None) -> list[list[dict[str, Any]]]:
    """One prompt ({role, content} messages) per recorded step, in order."""
    steps = traj.steps if steps is None else steps
    if traj.queries is not None and len(traj.queries) >= len(steps):
        return [list(query) for query in traj.queries[:len(steps)]]
    calls = _recorded_calls(traj.recorded, len(steps)) if traj.recorded else None
    if calls is not None:
        return calls
    return _rebuilt_calls(traj, steps)


def _rebuilt_calls(traj: Trajectory, steps: list[Step]) -> list[list[dict[str, Any]]]:
    head = [{"role": "system", "content": text} for text in traj.preamble]
    head.append({"role": "user", "content": traj.task})
    turns: list[list[dict[str, Any]]] = []        # per earlier step: its response and observation
    dropped: set[int] = set()
    summary: list[dict[str, Any]] = []
    condensations = sorted(traj.condensations, key=lambda c: c.before_step)
    calls = []
    for index, step in enumerate(steps):
        for condensation in condensations:
            if condensation.before_step == index:
                dropped |= condensation.dropped
                summary = ([{"role": "user", "content": condensation.summary}] if condensation.summary
                           else [])
        kept = [message for i, turn in enumerate(turns) if i not in dropped for message in turn]
        calls.append(head + summary + kept)
        turns.append([{"role": "assistant", "content": step.response}, {"role": "user", "content": step.output}])
    return calls


def _recorded_calls(messages: list[dict[str, Any]], count: int) -> list[list[dict[str, Any]]] | None:
    """Prefixes before each live assistant message; None when the record has fewer than `count` of them
    (a history cut short), so the rebuilt form is used instead of a wrong one."""
    calls = []
    for index, message in enumerate(messages):
        if message["role"] == "assistant" and not message.get("demo"):
            calls.append([{"role": m["role"], "content": m["content"]} for m in messages[:index]])
            if len(calls) == count:
                return calls
    return None
