"""Engine overhead per step at a 160k-token history (issue 5): context assembly + token accounting +
session append, against a naive full re-tokenisation of the prompt, in the same run.

    python benchmarks/bench_engine_overhead.py [--tokens 160000] [--steps 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from contextual.core.agent import Engine  # noqa: E402
from contextual.core.config import Config  # noqa: E402
from contextual.core.context.scratchpad import ScratchStep  # noqa: E402
from contextual.core.messages import Message  # noqa: E402
from contextual.core.session import SessionWriter  # noqa: E402
from contextual.core.tokens import count  # noqa: E402

CODE = "\n".join(f"    def method_{i}(self, value):\n        return self.table[{i}] + value  # line {i}"
                 for i in range(60))


def make_history(target_tokens: int) -> list[Message]:
    messages: list[Message] = []
    total, i = 0, 0
    while total < target_tokens:
        call = f"c{i}"
        out = json.dumps({"status": "success", "data": {"path": f"src/mod_{i}.py", "content": CODE}})
        round_ = [Message("user", f"step {i}: refactor mod_{i}"),
                  Message("assistant", f'Thought: read mod_{i}\nAction: Read[{{"file_path": "src/mod_{i}.py"}}]',
                          meta={"call_id": call, "tool_name": "Read", "args": {"file_path": f"src/mod_{i}.py"}}),
                  Message("tool", out, full=out, meta={"call_id": call, "tool_name": "Read"}),
                  Message("assistant", f"Thought: done\nAction: Finish[refactored mod_{i}]", meta={"final": True})]
        total += sum(count(m.content) + 4 for m in round_)
        messages.extend(round_)
        i += 1
    return messages


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", type=int, default=160_000)
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        config = Config(project_root=root, home=root / "home", model="bench", base_url="http://127.0.0.1:9",
                        context_window=1_000_000)
        writer = SessionWriter.create(config.home, root)
        await writer.start()
        engine = Engine(config, provider=None, tools={}, session=writer)
        engine.history.messages = make_history(args.tokens)
        engine.history.messages.append(Message("user", "one more step"))
        engine.prompt.start_turn("one more step")
        built = engine.build()
        print(f"history: {len(engine.history.messages)} messages, prompt {built.total:,} tokens")
        ours, naive = [], []
        for step in range(args.steps):
            obs = json.dumps({"status": "success", "data": {"stdout": f"result {step}\n" * 20}})
            t0 = time.perf_counter()
            msg = Message("tool", obs, full=obs, meta={"step": step})
            engine.prompt.add_step(ScratchStep(f"Thought: {step}\nAction: LS[{{}}]", f"Thought: {step}\nAction: LS[{{}}]",
                                            obs, obs))
            built = engine.build()               # assembly + per-message token accounting (cached)
            writer.append_message(msg)           # session append (enqueued, written by the writer task)
            ours.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            naive_total = count("".join(m.content for m in built.messages))   # the naive way
            naive.append(time.perf_counter() - t0)
        await writer.close()
        med_ours, med_naive = statistics.median(ours) * 1000, statistics.median(naive) * 1000
        print(f"median per step: engine {med_ours:.3f} ms, naive re-tokenisation {med_naive:.1f} ms "
              f"({med_naive / med_ours:.0f}x)  [prompt {built.total:,} tokens, naive counted {naive_total:,}]")


if __name__ == "__main__":
    asyncio.run(main())
