"""--jobs scaling benchmark (not a test): replayed model calls per second, 1 job vs N jobs.

    python benchmarks/bench_replay_jobs.py [--jobs 2] [--files 20] [--repeat 1] [DIR…]

Runs `contextual replay --policy ours --summary-only` on the first FILES trajectories of the DIRs (default
../shared/trajectories/tune; --files 0: all) with --jobs 1 and with each N of --jobs (a comma list: 2,4,8,16),
as the real CLI in a subprocess, and prints calls per second, calls per second per job and the speed-up over one
job (the best of --repeat runs each). The issue's claim (speed-up >= 0.8 x N) is about a machine with N free
cores; on a shared machine the figure is a lower bound.
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
        subprocess.run(command, cwd=tmp, check=True, stdout=subprocess.DEVNULL)   # not ROOT: the installed package, not the source folder
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
    parser.add_argument("dirs", nargs="*", default=[str(ROOT.parent / "shared" / "trajectories" / "tune")])
    parser.add_argument("--jobs", default="2", help="one N or a comma list")
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    files = sorted(f for d in args.dirs for f in Path(d).glob("*.traj.json"))
    files = files[: args.files] if args.files > 0 else files
    if not files:
        raise SystemExit(f"no *.traj.json under {', '.join(args.dirs)}")
    counts = [1] + [int(n) for n in args.jobs.split(",") if int(n) != 1]
    walls: dict[int, float] = {}
    calls = 0
    for jobs in counts:
        runs = [one_run(files, jobs) for _ in range(max(1, args.repeat))]
        walls[jobs] = min(wall for wall, _ in runs)
        calls = runs[0][1]
    print(f"{len(files)} files, {calls} calls, best of {max(1, args.repeat)}")
    print("| jobs | wall s | calls/s | calls/s per job | speed-up | claim >= 0.8 N |")
    print("|---:|---:|---:|---:|---:|---:|")
    for jobs, wall in walls.items():
        speed = walls[1] / wall
        print(f"| {jobs} | {wall:.1f} | {calls / wall:.1f} | {calls / wall / jobs:.1f} | {speed:.2f}x | "
              f"{'met' if speed >= 0.8 * jobs else 'not met'} |")


if __name__ == "__main__":
    main()
