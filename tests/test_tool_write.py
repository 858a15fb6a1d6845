import stat

import pytest

from contextual.core.tools.runner import run_tool
from contextual.core.tools.write import WriteTool


async def write(ctx, **args):
    return await run_tool(WriteTool(), args, ctx)


async def test_creates_file_and_parent_folders(ctx):
    content = "".join(f"line {n}\n" for n in range(1, 61))
    result = await write(ctx, file_path="a/b/c.txt", content=content)
    assert result["status"] == "success", result
    assert (ctx.root / "a/b/c.txt").read_text() == content
    data = result["data"]
    assert (data["path"], data["created"], data["lines"], data["bytes"]) == ("a/b/c.txt", True, 60, len(content))
    assert data["diff"] is None
    assert data["head"].splitlines() == [f"line {n}" for n in range(1, 51)]
    assert ctx.mtimes[str(ctx.root / "a/b/c.txt")] == (ctx.root / "a/b/c.txt").stat().st_mtime


async def test_overwrite_gives_a_diff_and_keeps_mode(ctx):
    path = ctx.root / "run.sh"
    path.write_text("echo one\n")
    path.chmod(0o755)
    result = await write(ctx, file_path="run.sh", content="echo two\n")
    assert result["data"]["created"] is False
    assert "-echo one\n" in result["data"]["diff"] and "+echo two\n" in result["data"]["diff"]
    assert path.read_text() == "echo two\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    assert sorted(p.name for p in ctx.root.iterdir()) == ["run.sh"]


async def test_overwriting_a_crlf_file_keeps_crlf(ctx):
    path = ctx.root / "w.txt"
    path.write_bytes(b"a\r\nb\r\n")
    await write(ctx, file_path="w.txt", content="x\ny\n")
    assert path.read_bytes() == b"x\r\ny\r\n"


async def test_before_change_sees_the_old_content(ctx):
    path = ctx.root / "a.txt"
    path.write_text("old\n")
    seen = []

    async def snapshot(paths):
        seen.append((paths, path.read_text()))

    ctx.before_change = snapshot
    await write(ctx, file_path="a.txt", content="new\n")
    assert seen == [([path], "old\n")]


@pytest.mark.parametrize("args, needle", [
    ({"content": "x"}, "missing required argument: file_path"),
    ({"file_path": "a.txt"}, "missing required argument: content"),
    ({"file_path": "a.txt", "content": ["x"]}, "content must be a string"),
    ({"file_path": "a.txt", "content": "x", "mode": "w"}, "unknown argument(s): mode"),
])
async def test_bad_arguments(ctx, args, needle):
    result = await run_tool(WriteTool(), args, ctx)
    assert result["error"]["code"] == "invalid_argument" and needle in result["error"]["message"]
    assert list(ctx.root.iterdir()) == []


async def test_outside_paths_and_directories_are_refused(ctx, tmp_path_factory):
    outside_dir = tmp_path_factory.mktemp("out")
    (ctx.root / "escape").symlink_to(outside_dir)
    for path in (str(outside_dir / "x.txt"), f"../{outside_dir.name}/x.txt", "escape/x.txt"):
        result = await write(ctx, file_path=path, content="pwned")
        assert result["error"]["code"] == "outside_project", path
    assert list(outside_dir.iterdir()) == []
    (ctx.root / "d").mkdir()
    assert (await write(ctx, file_path="d", content="x"))["error"]["code"] == "is_directory"


async def test_a_git_folder_is_not_written_by_any_edit_tool(ctx):
    """.git/config can name commands git runs (core.fsmonitor on every `git add`): an edit there would run a
    command under an edit's permission (accept-edits), so Write, Edit and MultiEdit refuse it, also through a link."""
    from contextual.core.tools.edit import EditTool
    from contextual.core.tools.multiedit import MultiEditTool
    (ctx.root / ".git").mkdir()
    (ctx.root / ".git" / "config").write_text("[core]\n\tbare = false\n")
    (ctx.root / "sub" / ".git").mkdir(parents=True)
    (ctx.root / "meta").symlink_to(ctx.root / ".git")
    for path in (".git/config", "./.git/hooks/post-checkout", "sub/.git/config", "meta/config"):
        result = await write(ctx, file_path=path, content="[core]\n\tfsmonitor = touch pwned\n")
        assert result["error"]["code"] == "protected_path", (path, result)
    edit = {"file_path": ".git/config", "old_string": "bare = false", "new_string": "fsmonitor = touch pwned"}
    assert (await run_tool(EditTool(), edit, ctx))["error"]["code"] == "protected_path"
    multi = {"file_path": ".git/config", "edits": [{"old_string": "bare = false", "new_string": "x"}]}
    assert (await run_tool(MultiEditTool(), multi, ctx))["error"]["code"] == "protected_path"
    assert (ctx.root / ".git" / "config").read_text() == "[core]\n\tbare = false\n" and not (ctx.root / "pwned").exists()
    assert (await write(ctx, file_path="git/config.txt", content="fine"))["status"] == "success"
