import os
import stat

import pytest

from contextual.core.tools.runner import run_tool
from contextual.core.tools.edit import EditTool


async def edit(ctx, **args):
    return await run_tool(EditTool(), args, ctx)


async def test_replaces_a_unique_string_and_reports_the_change(ctx):
    path = ctx.root / "a.py"
    path.write_text("def f():\n    return 1\n\nprint(f())\n")
    result = await edit(ctx, file_path="a.py", old_string="return 1", new_string="return 2\n    # done")
    assert result["status"] == "success", result
    assert path.read_text() == "def f():\n    return 2\n    # done\n\nprint(f())\n"
    data = result["data"]
    assert (data["path"], data["replacements"]) == ("a.py", 1)
    assert (data["first_line"], data["last_line"]) == (2, 3)
    assert (data["lines_added"], data["lines_removed"]) == (2, 1)
    assert "-    return 1\n" in data["diff"] and "+    return 2\n" in data["diff"]
    assert data["diff"].startswith("--- a/a.py\n+++ b/a.py\n")
    assert EditTool.needs_permission and EditTool.edits_files


async def test_non_unique_match_is_refused_with_the_count(ctx):
    path = ctx.root / "a.txt"
    path.write_text("x = 1\nx = 1\nx = 1\n")
    result = await edit(ctx, file_path="a.txt", old_string="x = 1", new_string="x = 2")
    assert result["error"]["code"] == "not_unique"
    assert "3 times" in result["error"]["message"]
    assert path.read_text() == "x = 1\nx = 1\nx = 1\n"


async def test_replace_all_replaces_every_copy(ctx):
    path = ctx.root / "a.txt"
    path.write_text("x = 1\ny\nx = 1\n")
    result = await edit(ctx, file_path="a.txt", old_string="x = 1", new_string="x = 2", replace_all=True)
    assert result["data"]["replacements"] == 2
    assert (result["data"]["first_line"], result["data"]["last_line"]) == (1, 3)
    assert path.read_text() == "x = 2\ny\nx = 2\n"


async def test_absent_old_string_changes_nothing(ctx):
    path = ctx.root / "a.txt"
    path.write_text("hello\n")
    result = await edit(ctx, file_path="a.txt", old_string="goodbye", new_string="x")
    assert result["error"]["code"] == "no_match"
    assert path.read_text() == "hello\n"


async def test_identical_strings_are_an_error(ctx):
    (ctx.root / "a.txt").write_text("hello\n")
    result = await edit(ctx, file_path="a.txt", old_string="hello", new_string="hello")
    assert result["error"]["code"] == "invalid_argument" and "identical" in result["error"]["message"]


@pytest.mark.parametrize("args, needle", [
    ({"old_string": "a", "new_string": "b"}, "missing required argument: file_path"),
    ({"file_path": "a.txt", "new_string": "b"}, "missing required argument: old_string"),
    ({"file_path": "a.txt", "old_string": "a", "new_string": 5}, "new_string must be a string"),
    ({"file_path": "a.txt", "old_string": "a", "new_string": "b", "replace_all": "yes"}, "replace_all must be a boolean"),
    ({"file_path": "a.txt", "old_string": "a", "new_string": "b", "force": True}, "unknown argument(s): force"),
])
async def test_bad_arguments(ctx, args, needle):
    (ctx.root / "a.txt").write_text("a\n")
    result = await run_tool(EditTool(), args, ctx)
    assert result["error"]["code"] == "invalid_argument"
    assert needle in result["error"]["message"]
    assert (ctx.root / "a.txt").read_text() == "a\n"


async def test_paths_outside_the_project_are_never_touched(ctx, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "victim.txt"
    outside.write_text("keep\n")
    (ctx.root / "link.txt").symlink_to(outside)
    for path in (str(outside), f"../{outside.parent.name}/victim.txt", "link.txt"):
        result = await edit(ctx, file_path=path, old_string="keep", new_string="gone")
        assert result["error"]["code"] == "outside_project", path
    assert outside.read_text() == "keep\n"


async def test_crlf_file_stays_crlf(ctx):
    path = ctx.root / "win.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = await edit(ctx, file_path="win.txt", old_string="one\ntwo", new_string="uno\ndos\nmas")
    assert result["status"] == "success", result
    assert path.read_bytes() == b"uno\r\ndos\r\nmas\r\nthree\r\n"
    # CRLF in old_string matches as well
    again = await edit(ctx, file_path="win.txt", old_string="dos\r\nmas", new_string="dos")
    assert again["status"] == "success"
    assert path.read_bytes() == b"uno\r\ndos\r\nthree\r\n"


async def test_latin1_file_stays_latin1_and_bom_is_kept(ctx):
    path = ctx.root / "old.txt"
    path.write_bytes("caf\xe9 cr\xe8me\n".encode("latin-1"))
    result = await edit(ctx, file_path="old.txt", old_string="café", new_string="thé")
    assert result["status"] == "success", result
    assert path.read_bytes() == "th\xe9 cr\xe8me\n".encode("latin-1")

    bom = ctx.root / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbfname = \xe2\x82\xac\n")
    await edit(ctx, file_path="bom.txt", old_string="name", new_string="price")
    assert bom.read_bytes() == b"\xef\xbb\xbfprice = \xe2\x82\xac\n"


async def test_text_a_latin1_file_cannot_hold_is_refused(ctx):
    path = ctx.root / "old.txt"
    original = "caf\xe9\n".encode("latin-1")
    path.write_bytes(original)
    result = await edit(ctx, file_path="old.txt", old_string="café", new_string="€5")
    assert result["error"]["code"] == "encoding_error"
    assert path.read_bytes() == original


async def test_file_mode_is_kept_and_no_temp_file_is_left(ctx):
    path = ctx.root / "run.sh"
    path.write_text("echo hi\n")
    path.chmod(0o751)
    await edit(ctx, file_path="run.sh", old_string="hi", new_string="bye")
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert sorted(os.listdir(ctx.root)) == ["run.sh"]


async def test_empty_old_string_creates_a_missing_file_but_not_over_content(ctx):
    created = await edit(ctx, file_path="new/hello.txt", old_string="", new_string="hi\n")
    assert created["status"] == "success" and created["data"]["created"] is True
    assert (ctx.root / "new" / "hello.txt").read_text() == "hi\n"
    refused = await edit(ctx, file_path="new/hello.txt", old_string="", new_string="other\n")
    assert refused["error"]["code"] == "invalid_argument" and "Write" in refused["error"]["message"]
    missing = await edit(ctx, file_path="nope.txt", old_string="a", new_string="b")
    assert missing["error"]["code"] == "not_found"


async def test_binary_and_directory_are_refused(ctx):
    (ctx.root / "blob.bin").write_bytes(b"ab\x00cd")
    assert (await edit(ctx, file_path="blob.bin", old_string="ab", new_string="x"))["error"]["code"] == "binary_file"
    (ctx.root / "dir").mkdir()
    assert (await edit(ctx, file_path="dir", old_string="a", new_string="b"))["error"]["code"] == "is_directory"


async def test_before_change_is_called_first_and_mtime_is_recorded(ctx):
    path = ctx.root / "a.txt"
    path.write_text("a\n")
    seen = []

    async def snapshot(paths):
        seen.append((paths, path.read_text()))

    ctx.before_change = snapshot
    await edit(ctx, file_path="a.txt", old_string="a", new_string="b")
    assert seen == [([path], "a\n")]
    assert ctx.mtimes[str(path)] == path.stat().st_mtime


async def test_failed_edit_does_not_call_before_change(ctx):
    (ctx.root / "a.txt").write_text("a\n")
    calls = []

    async def snapshot(paths):
        calls.append(paths)

    ctx.before_change = snapshot
    await edit(ctx, file_path="a.txt", old_string="zzz", new_string="b")
    assert calls == []
