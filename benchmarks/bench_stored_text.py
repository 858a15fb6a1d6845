"""History's stored forms as JSON and as the text the prompt sends (not a test).

    python benchmarks/bench_stored_text.py [DIR]      # default ../shared/trajectories/tune

Every recorded step becomes the tool result our engine would have recorded — a Read of the file when the step
shows one file (as benchmarks/bench_tool_turns.py reads it), else a Bash result — and the script prints, per tool,
the cl100k tokens of its stored form as C1's JSON (what history keeps) and as core/context/stored_render.py writes
it for the prompt, and of the full observation.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_tool_turns import shown_file  # noqa: E402
from contextual.core.context import compressor  # noqa: E402
from contextual.core.context.stored_render import sent_text  # noqa: E402
from contextual.core.replay.loaders import find_trajectories, load_trajectories  # noqa: E402
from contextual.core.replay.replay_model import bash_result  # noqa: E402
from contextual.core.tokens import count  # noqa: E402


def result_of(step) -> tuple[str, dict, dict]:
    shown = shown_file(step.action, step.output) if step.returncode == 0 else None
    if shown is None:
        return "Bash", {"command": step.action}, bash_result(step, step.action)
    path, first, output = shown
    lines = output.splitlines()
    numbered = "\n".join(f"{first + i:6d}\t{line}" for i, line in enumerate(lines))
    data = {"path": path, "start_line": first, "end_line": first + len(lines) - 1, "content": numbered}
    return "Read", {"file_path": path}, {"status": "success", "data": data, "text": numbered}


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "trajectories" / "tune"
    totals: dict[str, list[int]] = {}
    for path in find_trajectories([str(folder)]):
        for traj in load_trajectories(path):
            for step in traj.steps:
                tool, args, result = result_of(step)
                stored = compressor.stored_text(tool, args, result)
                row = totals.setdefault(tool, [0, 0, 0, 0])
                row[0] += 1
                row[1] += count(stored)
                row[2] += count(sent_text(stored))
                row[3] += count(compressor.full_text(result))
    print("| tool | results | stored as JSON | stored as sent (text) | text / JSON | full observation |")
    print("|---|---:|---:|---:|---:|---:|")
    for tool, (n, as_json, as_text, full) in sorted(totals.items()):
        print(f"| {tool} | {n:,} | {as_json:,} | {as_text:,} | {as_text / as_json:.3f} | {full:,} |")


if __name__ == "__main__":
    main()
