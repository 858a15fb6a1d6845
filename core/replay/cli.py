"""`contextual replay PATH… [--policy NAME]… [--dump DIR] [--json FILE] [--max-steps N]`.

Every trajectory is played through the real engine once per policy; the figures (see core/replay/metrics.py)
print as one table per policy (a row per trajectory and the pooled total) and a summary table per source
family, each split into tables that fit the terminal's width (core/replay/report_text.py). Ratios are against
the recorded agent's own prompts (`agent`, core/replay/baseline.py) and against our `raw`, which is replayed
even when not asked for so that the ratios exist (core/replay/report.py). A log that records no system prompt is
compared without L1 on both sides; the output says so and keeps the with-L1 ratios beside
(core/replay/baseline.py, "Like for like").
A file that cannot be read or replayed costs a one-line error on stderr; the others still run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Iterator, TextIO

from contextual.core.replay.loaders import find_trajectories
from contextual.core.replay.trajectory import TrajectoryError
from contextual.core.replay.metrics import Figures
from contextual.core.replay.pool import Job, Outcome, replay_file
from contextual.core.replay.progress import Progress
from contextual.core.replay.report import BASELINE, REFERENCE, build_report
from contextual.core.replay.report_text import print_tables
from contextual.core.replay.runner import POLICIES, ReplayRun


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="contextual replay",
        description="Replay recorded agent trajectories through the engine and measure what each context "
                    "policy sends, against the recorded agent's own prompts (without our system prompt where the "
                    "log records none of its own; the ratios with it are shown beside).")
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="trajectory files (mini-swe-agent *.traj.json, SWE-agent *.traj, OpenHands *.json / "
                             "output.jsonl, Claude Code and Codex *.jsonl) or folders searched recursively")
    parser.add_argument("--policy", action="append", choices=POLICIES, dest="policies", metavar="NAME",
                        help=f"a policy to replay (repeatable; default: all of {', '.join(POLICIES)})")
    parser.add_argument("--dump", type=Path, metavar="DIR",
                        help="write DIR/<policy>/<instance_id>.jsonl, one line per model call")
    parser.add_argument("--json", type=Path, metavar="FILE", dest="json_path",
                        help="write the figures (per policy: overall and per trajectory) as JSON")
    parser.add_argument("--max-steps", type=int, metavar="N",
                        help="replay only the first N recorded steps of each trajectory (the engine's own "
                             "step limit is always lifted to the recording's length)")
    # Priced by default with the L1 a live session sends (issue 28): what a user's prompts cost, not a lighter
    # replay-only prefix.
    parser.add_argument("--bash-l1", action="store_false", dest="full_l1", default=True,
                        help="send the replay engine's own L1 (it describes Bash alone) instead of a live "
                             "session's, where every built-in tool is described (the default)")
    parser.add_argument("--full-l1", action="store_true", dest="full_l1", help=argparse.SUPPRESS)
    parser.add_argument("--jobs", type=int, metavar="N", default=os.cpu_count() or 1,
                        help="replay N files at a time, in N processes (default: the number of cores)")
    parser.add_argument("--progress", action="store_true",
                        help="show progress on stderr even when it is not a terminal (one line per file)")
    parser.add_argument("--summary-only", action="store_true",
                        help="print only the summary tables (per family), not a table per policy")
    return parser


def replay_main(argv: list[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:       # argparse already printed the usage line
        return int(exc.code or 0)
    if args.max_steps is not None and args.max_steps <= 0:
        print("error: --max-steps must be a positive number", file=err)
        return 2
    if args.jobs <= 0:
        print("error: --jobs must be a positive number", file=err)
        return 2
    policies = list(dict.fromkeys(args.policies or POLICIES))
    try:
        paths = find_trajectories(args.paths)
    except TrajectoryError as exc:
        print(f"error: {exc}", file=err)
        return 2
    if not paths:
        print("error: no trajectory files (*.traj.json, *.traj, event logs *.json/*.jsonl) under "
              + ", ".join(args.paths), file=err)
        return 2
    return _run(paths, policies, args, out, err)


def _outcomes(paths: list[Path], job: Job, jobs: int) -> Iterator[tuple[Path, list[Outcome]]]:
    """Each file's outcomes, in the files' order, from `jobs` processes (or this one)."""
    if jobs == 1 or len(paths) == 1:
        for path in paths:
            yield path, replay_file(path, job)
        return
    with ProcessPoolExecutor(max_workers=min(jobs, len(paths))) as pool:
        # Largest files first: the run ends when its last file does, so the last to start should be a small one.
        started = {path: pool.submit(replay_file, path, job) for path in sorted(paths, key=_size, reverse=True)}
        for path in paths:
            yield path, started[path].result()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _run(paths: list[Path], policies: list[str], args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    to_run = policies + ([REFERENCE] if REFERENCE not in policies else [])
    results: dict[str, dict[str, Figures]] = {p: {} for p in to_run + [BASELINE]}
    with_l1: dict[str, dict[str, Figures]] = {p: {} for p in to_run + [BASELINE]}   # our prompts as sent
    families: dict[str, str] = {}
    unrecorded: set[str] = set()         # trajectories whose log has no system prompt (compared without L1)
    failures = 0
    seen_ids: set[str] = set()
    progress = Progress(len(paths), err, asked=args.progress)
    job = Job(tuple(to_run), tuple(policies) if args.dump is not None else (), args.max_steps, args.full_l1)
    for path, outcomes in _outcomes(paths, job, args.jobs):
        for outcome in outcomes:
            if outcome.error or outcome.baseline is None:
                failures += 1
                _error_line(progress, err, outcome.error)
                continue
            instance_id = _unique(outcome.instance_id, seen_ids)
            try:
                for policy, run in outcome.runs.items():
                    write_dump(args.dump, policy, instance_id, run)
            except OSError as exc:
                print(f"error: cannot write the dump: {exc}", file=err)
                return 1
            for policy in to_run:
                results[policy][instance_id] = outcome.figures[policy]
                with_l1[policy][instance_id] = outcome.with_l1[policy]
            results[BASELINE][instance_id] = with_l1[BASELINE][instance_id] = outcome.baseline
            families[instance_id] = outcome.family
            if outcome.plain:
                unrecorded.add(instance_id)
        progress.advance(path.name)
    progress.close()
    if not results[REFERENCE]:
        print("error: no trajectory could be replayed", file=err)
        return 1
    report = build_report(results, policies, families, with_l1, unrecorded)
    # the terminal's width, as other CLIs read it ($COLUMNS first; 80 when it is no terminal)
    print_tables(report, out, per_trajectory=not args.summary_only, width=shutil.get_terminal_size().columns)
    if args.json_path is not None:
        try:
            args.json_path.parent.mkdir(parents=True, exist_ok=True)
            args.json_path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            print(f"error: cannot write {args.json_path}: {exc}", file=err)
            return 1
    return 1 if failures else 0


def _error_line(progress: Progress, err: TextIO, message: str) -> None:
    if progress.interactive:
        err.write("\r\x1b[2K")
    print(f"error: {message}", file=err)


def _unique(instance_id: str, seen: set[str]) -> str:
    name, n = instance_id, 1
    while name in seen:
        n += 1
        name = f"{instance_id}-{n}"
    seen.add(name)
    return name


def write_dump(root: Path, policy: str, instance_id: str, run: ReplayRun) -> None:
    folder = root / policy
    folder.mkdir(parents=True, exist_ok=True)
    safe = instance_id.replace("/", "_").replace("\\", "_")
    with open(folder / f"{safe}.jsonl", "w", encoding="utf-8") as handle:
        for step, messages in zip(run.call_steps, run.calls):
            handle.write(json.dumps({"step": step, "messages": messages}, ensure_ascii=False) + "\n")
