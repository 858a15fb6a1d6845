"""/permissions in the app: the rules of the three config files and where each comes from, an unapproved project's
allow rule shown inert, a local rule removed after a yes (the file no longer holds it and the next Bash call it
allowed asks), and a typed rule added (an invalid one said and not written)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Static
from textual.widgets._footer import FooterKey

from contextual.core.config import load_config
from contextual.tui.app import ContextualApp
from contextual.tui.host import RealHost
from contextual.tui.screens.confirm import ConfirmModal
from contextual.tui.screens.permission import PermissionModal
from contextual.tui.screens.permissions import PermissionsScreen
from contextual.tui.screens.trust import TrustModal
from tests.fakes.llm_server import FakeLLMServer
from tests.tui_helpers import finish, run_turn, type_and_send, wait_for, shown_screen

ECHO = 'Thought: greet\nAction: Bash[{"command": "echo hi"}]'


def three_files_host(tmp: Path, base_url: str) -> RealHost:
    """User config, an unapproved project config and the user's approved local config, each with rules."""
    from contextual.core.permissions import add_allow_rules
    root, home = tmp / "proj", tmp / "home"
    (root / ".contextual").mkdir(parents=True)
    home.mkdir()
    (home / "config.toml").write_text('[permissions]\ndeny = ["Bash(rm:*)"]\n')
    (root / ".contextual" / "config.toml").write_text('[permissions]\nallow = ["Bash(make:*)"]\n')
    add_allow_rules(root, ["Bash(echo:*)", "Bash(ls:*)"], home)
    env = {"CONTEXTUAL_HOME": str(home)}
    return RealHost(load_config(root, {"model": "fake-model", "base_url": base_url, "api_key": "sk-test"}, env=env))


def rows(screen: PermissionsScreen) -> list[tuple[str, str, str, str]]:
    table = screen.query_one(DataTable)
    return [tuple(str(cell) for cell in table.get_row_at(i)) for i in range(table.row_count)]   # type: ignore[misc]


def footer(screen: PermissionsScreen) -> set[str]:
    return {str(k.description) for k in screen.query(FooterKey) if k.region.width}


@pytest.fixture(autouse=True)
def untrusted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CONTEXTUAL_TRUST_PROJECT", raising=False)


async def open_permissions_not_trusting(pilot) -> None:
    """Answer the project's trust question "not now" (its allow rule stays inert), then open /permissions."""
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, TrustModal))
    await pilot.press("n")
    await wait_for(pilot, lambda: not isinstance(app.screen, TrustModal))
    await type_and_send(pilot, "/permissions")
    await wait_for(pilot, lambda: isinstance(app.screen, PermissionsScreen))

async def test_permissions_lists_removes_and_adds_rules_and_the_next_call_obeys(tmp_path: Path):
    with FakeLLMServer(kind="openai", script=[ECHO, finish("ran"), ECHO, finish("asked")]) as srv:
        host = three_files_host(tmp_path, srv.base_url)
        local = host.config.project_root / ".contextual" / "config.local.toml"
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, TrustModal))
            await pilot.press("n")                                   # not now: the project's rule stays inert
            await wait_for(pilot, lambda: not isinstance(app.screen, TrustModal))
            await run_turn(pilot, "greet")                            # allowed by the local rule: no question
            assert "hi" in [m for m in app.engine.history.messages if m.role == "tool"][-1].full

            await type_and_send(pilot, "/permissions")
            await wait_for(pilot, lambda: isinstance(app.screen, PermissionsScreen))
            screen = app.screen
            assert rows(screen) == [("deny", "Bash(rm:*)", "user config", "in force"),
                                    ("allow", "Bash(make:*)", "project config", "inert"),
                                    ("allow", "Bash(echo:*)", "project local config", "in force"),
                                    ("allow", "Bash(ls:*)", "project local config", "in force")]
            await pilot.press("down")
            detail = str(screen.query_one("#rules-detail", Static).render())
            assert "inert: not approved" in detail and "--trust-project" in detail and "read-only" in detail
            shown = {str(k.description) for k in screen.query(FooterKey) if k.region.width}
            assert {"close", "add a rule", "remove"} <= shown and all(k.region.right <= 80
                                                                       for k in screen.query(FooterKey))
            await pilot.press("d")                                    # read-only: said, nothing asked
            assert not isinstance(app.screen, ConfirmModal) and "read-only" in str(
                screen.query_one("#rules-said", Static).render())

            await pilot.press("down", "d")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
            await pilot.press("y")
            await wait_for(pilot, lambda: app.screen is screen and len(rows(screen)) == 3)
            assert "Bash(echo:*)" not in local.read_text() and "Bash(ls:*)" in local.read_text()

            await pilot.press("a")
            entry = screen.query_one("#rules-new", Input)
            assert entry.display and entry.has_focus
            before = local.read_text()
            entry.value = "deny Bash("                                # invalid: said, not written
            await pilot.press("enter")
            said = str(screen.query_one("#rules-said", Static).render())
            assert "invalid permission rule 'Bash('" in said and local.read_text() == before and entry.display
            entry.value = "deny Bash(git push:*)"
            await pilot.press("enter")
            await wait_for(pilot, lambda: not entry.display)
            assert ("deny", "Bash(git push:*)", "project local config", "in force") in rows(screen)
            assert 'deny = ["Bash(git push:*)"]' in local.read_text()
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, PermissionsScreen))

            await type_and_send(pilot, "greet again")                 # the removed rule no longer allows it
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            await pilot.press("n")
            await wait_for(pilot, lambda: not app.turns.running)


async def test_permissions_reads_at_200_columns_and_survives_a_few(tmp_path: Path):
    with FakeLLMServer(kind="openai", script=[]) as srv:
        host = three_files_host(tmp_path, srv.base_url)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=(200, 50)) as pilot:
            await open_permissions_not_trusting(pilot)
            await pilot.pause()
            table = app.screen.query_one(DataTable)
            await wait_for(pilot, lambda: app.screen.query_one("#rules-box").region.height < 25)   # not half empty
            assert table.region.width > 100 and table.region.height == 5          # the header and the 4 rules
            for size in ((8, 4), (3, 2), (40, 12), (80, 24)):
                await pilot.resize_terminal(*size)
                await pilot.pause()
                assert app._exception is None and app.is_running, size
            await pilot.press("a", "q", "d")                          # typing: q and d are letters
            assert app.screen.query_one("#rules-new", Input).value == "qd"
            await pilot.press("escape")                               # esc leaves the entry, not the screen
            assert isinstance(app.screen, PermissionsScreen) and not app.screen.query_one("#rules-new").display
            await pilot.press("q")
            await wait_for(pilot, lambda: not isinstance(app.screen, PermissionsScreen))


async def test_the_first_rule_added_at_80x24_is_said_whole_and_only_then_d_is_offered(tmp_path: Path):
    """The box was fitted to the sizes of the last layout, where the line just shown had none, and to the header and
    the one row (2 lines) where the table keeps 3: it came short, and "added allow Bash(git status:*) to" showed
    without the file (tmux QA). With no rule the footer offered `d remove`, which did nothing."""
    from tests.tui_helpers import make_host
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await type_and_send(pilot, "/permissions")
            await wait_for(pilot, lambda: isinstance(app.screen, PermissionsScreen))
            screen = app.screen
            await pilot.pause()
            assert "remove" not in footer(screen)                    # no rule: d is not offered (it did nothing)
            assert str(screen.query_one("#rules-box").border_title) == "Permissions"    # keys: the footer's only
            await pilot.press("a")
            screen.query_one("#rules-new", Input).value = "Bash(git status:*)"
            await pilot.press("enter")
            await wait_for(pilot, lambda: not screen.query_one("#rules-new").display)
            await pilot.pause()
            await pilot.pause()
            said, box = screen.query_one("#rules-said", Static), screen.query_one("#rules-box")
            assert "config.local.toml" in str(said.render())
            assert said.virtual_size.height > 1 and said.region.height == said.virtual_size.height   # wrapped, whole
            assert said.region.bottom <= box.content_region.bottom, (said.region, box.content_region)
            assert "remove" in footer(screen) and str(box.border_title) == "Permissions"


async def test_the_rule_entry_keeps_its_bottom_border_at_80x24_under_a_long_detail_and_an_error(tmp_path: Path):
    """With the inert rule's note the detail took its 8 lines; an invalid rule's error under it, and the box, at every
    row of the screen, cut its last line: the entry's bottom border (sweep, helper-90). The detail gives lines up."""
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(three_files_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_permissions_not_trusting(pilot)
            screen = app.screen
            await pilot.press("a")
            entry, said = screen.query_one("#rules-new", Input), screen.query_one("#rules-said", Static)
            entry.value = "Bash("
            await pilot.press("enter")
            await wait_for(pilot, lambda: said.display and "invalid permission rule" in str(said.render()))
            await pilot.pause()
            await pilot.pause()
            inside = screen.query_one("#rules-box").content_region
            assert entry.region.bottom <= inside.bottom, (entry.region, inside)   # its bottom border in the box
            assert said.region.height == said.virtual_size.height                # the error whole above it
            assert screen.query_one(DataTable).region.height >= 3                 # the table keeps its least
            detail = screen.query_one("#rules-detail", Static)
            shrunk = detail.region.height
            await pilot.press("escape")                                  # the entry gone: the detail's lines back
            await pilot.pause()
            await pilot.pause()
            assert detail.region.height > shrunk and detail.region.bottom <= inside.bottom


async def test_the_header_names_the_file_a_and_d_change_apart_from_the_read_only_ones(tmp_path: Path):
    """The header said "read-only here (edit them yourself): …/config.toml · …/config.toml" above a footer offering
    `a add a rule  d remove`, which change the local file; nothing said where `a` writes (user review)."""
    with FakeLLMServer(kind="openai", script=[]) as srv:
        host = three_files_host(tmp_path, srv.base_url)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_permissions_not_trusting(pilot)
            screen = app.screen
            header = " ".join(str(screen.query_one("#rules-mode", Static).render()).split())
            changed, _, read_only = header.partition("read-only here")
            assert "a adds to and d removes from .contextual/config.local.toml" in changed, header
            assert "config.local.toml" not in read_only and ".contextual/config.toml" in read_only
            assert str(host.config.home / "config.toml") in read_only
            await pilot.press("a")
            entry = screen.query_one("#rules-new", Input)
            assert entry.display and str(entry.border_title) == "adds to .contextual/config.local.toml"
