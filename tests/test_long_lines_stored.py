"""A3 bounds a stored form by lines, and lines can be long: a Read of 2,000 lines of ~500 characters (1 MB) was
stored as 254 KB (~60k tokens) and its harder form as 40 KB (~10k tokens, 2.5 windows at 4k; a user review,
helper-139). Each form is also held to characters: a fixed cap, a share of a small window (compressor.chars_for)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contextual.core.context import compressor
from contextual.core.context.stored_render import sent_text
from contextual.core.tokens import count
from tests.engine_helpers import engine_with, finish, read_action, run

LINE = "the quick brown fox jumps over the lazy dog " * 11        # ~480 characters


@pytest.mark.parametrize("window, stored_most, hard_most", [(4096, 8_192, 4_096), (200_000, 48_000, 8_000)])
async def test_a_read_of_long_lines_is_stored_within_characters_and_says_how_to_see_the_rest(
        tmp_path: Path, window: int, stored_most: int, hard_most: int):
    (tmp_path / "huge.txt").write_text("".join(f"{i} {LINE}\n" for i in range(2000)))
    async with engine_with(tmp_path, [read_action("huge.txt"), finish("read")], context_window=window) as (engine, _):
        await run(engine, "read huge.txt")
    tool = next(m for m in engine.history.messages if m.role == "tool")
    assert len(tool.content) <= stored_most and len(tool.meta["hard"]) <= hard_most
    for form in (json.loads(tool.content), json.loads(tool.meta["hard"])):
        data = form["data"]
        assert data["content"].startswith(f"     1\t0 {LINE[:20]}") and data["total_lines"] == 2000
        assert "characters (its lines are long); Read again with offset to see them" in data["omitted"]
    assert count(sent_text(tool.meta["hard"])) <= min(window // 4, 2_000)       # the harder form well under it


def test_a3_a_form_of_any_row_is_held_to_characters_its_longest_text_cut_head_and_tail():
    stderr = "\n".join(f"E{i} " + "x" * 9_000 + f" END{i}" for i in range(20))
    stored = compressor.stored_text("Bash", {"command": "make"}, {"status": "success", "data": {
        "command": "make", "exit_code": 2, "stdout": "", "stderr": stderr}}, window=4096)
    tail = json.loads(stored)["data"]["stderr_tail"]
    assert len(stored) <= compressor.chars_for("normal", 4096) and "chars truncated" in tail
    assert tail.startswith("E0 ") and tail.endswith("END19")


def test_a_first_line_longer_than_the_room_keeps_its_start_and_says_so():
    content = "     1\t" + "y" * 30_000 + "\n     2\tshort"
    stored = compressor.stored_text("Read", {"file_path": "one.min.js"}, {"status": "success", "data": {
        "path": "one.min.js", "content": content, "start_line": 1, "end_line": 2, "total_lines": 2}}, window=4096)
    data = json.loads(stored)["data"]
    assert len(stored) <= 8_192 and data["content"].startswith("     1\tyyy")
    assert "30,007 characters, the first" in data["content"] and "2\tshort" not in data["content"]
    assert data["omitted"].startswith("the first line of this range was cut to its first ")
    assert "Bash (cut -c, head -c) shows the rest of it; Read again with offset to see the lines after it" in data[
        "omitted"]
