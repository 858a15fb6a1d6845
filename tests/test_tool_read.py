import os

import pytest

from contextual.core.tools.runner import run_tool
from contextual.core.tools.edit import EditTool
from contextual.core.tools.read import ReadTool


async def read(ctx, **args):
    return await run_tool(ReadTool(), args, ctx)


async def test_numbers_lines_like_cat_n(ctx):
    (ctx.root / "a.py").write_text("first\nsecond\n")
    result = await read(ctx, file_path="a.py")
    assert result["status"] == "success"
    data = result["data"]
    assert data["content"] == "     1\tfirst\n     2\tsecond"
    assert (data["path"], data["start_line"], data["end_line"], data["total_lines"]) == ("a.py", 1, 2, 2)
    assert data["truncated"] is False
    assert data["mtime"] == os.stat(ctx.root / "a.py").st_mtime
    assert "note" not in data
    assert result["context"] == {"file_path": "a.py"}


async def test_offset_and_limit_select_a_range_and_say_there_is_more(ctx):
    (ctx.root / "a.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    result = await read(ctx, file_path="a.txt", offset=3, limit=2)
    data = result["data"]
    assert data["content"] == "     3\tline 3\n     4\tline 4"
    assert (data["start_line"], data["end_line"], data["total_lines"], data["truncated"]) == (3, 4, 10, True)
    assert "offset=5" in result["text"]


async def test_absolute_path_inside_the_project_works(ctx):
    (ctx.root / "a.txt").write_text("x\n")
    result = await read(ctx, file_path=str(ctx.root / "a.txt"))
    assert result["status"] == "success" and result["data"]["path"] == "a.txt"


@pytest.mark.parametrize("args, needle", [
    ({}, "missing required argument: file_path"),
    ({"file_path": 3}, "file_path must be a string"),
    ({"file_path": "a.txt", "offset": "2"}, "offset must be an integer"),
    ({"file_path": "a.txt", "offset": True}, "offset must be an integer"),
    ({"file_path": "a.txt", "offset": 0}, "offset must be >= 1"),
    ({"file_path": "a.txt", "limit": -1}, "limit must be >= 1"),
    ({"file_path": "a.txt", "lines": 3}, "unknown argument(s): lines"),
])
async def test_bad_arguments_are_invalid_argument(ctx, args, needle):
    (ctx.root / "a.txt").write_text("x\n")
    result = await run_tool(ReadTool(), args, ctx)
    assert result["status"] == "error"
    assert result["error"]["code"] == "invalid_argument"
    assert needle in result["error"]["message"]


async def test_non_dict_arguments_fail_cleanly(ctx):
    result = await run_tool(ReadTool(), ["a.txt"], ctx)
    assert result["error"]["code"] == "invalid_argument"


async def test_paths_outside_the_project_are_refused(ctx, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "secret.txt"
    outside.write_text("secret\n")
    (ctx.root / "link.txt").symlink_to(outside)
    for path in (str(outside), "../" + outside.parent.name + "/secret.txt", "link.txt"):
        result = await read(ctx, file_path=path)
        assert result["error"]["code"] == "outside_project", path
        assert "secret" not in str(result["data"])
    assert ctx.mtimes == {}


async def test_missing_file_is_not_found(ctx):
    result = await read(ctx, file_path="nope.txt")
    assert result["error"]["code"] == "not_found"


async def test_directory_points_to_ls(ctx):
    (ctx.root / "src").mkdir()
    result = await read(ctx, file_path="src")
    assert result["error"]["code"] == "is_directory"
    assert "LS" in result["error"]["message"]


async def test_binary_files_are_refused(ctx):
    (ctx.root / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    result = await read(ctx, file_path="img.png")
    assert result["error"]["code"] == "binary_file"
    assert "binary" in result["error"]["message"]


async def test_huge_files_need_a_slice(ctx):
    (ctx.root / "big.log").write_text("".join(f"row {n}\n" for n in range(1, 501)))
    tool = ReadTool(max_whole_file_bytes=1000)
    refused = await run_tool(tool, {"file_path": "big.log"}, ctx)
    assert refused["error"]["code"] == "file_too_large"
    assert "offset and limit" in refused["error"]["message"]
    sliced = await run_tool(tool, {"file_path": "big.log", "offset": 499, "limit": 5}, ctx)
    data = sliced["data"]
    assert data["content"] == "   499\trow 499\n   500\trow 500"
    assert (data["total_lines"], data["truncated"]) == (500, False)


async def test_overlong_lines_are_cut_and_counted(ctx):
    (ctx.root / "min.js").write_text("x" * 5000 + "\nshort\n")
    result = await read(ctx, file_path="min.js")
    first = result["data"]["content"].splitlines()[0]
    assert first.startswith("     1\t" + "x" * 2000)
    assert "x" * 2001 not in first
    assert "5,000 chars" in first
    assert result["data"]["lines_cut"] == 1
    assert "longer than 2000" in result["text"]


async def test_empty_file_and_offset_past_the_end(ctx):
    (ctx.root / "empty.txt").write_text("")
    empty = await read(ctx, file_path="empty.txt")
    assert empty["status"] == "success"
    assert (empty["data"]["content"], empty["data"]["total_lines"]) == ("", 0)
    assert "empty" in empty["text"]
    (ctx.root / "three.txt").write_text("1\n2\n3\n")
    past = await read(ctx, file_path="three.txt", offset=9)
    assert past["error"]["code"] == "out_of_range" and "3 lines" in past["error"]["message"]


async def test_latin1_and_crlf_files_read_as_text(ctx):
    (ctx.root / "old.txt").write_bytes("café\r\nnaïve\r\n".encode("latin-1"))
    result = await read(ctx, file_path="old.txt")
    assert result["data"]["content"] == "     1\tcafé\n     2\tnaïve"


async def test_mtime_note_only_after_an_external_change(ctx):
    path = ctx.root / "a.txt"
    path.write_text("one\n")
    first = await read(ctx, file_path="a.txt")
    assert "note" not in first["data"]
    assert ctx.mtimes[str(path)] == first["data"]["mtime"]
    again = await read(ctx, file_path="a.txt")
    assert "note" not in again["data"] and "modified externally" not in again["text"]

    path.write_text("two\n")
    stamp = first["data"]["mtime"] + 5
    os.utime(path, (stamp, stamp))
    changed = await read(ctx, file_path="a.txt")
    assert changed["data"]["note"] == "Note: a.txt was modified externally."
    assert changed["text"].startswith("Note: a.txt was modified externally.")
    assert "note" not in (await read(ctx, file_path="a.txt"))["data"]   # recorded: no repeat


async def test_no_mtime_note_after_the_agents_own_edit(ctx):
    path = ctx.root / "sub" / "a.txt"
    path.parent.mkdir()
    path.write_text("one\n")
    os.utime(path, (1_000_000, 1_000_000))
    await read(ctx, file_path="sub/a.txt")
    edited = await run_tool(EditTool(), {"file_path": "sub/a.txt", "old_string": "one", "new_string": "two"}, ctx)
    assert edited["status"] == "success"
    result = await read(ctx, file_path="sub/a.txt")
    assert "note" not in result["data"]
    assert result["data"]["content"] == "     1\ttwo"


async def test_encoding_is_judged_on_the_whole_file_like_edit(ctx):
    # valid utf-8 for 100 KB, then one latin-1 byte: the whole file is latin-1, as Edit will treat it
    (ctx.root / "mixed.txt").write_bytes(b"a\n" * 50_000 + "caf\xe9\n".encode("latin-1"))
    result = await read(ctx, file_path="mixed.txt", offset=50_001)
    assert result["data"]["content"] == " 50001\tcafé"


async def test_utf8_bom_is_not_shown(ctx):
    (ctx.root / "bom.txt").write_bytes(b"\xef\xbb\xbfhello\n")
    assert (await read(ctx, file_path="bom.txt"))["data"]["content"] == "     1\thello"
