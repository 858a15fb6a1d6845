"""Replays one trajectory through the real Engine under one context policy.

Nothing here assembles a prompt: the Engine (ContextBuilder, scratchpad policy, compressor, history) does,
exactly as in a live session; the replay only supplies the model's answers and the tool's outputs.

The config lifts the step limit to the recording's length and sets a 1,000,000-token window: a replay
measures the in-turn policy, not what happens when the window overflows (compaction), which the recorded
sessions never needed and which would make the figures depend on the window chosen.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from contextlib import aclosing
from typing import Any, Mapping

from contextual.core.config import Config
from contextual.core.events import ErrorEvent, TurnFinished
from contextual.core.prompt import as_wire_dicts
from contextual.core.replay.trajectory import Trajectory
from contextual.core.replay.metrics import Figures, RecallPair, measure, recall_pairs
from contextual.core.replay.scorers import alternative_pairs
from contextual.core.replay.replay_model import ReplayBash, ReplayProvider
from contextual.core.l1 import system_prompt as build_system_prompt

POLICIES = ("ours", "raw", "mask", "seed004", "anthropic-30k", "anthropic", "opencode", "codex")
REPLAY_WINDOW = 1_000_000


class ReplayError(Exception):
    """The engine stopped before the recording was played through; one line naming the trajectory."""


@dataclass
class ReplayRun:
    instance_id: str
    policy: str
    calls: list[list[dict[str, Any]]]          # each call's messages as on the wire
    actions: list[str]               # the reply each call got
    call_steps: list[int] = field(default_factory=list)   # the recorded step each call's reply played
    steps: int = 0                   # recorded steps replayed (the Finish call is one more)
    calls_without_l1: list[list[dict[str, Any]]] = field(default_factory=list)   # the same calls, L1 left out

    def figures(self, pairs: list[RecallPair], without_l1: bool = False) -> Figures:
        """Figures over the calls that replayed a recorded action; the closing Finish call the engine
        needs to end its turn is in the dump but not in the figures, as the recording has no such call.
        `without_l1`: the same calls with our system prompt left out, to set against a log that recorded
        none (core/replay/baseline.py, "Like for like")."""
        calls = self.calls_without_l1 if without_l1 else self.calls
        counted = [i for i, step in enumerate(self.call_steps) if step < self.steps]
        return measure([calls[i] for i in counted], [self.call_steps[i] for i in counted], pairs)


def replay_config(root: Path, steps: int, overrides: Mapping[str, Any] | None = None) -> Config:
    config = Config(project_root=root, home=root, model="replay", base_url="replay://", permission_mode="bypass",
                    max_steps=steps + 5, context_window=REPLAY_WINDOW)
    return replace(config, **dict(overrides or {}))


def trajectory_pairs(traj: Trajectory, max_steps: int | None = None) -> list[RecallPair]:
    steps = traj.steps[:max_steps] if max_steps else traj.steps
    responses, outputs = [s.response for s in steps], [s.output for s in steps]
    return (recall_pairs(traj.preamble, traj.task, responses, outputs)
            + alternative_pairs(traj.preamble, traj.task, responses, outputs, [s.action for s in steps]))


async def replay_one(traj: Trajectory, policy: str, config_overrides: Mapping[str, Any] | None = None,
                     max_steps: int | None = None, full_l1: bool = False) -> ReplayRun:
    """Play `traj` (its first `max_steps` steps when given) through a fresh Engine under `policy`.
    The engine has only Bash, so its L1 describes Bash alone; `full_l1` sends the L1 of a live session
    instead (every built-in tool described), to show what that costs."""
    from contextual.core.agent import Engine   # imported late: the engine pulls in the whole product

    steps = traj.steps[:max_steps] if max_steps else traj.steps
    provider = ReplayProvider(traj, steps)
    bash = ReplayBash(provider)
    with tempfile.TemporaryDirectory(prefix="contextual-replay-") as tmp:
        root = Path(tmp).resolve()
        config = replay_config(root, len(steps), config_overrides)
        engine = Engine(config, provider=provider, tools={"Bash": bash}, session=None, policy=policy,
                        system_prompt=build_system_prompt() if full_l1 else None)
        error: str | None = None
        finished = False
        async with aclosing(engine.run_turn(traj.task)) as events:
            async for event in events:
                if isinstance(event, ErrorEvent):
                    error = event.message
                elif isinstance(event, TurnFinished):
                    finished = True
    if error is not None or not finished:
        reason = error or "the turn ended without Finish"
        raise ReplayError(f"{traj.instance_id} ({policy}): replay stopped after {len(provider.requests)} of "
                          f"{len(steps) + 1} calls: {reason}")
    calls = [as_wire_dicts(request.messages) for request in provider.requests]
    without_l1 = [as_wire_dicts([m for m in request.messages if m.layer != "L1"]) for request in provider.requests]
    return ReplayRun(traj.instance_id, policy, calls, list(provider.answers),
                     call_steps=list(range(len(calls))), steps=len(steps), calls_without_l1=without_l1)
