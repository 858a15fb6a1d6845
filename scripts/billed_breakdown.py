"""Where `ours` spends billed tokens on a set of trajectories (tuning aid; not part of the product).

Billed with cache (core/replay/metrics.py) prices the prompt share identical to the previous call's from the
start at 0.1x and the rest at 1x. For `ours` the uncached rest of call k is, in order: the stored forms of the
step that switched at this call (its action and observation), the newest action and the newest full observation.
This prints, pooled over all calls, how many billed tokens each part costs, beside the recorded agent's, and the
stored forms' size against the full observations they replace, per kind of command (core/context/digest.py).
Messages from the first one that differs count whole as uncached; the metric prices by characters, so the two
differ a little either way (on tune/ 0.742x here against replay's 0.733x when written; 0.746x against 0.763x on
2026-11-28).

    python scripts/billed_breakdown.py ../shared/trajectories/tune/ [--policy ours] [--first N | --last N]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from contextual.core.context.command_kind import kind_of  # noqa: E402
from contextual.core.context.turn_forms import bash_command  # noqa: E402
from contextual.core.replay.baseline import agent_calls  # noqa: E402
from contextual.core.replay.loaders import find_trajectories, load_trajectories  # noqa: E402
from contextual.core.replay.metrics import CACHED_PRICE, call_figures  # noqa: E402
from contextual.core.replay.runner import replay_one  # noqa: E402
from contextual.core.tokens import shared_cache  # noqa: E402

HEAD = 2          # system prompt and task come before the scratchpad in a replay


def first_difference(current: list[dict], previous: list[dict]) -> int:
    index = 0
    while index < min(len(current), len(previous)) and current[index] == previous[index]:
        index += 1
    return index


def part_of(index: int, step_count: int, changed_from: int) -> str:
    """Which part of call `step_count`'s prompt message `index` is."""
    if index < HEAD:
        return "head (system, task)"
    step, is_obs = divmod(index - HEAD, 2)
    if step == step_count - 1:
        return "newest observation (full)" if is_obs else "newest action"
    return "switched observation (stored)" if is_obs else "switched action (stored)"


def size_part(index: int, step_count: int) -> str:
    if index < HEAD:
        return "head (system, task)"
    step, is_obs = divmod(index - HEAD, 2)
    newest = step == step_count - 1
    return ("newest " if newest else "older ") + ("observation" if is_obs else "action")


def breakdown(calls: list[list[dict]], parts: Counter, kinds: Counter, sizes: Counter) -> None:
    previous: list[dict] | None = None
    for k, messages in enumerate(calls):
        changed = first_difference(messages, previous) if previous is not None else 0
        for index, message in enumerate(messages):
            tokens = shared_cache.message(message["content"])
            sizes[size_part(index, k)] += tokens
            if index < changed:
                parts["cached prefix (0.1x)"] += CACHED_PRICE * tokens
            else:
                parts[part_of(index, k, changed)] += tokens
        previous = messages
    # stored vs full, by command kind, on the last call (every older step is in its final form there)
    last = calls[-1]
    for j in range(HEAD, len(last) - 2, 2):
        command = bash_command(last[j]["content"]) or ""
        kinds[(kind_of(command), "sent")] += shared_cache.message(last[j + 1]["content"])


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--policy", default="ours")
    parser.add_argument("--first", type=int)
    parser.add_argument("--last", type=int)
    args = parser.parse_args()
    paths = find_trajectories(args.paths)
    if args.first:
        paths = paths[:args.first]
    if args.last:
        paths = paths[-args.last:]
    parts: Counter = Counter()
    kinds: Counter = Counter()
    sizes: Counter = Counter()
    agent_billed = agent_tokens = ours_tokens = 0.0
    for path in paths:
        for traj in load_trajectories(path):
            run = await replay_one(traj, args.policy)
            calls = run.calls[:run.steps]
            breakdown(calls, parts, kinds, sizes)
            raw = await replay_one(traj, "raw")
            last_raw = raw.calls[run.steps - 1]
            for j in range(HEAD, len(last_raw) - 2, 2):
                command = bash_command(last_raw[j]["content"]) or ""
                kinds[(kind_of(command), "full")] += shared_cache.message(last_raw[j + 1]["content"])
            agent = call_figures(agent_calls(traj))
            agent_billed += agent.billed_tokens
            agent_tokens += agent.prompt_tokens
            ours_tokens += call_figures(calls).prompt_tokens
    total = sum(parts.values())
    print(f"{len(paths)} trajectories; {args.policy}: billed {total:,.0f} = {total / agent_billed:.3f}x agent "
          f"({agent_billed:,.0f}); tokens {ours_tokens / agent_tokens:.3f}x")
    for part, value in parts.most_common():
        print(f"  {part:32s} {value:14,.0f}  {value / agent_billed:.3f} of agent's billed")
    print("prompt tokens over all calls, by part")
    for part, value in sizes.most_common():
        print(f"  {part:32s} {value:14,.0f}  {value / agent_tokens:.3f} of agent's tokens")
    print("older steps on the last call, by command kind: tokens sent / full")
    for kind in sorted({k for k, _ in kinds}):
        sent, full = kinds[(kind, "sent")], kinds[(kind, "full")]
        print(f"  {kind:8s} {sent:12,.0f} / {full:12,.0f}  {sent / full if full else 0:.3f}")


if __name__ == "__main__":
    asyncio.run(main())
