"""The replay's report: every policy against the recorded agent's own prompts and against our `raw`.

Figures pool by addition (core/replay/metrics.py: sums over sums, pairs over pairs), per source family and
over everything. `agent` is the baseline (core/replay/baseline.py), not a policy the engine plays: its row is
what the recorded agent itself sent. The framing ratio is our `raw` over `agent`: what our wire format alone
costs for the same work, with nothing compressed.

Trajectories whose log records no system prompt are compared without L1 on both sides (core/replay/baseline.py,
"Like for like"); every group says which treatment applied (`baseline_treatment`) and every row keeps the
ratios with our L1 as sent (`tokens_vs_agent_with_l1`, `billed_vs_agent_with_l1`), printed as extra columns.
"""

from __future__ import annotations

from typing import Any, TextIO

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


COLUMNS = [("calls", "calls", "{:,}"), ("tokens", "prompt_tokens", "{:,}"),
           ("vs agent", "tokens_vs_agent", "{:.3f}"), ("vs raw", "prompt_tokens_vs_raw", "{:.3f}"),
           ("billed (cache)", "billed_tokens", "{:,.0f}"), ("vs agent", "billed_vs_agent", "{:.3f}"),
           ("vs raw", "billed_vs_raw", "{:.3f}"), ("peak", "peak_prompt", "{:,}"),
           ("recall", "recall", "{:.3f}"), ("line recall", "line_recall", "{:.3f}"),
           ("action recall", "action_recall", "{:.3f}")] + [
           (f"line/{name}", f"line_recall_{name}", "{:.3f}") for name in SCORERS]
# Shown when some trajectory was compared without L1: the same ratios with our L1 as sent.
WITH_L1_COLUMNS = [("tokens vs agent, with our L1", "tokens_vs_agent_with_l1", "{:.3f}"),
                   ("billed vs agent, with our L1", "billed_vs_agent_with_l1", "{:.3f}")]


def _cells(row: dict[str, Any], columns: list[Any]) -> list[str]:
    return ["-" if row.get(key) is None else fmt.format(row[key]) for _, key, fmt in columns]


def title_lines(title: str, width: int) -> tuple[str, str]:
    """A title wider than its column's figures goes on two lines, broken after the space or `/` that makes the
    longer half shortest (`line/numbers` is `line/` over `numbers`): the table is as wide as its figures, so
    more columns fit a terminal."""
    breaks = [(title[:i], title[i + 1:]) for i, c in enumerate(title) if c == " "]
    breaks += [(title[:i + 1], title[i + 1:]) for i, c in enumerate(title[:-1]) if c == "/"]
    if len(title) <= width or not breaks:
        return "", title
    return min(breaks, key=lambda halves: max(map(len, halves)))


def table(first_header: str, rows: list[tuple[str, dict[str, Any]]], with_l1: bool = False) -> list[str]:
    columns = COLUMNS + (WITH_L1_COLUMNS if with_l1 else [])
    body = [[name] + _cells(row, columns) for name, row in rows]
    figures = [max((len(row[i + 1]) for row in body), default=0) for i in range(len(columns))]
    titles = [("", first_header)] + [title_lines(title, w) for (title, _, _), w in zip(columns, figures)]
    header = [[top for top, _ in titles], [bottom for _, bottom in titles]]
    widths = [max(len(row[i]) for row in header + body) for i in range(len(titles))]

    def line(row: list[str]) -> str:
        return "  ".join(cell.ljust(widths[0]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row))
    heads = [line(row) for row in header if any(row)]
    return heads + ["  ".join("-" * w for w in widths)] + [line(row) for row in body]


def print_tables(report: dict[str, Any], out: TextIO, per_trajectory: bool = True) -> None:
    ids = report["trajectories"]
    plain = report["overall"]["system_prompt_not_recorded"] > 0
    if per_trajectory:
        for policy, figures in report["policies"].items():
            print(f"\npolicy {policy} ({len(ids)} trajectories; {report['overall']['baseline_treatment']})",
                  file=out)
            rows = [(i, figures["trajectories"][i]) for i in ids] + [("all (pooled)", figures["overall"])]
            for text in table("trajectory", rows, with_l1=plain):
                print(text, file=out)
    groups = [(f"family {name}", group) for name, group in report["families"].items()]
    if len(groups) > 1 or not groups:
        groups.append(("all families", report["overall"]))
    for title, group in groups:
        missing = group["system_prompt_not_recorded"] > 0
        with_l1 = f" ({_fmt(group['framing_ratio_with_l1'])} with our L1)" if missing else ""
        print(f"\nsummary, {title} ({group['trajectories']} trajectories, pooled; vs agent = against the recorded "
              f"agent's own prompts; {group['baseline_treatment']}; framing ratio our raw / agent = "
              f"{_fmt(group['framing_ratio'])}{with_l1}; billed: the prompt share identical to the previous "
              "call's from the start at 0.1x)", file=out)
        for text in table("policy", list(group["policies"].items()), with_l1=missing):
            print(text, file=out)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
