"""The loss ledger's facts of a long message grow with its length, not its square (helper-78: a 400 kB paste held
the app ~13 s at its compaction when every name was looked for again in every line).

    python benchmarks/bench_facts_scaling.py [--words 12000]

Prints the CPU time (best of three) for the message at a quarter of the size and at the size, and their ratio:
about 4 is linear; the old search made it about 13.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from contextual.core.context.facts import extract_facts  # noqa: E402
from contextual.core.messages import Message  # noqa: E402


def cost(words: int) -> float:
    text = " ".join(f"w{i}" for i in range(words))
    said = [Message("user", text, meta={"turn": "t1", "raw": text}),
            Message("assistant", "Thought: ok\nAction: Finish[x]", meta={"turn": "t1"})]
    later = [Message("user", "hi", meta={"turn": "t2", "raw": "hi"})]
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        extract_facts(said, later)
        best = min(best, time.process_time() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=12_000)
    words = parser.parse_args().words
    small, large = cost(words // 4), cost(words)
    print(f"{words // 4:,} words: {small:.3f} s · {words:,} words: {large:.3f} s · ratio {large / small:.1f} "
          "(linear ≈ 4)")


if __name__ == "__main__":
    main()
