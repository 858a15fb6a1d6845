import json
import re

from core.tools.registry import default_tools
from prompts.tools_prompt import TOOL_DESCRIPTIONS, render_tools_prompt

NAMES = ["LS", "Glob", "Grep", "Read", "Edit", "MultiEdit", "Write", "Bash", "TodoWrite"]


def test_registry_holds_the_nine_tools_with_their_flags():
    tools = default_tools()
    assert list(tools) == NAMES
    assert all(tools[name].name == name for name in NAMES)
    assert {n for n in NAMES if tools[n].needs_permission} == {"Bash", "Write", "Edit", "MultiEdit"}
    assert {n for n in NAMES if tools[n].edits_files} == {"Write", "Edit", "MultiEdit"}
    assert default_tools()["Read"] is not tools["Read"]      # fresh instances per call


def test_every_tool_is_described_with_a_parsable_example():
    assert set(TOOL_DESCRIPTIONS) == set(NAMES)
    for name, text in TOOL_DESCRIPTIONS.items():
        assert text.startswith(name + " — ")
        assert "Arguments: {" in text
        example = re.search(r"^Example: Action: (\w+)\[(.*)\]$", text, re.MULTILINE)
        assert example and example.group(1) == name, name
        assert isinstance(json.loads(example.group(2)), dict), name


async def test_examples_are_valid_arguments_for_their_tools(tmp_path):
    """Each example passes argument validation (it may still fail for a missing file, never for its shape)."""
    from core.tools.base import ToolContext
    ctx = ToolContext(root=tmp_path.resolve())
    tools = default_tools()
    for name in ("LS", "Glob", "Grep", "Read", "TodoWrite"):
        args = json.loads(re.search(r"Action: \w+\[(.*)\]$", TOOL_DESCRIPTIONS[name], re.MULTILINE).group(1))
        result = await tools[name].run(args, ctx)
        assert result.get("error", {}).get("code") != "invalid_argument", (name, result)


def test_rendered_prompt_is_stable_and_ordered():
    first = render_tools_prompt()
    assert first == render_tools_prompt()
    positions = [first.index(f"{name} — ") for name in NAMES]
    assert positions == sorted(positions)
