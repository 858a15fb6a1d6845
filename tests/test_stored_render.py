"""A stored form as the prompt reads it (core/context/stored_render.py): C1's fields as text, nothing dropped,
fewer tokens than the JSON it renders, and the same status line a full observation has."""

from __future__ import annotations

import json
from typing import Any

import pytest

from contextual.core.context import compressor
from contextual.core.context.nested_rules import with_instructions
from contextual.core.context.observation import header
from contextual.core.context.stored_render import sent_text
from contextual.core.tokens import count

CODE = "\n".join(f'    value_{i} = compute("{i}", path=r"C:\\tmp\\{i}")\t# tab' for i in range(40))
RESULTS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "Read": ({"file_path": "a.py"}, {"status": "success", "data": {"path": "a.py", "start_line": 1, "end_line": 40,
                                                                    "total_lines": 40, "content": CODE}}),
    "Grep": ({"pattern": "value"}, {"status": "success", "data": {"pattern": "value", "match_count": 9, "file_count": 2,
             "matches": [{"path": f"m{i % 2}.py", "line": i, "text": f'x = "{i}"'} for i in range(9)]}}),
    "LS": ({"path": "."}, {"status": "success", "data": {"path": ".", "entries": [f"f{i}.py" for i in range(14)]}}),
    "Glob": ({"pattern": "*.py"}, {"status": "success", "data": {"pattern": "*.py", "paths": [f"p{i}.py" for i in range(3)]}}),
    "Edit": ({"file_path": "a.py"}, {"status": "success", "data": {"path": "a.py", "replacements": 1,
                                                                   "diff": "@@ -1 +1 @@\n-x = \"1\"\n+x = \"2\""}}),
    "Write": ({"file_path": "b.py", "content": CODE}, {"status": "success", "data": {"path": "b.py", "created": True,
                                                                                    "lines": 40, "bytes": len(CODE)}}),
    "Bash": ({"command": "pytest"}, {"status": "success", "data": {"command": "pytest", "exit_code": 1, "stdout": CODE,
                                                                   "stderr": "E   AssertionError: \"x\" != 'y'"}}),
    "TodoWrite": ({}, {"status": "success", "data": {"recap": "1/3 done: \"write the test\" next"}}),
    "mcp__tracker__list": ({}, {"status": "success", "data": {"content": [{"type": "text", "text": CODE}]}}),
    "Unknown": ({}, {"status": "error", "error": {"code": "not_found", "message": "no such file: \"c.py\""}}),
}


def _values(node: Any) -> list[str]:
    """Every scalar of a JSON value, a multi-line string as its lines (an MCP text block is its text)."""
    if isinstance(node, dict) and node.get("type") == "text" and isinstance(node.get("text"), str):
        return _values(node["text"])
    if isinstance(node, dict):
        return [v for value in node.values() for v in _values(value)]
    if isinstance(node, list):
        return [v for value in node for v in _values(value)]
    if isinstance(node, str):
        return [line for line in node.splitlines() if line.strip()]
    return [json.dumps(node)]


@pytest.mark.parametrize("tool", sorted(RESULTS))
def test_every_value_of_the_stored_form_is_in_its_text_under_the_same_status_line(tool: str):
    args, result = RESULTS[tool]
    stored = compressor.stored_text(tool, args, result)
    text = sent_text(stored)
    form = json.loads(stored)
    assert text.splitlines()[0] == header(form) == header(result)        # [ok], [exit 1], [error not_found: …]
    for value in [v for part in (form.get("data"), form.get("error")) if part is not None for v in _values(part)]:
        assert value in text, (tool, value)
    assert not text.startswith("{") and '\\"' not in text and "\\n" not in text


def test_a_multi_line_field_costs_fewer_tokens_as_text_than_as_json():
    for tool in ("Read", "Bash", "Grep", "mcp__tracker__list"):
        args, result = RESULTS[tool]
        stored = compressor.stored_text(tool, args, result)
        assert count(sent_text(stored)) < count(stored), tool


def test_fields_keep_their_order_and_a_multi_line_one_is_written_under_its_name():
    args, result = RESULTS["Read"]
    text = sent_text(compressor.stored_text("Read", args, result))
    assert text.startswith("[ok]\npath: a.py\nstart_line: 1\nend_line: 40\ntotal_lines: 40\ncontent:\n    value_0 = ")


def test_nested_objects_are_dotted_fields_and_list_items_that_are_objects_start_with_a_dash():
    stored = json.dumps({"status": "success", "data": {"content": [{"type": "text", "text": "a\nb"}],
                                                       "structured": {"since": "2024", "items": [{"id": 1, "t": "x"}]}}})
    assert sent_text(stored) == "[ok]\ncontent:\na\nb\nstructured.since: 2024\nstructured.items:\n- id: 1\nt: x"


def test_what_the_turn_added_follows_after_a_blank_line_and_other_text_is_sent_as_it_is():
    args, result = RESULTS["Read"]
    stored = with_instructions(compressor.stored_text("Read", args, result), "Rules of src/: tabs only")
    assert sent_text(stored).endswith("\n\nRules of src/: tabs only")
    for text in ("[ok]\nplain", "[1, 2]", '{"no": "status"}', "not json {"):
        assert sent_text(text) == text


def test_an_older_records_note_kept_under_hook_is_sent_as_the_same_text():
    """The note about extra `Action:` lines has its own key (`note`); sessions written before it kept it under
    `hook`. What the turn added is sent by its value, whatever its key, so both read alike."""
    args, result = RESULTS["Read"]
    plain = compressor.stored_text("Read", args, result)
    note = "[note] Your reply had 1 more `Action:` line after this one; only this one ran"
    older, newer = with_instructions(plain, note, key="hook"), with_instructions(plain, note, key="note")
    assert older != newer and sent_text(older) == sent_text(newer)


def test_an_exit_code_the_status_line_does_not_say_stays_in_the_text():
    """Only a Bash result's status line carries its exit code; another tool's `exit_code` field is kept."""
    text = sent_text(json.dumps({"status": "success", "data": {"exit_code": 3, "rows": ["a"]}}))
    assert text == "[ok]\nexit_code: 3\nrows:\na"
    bash = sent_text(json.dumps({"status": "success", "data": {"exit_code": 3, "stderr_tail": "boom"}}))
    assert bash == "[exit 3]\nstderr_tail: boom"
