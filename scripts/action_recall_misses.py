"""What a policy's prompts miss of action recall: the names an agent wrote in an earlier step (thought or command)
and wrote again later, absent from the prompt of the later step (measurement aid; round 18 of docs/economy.md).

Measurement only: reads the recorded trajectories and the prompts `contextual replay --dump` wrote. On tune/:

    python -m contextual replay --policy ours --dump /tmp/dump --summary-only --jobs 2 ../shared/trajectories/tune/
    python scripts/action_recall_misses.py /tmp/dump ../shared/trajectories/tune/ [--policy ours] [--top 40]

Prints the pairs scored, the pairs missed, where each missed name first appeared (the thought only, the command
only, both) and the names missed most often.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from contextual.core.replay.loaders import find_trajectories, load_trajectories
from contextual.core.replay.metrics import recall_pairs, recalled
from contextual.core.replay.trajectory import Trajectory


def _prompts(dump: Path, policy: str, instance_id: str) -> dict[int, list[dict[str, Any]]]:
    calls: dict[int, list[dict[str, Any]]] = {}
    for line in (dump / policy / f"{instance_id}.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        calls[record["step"]] = record["messages"]
    return calls


def _first_said(traj: Trajectory, name: str) -> str:
    step = next(s for s in traj.steps if name in s.response)
    in_command = name in step.action
    in_thought = name in step.thought
    return "both" if in_command and in_thought else "command" if in_command else "thought"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", type=Path, help="the folder `contextual replay --dump` wrote")
    parser.add_argument("paths", nargs="+", type=Path, help="the trajectories replayed (files or folders)")
    parser.add_argument("--policy", default="ours")
    parser.add_argument("--top", type=int, default=40, help="how many of the most-missed names to print")
    args = parser.parse_args(argv)
    scored, where, names = 0, Counter[str](), Counter[str]()
    for path in find_trajectories(args.paths):
        for traj in load_trajectories(path):
            pairs = [p for p in recall_pairs(traj.preamble, traj.task, [s.response for s in traj.steps],
                                             [s.output for s in traj.steps]) if p.kind == "action"]
            scored += len(pairs)
            hits = recalled(pairs, _prompts(args.dump, args.policy, traj.instance_id))
            for pair, hit in zip(pairs, hits):
                if not hit:
                    where[_first_said(traj, pair.identifier)] += 1
                    names[pair.identifier] += 1
    missed = sum(names.values())
    print(f"{args.policy}: {scored:,} action pairs, {missed:,} missed "
          f"(action recall {1 - missed / scored if scored else 1:.4f})")
    print("first written in: " + ", ".join(f"{kind} {count}" for kind, count in where.most_common()))
    print("missed most: " + ", ".join(f"{name} {count}" for name, count in names.most_common(args.top)))


if __name__ == "__main__":
    main()
