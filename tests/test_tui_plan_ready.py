"""Plan mode's end (user review 121.8): a turn run in plan mode that answers offers to carry the plan out, asking
before edits or accepting them, or to keep planning; going on leaves plan mode and sends the approval as the user's
message, which the model reads and the session keeps. Through the real app, engine and the fake server."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import Footer

from contextual.tui.app import ContextualApp
from contextual.tui.format import MODE_LINES
from contextual.tui.screens.permission import PermissionModal
from contextual.tui.screens.plan_ready import APPROVED, PlanReady
from tests.tui_helpers import chat_text, finish, held, make_host, resumed_app, run_turn, server, type_and_send, \
    until_shown, wait_for, shown_screen

PLAN = finish("Plan: write notes.txt saying what the cart does, then read it back.")
WRITE = 'Thought: write it\nAction: Write[{"file_path": "notes.txt", "content": "the cart\\n"}]'


def user_texts(body: dict) -> list[str]:
    return [str(m["content"]) for m in body["messages"] if m["role"] == "user"]


@pytest.mark.parametrize("key, mode", [("y", "default"), ("a", "accept-edits")])
async def test_a_plan_carried_out_leaves_plan_mode_and_sends_the_approval_as_the_users_message(tmp_path, key, mode):
    with server([PLAN, WRITE, finish("written")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="plan"), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await type_and_send(pilot, "document the cart")
            await wait_for(pilot, lambda: isinstance(app.screen, PlanReady))
            await pilot.pause()
            keys = {k.description: k.region for k in app.screen.query_one(Footer).query("FooterKey")}
            assert {"go, ask before edits", "go, accept edits", "keep planning"} <= keys.keys(), keys
            assert all(0 < region.right <= 80 for region in keys.values()), keys
            # the dialog stands over the input, not over the chat that shows the plan
            assert app.screen.query_one("#plan-box").region.y >= app.query_one("#chat-pane").region.bottom - 1
            await pilot.press(key)
            if mode == "default":                       # edits are asked again
                await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
                modal = app.screen
                await wait_for(pilot, lambda: not modal.too_soon())
                await pilot.press("y")
            await wait_for(pilot, lambda: len(srv.requests) >= 3 and not app.turns.running)
            assert app.engine.config.permission_mode == mode
            assert MODE_LINES[mode] in str(app.query_one("#prompt").border_subtitle)
            sent = user_texts(srv.requests[1])
            assert sent[-1] == APPROVED, sent                          # no plan-mode reminder rides on it
            assert "Plan mode is on" in sent[0]                        # the first turn's did
            assert (app.config.project_root / "notes.txt").read_text() == "the cart\n"
            assert app.screen is app.screen_stack[0]                   # the next answer was no plan: not asked
            session_id = app.engine.session.session_id
            await app.engine.session.flush()
        resumed = resumed_app(tmp_path, srv.base_url, session_id)
        async with resumed.run_test(size=(80, 24)) as pilot:
            await until_shown(pilot, resumed)
            assert APPROVED in chat_text(resumed)
            assert any(m.role == "user" and m.content == APPROVED for m in resumed.engine.history.messages)


@pytest.mark.parametrize("key", ["escape", "n"])
async def test_keep_planning_sends_nothing_and_stays_in_plan_mode(tmp_path, key):
    with server([PLAN, finish("Plan, revised: the same, in two steps.")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="plan"), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await type_and_send(pilot, "document the cart")
            await wait_for(pilot, lambda: isinstance(app.screen, PlanReady))
            await pilot.press(key)
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0])
            await pilot.pause()
            assert len(srv.requests) == 1 and app.engine.config.permission_mode == "plan"
            assert APPROVED not in chat_text(app)
            await type_and_send(pilot, "two steps please")             # planning goes on: asked again
            await wait_for(pilot, lambda: isinstance(app.screen, PlanReady))
            assert "Plan mode is on" in user_texts(srv.requests[1])[-1]


async def test_no_offer_outside_plan_mode_nor_over_a_message_typed_ahead_or_being_written(tmp_path):
    typed_ahead, being_written = threading.Event(), threading.Event()
    script = [PLAN, held(typed_ahead, "Plan: A"), finish("Plan: B"), held(being_written, "Plan: C")]
    with server(script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        try:
            async with app.run_test(size=(80, 24)) as pilot:
                offers: list[int] = []
                offer = app.turns.offer_plan
                app.turns.offer_plan = (                                    # type: ignore[method-assign]
                    lambda: (offers.append(len(srv.requests)), offer()))
                await run_turn(pilot, "document the cart")                 # default mode: the answer is just that
                await pilot.press("shift+tab", "shift+tab")
                assert app.engine.config.permission_mode == "plan" and offers == []
                await type_and_send(pilot, "plan it")
                await wait_for(pilot, lambda: app.turns.running and len(srv.requests) == 2)
                await type_and_send(pilot, "and keep it short")            # queued: the user's answer already
                await wait_for(pilot, lambda: app.turns.queued.texts == ["and keep it short"])
                typed_ahead.set()
                await wait_for(pilot, lambda: isinstance(app.screen, PlanReady) and not app.turns.running)
                assert offers == [3]                                       # after the queued turn's plan only
                await pilot.press("escape")
                await type_and_send(pilot, "once more")
                await wait_for(pilot, lambda: app.turns.running and len(srv.requests) == 4)
                app.query_one("#prompt").load_text("actually, shorter")    # being written as the plan comes
                being_written.set()
                await wait_for(pilot, lambda: not app.turns.running)
                await pilot.pause()
                assert offers == [3] and app.screen is app.screen_stack[0]
                assert app.query_one("#prompt").text == "actually, shorter"
        finally:
            typed_ahead.set()
            being_written.set()


async def test_a_key_typed_as_the_question_opens_answers_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(PermissionModal, "GRACE_S", 60.0)             # the same grace as a permission's
    with server([PLAN]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="plan"), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await type_and_send(pilot, "document the cart")
            await wait_for(pilot, lambda: isinstance(app.screen, PlanReady))
            await pilot.press("a")
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, PlanReady) and app.engine.config.permission_mode == "plan"
            assert "ignored" in str(app.screen.query_one("#plan-box").border_subtitle)
            await pilot.press("escape")                                # keep planning is never held back
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0])
            assert len(srv.requests) == 1


def covers_the_input(app) -> bool:
    """The question stands where the input and the meter are, all of it, and over none of the chat's text."""
    main = app.screen_stack[0]
    box = app.screen.query_one("#plan-box").region
    return (box.y <= main.query_one("#prompt-box").region.y and box.bottom == main.query_one(Footer).region.y
            and box.y >= main.query_one("#chat-pane").region.bottom - 1)


async def test_the_question_takes_the_inputs_place_and_a_letter_that_answers_nothing_is_said(tmp_path, monkeypatch):
    """At 200x50 the box stood a row lower than the input, whose top border showed above it, and a letter typed
    into it went nowhere, silently (user review)."""
    monkeypatch.setattr(PermissionModal, "GRACE_S", 0.5)
    now = [100.0]
    monkeypatch.setattr(PermissionModal, "clock", staticmethod(lambda: now[0]))
    with server([PLAN, finish("done")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="plan"), animate=False)
        async with app.run_test(size=(200, 50)) as pilot:
            await type_and_send(pilot, "document the cart")
            await wait_for(pilot, lambda: isinstance(app.screen, PlanReady))
            await wait_for(pilot, lambda: covers_the_input(app))
            await pilot.resize_terminal(80, 24)
            await wait_for(pilot, lambda: app.screen.size.width == 80 and covers_the_input(app))
            now[0] += 1                                                # the opening's grace is over
            box = app.screen.query_one("#plan-box")
            await pilot.press("m")                                     # "make it shorter", typed into it
            assert "'m' answers nothing here · to change the plan: esc" in str(box.border_subtitle)
            await pilot.press("a")                                     # the a of "make": held back, not an answer
            await pilot.pause()
            assert isinstance(app.screen, PlanReady) and app.engine.config.permission_mode == "plan"
            assert app.screen_stack[0].query_one("#prompt").text == "" and len(srv.requests) == 1
            now[0] += 1
            await pilot.press("a")                                     # a moment later it answers
            await wait_for(pilot, lambda: len(srv.requests) == 2 and not app.turns.running)
            assert app.engine.config.permission_mode == "accept-edits"
