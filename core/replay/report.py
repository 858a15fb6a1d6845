"""The replay's report: every policy against the recorded agent's own prompts and against our `raw`.

Figures pool by addition (core/replay/metrics.py: sums over sums, pairs over pairs), per source family and
over everything. `agent` is the baseline (core/replay/baseline.py), not a policy the engine plays: its row is
what the recorded agent itself sent. The framing ratio is our `raw` over `agent`: what our wire format alone
costs for the same work, with nothing compressed.

Trajectories whose log records no system prompt are compared without L1 on both sides (core/replay/baseline.py,
"Like for like"); every group says which treatment applied (`baseline_treatment`) and every row keeps the
ratios with our L1 as sent (`tokens_vs_agent_with_l1`, `billed_vs_agent_with_l1`), printed as extra columns
(core/replay/report_text.py prints the report).
"""

from __future__ import annotations

from typing import Any

from contextual.core.replay.baseline import SYSTEM_NOT_RECORDED, SYSTEM_RECORDED
from contextual.core.replay.metrics import Figures, ratio
from contextual.core.replay.scorers import SCORERS

BASELINE = "agent"
REFERENCE = "raw"


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def entry(figures: Figures, agent: Figures | None, raw: Figures | None, sent: Figures | None = None) -> dict[str, Any]:
    """One row. `figures` are like for like with `agent`; `sent` (when given) are the same calls with our L1
    as sent, whose ratios to the agent are kept beside."""
    out = figures.as_dict()
    for name in SCORERS:          # a trajectory with no pairs for a scorer still has its key, as null
        out.setdefault(f"line_recall_{name}", None)
    out["tokens_vs_agent"] = _r(ratio(figures.prompt_tokens, agent.prompt_tokens)) if agent else None
    out["billed_vs_agent"] = _r(ratio(figures.billed_tokens, agent.billed_tokens)) if agent else None
    out["prompt_tokens_vs_raw"] = _r(ratio(figures.prompt_tokens, raw.prompt_tokens)) if raw else None
    out["billed_vs_raw"] = _r(ratio(figures.billed_tokens, raw.billed_tokens)) if raw else None
    sent = sent or figures
    out["tokens_vs_agent_with_l1"] = _r(ratio(sent.prompt_tokens, agent.prompt_tokens)) if agent else None
    out["billed_vs_agent_with_l1"] = _r(ratio(sent.billed_tokens, agent.billed_tokens)) if agent else None
    return out


def treatment(ids: list[str], unrecorded: set[str]) -> str:
    missing = sum(1 for i in ids if i in unrecorded)
    if not missing:
        return SYSTEM_RECORDED
    if missing == len(ids):
        return SYSTEM_NOT_RECORDED
    return f"{SYSTEM_NOT_RECORDED} for {missing} of {len(ids)} trajectories; the others {SYSTEM_RECORDED}"


def _group(results: dict[str, dict[str, Figures]], with_l1: dict[str, dict[str, Figures]], ids: list[str],
           policies: list[str], unrecorded: set[str]) -> dict[str, Any]:
    pooled = {name: sum((results[name][i] for i in ids), Figures()) for name in results}
    sent = {name: sum((with_l1[name][i] for i in ids), Figures()) for name in with_l1}
    agent, raw = pooled[BASELINE], pooled[REFERENCE]
    rows = {name: entry(pooled[name], agent, raw, sent[name]) for name in [BASELINE] + policies}
    return {"trajectories": len(ids), "framing_ratio": _r(ratio(raw.prompt_tokens, agent.prompt_tokens)),
            "framing_ratio_with_l1": _r(ratio(sent[REFERENCE].prompt_tokens, agent.prompt_tokens)),
            "system_prompt_not_recorded": sum(1 for i in ids if i in unrecorded),
            "baseline_treatment": treatment(ids, unrecorded), "policies": rows}


def build_report(results: dict[str, dict[str, Figures]], policies: list[str], families: dict[str, str],
                 with_l1: dict[str, dict[str, Figures]] | None = None, unrecorded: set[str] | None = None) -> dict[str, Any]:
    """results[name][instance_id] for every policy replayed, `raw` and the `agent` baseline, like for like;
    with_l1: the same with our L1 as sent (defaults to `results`); unrecorded: the trajectories whose log has
    no system prompt; families[instance_id] = the trajectory's source format."""
    with_l1 = results if with_l1 is None else with_l1
    unrecorded = unrecorded or set()
    ids = list(results[REFERENCE])
    report: dict[str, Any] = {"trajectories": ids, "pooling": "micro (sums over all trajectories)",
                    "baseline": "the recorded agent's own prompts",
                    "overall": _group(results, with_l1, ids, policies, unrecorded), "families": {}, "policies": {}}
    for family in sorted(set(families[i] for i in ids)):
        members = [i for i in ids if families[i] == family]
        report["families"][family] = _group(results, with_l1, members, policies, unrecorded)
    agent, raw = results[BASELINE], results[REFERENCE]
    for policy in policies:
        report["policies"][policy] = {
            "overall": report["overall"]["policies"][policy],
            "trajectories": {i: {**entry(results[policy][i], agent[i], raw[i], with_l1[policy][i]),
                                 "baseline_treatment": treatment([i], unrecorded)} for i in ids},
        }
    return report
