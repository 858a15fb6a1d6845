"""The recall probe measured (issue 30; not a test): how many facts a compaction summary keeps, with and without the
probe's repair, and what the repair costs in tokens.

    python benchmarks/bench_recall_probe.py /work/shared/trajectories [--keep-rounds 1]

Each trajectory is replayed as a session's history (the task, a second round "Go on" after half the steps, every
step an assistant action and its Bash result in stored form — as tests/test_ledger.py does), compacted with the
engine's own plan (core/context/history.plan_compaction), and probed against two SCRIPTED summaries — no model
writes them, and the table says so:
  template    the summary template with the task filled in (what a summariser that says little keeps);
  log         the task plus the first line of each archived step's thought (a terse activity log).
"Repaired" is the summary with core/context/ledger.repaired's section appended; its cost is that section's tokens.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from contextual.core import tokens  # noqa: E402
from contextual.core.context.history import plan_compaction  # noqa: E402
from contextual.core.context.ledger import loss_ledger, repaired  # noqa: E402
from contextual.core.messages import Message  # noqa: E402
from contextual.core.replay.loaders import find_trajectories  # noqa: E402
from contextual.prompts.agents_prompts.summary_prompt import filled_template  # noqa: E402
from tests.history_helpers import trajectory_history  # noqa: E402


def scripted_summaries(archive: list[Message]) -> dict[str, str]:
    task = next((m.content for m in archive if m.role == "user"), "")
    template = filled_template("the start", "the cutoff").replace("[what the user first set out to do]", task[:2000])
    steps = [m.content.removeprefix("Thought: ").splitlines()[0] for m in archive if m.role == "assistant" and m.content]
    log = template + "\n\nSteps taken:\n" + "\n".join(f"- {s[:160]}" for s in steps)
    return {"template": template, "log": log}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--keep-rounds", type=int, default=1)
    args = parser.parse_args()
    rows: list[tuple[str, str, int, int, int, int, int]] = []
    for path in find_trajectories(args.paths):
        name, history = trajectory_history(path)
        plan = plan_compaction(history, keep_rounds=args.keep_rounds)
        if plan is None:
            continue
        for kind, summary in scripted_summaries(list(plan.archive)).items():
            before = loss_ledger(plan.archive, summary, plan.kept)
            fixed = repaired(summary, before)
            after = loss_ledger(plan.archive, fixed, plan.kept)
            rows.append((name, kind, before.total, before.kept(), after.kept(), tokens.count(summary),
                         tokens.count(fixed) - tokens.count(summary)))
    print("| trajectory | summary (scripted) | facts | kept | kept, repaired | summary tokens | repair tokens |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for row in rows:
        print("| " + " | ".join(str(v) for v in row) + " |")
    for kind in ("template", "log"):
        of = [r for r in rows if r[1] == kind]
        if of:
            total = sum(r[2] for r in of)
            print(f"\n{kind} (scripted), {len(of)} trajectories: keeps {sum(r[3] for r in of)} of {total} facts "
                  f"({100 * sum(r[3] for r in of) / max(total, 1):.0f}%), repaired {sum(r[4] for r in of)} of {total}; "
                  f"repair adds {sum(r[6] for r in of)} tokens in all (median "
                  f"{sorted(r[6] for r in of)[len(of) // 2]} per compaction)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
