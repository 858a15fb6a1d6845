"""Session benchmark (not a test): open a 10,000-entry session, list 1,000 sessions.

    python benchmarks/bench_sessions.py [--entries 10000] [--sessions 1000]

Targets on the reference machine: open <= 1 s, list <= 0.5 s. The session is written through SessionWriter
with realistic sizes: tool results keep their full output (2-40 KB) beside the stored form.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from contextual.core.events import UsageEvent  # noqa: E402
from contextual.core.messages import Message  # noqa: E402
from contextual.core.session import SessionWriter, list_sessions, load_session  # noqa: E402

WORDS = ("def class return import self value result error path file token context " * 8).split()


def prose(rng: random.Random, size: int) -> str:
    out, length = [], 0
    while length < size:
        word = rng.choice(WORDS)
        out.append(word)
        length += len(word) + 1
    return " ".join(out)


def source_listing(rng: random.Random, size: int) -> str:
    lines, length, number = [], 0, 1
    while length < size:
        line = f"{number:6d}\t    {prose(rng, rng.randint(10, 70))}"
        lines.append(line)
        length += len(line) + 1
        number += 1
    return "\n".join(lines)


async def write_big_session(home: Path, project: Path, entries: int, rng: random.Random) -> tuple[Path, int]:
    writer = SessionWriter.create(home, project)
    written = step = 0
    while written < entries:
        writer.append_message(Message("user", prose(rng, rng.randint(40, 400))))
        written += 1
        for _ in range(rng.randint(2, 6)):
            step += 1
            call = f"call-{step}"
            tool = rng.choice(["Read", "Grep", "Bash", "Edit"])
            args = {"file_path": f"src/module_{rng.randint(1, 200)}.py"}
            thought = Message("assistant", f"Thought: {prose(rng, rng.randint(80, 500))}\nAction: {tool}\n"
                              f"Action Input: {json.dumps(args)}",
                              meta={"step": step, "call_id": call, "tool_name": tool, "args": args})
            full = json.dumps({"status": "success", "text": source_listing(rng, rng.randint(2_000, 40_000))})
            stored = json.dumps({"status": "success", "text": prose(rng, rng.randint(200, 800))})
            writer.append_message(thought)
            writer.append_tool_use(call, tool, args, thought)
            writer.append_message(Message("tool", stored, full=full,
                                          meta={"step": step, "call_id": call, "tool_name": tool, "args": args}))
            writer.append_usage(UsageEvent(rng.randint(5_000, 150_000), rng.randint(50, 2_000)))
            written += 4
        writer.append_message(Message("assistant", prose(rng, 600), meta={"final": True}))
        written += 1
        await writer.flush(fsync=False)
    await writer.close()
    return writer.path, written


def write_many_sessions(home: Path, project: Path, count: int, rng: random.Random) -> None:
    for _ in range(count):
        writer = SessionWriter.create(home, project)
        for _ in range(rng.randint(2, 12)):
            writer.append_message(Message("user", prose(rng, rng.randint(20, 200))))
            writer.append_message(Message("assistant", prose(rng, 400), meta={"final": True}))
            writer.append_usage(UsageEvent(rng.randint(1_000, 50_000), 300))
        writer.close_sync()


def best_of(runs: int, action) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(runs):
        started = time.perf_counter()
        result = action()
        best = min(best, time.perf_counter() - started)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--sessions", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    rng = random.Random(7)

    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir()
        started = time.perf_counter()
        path, written = asyncio.run(write_big_session(home, project, options.entries, rng))
        write_time = time.perf_counter() - started
        size_mb = path.stat().st_size / 1e6
        open_time, loaded = best_of(options.runs, lambda: load_session(path))
        print(f"write  {written} entries ({size_mb:.1f} MB): {write_time:.2f} s")
        print(f"open   {written} entries ({size_mb:.1f} MB): {open_time:.3f} s "
              f"(history {len(loaded.history)} messages; target <= 1 s)")

        other = Path(tmp) / "other-project"
        other.mkdir()
        write_many_sessions(home, other, options.sessions, rng)
        list_time, infos = best_of(options.runs, lambda: list_sessions(home, other))
        print(f"list   {len(infos)} sessions (from the index): {list_time:.3f} s (target <= 0.5 s)")
        for info in infos:
            (info.path.with_name(info.path.name + ".index.json")).unlink()
        started = time.perf_counter()
        list_sessions(home, other)
        print(f"list   {len(infos)} sessions (index sidecars deleted, sessions scanned): "
              f"{time.perf_counter() - started:.3f} s")


if __name__ == "__main__":
    main()
