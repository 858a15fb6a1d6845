"""Keys typed as a permission opens were meant for the message being written: the modal ignores them for its first
moment (PermissionModal.GRACE_S, with its real value here: the suite's other tests set it to 0). The modal's clock is
stepped by the test, so a slow machine cannot end the grace before the keys arrive."""

from __future__ import annotations

from contextual.tui.app import ContextualApp
from contextual.tui.screens.permission import PermissionModal
from tests.tui_helpers import SIZE, finish, make_host, server, type_and_send, wait_for, shown_screen

BASH = 'Thought: run it\nAction: Bash[{"command": "echo hi-from-bash"}]'


async def test_keys_in_the_first_moment_are_ignored_then_the_answer_counts(tmp_path, monkeypatch):
    monkeypatch.setattr(PermissionModal, "GRACE_S", 0.5)
    now = [100.0]
    monkeypatch.setattr(PermissionModal, "clock", staticmethod(lambda: now[0]))
    with server([BASH, finish("done")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "run echo")
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            modal = app.screen
            assert modal.too_soon()
            await pilot.press("a", "enter")           # "add a test" + enter, typed on as the modal opened
            assert app.screen is modal
            assert "ignored" in str(modal.query_one("#permission-box").border_subtitle)
            rules = app.config.project_root / ".contextual" / "config.local.toml"
            assert not rules.exists() and not app.engine.allowed_for_session
            now[0] += 0.49
            await pilot.press("a")
            assert app.screen is modal and not rules.exists()
            now[0] += 0.02
            assert not modal.too_soon()
            await pilot.press("n")
            await app.workers.wait_for_complete()
            await pilot.pause()
            tool = [m for m in app.engine.history.messages if m.role == "tool"][-1]
            assert "denied" in tool.full.lower() and not rules.exists()


async def test_a_dialog_dismissed_before_its_layout_fit_ran_does_not_end_the_app():
    """esc as the dialog opened (tmux at 100x30, helper-125): its preview fit, queued for after the next refresh,
    ran on a box whose widgets were being removed and ended the app (IndexError in _fit_preview)."""
    from textual.app import App
    modal = PermissionModal("Bash", {"command": "rm -rf build"}, "rm -rf build")
    answers: list = []

    class Host(App):
        def on_mount(self) -> None:
            self.push_screen(modal, answers.append)

    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        modal.dismiss(None)
        await pilot.pause()
        modal._fit_preview()             # what the queued callback does once the dialog is gone
        modal._name_runs()
        await pilot.pause()
        assert app.is_running and answers == [None]
