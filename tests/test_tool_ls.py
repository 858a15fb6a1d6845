import pytest

from contextual.core.tools.runner import run_tool
from contextual.core.tools.base import ToolContext
from contextual.core.tools.ls import LSTool


@pytest.fixture
def ctx(tmp_path):
    root = tmp_path.resolve()
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("x\n")
    (root / "build").mkdir()
    (root / "README.md").write_text("hi\n")
    (root / "debug.log").write_text("noise\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    return ToolContext(root=root)


async def test_lists_dirs_first_with_slash_and_honours_gitignore(ctx):
    result = await run_tool(LSTool(), {}, ctx)
    assert result["status"] == "success"
    data = result["data"]
    assert data["entries"] == ["src/", ".gitignore", "README.md"]
    assert (data["path"], data["count"], data["dirs"], data["files"], data["truncated"]) == (".", 3, 1, 2, False)
    assert "  src/" in result["text"]


async def test_subfolder_and_nested_gitignore(ctx):
    (ctx.root / "src" / ".gitignore").write_text("generated_*\n")
    (ctx.root / "src" / "generated_x.py").write_text("x\n")
    result = await run_tool(LSTool(), {"path": "src"}, ctx)
    assert result["data"]["entries"] == [".gitignore", "app.py"]
    assert result["data"]["path"] == "src"


async def test_an_explicitly_named_ignored_folder_is_listed(ctx):
    (ctx.root / "build" / "out.bin").write_text("x")
    result = await run_tool(LSTool(), {"path": "build"}, ctx)
    assert result["data"]["entries"] == ["out.bin"]


async def test_cap_says_truncated(ctx):
    for n in range(5):
        (ctx.root / "src" / f"m{n}.py").write_text("")
    result = await run_tool(LSTool(max_entries=3), {"path": "src"}, ctx)
    data = result["data"]
    assert data["truncated"] is True and data["count"] == 6 and len(data["entries"]) == 3
    assert "3 more" in result["text"]


async def test_errors(ctx, tmp_path_factory):
    outside = tmp_path_factory.mktemp("out")
    (ctx.root / "escape").symlink_to(outside)
    for path in (str(outside), "..", "escape"):
        assert (await run_tool(LSTool(), {"path": path}, ctx))["error"]["code"] == "outside_project", path
    assert (await run_tool(LSTool(), {"path": "README.md"}, ctx))["error"]["code"] == "not_a_directory"
    assert (await run_tool(LSTool(), {"path": "nope"}, ctx))["error"]["code"] == "not_found"
    assert (await run_tool(LSTool(), {"path": 1}, ctx))["error"]["code"] == "invalid_argument"
    assert (await run_tool(LSTool(), {"dir": "src"}, ctx))["error"]["code"] == "invalid_argument"


def test_the_cli_ls_says_how_many_entries_gitignore_hid(tmp_path):
    # Without the count the model takes an ignored .env or build/ for missing (a shell's ls would show it).
    import json
    from tests.cli_helpers import cli_env, contextual, home_of
    from tests.fakes.llm_server import FakeLLMServer
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".gitignore").write_text(".env\nbuild/\n")
    (root / ".env").write_text("X=1\n")
    (root / "build").mkdir()
    (root / "app.py").write_text("x\n")
    script = ["Thought: look\nAction: LS[{}]", "Thought: d\nAction: Finish[ok]"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "list", "--output-format", "stream-json"], root, cli_env(home_of(root), srv.base_url))
    assert result.returncode == 0, result.stderr
    done = next(o for o in map(json.loads, result.stdout.splitlines()) if o["type"] == "tool_finished")
    assert done["result"]["data"]["entries"] == [".gitignore", "app.py"] and done["result"]["data"]["ignored"] == 2
    assert "(2 more hidden by .gitignore; Read and LS still open them by path)" in done["result"]["text"]
