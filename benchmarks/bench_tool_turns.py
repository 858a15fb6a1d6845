"""Read-driven turns (not a test): what `ours` sends when the agent reads files with our Read tool, not `cat`.

    python benchmarks/bench_tool_turns.py [DIR]      # default ../shared/trajectories/tune

`contextual replay` plays every recorded step as Bash, so its figures are those of Bash-driven turns. Here each
recorded step that shows one file (`cat F`, `sed -n 'A,Bp' F`, `head -n N F` as command_kind.file_origin reads them,
`nl -ba F [| sed -n 'A,Bp']`) becomes a Read step whose observation is Read's own text (lines numbered as the tool numbers them);
every other step stays Bash. The turn's scratchpad is then sent as `ours` and as `raw` would send it at each call
(core/context/scratchpad.py, no engine, no L1 or task), and the script prints prompt tokens and billed tokens
(the prefix shared with the previous call at 0.1x) for `raw`, for `ours`, and for `ours` with the Read steps in
their A3 history form inside the turn (how the engine sent them before turn_forms.shell_equivalent).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from contextual.core.context import command_kind as ck, compressor, turn_forms  # noqa: E402
from contextual.core.context.scratchpad import ScratchStep, ours, raw, shorten_action  # noqa: E402
from contextual.core.replay.loaders import find_trajectories, load_trajectories  # noqa: E402
from contextual.core.replay.metrics import billed_tokens, common_prefix_length  # noqa: E402
from contextual.core.replay.replay_model import bash_result  # noqa: E402
from contextual.core.shell.parse import parse_command  # noqa: E402
from contextual.core.tokens import count  # noqa: E402


def read_step(thought: str, path: str, first: int, output: str) -> ScratchStep:
    lines = output.splitlines()
    numbered = "\n".join(f"{first + i:6d}\t{line}" for i, line in enumerate(lines))
    args: dict[str, object] = {"file_path": path} | ({"offset": first, "limit": len(lines)} if first > 1 else {})
    data = {"path": path, "start_line": first, "end_line": first + len(lines) - 1, "content": numbered}
    result = {"status": "success", "data": data, "text": numbered}
    action = f"Thought: {thought}\nAction: Read[{json.dumps(args)}]"
    return ScratchStep(action, shorten_action(action), compressor.full_text(result),
                       compressor.stored_text("Read", args, result))


def bash_step(thought: str, command: str, step) -> ScratchStep:
    action = f"Thought: {thought}\nAction: Bash[{json.dumps({'command': command})}]"
    result = bash_result(step, command)
    return ScratchStep(action, shorten_action(action), compressor.full_text(result),
                       compressor.stored_text("Bash", {"command": command}, result))


_NL = re.compile(r"^\s*\d+\t", re.M)


def shown_file(command: str, output: str) -> tuple[str, int, str] | None:
    """(path, first line, the file's lines) when the command shows one range of one file: what command_kind.file_origin
    reads, and `nl -ba F | sed -n 'A,Bp'` with nl's numbers taken off."""
    origin = ck.file_origin(command) if ck.kind_of(command) == "view" else None
    if origin is not None and ck.program_of(command) != "nl":
        return origin[0], origin[1], output
    words = [w for w in parse_command(command).commands]
    if len(words) in (1, 2) and words[0][:2] == ("nl", "-ba") and len(words[0]) == 3:
        first = 1
        if len(words) == 2:
            match = re.fullmatch(r"sed -n (\d+),\d+p", " ".join(w or "" for w in words[1]))
            if match is None:
                return None
            first = int(match.group(1))
        return str(words[0][2]), first, _NL.sub("", output)
    return None


def steps_of(traj) -> tuple[list[ScratchStep], int]:
    out, reads = [], 0
    for step in traj.steps:
        shown = shown_file(step.action, step.output) if step.returncode == 0 else None
        if shown is not None:
            out.append(read_step(step.thought, *shown))
            reads += 1
        else:
            out.append(bash_step(step.thought, step.action, step))
    return out, reads


def figures(steps: list[ScratchStep], policy) -> tuple[int, float]:
    tokens, billed, previous = 0, 0.0, ""
    for k in range(1, len(steps) + 1):
        text = "\n".join(m.content for m in policy(steps[:k], count))
        n = count(text)
        tokens += n
        billed += billed_tokens(n, len(text), common_prefix_length(text, previous))
        previous = text
    return tokens, billed


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "trajectories" / "tune"
    totals = {"raw": [0, 0.0], "ours": [0, 0.0], "ours, Read in its A3 form": [0, 0.0]}
    steps_total = reads_total = 0
    for path in find_trajectories([str(folder)]):
        for traj in load_trajectories(path):
            steps, reads = steps_of(traj)
            steps_total, reads_total = steps_total + len(steps), reads_total + reads
            for name, policy in (("raw", raw), ("ours", ours)):
                t, b = figures(steps, policy)
                totals[name][0] += t
                totals[name][1] += b
            saved, memo = turn_forms._equivalent, turn_forms._memo
            turn_forms._equivalent = turn_forms._command_of             # the engine before: Bash lines only
            turn_forms._memo = turn_forms._Forms()                     # forms are remembered per turn prefix
            try:
                t, b = figures(steps, ours)
            finally:
                turn_forms._equivalent, turn_forms._memo = saved, memo
            totals["ours, Read in its A3 form"][0] += t
            totals["ours, Read in its A3 form"][1] += b
    print(f"{steps_total} steps, {reads_total} of them Reads; the scratchpad only (no L1, no task)")
    print("| policy | prompt tokens | vs raw | billed | vs raw |")
    print("|---|---:|---:|---:|---:|")
    for name, (t, b) in totals.items():
        print(f"| {name} | {t:,} | {t / totals['raw'][0]:.3f} | {b:,.0f} | {b / totals['raw'][1]:.3f} |")


if __name__ == "__main__":
    main()
