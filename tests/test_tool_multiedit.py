import pytest

from contextual.core.tools.runner import run_tool
from contextual.core.tools.multiedit import MultiEditTool


async def multiedit(ctx, file_path, edits):
    return await run_tool(MultiEditTool(), {"file_path": file_path, "edits": edits}, ctx)


async def test_edits_apply_in_order_on_the_running_text(ctx):
    path = ctx.root / "a.py"
    path.write_text("import os\n\nfoo(1)\nfoo(2)\n")
    result = await multiedit(ctx, "a.py", [
        {"old_string": "import os\n", "new_string": "import os\nimport sys\n"},
        {"old_string": "foo(", "new_string": "bar(", "replace_all": True},
        {"old_string": "bar(2)", "new_string": "baz(2)"},          # sees the result of edit 2
    ])
    assert result["status"] == "success", result
    assert path.read_text() == "import os\nimport sys\n\nbar(1)\nbaz(2)\n"
    data = result["data"]
    assert (data["edits_applied"], data["replacements"]) == (3, 4)
    assert (data["first_line"], data["last_line"]) == (2, 5)
    assert (data["lines_added"], data["lines_removed"]) == (3, 2)
    assert "+import sys\n" in data["diff"]


async def test_a_failing_edit_leaves_the_file_byte_identical(ctx):
    path = ctx.root / "a.txt"
    original = b"alpha\r\nbeta\r\ngamma\r\n"
    path.write_bytes(original)
    before = path.stat().st_mtime_ns
    calls = []

    async def snapshot(paths):
        calls.append(paths)

    ctx.before_change = snapshot
    result = await multiedit(ctx, "a.txt", [
        {"old_string": "alpha", "new_string": "ALPHA"},
        {"old_string": "missing", "new_string": "x"},
    ])
    assert result["error"]["code"] == "no_match"
    assert "edit 2 of 2" in result["error"]["message"] and "unchanged" in result["error"]["message"]
    assert path.read_bytes() == original and path.stat().st_mtime_ns == before
    assert calls == []


async def test_non_unique_inside_a_batch_names_the_edit(ctx):
    (ctx.root / "a.txt").write_text("x\nx\n")
    result = await multiedit(ctx, "a.txt", [{"old_string": "x", "new_string": "y"}])
    assert result["error"]["code"] == "not_unique"
    assert "edit 1 of 1" in result["error"]["message"] and "2 times" in result["error"]["message"]


@pytest.mark.parametrize("edits, needle", [
    ([], "at least one edit"),
    ("swap a for b", "edits must be an array"),
    ([{"old_string": "a"}], "edit 1: missing required argument: new_string"),
    ([{"old_string": "a", "new_string": "b"}, "oops"], "edit 2: arguments must be a JSON object"),
    ([{"old_string": "a", "new_string": "b", "all": True}], "edit 1: unknown argument(s): all"),
    ([{"old_string": "a", "new_string": "a"}], "identical"),
])
async def test_bad_edit_lists(ctx, edits, needle):
    (ctx.root / "a.txt").write_text("a\n")
    result = await multiedit(ctx, "a.txt", edits)
    assert result["error"]["code"] == "invalid_argument"
    assert needle in result["error"]["message"]
    assert (ctx.root / "a.txt").read_text() == "a\n"


async def test_missing_arguments_and_outside_paths(ctx, tmp_path_factory):
    assert (await run_tool(MultiEditTool(), {"file_path": "a.txt"}, ctx))["error"]["code"] == "invalid_argument"
    outside = tmp_path_factory.mktemp("out") / "x.txt"
    outside.write_text("a\n")
    (ctx.root / "link").symlink_to(outside)
    for path in (str(outside), "link", "../" + outside.parent.name + "/x.txt"):
        result = await multiedit(ctx, path, [{"old_string": "a", "new_string": "b"}])
        assert result["error"]["code"] == "outside_project"
    assert outside.read_text() == "a\n"


async def test_first_edit_with_empty_old_string_creates_the_file(ctx):
    result = await multiedit(ctx, "new.txt", [
        {"old_string": "", "new_string": "hello world\n"},
        {"old_string": "world", "new_string": "there"},
    ])
    assert result["status"] == "success" and result["data"]["created"] is True
    assert (ctx.root / "new.txt").read_text() == "hello there\n"
    missing = await multiedit(ctx, "other.txt", [{"old_string": "a", "new_string": "b"}])
    assert missing["error"]["code"] == "not_found"


async def test_latin1_round_trip_and_mtime_recorded(ctx):
    path = ctx.root / "l.txt"
    path.write_bytes("d\xe9j\xe0 vu\n".encode("latin-1"))
    result = await multiedit(ctx, "l.txt", [{"old_string": "vu", "new_string": "lu"},
                                            {"old_string": "déjà", "new_string": "déjà"[::-1]}])
    assert result["status"] == "success", result
    assert path.read_bytes() == "\xe0j\xe9d lu\n".encode("latin-1")
    assert ctx.mtimes[str(path)] == path.stat().st_mtime


@pytest.mark.parametrize("folder", ["sub", "."])
async def test_every_editing_tool_refuses_a_folder_alike(ctx, folder):
    """One rule for Edit, MultiEdit and Write (`ToolContext.resolve_editable`): a folder, the project's root too, is
    no file to edit, and nothing is written."""
    from contextual.core.tools.edit import EditTool
    from contextual.core.tools.write import WriteTool
    (ctx.root / "sub").mkdir()
    edit = {"old_string": "", "new_string": "x"}
    calls = [(EditTool(), {"file_path": folder, **edit}), (MultiEditTool(), {"file_path": folder, "edits": [edit]}),
             (WriteTool(), {"file_path": folder, "content": "x"})]
    for tool, args in calls:
        result = await run_tool(tool, args, ctx)
        assert result["error"]["code"] == "is_directory", (tool.name, result)
    assert sorted(p.name for p in ctx.root.iterdir()) == ["sub"] and not any((ctx.root / "sub").iterdir())
