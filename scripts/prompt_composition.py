"""What `ours` sends, by part, over every call of a set of trajectories (tuning aid; not part of the product).

Replays the trajectories under `ours` and `raw` with `contextual replay --dump` (the real CLI), then sorts each
call's tokens into L1, the task, thoughts (sent as written, or shortened), older observations (sent full, or in a
stored form) and the newest observation; a message counts as "as written"/"full" when it is byte-identical to
what `raw` sent at the same call.

    python scripts/prompt_composition.py ../shared/trajectories/tune/ [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from contextual.core.tokens import count  # noqa: E402


def parts(ours: list[dict], raw: list[dict]) -> Counter:
    """One call's tokens by part."""
    out: Counter = Counter({"L1": count(ours[0]["content"]), "task": count(ours[1]["content"])})
    last = len(ours) - 1
    for i in range(2, len(ours)):
        tokens = count(ours[i]["content"])
        same = i < len(raw) and ours[i]["content"] == raw[i]["content"]
        if ours[i]["role"] == "assistant":
            out["thought and action, as written" if same else "thought and action, shortened"] += tokens
        elif i == last:
            out["newest observation"] += tokens
        else:
            out["older observation, full" if same else "older observation, stored"] += tokens
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--jobs", default="2")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="composition-") as folder:
        subprocess.run([sys.executable, "-m", "contextual", "replay", "--summary-only", "--policy", "ours",
                        "--policy", "raw", "--jobs", args.jobs, "--dump", folder, *args.paths],
                       check=True, stdout=subprocess.DEVNULL)
        total: Counter = Counter()
        calls = 0
        for dumped in sorted(Path(folder, "ours").glob("*.jsonl")):
            raw_calls = Path(folder, "raw", dumped.name).read_text().splitlines()
            # the last line is the closing Finish call the engine adds, which the recording has not (the figures
            # of `contextual replay` leave it out too)
            for ours_line, raw_line in zip(dumped.read_text().splitlines()[:-1], raw_calls):
                total += parts(json.loads(ours_line)["messages"], json.loads(raw_line)["messages"])
                calls += 1
    whole = sum(total.values())
    print(f"{calls:,} calls, {whole:,} tokens (cl100k, message overhead aside)")
    print("| part | tokens | share |")
    print("|---|---:|---:|")
    for part, tokens in total.most_common():
        print(f"| {part} | {tokens:,} | {tokens / whole:.3f} |")


if __name__ == "__main__":
    main()
