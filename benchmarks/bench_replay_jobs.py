"""--jobs scaling benchmark (not a test): replayed model calls per second, 1 job vs N jobs.

    python benchmarks/bench_replay_jobs.py [--jobs 2] [--files 20] [DIR]

Runs `contextual replay --policy ours --summary-only` on the first FILES trajectories of DIR
(default ../shared/trajectories/tune) once with --jobs 1 and once with --jobs N, as the real CLI in a
subprocess, and prints calls per second for each and the speed-up. The issue's claim (speed-up
>= 0.8 x N) is about a machine with N free cores; on a shared machine the figure is a lower bound.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def one_run(files: list[Path], jobs: int) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "figures.json"
        command = [sys.executable, "-m", "contextual", "replay", "--policy", "ours", "--summary-only",
                   "--jobs", str(jobs), "--json", str(out), *map(str, files)]
        start = time.perf_counter()
        subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        return wall, count_calls(json.loads(out.read_text()))


def count_calls(figures: object) -> int:
    """The replayed calls in the --json figures: the largest 'calls' count found (the overall one)."""
    best = 0
    stack = [figures]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key == "calls" and isinstance(value, int):
                    best = max(best, value)
                else:
                    stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?", default=str(ROOT.parent / "shared" / "trajectories" / "tune"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--files", type=int, default=20)
    args = parser.parse_args()
    files = sorted(Path(args.dir).glob("*.traj.json"))[: args.files]
    if not files:
        raise SystemExit(f"no *.traj.json under {args.dir}")
    single, calls = one_run(files, 1)
    multi, _ = one_run(files, args.jobs)
    print(f"{len(files)} files, {calls} calls")
    print(f"--jobs 1: {single:.1f} s, {calls / single:.1f} calls/s")
    print(f"--jobs {args.jobs}: {multi:.1f} s, {calls / multi:.1f} calls/s")
    print(f"speed-up {single / multi:.2f}x (claim to check on a free machine: >= {0.8 * args.jobs:.1f}x)")


if __name__ == "__main__":
    main()
