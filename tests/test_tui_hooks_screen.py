"""/hooks (user review 121.19): the hooks in force, by event, with matcher, command (cut at 80 columns, whole in the
detail line), the file each came from and whether it runs (a project's own only once approved). Opening it re-reads
the config files and puts what they say in force: an edit applies without a restart once seen, a project's changed
hook stays inert until approved. Through the real app, engine and the fake server."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import DataTable, Footer

from contextual.tui.app import ContextualApp
from contextual.tui.screens.hooks import HooksScreen
from contextual.tui.screens.trust import TrustModal
from tests.tui_helpers import finish, make_host, make_project, run_turn, server, type_and_send, wait_for

GUARD = "python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard_every_bash_call.py --strict --log guard.log"


def add_hook(path: Path, event: str, command: str, matcher: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(f"[[hooks.{event}]]\nmatcher = {json.dumps(matcher)}\n"
                  f"hooks = [{{ type = \"command\", command = {json.dumps(command)}, timeout = 30 }}]\n")


def rows(screen: HooksScreen) -> list[list[str]]:
    table = screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def open_hooks(pilot) -> HooksScreen:
    app = pilot.app
    await type_and_send(pilot, "/hooks")
    await wait_for(pilot, lambda: isinstance(app.screen, HooksScreen))
    await pilot.pause()
    return app.screen


async def test_hooks_lists_each_hook_its_file_and_whether_it_runs_within_80_columns(tmp_path, monkeypatch):
    monkeypatch.delenv("CONTEXTUAL_TRUST_PROJECT")
    root = make_project(tmp_path)
    add_hook(tmp_path / "home" / "config.toml", "PreToolUse", GUARD, "Bash")
    add_hook(root / ".contextual" / "config.toml", "Stop", "make test")
    add_hook(root / ".contextual" / "config.toml", "SessionEnd", "echo bye")          # Claude Code's, not run here
    with server([finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, TrustModal))
            await pilot.press("n")                                  # the project's hook stays inert
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0])
            screen = await open_hooks(pilot)
            [guard, stop] = rows(screen)
            assert guard[:2] == ["PreToolUse", "Bash"] and guard[3:] == ["user", "runs"], guard
            assert guard[2].endswith("…") and GUARD.startswith(guard[2][:-1])          # cut, with an ellipsis
            assert stop == ["Stop", "*", "make test", "project", "inert"], stop
            detail = str(screen.query_one("#hooks-detail").render())
            assert GUARD in detail.replace("\n", "") and "timeout 30 s" in detail and "runs" in detail
            assert "SessionEnd" in detail                           # what of the files does not run here
            head = str(screen.query_one("#hooks-head").render()).replace("\n", " ")
            assert ".contextual/config.toml" in head and "open /hooks again" in head
            assert "Re-read" not in head                            # nothing changed since launch
            await pilot.press("down")
            detail = str(screen.query_one("#hooks-detail").render())
            assert "make test" in detail and "inert: a project's own hooks run only once you approve" in detail
            keys = {k.description: k.region for k in screen.query_one(Footer).query("FooterKey")}
            assert "close" in keys and all(0 < r.right <= 80 for r in keys.values()), keys
            box = screen.query_one("#hooks-box")
            assert box.region.right <= 80 and box.region.bottom <= 23 and str(box.border_title) == "Hooks"
            assert screen.query_one(DataTable).virtual_size.width <= box.content_size.width
            await pilot.resize_terminal(200, 50)                   # wide: the command whole
            await wait_for(pilot, lambda: rows(screen)[0][2] == GUARD)
            await pilot.resize_terminal(80, 24)                    # and cut again, nothing past the box
            await wait_for(pilot, lambda: rows(screen)[0][2].endswith("…"))
            await pilot.pause()
            assert screen.query_one(DataTable).virtual_size.width <= box.content_size.width
            assert screen.query_one(DataTable).cursor_row == 1     # the row the user was on
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0])


async def test_opening_hooks_puts_the_files_edits_in_force_and_a_changed_project_hook_stays_inert(tmp_path,
                                                                                                    monkeypatch):
    monkeypatch.delenv("CONTEXTUAL_TRUST_PROJECT")
    root = make_project(tmp_path)
    project_file = root / ".contextual" / "config.toml"
    add_hook(project_file, "UserPromptSubmit", "touch approved.txt")
    with server([finish("one"), finish("two"), finish("three")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, TrustModal))
            await pilot.press("a")                                  # approved as it reads
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0])
            add_hook(tmp_path / "home" / "config.toml", "UserPromptSubmit", "touch mine.txt")
            await run_turn(pilot, "first")                          # edited after launch: not in force yet
            assert (root / "approved.txt").exists() and not (root / "mine.txt").exists()
            screen = await open_hooks(pilot)
            assert "Re-read from the config files now: 1 hook added" in str(screen.query_one("#hooks-head").render())
            assert [r[3:] for r in rows(screen)] == [["user", "runs"], ["project", "runs"]]
            await pilot.press("escape")
            await run_turn(pilot, "second")
            assert (root / "mine.txt").exists()
            # the project's hook changed after its approval: re-read, it waits for the next start's question
            project_file.write_text(project_file.read_text().replace("approved.txt", "changed.txt"))
            screen = await open_hooks(pilot)
            assert "1 hook added, 1 removed" in str(screen.query_one("#hooks-head").render())
            assert [r[2:] for r in rows(screen)] == [["touch mine.txt", "user", "runs"],
                                                     ["touch changed.txt", "project", "inert"]]
            # a file that no longer parses leaves the hooks as they were, and says so
            (tmp_path / "home" / "config.toml").write_text("[[hooks.UserPromptSubmit]\n")
            await pilot.press("escape")
            screen = await open_hooks(pilot)
            assert "not re-read" in str(screen.query_one("#hooks-detail").render())
            assert len(rows(screen)) == 2
            await pilot.press("escape")
            await run_turn(pilot, "third")
            assert not (root / "changed.txt").exists()


async def test_a_command_or_matcher_with_brackets_is_listed_as_written(tmp_path):
    """The table read its str cells as markup: a command holding `[/]` (or a matcher `[/x]`) ended the app as
    /hooks opened (MarkupError), and `[b]` would have vanished into bold."""
    make_project(tmp_path)
    command = 'echo "[/] done [b]now[/b]" >&2'
    add_hook(tmp_path / "home" / "config.toml", "PreToolUse", command, "[/x]")
    with server([finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(120, 24)) as pilot:
            screen = await open_hooks(pilot)
            assert rows(screen) == [["PreToolUse", "[/x]", command, "user", "runs"]]
            assert app.is_running and app._exception is None
