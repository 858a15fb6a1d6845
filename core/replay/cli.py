"""`contextual replay PATH… [--policy NAME]… [--dump DIR] [--json FILE] [--max-steps N]`.

Every trajectory is played through the real engine once per policy; the figures (see core/replay/metrics.py)
print as one table per policy (a row per trajectory and the pooled total) and a summary table.
Ratios are against `raw`, which is replayed even when not asked for so that the ratios exist.
A file that cannot be read or replayed costs a one-line error on stderr; the others still run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TextIO

from core.replay.loaders import Trajectory, TrajectoryError, find_trajectories, load_trajectory
from core.replay.metrics import Figures, ratio
from core.replay.progress import Progress
from core.replay.runner import POLICIES, ReplayError, ReplayRun, replay_one, trajectory_pairs

REFERENCE = "raw"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="contextual replay",
        description="Replay recorded agent trajectories through the engine and measure what each context "
                    "policy sends.")
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="trajectory files (*.traj.json, *.traj) or folders searched recursively")
    parser.add_argument("--policy", action="append", choices=POLICIES, dest="policies", metavar="NAME",
                        help=f"a policy to replay (repeatable; default: all of {', '.join(POLICIES)})")
    parser.add_argument("--dump", type=Path, metavar="DIR",
                        help="write DIR/<policy>/<instance_id>.jsonl, one line per model call")
    parser.add_argument("--json", type=Path, metavar="FILE", dest="json_path",
                        help="write the figures (per policy: overall and per trajectory) as JSON")
    parser.add_argument("--max-steps", type=int, metavar="N",
                        help="replay only the first N recorded steps of each trajectory (the engine's own "
                             "step limit is always lifted to the recording's length)")
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
    policies = list(dict.fromkeys(args.policies or POLICIES))
    try:
        paths = find_trajectories(args.paths)
    except TrajectoryError as exc:
        print(f"error: {exc}", file=err)
        return 2
    if not paths:
        print("error: no trajectory files (*.traj.json, *.traj) under " + ", ".join(args.paths), file=err)
        return 2
    return asyncio.run(_run(paths, policies, args, out, err))


async def _run(paths: list[Path], policies: list[str], args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    to_run = policies + ([REFERENCE] if REFERENCE not in policies else [])
    results: dict[str, dict[str, Figures]] = {p: {} for p in to_run}
    failures = 0
    seen_ids: set[str] = set()
    progress = Progress(len(paths), err)
    for path in paths:
        try:
            traj = load_trajectory(path)
        except TrajectoryError as exc:
            failures += 1
            _error_line(progress, err, str(exc))
            progress.advance(path.name)
            continue
        instance_id = _unique(traj.instance_id, seen_ids)
        pairs = trajectory_pairs(traj, args.max_steps)
        try:
            for policy in to_run:
                run = await replay_one(traj, policy, max_steps=args.max_steps)
                results[policy][instance_id] = run.figures(pairs)
                if args.dump is not None and policy in policies:
                    write_dump(args.dump, policy, instance_id, run)
        except ReplayError as exc:
            failures += 1
            _error_line(progress, err, str(exc))
            for policy in to_run:
                results[policy].pop(instance_id, None)
        except OSError as exc:
            print(f"error: cannot write the dump: {exc}", file=err)
            return 1
        progress.advance(instance_id)
    progress.close()
    if not results[REFERENCE]:
        print("error: no trajectory could be replayed", file=err)
        return 1
    report = build_report(results, policies)
    print_tables(report, out)
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


# --- the figures ----------------------------------------------------------------------------------------------

def _entry(figures: Figures, reference: Figures | None) -> dict:
    entry = figures.as_dict()
    entry["prompt_tokens_vs_raw"] = _r(ratio(figures.prompt_tokens, reference.prompt_tokens)) if reference else None
    entry["billed_vs_raw"] = _r(ratio(figures.billed_tokens, reference.billed_tokens)) if reference else None
    return entry


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def build_report(results: dict[str, dict[str, Figures]], policies: list[str]) -> dict:
    """{"trajectories": [...], "policies": {name: {"overall": {...}, "trajectories": {id: {...}}}}}.
    Overall figures are pooled over trajectories (sums over sums, pairs over pairs)."""
    reference = results[REFERENCE]
    ids = list(reference)
    report: dict = {"trajectories": ids, "pooling": "micro (sums over all trajectories)", "policies": {}}
    overall_reference = sum(reference.values(), Figures())
    for policy in policies:
        per = results[policy]
        overall = sum((per[i] for i in ids), Figures())
        report["policies"][policy] = {
            "overall": _entry(overall, overall_reference),
            "trajectories": {i: _entry(per[i], reference[i]) for i in ids},
        }
    return report


COLUMNS = [("calls", "calls", "{:,}"), ("prompt tokens", "prompt_tokens", "{:,}"),
           ("vs raw", "prompt_tokens_vs_raw", "{:.3f}"), ("billed (cache)", "billed_tokens", "{:,.0f}"),
           ("vs raw", "billed_vs_raw", "{:.3f}"), ("peak prompt", "peak_prompt", "{:,}"),
           ("recall", "recall", "{:.3f}"), ("action recall", "action_recall", "{:.3f}")]


def _cells(entry: dict) -> list[str]:
    return ["-" if entry.get(key) is None else fmt.format(entry[key]) for _, key, fmt in COLUMNS]


def _table(first_header: str, rows: list[tuple[str, dict]]) -> list[str]:
    header = [first_header] + [title for title, _, _ in COLUMNS]
    body = [[name] + _cells(entry) for name, entry in rows]
    widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]

    def line(row: list[str]) -> str:
        return "  ".join(cell.ljust(widths[0]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row))
    return [line(header), "  ".join("-" * w for w in widths)] + [line(row) for row in body]


def print_tables(report: dict, out: TextIO) -> None:
    ids = report["trajectories"]
    for policy, figures in report["policies"].items():
        print(f"\npolicy {policy} ({len(ids)} trajectories)", file=out)
        rows = [(i, figures["trajectories"][i]) for i in ids] + [("all (pooled)", figures["overall"])]
        for text in _table("trajectory", rows):
            print(text, file=out)
    print(f"\nsummary ({len(ids)} trajectories, pooled; billed: the prompt share identical to the previous call's "
          "from the start at 0.1x)", file=out)
    for text in _table("policy", [(p, f["overall"]) for p, f in report["policies"].items()]):
        print(text, file=out)
