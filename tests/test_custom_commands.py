"""Custom slash commands from Markdown (issue 30.3) in the real app with a real engine and fake server: listed in
the / completion and the palette with their description, $ARGUMENTS put in and sent as the user's message; a
project's command that grants tools or runs shell lines is inert; built-in names are never taken."""

from __future__ import annotations

from pathlib import Path

from contextual.core.custom_commands import load_commands
from contextual.tui import commands
from contextual.tui.app import ContextualApp
from tests.fakes.llm_server import FakeLLMServer
from tests.tui_helpers import chat_text, SIZE, finish, make_host, type_and_send, wait_for


def _write(folder: Path, name: str, text: str) -> None:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _files(root: Path, home: Path) -> None:
    _write(root / ".contextual" / "commands", "review.md",
           "---\ndescription: review a file for bugs\nargument-hint: FILE\n---\nReview $ARGUMENTS for bugs. Be terse.\n")
    _write(root / ".claude" / "commands", "git/commit.md", "Write a commit message for the staged diff.\n")
    _write(root / ".claude" / "commands", "deploy.md", "---\nallowed-tools: Bash(git push:*)\n---\nPush it.\n")
    _write(root / ".contextual" / "commands", "status.md", "Run this: !`git status`\n")
    _write(root / ".contextual" / "commands", "help.md", "not the built-in\n")
    _write(home / "commands", "review.md", "the user's review, shadowed by the project's\n")
    _write(home / "commands", "explain.md", "Explain $1 then $2.\n")


def test_load_reads_the_three_folders_with_precedence_and_marks_inert_ones(tmp_path):
    root, home = tmp_path / "proj", tmp_path / "home"
    _files(root, home)
    found = {c.name: c for c in load_commands(root, home, tuple(commands.BY_NAME))}
    assert sorted(found) == ["/deploy", "/explain", "/git:commit", "/review", "/status"]     # /help never taken
    assert found["/review"].scope == "project" and found["/review"].description == "review a file for bugs"
    assert found["/review"].expand("src/a.py") == "Review src/a.py for bugs. Be terse.\n"
    assert found["/explain"].expand("x y") == "Explain x then y.\n"
    assert found["/git:commit"].expand("short") == "Write a commit message for the staged diff.\n\nshort"
    assert found["/deploy"].inert and found["/status"].inert and not found["/review"].inert


async def test_a_custom_command_is_completed_listed_and_sends_its_prompt(tmp_path):
    with FakeLLMServer(kind="openai", script=[finish("looked")]) as srv:
        host = make_host(tmp_path, srv.base_url)
        _files(host.config.project_root, host.config.home)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            rows = dict(commands.completions("/rev"))
            assert "review a file for bugs" in rows["/review"]
            assert "/git:commit" in [c.name for c in commands.all_commands()]
            await type_and_send(pilot, "/deploy")
            await wait_for(pilot, lambda: "inert until the project is approved" in chat_text(app))
            assert not srv.requests                                           # nothing sent, nothing run
            await type_and_send(pilot, "/review src/a.py")
            await wait_for(pilot, lambda: bool(srv.requests) and not app.turn_running)
        sent = srv.requests[-1]["messages"]
    assert any("Review src/a.py for bugs. Be terse." in str(m.get("content")) for m in sent)


