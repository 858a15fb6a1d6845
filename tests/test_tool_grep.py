import pytest

from contextual.core.tools.runner import run_tool
from contextual.core.tools.base import ToolContext
from contextual.core.tools.grep import GrepTool


def make(root, rel, content):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)


@pytest.fixture
def ctx(tmp_path):
    root = tmp_path.resolve()
    make(root, "app.py", "import os\ndef load_config():\n    return os.environ\n")
    make(root, "lib/util.py", "def load_data():\n    pass\n")
    make(root, "lib/notes.md", "load_config is documented here\n")
    make(root, "dist/bundle.py", "def load_config(): pass\n")
    make(root, ".git/config", "load_config\n")
    make(root, "image.png", b"\x89PNG\x00load_config\x00")
    make(root, ".gitignore", "dist/\n")
    return ToolContext(root=root)


async def grep(ctx, **args):
    return await run_tool(GrepTool(), args, ctx)


async def test_finds_matches_with_path_and_line_and_honours_gitignore(ctx):
    result = await grep(ctx, pattern=r"def load_\w+")
    assert result["status"] == "success"
    data = result["data"]
    assert data["matches"] == [{"path": "app.py", "line": 2, "text": "def load_config():"},
                               {"path": "lib/util.py", "line": 1, "text": "def load_data():"}]
    assert (data["match_count"], data["file_count"], data["truncated"]) == (2, 2, False)
    assert "app.py:2: def load_config():" in result["text"]


async def test_glob_filters_by_name_or_path_and_path_narrows(ctx):
    by_name = await grep(ctx, pattern="load_config", glob="*.md")
    assert [m["path"] for m in by_name["data"]["matches"]] == ["lib/notes.md"]
    by_path = await grep(ctx, pattern="load", glob="lib/*.py")
    assert [m["path"] for m in by_path["data"]["matches"]] == ["lib/util.py"]
    in_folder = await grep(ctx, pattern="load", path="lib")
    assert {m["path"] for m in in_folder["data"]["matches"]} == {"lib/util.py", "lib/notes.md"}
    one_file = await grep(ctx, pattern="os", path="app.py")
    assert [m["line"] for m in one_file["data"]["matches"]] == [1, 3]


async def test_ignore_case(ctx):
    assert (await grep(ctx, pattern="IMPORT OS"))["data"]["match_count"] == 0
    assert (await grep(ctx, pattern="IMPORT OS", ignore_case=True))["data"]["match_count"] == 1


async def test_nested_gitignore(ctx):
    make(ctx.root, "lib/.gitignore", "*.md\n")
    paths = {m["path"] for m in (await grep(ctx, pattern="load_config"))["data"]["matches"]}
    assert paths == {"app.py"}


async def test_explicit_ignored_file_is_searched(ctx):
    result = await grep(ctx, pattern="load_config", path="dist/bundle.py")
    assert result["data"]["match_count"] == 1


async def test_cap_says_truncated(ctx):
    make(ctx.root, "many.txt", "hit\n" * 50)
    result = await run_tool(GrepTool(max_matches=10), {"pattern": "hit"}, ctx)
    assert result["data"]["truncated"] is True and result["data"]["match_count"] == 10
    assert "stopped at 10" in result["text"]


async def test_large_files_are_skipped(ctx):
    make(ctx.root, "huge.txt", "needle\n" * 100)
    result = await run_tool(GrepTool(max_file_bytes=100), {"pattern": "needle"}, ctx)
    assert result["data"]["match_count"] == 0
    assert result["stats"]["skipped_large_files"] == 1 and "skipped 1 file" in result["text"]
    assert "Bash can search it" not in result["text"], "a search of the project names no one file"
    named = await run_tool(GrepTool(max_file_bytes=100), {"pattern": "needle", "path": "huge.txt"}, ctx)
    assert "huge.txt is too large for Grep; Bash can search it: grep -n -e PATTERN huge.txt" in named["text"]


async def test_latin1_files_are_searched(ctx):
    make(ctx.root, "old.txt", "caf\xe9 cr\xe8me\n".encode("latin-1"))
    result = await grep(ctx, pattern="crème")
    assert result["data"]["matches"] == [{"path": "old.txt", "line": 1, "text": "café crème"}]


async def test_symlinks_leading_out_are_not_read(ctx, tmp_path_factory):
    outside = tmp_path_factory.mktemp("out")
    (outside / "secret.txt").write_text("load_config secret\n")
    (ctx.root / "link.txt").symlink_to(outside / "secret.txt")
    (ctx.root / "linkdir").symlink_to(outside)
    result = await grep(ctx, pattern="secret")
    assert result["data"]["match_count"] == 0
    assert (await grep(ctx, pattern="x", path="link.txt"))["error"]["code"] == "outside_project"


@pytest.mark.parametrize("args, code, needle", [
    ({"pattern": "def ("}, "invalid_regex", "invalid regular expression"),
    ({}, "invalid_argument", "missing required argument: pattern"),
    ({"pattern": ""}, "invalid_argument", "pattern is empty"),
    ({"pattern": "x", "ignore_case": "yes"}, "invalid_argument", "ignore_case must be a boolean"),
    ({"pattern": "x", "path": "../"}, "outside_project", "outside"),
    ({"pattern": "x", "path": "/etc"}, "outside_project", "outside"),
    ({"pattern": "x", "path": "missing"}, "not_found", "does not exist"),
    ({"pattern": "x", "include": "*.py"}, "invalid_argument", "unknown argument(s): include"),
])
async def test_bad_input(ctx, args, code, needle):
    result = await run_tool(GrepTool(), args, ctx)
    assert result["error"]["code"] == code and needle in result["error"]["message"]


async def test_huge_counted_repeats_are_refused_before_compiling(ctx):
    result = await run_tool(GrepTool(), {"pattern": "(a{1000}){1000}"}, ctx)
    assert result["error"]["code"] == "invalid_regex" and "too large to compile" in result["error"]["message"]
    fine = await run_tool(GrepTool(), {"pattern": "x{2,3}y{10}"}, ctx)
    assert fine["status"] == "success"


async def test_a_folder_gitignore_hides_is_searched_when_named(ctx):
    result = await grep(ctx, pattern="load_config", path="dist")
    assert [m["path"] for m in result["data"]["matches"]] == ["dist/bundle.py"]


async def test_no_match_names_what_gitignore_hid(ctx):
    result = await grep(ctx, pattern="never_written")
    assert result["text"].splitlines() == ["No matches for never_written",
                                           "(.gitignore hid dist/ from the search; set path to one to search it)"]
    found = await grep(ctx, pattern="load_data")
    assert "gitignore" not in found["text"]


async def test_a_withheld_folder_is_not_named_as_hidden(ctx):
    withholding = ToolContext(root=ctx.root, withheld=lambda rel: rel.startswith("dist"))
    result = await run_tool(GrepTool(), {"pattern": "never_written"}, withholding)
    assert result["text"] == "No matches for never_written"
