import os

import pytest

from contextual.core.tools.runner import run_tool
from contextual.core.tools.base import ToolContext
from contextual.core.tools.glob import GlobTool


def make(root, rel, mtime, text="x\n"):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (mtime, mtime))


@pytest.fixture
def ctx(tmp_path):
    root = tmp_path.resolve()
    make(root, "main.py", 1000)
    make(root, "src/a.py", 3000)
    make(root, "src/deep/b.py", 2000)
    make(root, "src/deep/c.txt", 4000)
    make(root, "build/gen.py", 5000)
    make(root, ".git/hooks/x.py", 6000)
    make(root, ".gitignore", 10, "build/\n")
    return ToolContext(root=root)


async def glob(ctx, **args):
    return await run_tool(GlobTool(), args, ctx)


async def test_recursive_pattern_newest_first_skipping_ignored_and_git(ctx):
    result = await glob(ctx, pattern="**/*.py")
    assert result["status"] == "success"
    assert result["data"] == {"pattern": "**/*.py", "paths": ["src/a.py", "src/deep/b.py", "main.py"],
                              "count": 3, "truncated": False}
    assert result["text"].splitlines() == ["src/a.py", "src/deep/b.py", "main.py"]


async def test_single_star_stays_in_one_folder_and_path_sets_the_base(ctx):
    assert (await glob(ctx, pattern="*.py"))["data"]["paths"] == ["main.py"]
    result = await glob(ctx, pattern="*.py", path="src/deep")
    assert result["data"]["paths"] == ["src/deep/b.py"]
    braces = await glob(ctx, pattern="src/**/*.{py,txt}")
    assert braces["data"]["paths"] == ["src/deep/c.txt", "src/a.py", "src/deep/b.py"]


async def test_nested_gitignore_and_negation(ctx):
    make(ctx.root, "src/.gitignore", 10, "*.txt\n!keep.txt\n")
    make(ctx.root, "src/keep.txt", 10)
    result = await glob(ctx, pattern="**/*.txt")
    assert result["data"]["paths"] == ["src/keep.txt"]


async def test_cap_says_truncated(ctx):
    result = await run_tool(GlobTool(max_paths=2), {"pattern": "**/*"}, ctx)
    data = result["data"]
    assert data["truncated"] is True and data["count"] == 5 and data["paths"] == ["src/deep/c.txt", "src/a.py"]
    assert "showing 2 of 5" in result["text"]


async def test_no_match_is_success_with_zero(ctx):
    result = await glob(ctx, pattern="**/*.rs")
    assert result["status"] == "success" and result["data"]["count"] == 0
    assert "No files match" in result["text"]


async def test_symlinks_leading_out_are_skipped(ctx, tmp_path_factory):
    outside = tmp_path_factory.mktemp("out")
    (outside / "secret.py").write_text("x")
    (ctx.root / "linkdir").symlink_to(outside)
    (ctx.root / "link.py").symlink_to(outside / "secret.py")
    paths = (await glob(ctx, pattern="**/*.py"))["data"]["paths"]
    assert "link.py" not in paths and not any("secret" in p for p in paths)


@pytest.mark.parametrize("args, code", [
    ({}, "invalid_argument"),
    ({"pattern": 3}, "invalid_argument"),
    ({"pattern": ""}, "invalid_argument"),
    ({"pattern": "../*.py"}, "invalid_argument"),
    ({"pattern": "/etc/*"}, "invalid_argument"),
    ({"pattern": "*.py", "path": "../"}, "outside_project"),
    ({"pattern": "*.py", "path": "/"}, "outside_project"),
    ({"pattern": "*.py", "path": "main.py"}, "not_a_directory"),
    ({"pattern": "src/{a,b.py"}, "invalid_argument"),
])
async def test_bad_input(ctx, args, code):
    assert (await run_tool(GlobTool(), args, ctx))["error"]["code"] == code


from fnmatch import fnmatchcase  # noqa: E402

from hypothesis import given, strategies as st  # noqa: E402

from contextual.core.tools._globs import compile_glob  # noqa: E402

_names = st.text(alphabet="ab.*?", min_size=0, max_size=6)


@given(pattern=_names.filter(lambda p: p), name=st.text(alphabet="ab.", max_size=6))
def test_single_segment_globs_agree_with_fnmatch(pattern, name):
    assert bool(compile_glob(pattern)(name)) == fnmatchcase(name, pattern)


def test_double_star_spans_folders_but_single_star_does_not():
    assert compile_glob("**/*.py")("a/b/c.py") and compile_glob("**/*.py")("c.py")
    assert not compile_glob("*.py")("a/c.py")
    assert compile_glob("src/**")("src/a/b.txt")
    assert compile_glob("[!a]*.md")("b.md") and not compile_glob("[!a]*.md")("a.md")


async def test_matching_work_is_linear_in_the_tree_not_in_its_depth(tmp_path, monkeypatch):
    """Each folder's glob state is computed once from its parent's: one automaton step per entry, however deep
    (the old whole-path matcher re-matched every prefix of every path)."""
    from contextual.core.tools import _globs
    root = tmp_path.resolve()
    folder = root
    for _ in range(150):
        folder = folder / "a"
        folder.mkdir()
        (folder / "f.txt").write_text("x")
    steps = []
    real_step = _globs._PathGlob.step
    monkeypatch.setattr(_globs._PathGlob, "step", lambda self, state, name: steps.append(1) or real_step(self, state, name))
    pattern = "**/a*/**/a*/**/a*/**/a*/**/a*/**/a*/**/a*/**/f.txt"
    result = await run_tool(GlobTool(), {"pattern": pattern}, ToolContext(root=root))
    assert result["status"] == "success" and result["data"]["count"] == 150 - 6
    assert len(steps) <= 2 * 300                     # 300 entries: one step per folder and one per file


async def test_what_gitignore_hides_is_named_when_it_matches_or_nothing_else_does(ctx):
    make(ctx.root, "app.log", 10)
    make(ctx.root, ".gitignore", 10, "build/\n*.log\n")
    hidden_match = await glob(ctx, pattern="*.log")
    assert hidden_match["data"]["paths"] == []
    assert hidden_match["text"].splitlines()[-1] == "(.gitignore hides matching files too: app.log; Read opens a file by path)"
    nothing = await glob(ctx, pattern="**/*.js")
    assert "(.gitignore hides build/, not searched; set path to a folder to look inside it)" in nothing["text"]
    found = await glob(ctx, pattern="**/*.py")
    assert "gitignore" not in found["text"]          # results, and nothing hidden matches: no note


async def test_a_folder_gitignore_hides_is_searched_when_named(ctx):
    result = await glob(ctx, pattern="**/*.py", path="build")
    assert result["data"]["paths"] == ["build/gen.py"]


async def test_a_withheld_file_is_not_named_as_hidden(tmp_path):
    root = tmp_path.resolve()
    make(root, ".env", 10)
    make(root, ".gitignore", 10, ".env\n")
    ctx = ToolContext(root=root, withheld=lambda rel: rel == ".env")
    result = await glob(ctx, pattern="*.env")
    assert ".env" not in result["text"].replace("*.env", "")
