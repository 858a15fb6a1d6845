"""Our own viewing tools inside a turn: an older Read, Grep, LS or Glob result gets the digest a Bash view or search
gets (core/context/turn_forms.py, `shell_equivalent`), not its A3 history form — which for a Read of under 500
lines is the whole file as escaped JSON, larger than the text, so the turn used to send every older Read whole."""

from __future__ import annotations

import json

from contextual.core.context.scratchpad import OBS, ScratchStep
from contextual.core.context.turn_forms import shell_equivalent, turn_stored
from tests.engine_helpers import engine_with, finish, finished, read_action, run


def _module(n: int) -> str:
    lines = [f"class Ledger{n}:"] + [f"    total_{n} = add(total_{n}, {k})  # running sum" for k in range(400)]
    return "\n".join(lines) + "\n"


async def test_a_turn_of_reads_sends_the_older_ones_as_digests_with_the_files_own_numbers(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    for n in range(6):
        (root / f"m{n}.py").write_text(_module(n))
    grep = 'Thought: where is it added\nAction: Grep[{"pattern": "add\\\\(", "path": "."}]'
    script = [read_action(f"m{n}.py") for n in range(6)] + [grep, finish("read them")]
    async with engine_with(root, script, context_window=1_000_000) as (engine, srv):
        assert finished(await run(engine, "read every module")).answer == "read them"
    last = srv.requests[-1]["messages"]
    observations = [m["content"] for m in last if m["role"] == "user" and str(m["content"]).startswith(OBS)]
    assert len(observations) == 7
    first = observations[0]
    assert "omitted; run it again to see them]" in first and "class Ledger0:" in first
    assert "     1\tclass Ledger0:" in first                      # the Read's own numbering, not a second one
    assert len(first) < len(_module(0)) / 5
    assert observations[-1].count("add(") == 500 and "omitted" not in observations[-1]   # the newest: whole


def _step(action: str, output: str) -> ScratchStep:
    return ScratchStep(action, action, "[ok]\n" + output, json.dumps({"status": "success"}))


def test_an_edit_tool_makes_the_names_a_read_showed_stale_so_the_next_read_shows_them_again():
    view = "\n".join(["def total():"] + [f"    value_{k} = compute({k})" for k in range(40)])
    read = 'Thought: look\nAction: Read[{"file_path": "shop.py"}]'
    edit = 'Thought: fix\nAction: Edit[{"file_path": "shop.py", "old_string": "x", "new_string": "y"}]'
    other = 'Thought: list\nAction: LS[{"path": "docs"}]'
    assert shell_equivalent(read) == "cat -n shop.py" and shell_equivalent(edit) is None
    edited = turn_stored([_step(read, view), _step(edit, "edited"), _step(read, view), _step(other, "a")], 3)
    untouched = turn_stored([_step(read, view), _step(other, "a"), _step(read, view), _step(other, "a")], 3)
    # After an Edit of the file, its names need their newest lines again; without one, the re-read is known.
    assert "value_7 = compute(7)" in edited[2].observation
    assert "value_7" not in untouched[2].observation and len(untouched[2].observation) < 200
