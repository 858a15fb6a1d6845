"""A key that opens a dialog's text box hands the rest of its burst (a fast typist, tmux send-keys, a paste) to the
box, in order, none lost, none doubled, none read as the dialog's own keys. The opening key was read when it had
bubbled back up to the app, after the keys behind it had been handed to the widget that had the focus: the permission
note after `t` lost its letters (and a `y` among them was no text), /resume's title after ctrl+t filtered the list
with them, /permissions' new rule after `a` lost them, and the compaction preview's summary after tab got them in
the instructions line."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from textual import events
from textual.app import App
from textual.keys import _character_to_key
from textual.widgets import DataTable, Input, TextArea

from contextual.core.config import load_config
from contextual.core.context.compaction_review import CompactionReview
from contextual.core.events import AlwaysRules, PermissionAnswer
from contextual.core.permission_list import RuleBook
from contextual.core.permissions import add_allow_rules
from contextual.core.session.index import SessionInfo
from contextual.core.engine.settings import Settings
from contextual.tui.app import ContextualApp
from contextual.tui.remembered import Remembered
from contextual.tui.screens.compaction_preview import CompactionPreviewScreen
from contextual.tui.screens.permission import PermissionModal
from contextual.tui.screens.permissions import PermissionsScreen
from contextual.tui.screens.session_picker import SessionPicker
from tests.history_helpers import ledger_session
from tests.tui_helpers import finish, make_host, server, shown_screen, type_and_send, wait_for

SIZE = (80, 24)
NOTE = "yes, and then 1 more: try `make test` instead"       # y a n t 1-4: the dialog's answers, as text here


class Host(App[None]):
    """Pushes one dialog and keeps what it is dismissed with."""

    def __init__(self, screen) -> None:
        super().__init__()
        self.first = screen
        self.results: list = []

    def on_mount(self) -> None:
        self.push_screen(self.first, self.results.append)


def burst(app: App, *keys: str) -> None:
    """Every key queued before the app reads the first, as a terminal delivers them."""
    for key in keys:
        app.post_message(events.Key(_character_to_key(key), key) if len(key) == 1 else events.Key(key, None))


async def opened(pilot, screen) -> None:
    await wait_for(pilot, lambda: pilot.app.screen is screen and screen.focused is not None)


async def test_the_permission_note_holds_every_key_typed_with_t():
    modal = PermissionModal("Bash", {"command": "echo hi"}, "echo hi", AlwaysRules(("Bash(echo:*)",)))
    app = Host(modal)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, modal)
        note = modal.query_one("#permission-note", Input)
        burst(app, "t", *NOTE)
        await wait_for(pilot, lambda: note.value == NOTE or app.results)
        await pilot.pause()
        assert note.value == NOTE and note.has_focus and not app.results
        burst(app, "enter")
        await wait_for(pilot, lambda: app.results)
    assert app.results == [PermissionAnswer("deny", NOTE)]


async def test_a_paste_with_t_is_the_notes():
    modal = PermissionModal("Bash", {"command": "echo hi"}, "echo hi", AlwaysRules(("Bash(echo:*)",)))
    app = Host(modal)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, modal)
        note = modal.query_one("#permission-note", Input)
        burst(app, "t")
        app.post_message(events.Paste("no, use ls"))
        await wait_for(pilot, lambda: note.value or app.results)
        await pilot.pause()
        assert note.value == "no, use ls" and not app.results


async def test_an_answer_before_t_in_the_same_burst_is_the_answer():
    """The keys are read in the order typed: `n` denies; the `t` after it is not a note."""
    modal = PermissionModal("Bash", {"command": "echo hi"}, "echo hi", AlwaysRules(("Bash(echo:*)",)))
    app = Host(modal)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, modal)
        burst(app, "n", "t", *"oops")
        await wait_for(pilot, lambda: app.results)
        await pilot.pause()
    assert app.results == [PermissionAnswer("deny")]


async def test_the_note_typed_with_t_reaches_the_model_in_the_app(tmp_path):
    bash = 'Thought: run it\nAction: Bash[{"command": "echo hi-from-bash"}]'
    with server([bash, finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "run echo")
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            await opened(pilot, app.screen)
            burst(app, "t", *"all good, no", "enter")
            await wait_for(pilot, lambda: len(srv.requests) == 2 and not app.turns.running)
            sent = srv.requests[1]["messages"][-1]["content"]
            assert "denied" in sent and "all good, no" in sent


def sessions(tmp_path: Path) -> list[SessionInfo]:
    return [SessionInfo(f"{n:02d}5f5b5dc", tmp_path / f"s{n}.jsonl", first_prompt=f"task {n}",
                        updated="2025-11-27T07:36:00.000Z", rounds=1, compactions=0, last_tokens=10)
            for n in range(3)]


async def test_the_resume_title_holds_every_key_typed_with_ctrl_t(tmp_path):
    remembered = Remembered(tmp_path / "home", tmp_path)
    listed = sessions(tmp_path)
    picker = SessionPicker(listed, remembered)
    app = Host(picker)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, picker)
        title = picker.query_one("#picker-title", Input)
        # the filter first, then the title: the highlighted row's, selected, so typing replaces it
        burst(app, *"task 1", "ctrl+t", *"the cart")
        await wait_for(pilot, lambda: title.value.endswith("cart") or picker.filter.endswith("cart"))
        await pilot.pause()
        assert title.value == "the cart" and picker.filter == "task 1" and title.has_focus
        burst(app, "enter")
        await wait_for(pilot, lambda: not title.display)
        assert remembered.titles() == {listed[1].id: "the cart"} and picker.query_one(DataTable).has_focus


async def test_letters_typed_before_ctrl_t_filter_and_the_title_offered_is_the_filtered_rows(tmp_path):
    picker = SessionPicker(sessions(tmp_path), Remembered(tmp_path / "home", tmp_path))
    app = Host(picker)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, picker)
        title = picker.query_one("#picker-title", Input)
        burst(app, *"task 2", "ctrl+t")
        await wait_for(pilot, lambda: picker.filter == "task 2" and title.has_focus)
        await pilot.pause()
        assert title.value == "task 2" and title.selected_text == "task 2"


async def test_a_paste_with_ctrl_t_is_the_titles(tmp_path):
    picker = SessionPicker(sessions(tmp_path), Remembered(tmp_path / "home", tmp_path))
    app = Host(picker)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, picker)
        title = picker.query_one("#picker-title", Input)
        burst(app, "ctrl+t")
        app.post_message(events.Paste("pasted title"))
        await wait_for(pilot, lambda: title.value.endswith("title") or picker.filter)
        await pilot.pause()
        assert title.value == "pasted title" and picker.filter == ""


def rule_book(tmp_path: Path) -> RuleBook:
    root, home = tmp_path / "proj", tmp_path / "home"
    (root / ".contextual").mkdir(parents=True)
    home.mkdir()
    add_allow_rules(root, ["Bash(echo:*)"], home)
    config = load_config(root, {}, env={"CONTEXTUAL_HOME": str(home)})
    return RuleBook(Settings(config, None), set())


async def test_the_new_rule_holds_every_key_typed_with_a(tmp_path):
    rules = "deny Bash(sqlite3 data.db:*)"                    # d removes, q closes: letters here
    screen = PermissionsScreen(rule_book(tmp_path))
    app = Host(screen)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, screen)
        entry = screen.query_one("#rules-new", Input)
        burst(app, "a", *rules)
        await wait_for(pilot, lambda: entry.value == rules or app.screen is not screen)
        await pilot.pause()
        assert entry.value == rules and entry.has_focus and app.screen is screen
        burst(app, "enter")
        await wait_for(pilot, lambda: not entry.display)
        assert "sqlite3 data.db:*" in (tmp_path / "proj" / ".contextual" / "config.local.toml").read_text()


async def test_the_summary_holds_every_key_typed_with_tab():
    future = asyncio.get_running_loop().create_future()
    archive, kept = ledger_session()
    preview = CompactionPreviewScreen(CompactionReview("manual", tuple(archive), tuple(kept), "Summary.", future))
    app = Host(preview)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot, preview)
        area, instructions = preview.query_one(TextArea), preview.query_one("#preview-instructions", Input)
        burst(app, "tab", "ctrl+home", *"EDITED ")
        await wait_for(pilot, lambda: area.text.startswith("EDITED ") or instructions.value)
        await pilot.pause()
        assert area.text == "EDITED Summary." and instructions.value == "" and area.has_focus


def preview_screen() -> CompactionPreviewScreen:
    archive, kept = ledger_session()
    future = asyncio.get_running_loop().create_future()
    return CompactionPreviewScreen(CompactionReview("manual", tuple(archive), tuple(kept), "Summary.", future))


@pytest.mark.parametrize("dialog, key, box", [
    (lambda tmp: PermissionModal("Bash", {"command": "echo hi"}, "echo hi"), "t", "#permission-note"),
    (lambda tmp: SessionPicker(sessions(tmp), Remembered(tmp / "home", tmp)), "ctrl+t", "#picker-title"),
    (lambda tmp: PermissionsScreen(rule_book(tmp)), "a", "#rules-new"),
    (lambda tmp: preview_screen(), "tab", "#preview-summary"),
], ids=["permission note", "resume title", "new rule", "compaction summary"])
async def test_the_key_read_as_its_dialog_opens_opens_the_box_with_what_is_typed_after_it(tmp_path, dialog, key, box):
    """Read as the app takes it, the key came before the dialog's widgets (it looked for the box and ended the
    app): it waits for the dialog with the letters typed after it (tui/opening_keys.py), and the dialog's first
    focus does not take the box's back."""
    (tmp_path / "app").mkdir()
    with server([]) as srv:
        app = ContextualApp(make_host(tmp_path / "app", srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = dialog(tmp_path)
            app.push_screen(screen)
            burst(app, key, *"pwd")
            await wait_for(pilot, lambda: screen.is_mounted and "pwd" in typed(screen.query_one(box))
                           or app._exception)
            assert app._exception is None and screen.query_one(box).has_focus


def typed(box) -> str:
    return box.text if isinstance(box, TextArea) else box.value


@pytest.mark.parametrize("closing", ["enter", "escape"])
async def test_keys_typed_after_the_key_that_closes_the_title_filter_the_list(tmp_path, closing):
    """enter (saves) or esc (cancels) closes the title as the box reads it: the letters typed after it in the same
    burst, handed to the box before it closed, were typed into the hidden box and lost; they are the list's."""
    remembered = Remembered(tmp_path / "home", tmp_path)
    listed = sessions(tmp_path)
    picker = SessionPicker(listed, remembered)
    app = Host(picker)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, picker)
        title = picker.query_one("#picker-title", Input)
        burst(app, "ctrl+t", *"the cart", closing, *"task 2")
        await wait_for(pilot, lambda: picker.filter == "task 2" or title.value.endswith("2"))
        await pilot.pause()
        assert picker.filter == "task 2" and not title.display and picker.query_one(DataTable).has_focus
        saved = {listed[0].id: "the cart"} if closing == "enter" else {}
        assert remembered.titles() == saved


@pytest.mark.parametrize("closing", ["enter", "escape"])
async def test_a_key_typed_after_the_key_that_closes_the_new_rule_is_the_screens(tmp_path, closing):
    """q after the rule's enter or esc, in one burst: the screen's close, not a letter in the hidden box."""
    screen = PermissionsScreen(rule_book(tmp_path))
    app = Host(screen)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot, screen)
        entry = screen.query_one("#rules-new", Input)
        burst(app, "a", *"Bash(ls:*)", closing, "q")
        await wait_for(pilot, lambda: app.screen is not screen or entry.value.endswith("q"))
        assert app.screen is not screen and app.results == [None]
        local = tmp_path / "proj" / ".contextual" / "config.local.toml"
        assert ("Bash(ls:*)" in local.read_text()) == (closing == "enter")
