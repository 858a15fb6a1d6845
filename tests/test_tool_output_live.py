"""A running tool shows signs of life (issue 15): the engine yields the tail of Bash's output while it runs."""

from __future__ import annotations

import json

from contextual.core.events import ToolFinished, ToolOutput, TurnFinished
from tests.engine_helpers import engine_with, finish

# The command prints a line, then waits until the test has seen that line and creates `go` (a condition).
COMMAND = "echo first-line; while [ ! -f go ]; do sleep 0.02; done; echo second-line"


async def test_bash_output_tail_arrives_before_the_tool_finishes(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    script = ['Thought: run\nAction: Bash[' + json.dumps({"command": COMMAND}) + ']', finish("ran")]
    async with engine_with(root, script) as (engine, srv):
        seen = []
        async for event in engine.run_turn("run it"):
            seen.append(event)
            if isinstance(event, ToolOutput) and "first-line" in event.text:
                (root / "go").write_text("")
    outputs = [i for i, e in enumerate(seen) if isinstance(e, ToolOutput)]
    [finished_at] = [i for i, e in enumerate(seen) if isinstance(e, ToolFinished)]
    assert outputs and max(outputs) < finished_at
    assert seen[outputs[0]].tool == "Bash" and seen[outputs[0]].step == 1
    assert "second-line" in seen[finished_at].full_text and isinstance(seen[-1], TurnFinished)
