"""Field sessions over all of ../shared/trajectories/tune/ (issue 24; a benchmark, not a test).

    python benchmarks/bench_field_sessions.py [--windows 4096 8192 16000 32000 128000] [--ratio 1.0]
                                              [--jobs 2] [--folder DIR] [--limit N] [--json FILE]

Each trajectory is replayed as a multi-turn session of ten-step turns through the real headless CLI against the
scripted server, as tests/test_field_sessions.py does (tests/field_sessions.py says how). Per window it reports:
the rounds kept verbatim in each session's last prompt (median and least), the summaries made, the largest request
by the server's own count (and its share of the window), the sessions where a request went over the window,
a round left a prompt with no summary covering it, or "dropped" appeared (stderr, session file, requests), and the
agent's requests (summary calls aside): how many, and their prompts' tokens all together.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.cli_helpers import REPO, home_of  # noqa: E402
from tests.field_sessions import play  # noqa: E402

TUNE = REPO.parent / "shared" / "trajectories" / "tune"
WINDOWS = [4096, 8192, 16000, 32000, 128000]


def one(path: str, window: int, ratio: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="field-") as folder:
        project = Path(folder) / "proj"
        project.mkdir()
        run = play(Path(path), project, home_of(project), window, ratio, timeout=600)
    return {"trajectory": Path(path).name, "window": window, "ratio": ratio, "turns": run.turns,
            "kept_last": run.kept_rounds[-1] if run.kept_rounds else 0, "summaries": len(run.summary_counts),
            "largest": run.largest, "largest_summary": max(run.summary_counts, default=0),
            "agent_tokens": sum(run.agent_counts), "agent_calls": len(run.agent_counts),
            "over": len(run.violations), "missing": len(run.missing), "dropped": run.dropped,
            "outgrows": run.outgrows, "failed_turns": sum(1 for code in run.returncodes if code)}


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| window | sessions | turns (median) | rounds kept in the last prompt (median / least) | summaries "
             "(total / sessions with one / outgrowing sessions) | largest request (server count) | largest summary "
             "request | sessions over the window | sessions missing a round | sessions with 'dropped' | the agent's "
             "requests: calls, prompt tokens (server count) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for window in sorted({r["window"] for r in rows}):
        at = [r for r in rows if r["window"] == window]
        kept = [r["kept_last"] for r in at]
        largest = max(r["largest"] for r in at)
        lines.append(
            f"| {window:,} | {len(at)} | {statistics.median(r['turns'] for r in at):g} | "
            f"{statistics.median(kept):g} / {min(kept)} | {sum(r['summaries'] for r in at)} / "
            f"{sum(1 for r in at if r['summaries'])} / {sum(1 for r in at if r['outgrows'])} | "
            f"{largest:,} ({largest / window:.0%}) | {max(r['largest_summary'] for r in at):,} | "
            f"{sum(1 for r in at if r['over'])} | {sum(1 for r in at if r['missing'])} | "
            f"{sum(1 for r in at if r['dropped'])} | {sum(r['agent_calls'] for r in at):,}, "
            f"{sum(r['agent_tokens'] for r in at):,} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", type=int, nargs="+", default=WINDOWS)
    parser.add_argument("--ratio", type=float, default=1.0, help="the server's tokens per cl100k token")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--folder", type=Path, default=TUNE, help="the trajectories (default: tune/)")
    parser.add_argument("--limit", type=int, help="only the first N trajectories")
    parser.add_argument("--json", type=Path, help="write every session's figures here")
    args = parser.parse_args(argv)
    paths = sorted(str(p) for p in args.folder.glob("*.traj.json"))[:args.limit]
    started = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(one, path, window, args.ratio) for window in args.windows for path in paths]
        rows = [future.result() for future in futures]
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    print(f"{len(paths)} trajectories of {args.folder.name}/, ratio {args.ratio:g}, {time.monotonic() - started:.0f} s")
    print(table(rows))


if __name__ == "__main__":
    main()
