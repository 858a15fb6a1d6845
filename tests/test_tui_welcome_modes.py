"""The first screen a new user reads and the permission mode (issue 29.8), through the real app, engine and the
fake server: the welcome names the model, its window and the keys; shift+tab cycles the mode the engine decides
with (never into bypass unless started in it), shown under the input; a dialog keeps shift+tab for its focus."""

from __future__ import annotations

from contextual.core.permissions import next_mode
from contextual.tui.app import ContextualApp
from contextual.tui.format import MODE_LINES
from contextual.tui.screens.permission import PermissionModal
from contextual.tui.widgets.welcome import KEYS, Welcome

from tests.tui_helpers import SIZE, chat_text, finish, make_host, run_turn, server, type_and_send, wait_for, shown_screen

WRITE = 'Thought: write it\nAction: Write[{"file_path": "notes.txt", "content": "from the agent\\n"}]'


def subtitle(app) -> str:
    return str(app.query_one("#prompt").border_subtitle)


def test_the_cycle_reaches_bypass_only_from_bypass():
    assert [next_mode(m, "default") for m in ("default", "accept-edits", "plan", "bypass")] == \
        ["accept-edits", "plan", "default", "default"]
    assert [next_mode(m, "bypass") for m in ("default", "accept-edits", "plan", "bypass")] == \
        ["accept-edits", "plan", "bypass", "default"]


async def test_welcome_names_model_window_and_keys_and_goes_with_the_first_message(tmp_path):
    with server([finish("hello")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=32_000), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.startup.started()
            await pilot.pause()
            welcome = app.query_one(Welcome)
            shown = str(welcome.render())
            assert "fake-model" in shown and "32.0k window" in shown
            for key, what in KEYS:
                assert f"{key} {what}" in shown
            # the keys it names are the app's own
            assert app.active_bindings["escape"].binding.action == "cancel_turn"
            assert app.COMMAND_PALETTE_BINDING == "ctrl+p"
            await run_turn(pilot, "hi")
            assert not app.query(Welcome)
            assert "hello" in chat_text(app)


async def test_no_welcome_on_a_resumed_session(tmp_path):
    with server([finish("first answer")]) as srv:
        host = make_host(tmp_path, srv.base_url)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "hi")
        app2 = ContextualApp(host, host.resume(), animate=False)
        async with app2.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert not app2.query(Welcome)
            assert "first answer" in chat_text(app2)


async def test_shift_tab_cycles_the_mode_the_engine_uses(tmp_path):
    with server([WRITE, finish("written")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            assert app.engine.config.permission_mode == "default"
            assert MODE_LINES["default"] in subtitle(app)
            await pilot.press("shift+tab")
            assert app.engine.config.permission_mode == "accept-edits"
            assert MODE_LINES["accept-edits"] in subtitle(app)
            assert app.focused is app.query_one("#prompt")      # the key no longer moves the focus
            await run_turn(pilot, "write the notes")            # accept-edits: the Write runs unasked
            assert (app.config.project_root / "notes.txt").read_text() == "from the agent\n"
            await pilot.press("shift+tab")
            assert app.engine.config.permission_mode == "plan"
            assert MODE_LINES["plan"] in subtitle(app)
            await pilot.press("shift+tab")
            assert app.engine.config.permission_mode == "default"      # never bypass: not started in it
            assert MODE_LINES["default"] in subtitle(app)


async def test_the_mode_set_by_shift_tab_asks_again_in_default(tmp_path):
    with server([WRITE, finish("written")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("shift+tab", "shift+tab", "shift+tab")
            assert app.engine.config.permission_mode == "default"
            await type_and_send(pilot, "write the notes")
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            modal = app.screen
            await wait_for(pilot, lambda: not modal.too_soon())
            await pilot.press("shift+tab")       # on a file edit's dialog: allow it, and accept edits from now on
            await wait_for(pilot, lambda: not app.turns.running)
            assert app.engine.config.permission_mode == "accept-edits"


async def test_started_in_bypass_the_cycle_comes_back_to_it(tmp_path):
    with server([finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="bypass"), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            assert MODE_LINES["bypass"] in subtitle(app)
            seen = []
            for _ in range(4):
                await pilot.press("shift+tab")
                seen.append(app.engine.config.permission_mode)
            assert seen == ["default", "accept-edits", "plan", "bypass"]
