"""How Glob's walk and matcher scale with depth (issue 13: the old walk slowed cubically with depth, and a
whole-path glob regex under several `**` backtracked for minutes). Not a test: prints figures.

    python benchmarks/bench_tool_walk.py
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from contextual.core.tools.base import ToolContext  # noqa: E402
from contextual.core.tools.glob import GlobTool  # noqa: E402
from contextual.core.tools.runner import run_tool  # noqa: E402

FILES_PER_LEVEL = 5
PATTERN = "**/a*/**/a*/**/a*/**/a*/**/a*/**/a*/**/a*/**/f1.txt"


def build(root: Path, depth: int) -> None:
    folder = root
    for _ in range(depth):
        folder = folder / "a"
        folder.mkdir()
        for i in range(FILES_PER_LEVEL):
            (folder / f"f{i}.txt").write_text("x\n")


async def main() -> None:
    print(f"depth  entries  Glob '**/*.txt' ms  Glob 8x'**' ms")
    for depth in (50, 100, 200, 400):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp).resolve()
            build(root, depth)
            ctx = ToolContext(root=root)
            timings = []
            for pattern in ("**/*.txt", PATTERN):
                started = time.perf_counter()
                result = await run_tool(GlobTool(max_paths=10 ** 6), {"pattern": pattern}, ctx)
                assert result["status"] == "success", result
                timings.append((time.perf_counter() - started) * 1000)
            print(f"{depth:5}  {depth * (FILES_PER_LEVEL + 1):7}  {timings[0]:17.0f}  {timings[1]:14.0f}")


if __name__ == "__main__":
    asyncio.run(main())
