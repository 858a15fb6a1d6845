import json
import re

import pytest

from contextual.core.l1 import system_prompt
from contextual.core.tokens import count
from contextual.core.tools._args import INT, STR, Arg, ArgSpec, spec_from_json_schema
from contextual.core.tools.base import ToolContext, ToolError, ok
from contextual.core.tools.registry import default_tools
from contextual.core.tools.runner import run_tool
from contextual.prompts.tools_prompt import describe_tool, render_tools_prompt

NAMES = ["LS", "Glob", "Grep", "Read", "Edit", "MultiEdit", "Write", "Bash", "TodoWrite"]


def test_registry_holds_the_nine_tools_with_their_flags():
    tools = default_tools()
    assert list(tools) == NAMES
    assert all(tools[name].name == name for name in NAMES)
    assert {n for n in NAMES if tools[n].needs_permission} == {"Bash", "Write", "Edit", "MultiEdit"}
    assert {n for n in NAMES if tools[n].edits_files} == {"Write", "Edit", "MultiEdit"}
    assert default_tools()["Read"] is not tools["Read"]      # fresh instances per call


# Only a tool whose arguments nest a list of objects carries an example (issue 28.4); the Arguments line says
# enough for the others, and every example costs tokens on every call (L1).
WITH_EXAMPLE = {"MultiEdit"}
L1_TOKEN_BOUND = 600            # the live L1 with every built-in tool was 919 tokens before issue 28


def test_every_tool_is_described_and_the_tricky_ones_with_a_parsable_example():
    for name, tool in default_tools().items():
        text = describe_tool(tool)
        assert text.startswith(name + " — ")
        assert f"Arguments: {tool.args.render()}" in text
        example = re.search(r"^Example: Action: (\w+)\[(.*)\]$", text, re.MULTILINE)
        assert bool(example) == (name in WITH_EXAMPLE), name
        if example:
            assert example.group(1) == name and isinstance(json.loads(example.group(2)), dict), name


def test_live_l1_stays_small_and_still_describes_every_tool_and_rule():
    text = system_prompt()
    assert count(text) < L1_TOKEN_BOUND
    for name, tool in default_tools().items():
        assert f"\n{name} — {tool.description}\nArguments: {tool.args.render()}" in text, name
    for rule in ("Thought:", "Action: <Tool>[", "Action: Finish[", "[exit N]", "one Action per reply",
                 "never write an Observation", "relative to the project root", "Older observations may be shortened",
                 "<system-reminder>", "you have Read"):
        assert rule in text, rule


def test_arguments_line_is_rendered_from_the_schema_the_runner_checks():
    """Every built-in tool's line, exactly as CONTRACT's tool table gives it (the renderer MCP tools share too)."""
    lines = {name: tool.args.render() for name, tool in default_tools().items()}
    assert lines == {
        "LS": '{"path": str?}',
        "Glob": '{"pattern": str, "path": str?}',
        "Grep": '{"pattern": str, "path": str?, "glob": str?, "ignore_case": bool?}',
        "Read": '{"file_path": str, "offset": int?, "limit": int?}',
        "Edit": '{"file_path": str, "old_string": str, "new_string": str, "replace_all": bool?}',
        "MultiEdit": '{"file_path": str, "edits": [{"old_string": str, "new_string": str, "replace_all": bool?}]}',
        "Write": '{"file_path": str, "content": str}',
        "Bash": '{"command": str, "timeout": int?}',
        "TodoWrite": '{"todos": [{"content": str, "status": "pending"|"in_progress"|"completed"}]}'}
    text = render_tools_prompt(default_tools().values())
    assert all(f"Arguments: {line}" in text for line in lines.values())


async def test_examples_are_valid_arguments_for_their_tools(tmp_path):
    """Each example passes argument validation (it may still fail for a missing file, never for its shape)."""
    ctx = ToolContext(root=tmp_path.resolve())
    for name, tool in default_tools().items():
        if not getattr(tool, "example", ""):
            continue
        tool.args.validate(json.loads(tool.example))
        if name == "Grep":
            result = await run_tool(tool, json.loads(tool.example), ctx)
            assert result.get("error", {}).get("code") != "invalid_argument", (name, result)


def test_rendered_prompt_is_stable_and_ordered():
    first = render_tools_prompt(default_tools().values())
    assert first == render_tools_prompt(default_tools().values())
    positions = [first.index(f"{name} — ") for name in NAMES]
    assert positions == sorted(positions)


class _Echo:
    """A tool from outside (as an MCP server's would be): the same interface as the built-ins."""
    name = "mcp__demo__echo"
    description = "echo a word"
    args = spec_from_json_schema({"type": "object", "properties": {"word": {"type": "string"},
                                                                   "times": {"type": "integer"}},
                                  "required": ["word"]})
    example = '{"word": "hi"}'
    needs_permission = True
    edits_files = False

    async def call(self, args, ctx):
        if args["word"] == "boom":
            raise RuntimeError("exploded")
        return ok({"echo": args["word"] * args.get("times", 1)}, "echoed")


async def test_extra_tools_join_at_run_time_and_run_through_the_same_runner(tmp_path):
    tools = {**default_tools(), _Echo.name: _Echo()}     # as Toolbox.sync puts an MCP server's tools after them
    assert list(tools)[-1] == "mcp__demo__echo"
    assert render_tools_prompt(tools.values()).endswith(
        'mcp__demo__echo — echo a word\nArguments: {"word": str, "times": int?}\nExample: Action: mcp__demo__echo[{"word": "hi"}]')
    ctx = ToolContext(root=tmp_path.resolve())
    good = await run_tool(tools["mcp__demo__echo"], {"word": "ab", "times": 2}, ctx)
    assert good["data"] == {"echo": "abab"} and good["stats"]["duration_ms"] >= 0
    bad = await run_tool(tools["mcp__demo__echo"], {"times": 2}, ctx)
    assert bad["error"] == {"code": "invalid_argument", "message": "missing required argument: word"}
    crash = await run_tool(tools["mcp__demo__echo"], {"word": "boom"}, ctx)
    assert crash["error"]["code"] == "internal_error" and "RuntimeError: exploded" in crash["error"]["message"]


class _Raw:
    name = "Raw"
    description = "returns what it was given"
    args = ArgSpec((Arg("text", STR), Arg("n", INT, required=False, minimum=1)))
    example = ""
    needs_permission = False
    edits_files = False

    async def call(self, args, ctx):
        if args["text"] == "fail":
            raise ToolError("custom_code", "a tool-chosen failure")
        if args["text"] == "os":
            raise PermissionError(13, "Permission denied")
        return ok({"text": args["text"], "name\udcff": 1}, args["text"])


@pytest.mark.parametrize("args, code, message", [
    ("not an object", "invalid_argument", "arguments must be a JSON object, got string"),
    ({"text": "x", "extra": 1}, "invalid_argument", "unknown argument(s): extra (allowed: text, n)"),
    ({"text": 3}, "invalid_argument", "argument text must be a string, got integer"),
    ({"text": "x", "n": True}, "invalid_argument", "argument n must be an integer, got boolean"),
    ({"text": "x", "n": 0}, "invalid_argument", "argument n must be >= 1, got 0"),
    ({"text": "fail"}, "custom_code", "a tool-chosen failure"),
    ({"text": "os"}, "io_error", "Raw cannot use .: Permission denied"),
])
async def test_runner_maps_every_failure_to_a_c1_error_with_a_code(tmp_path, args, code, message):
    result = await run_tool(_Raw(), args, ToolContext(root=tmp_path.resolve()))
    assert result["status"] == "error" and result["error"] == {"code": code, "message": message}
    assert set(result) >= {"data", "text", "stats", "context"} and "duration_ms" in result["stats"]


async def test_runner_makes_text_entering_history_valid_unicode(tmp_path):
    result = await run_tool(_Raw(), {"text": "a\udc80b", "n": None}, ToolContext(root=tmp_path.resolve()))
    assert result["text"] == "a\\x80b" and result["data"] == {"text": "a\\x80b", "name\\xff": 1}
    assert result["context"] == {"text": "a\\x80b", "n": None}
    json.dumps(result, ensure_ascii=False).encode("utf-8")
