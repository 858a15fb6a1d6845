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

With --model-url (an OpenAI-compatible server, e.g. llama.cpp's llama-server) a third summary, `model`, is written
by that model through the engine's own summariser (core/context/compaction.summariser: the window the server
reports, its tokenizer's calibration, chunking when the archive outgrows it):

    python benchmarks/bench_recall_probe.py /work/shared/trajectories --model-url http://127.0.0.1:8080/v1 \
        --model gemma3-270m --limit 10
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
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


class ModelSummaries:
    """Summaries written by a real model behind ``url``, the way a compaction asks for them."""

    def __init__(self, url: str, model: str) -> None:
        from contextual.core.config import load_config
        self.home = tempfile.mkdtemp(prefix="probe-home-")
        env = {**os.environ, "CONTEXTUAL_HOME": self.home, "CONTEXTUAL_BASE_URL": url, "CONTEXTUAL_MODEL": model,
               "CONTEXTUAL_PROVIDER": "openai", "CONTEXTUAL_API_KEY": os.environ.get("CONTEXTUAL_API_KEY", "none"),
               # what a summary keeps is measured here, not how fast a loaded machine writes it
               "CONTEXTUAL_SUMMARY_TIMEOUT": "900"}
        self.config = load_config(Path(self.home), env=env)
        self.failures = 0

    async def write(self, archive: list[Message]) -> str | None:
        from contextual.core.context.compaction import span, summariser
        from contextual.core.model_facts import resolve_window
        from contextual.core.providers.factory import make_provider
        self.config = await resolve_window(self.config)
        start, cutoff = span(archive)
        try:
            result = await summariser(make_provider(self.config), self.config).summarise(
                archive, start=start, cutoff=cutoff)
        except Exception as exc:   # noqa: BLE001 - a failed summary is counted, not fatal to the measurement
            self.failures += 1
            print(f"summary failed: {exc}", file=sys.stderr)
            return None
        return result.text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--keep-rounds", type=int, default=1)
    parser.add_argument("--model-url", help="an OpenAI-compatible server whose model writes a third summary")
    parser.add_argument("--model", default="local", help="the model name to ask that server for")
    parser.add_argument("--limit", type=int, default=0, help="only the first N trajectories (0: all)")
    args = parser.parse_args()
    writer = ModelSummaries(args.model_url, args.model) if args.model_url else None
    rows: list[tuple[str, str, int, int, int, int, int]] = []
    paths = find_trajectories(args.paths)
    for path in paths[:args.limit] if args.limit else paths:
        name, history = trajectory_history(path)
        plan = plan_compaction(history, keep_rounds=args.keep_rounds)
        if plan is None:
            continue
        summaries = scripted_summaries(list(plan.archive))
        if writer is not None:
            written = asyncio.run(writer.write(list(plan.archive)))
            if written is not None:
                summaries["model"] = written
            print(f"{name}: model summary {'written' if written else 'failed'}", file=sys.stderr, flush=True)
        for kind, summary in summaries.items():
            before = loss_ledger(plan.archive, summary, plan.kept)
            fixed = repaired(summary, before)
            after = loss_ledger(plan.archive, fixed, plan.kept)
            rows.append((name, kind, before.total, before.kept(), after.kept(), tokens.count(summary),
                         tokens.count(fixed) - tokens.count(summary)))
            if writer is not None:    # a model run takes minutes per trajectory: each row as it comes
                print("row: " + " | ".join(str(v) for v in rows[-1]), file=sys.stderr, flush=True)
    print("| trajectory | summary (scripted) | facts | kept | kept, repaired | summary tokens | repair tokens |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for row in rows:
        print("| " + " | ".join(str(v) for v in row) + " |")
    for kind in ("template", "log", "model"):
        of = [r for r in rows if r[1] == kind]
        if of:
            total = sum(r[2] for r in of)
            label = f"written by {args.model}" if kind == "model" else "scripted"
            print(f"\n{kind} ({label}), {len(of)} trajectories: keeps {sum(r[3] for r in of)} of {total} facts "
                  f"({100 * sum(r[3] for r in of) / max(total, 1):.0f}%), repaired {sum(r[4] for r in of)} of {total}; "
                  f"repair adds {sum(r[6] for r in of)} tokens in all (median "
                  f"{sorted(r[6] for r in of)[len(of) // 2]} per compaction)")
    if writer is not None and writer.failures:
        print(f"\n{writer.failures} model summaries failed (not counted above)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
