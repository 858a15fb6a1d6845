"""One trajectory file replayed under every policy, as a plain function of picklable arguments and results, so
that `contextual replay --jobs N` can run files in N processes (the replay is CPU-bound: threads would share one
interpreter). The caller merges the outcomes in the files' order, so the report is the same for any N."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from contextual.core.replay.baseline import agent_calls, like_for_like
from contextual.core.replay.loaders import iter_trajectories
from contextual.core.replay.metrics import Figures, measure
from contextual.core.replay.runner import ReplayError, ReplayRun, replay_one, trajectory_pairs
from contextual.core.replay.trajectory import TrajectoryError


@dataclass(frozen=True)
class Job:
    to_run: tuple[str, ...]          # policies replayed
    dumped: tuple[str, ...]          # policies whose calls come back for --dump
    max_steps: int | None
    full_l1: bool


@dataclass
class Outcome:
    """One trajectory's figures (`error` set instead when it could not be read or replayed)."""
    instance_id: str = ""
    family: str = ""
    plain: bool = False              # compared without L1 on both sides
    figures: dict[str, Figures] = field(default_factory=dict)     # as reported
    with_l1: dict[str, Figures] = field(default_factory=dict)     # our prompts as sent
    baseline: Figures | None = None
    runs: dict[str, ReplayRun] = field(default_factory=dict)       # for --dump
    error: str = ""


def replay_file(path: Path, job: Job) -> list[Outcome]:
    """Every trajectory of one file, each under every policy of `job`."""
    return asyncio.run(_replay_file(path, job))


async def _replay_file(path: Path, job: Job) -> list[Outcome]:
    out: list[Outcome] = []
    for traj in iter_trajectories(path):
        if isinstance(traj, TrajectoryError):
            out.append(Outcome(error=str(traj)))
            continue
        pairs = trajectory_pairs(traj, job.max_steps)
        steps = traj.steps[:job.max_steps] if job.max_steps else traj.steps
        outcome = Outcome(traj.instance_id, traj.source_format, like_for_like(traj))
        try:
            for policy in job.to_run:
                run = await replay_one(traj, policy, max_steps=job.max_steps, full_l1=job.full_l1)
                outcome.with_l1[policy] = run.figures(pairs)
                outcome.figures[policy] = (run.figures(pairs, without_l1=True) if outcome.plain
                                           else outcome.with_l1[policy])
                if policy in job.dumped:
                    outcome.runs[policy] = run
        except ReplayError as exc:
            out.append(Outcome(error=str(exc)))
            continue
        outcome.baseline = measure(agent_calls(traj, steps), list(range(len(steps))), pairs)
        out.append(outcome)
    return out
