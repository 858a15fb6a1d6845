"""The automatic compaction in the app: a turn whose estimate is past the trigger compacts first, inside
run_turn, behind the blocking modal; the modal ends on the result card and the turn then finishes."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from textual import events

from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.tui_helpers import (READ_CART, SIZE, chat_text, compact_through_preview, finish, make_host, run_turn,
                               type_and_send, wait_for)
from contextual.tui.app import ContextualApp
from contextual.tui.screens.compaction import CompactionModal
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.history_view import HistoryView
from contextual.tui.widgets.scratchpad import ScratchpadView
from contextual.tui.widgets.token_meter import TokenMeter

SUMMARY = "## Summary\nThe user asked two questions about the cart; both were answered."


@asynccontextmanager
async def past_the_trigger(tmp_path: Path, summary: object = None, more: tuple[str, ...] = ()
                           ) -> AsyncIterator[tuple[FakeLLMServer, Any, Any]]:
    """Two turns at window 4000 (trigger 3200), one round kept: the second answer reports 3500 prompt tokens, so the
    next input is past the trigger with one closed round to archive. The server's script then holds the summary
    and a third answer."""
    script = [finish("first answer"), Reply(finish("second answer"), usage_input=3500),
              summary if summary is not None else Reply(SUMMARY, chunk_delay=0.01), finish("third answer"), *more]
    with FakeLLMServer(kind="openai", script=script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=4000, keep_rounds=1), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "question one")
            await run_turn(pilot, "question two")
            yield srv, app, pilot


async def test_automatic_compaction_shows_the_modal_then_the_turn_finishes(tmp_path, monkeypatch):
    monkeypatch.setattr(CompactionModal, "AUTO_CONTINUE_S", 600.0)
    stages: list[str] = []
    shown = CompactionModal.progress
    monkeypatch.setattr(CompactionModal, "progress",
                        lambda self, stage, *rest: (stages.append(stage), shown(self, stage, *rest))[1])
    async with past_the_trigger(tmp_path) as (srv, app, pilot):
        assert app.engine.last_usage >= 3500
        await type_and_send(pilot, "question three")
        await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal), timeout=10)
        modal = app.screen
        assert modal.trigger == "auto"
        assert "auto compaction" in str(modal.query_one("#compaction-title").render())
        await wait_for(pilot, lambda: modal.result is not None, timeout=10)
        assert [s for i, s in enumerate(stages) if s not in stages[:i]] == ["choosing", "summarising", "rebuilding"]
        assert modal.result.trigger == "auto" and modal.result.rounds_archived == 1
        assert not modal.result.fallback
        assert str(modal.query_one("#compaction-stage").render()).startswith("Done\n")
        history = app.query_one(HistoryView)
        assert history.messages[0].role == "summary" and "both were answered." in history.messages[0].content
        meter = app.query_one(TokenMeter).shown
        assert meter.estimate < app.config.threshold                     # the new estimate, at once
        # The turn goes on behind the card (at 4k–8k nearly every message compacts: waiting on each card cost
        # seconds); the card stays until enter or its timer (long here, so the test reads it).
        assert "the turn goes on" in str(modal.query_one("#compaction-hint").render())
        pad = app.query_one(ScratchpadView)
        await wait_for(pilot, lambda: pad.turns[-1].outcome == "finished", timeout=10)
        assert app.screen is modal and len(srv.requests) == 4
        await pilot.press("enter")
        assert not isinstance(app.screen, CompactionModal)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert [m.content for m in history.messages if m.role == "user"] == ["question two", "question three"]
        assert history.messages == app.engine.history.messages
        chat = "\n".join(str(w.render()) for w in app.query_one(ChatLog).children)
        assert "compacted (auto)" in chat and "1 round archived" in chat
        assert "third answer" in app.query_one(ChatLog).children[-1].source
        assert "1 compaction" in str(app.query_one("#topbar").render())


async def test_an_unattended_automatic_compaction_card_closes_itself_and_the_turn_goes_on(tmp_path, monkeypatch):
    # A long turn left alone must not stall on the card: it closes after AUTO_CONTINUE_S, no key pressed. The card
    # may come and go between two looks of a poll, so what it said is recorded as it finishes.
    monkeypatch.setattr(CompactionModal, "AUTO_CONTINUE_S", 0.3)
    cards: list[tuple[bool, str]] = []
    finish_card = CompactionModal.finish

    def recorded(self, result) -> None:
        finish_card(self, result)
        cards.append((self.in_turn, str(self.query_one("#compaction-hint").render())))
    monkeypatch.setattr(CompactionModal, "finish", recorded)
    async with past_the_trigger(tmp_path, SUMMARY) as (srv, app, pilot):
        await type_and_send(pilot, "question three")
        pad = app.query_one(ScratchpadView)
        await wait_for(pilot, lambda: len(pad.turns) == 3 and pad.turns[-1].outcome == "finished", timeout=10)
        assert cards == [(True, "the turn goes on · enter closes this (or in 0.3 s) · esc stops the turn")]
        assert "third answer" in app.query_one(ChatLog).children[-1].source
        # the turn did not wait for the card, which closes by itself (its timer), no key pressed
        await wait_for(pilot, lambda: not isinstance(app.screen, CompactionModal), timeout=10)


async def test_a_manual_compactions_card_closes_as_it_ends_and_the_chat_keeps_its_result(tmp_path):
    """It stayed until closed by enter, every /compact, though its summary had just been approved in the preview:
    the chat's line is its card now, and /compactions opens the dialog's."""
    script = [finish("first answer"), finish("second answer"), SUMMARY]
    with FakeLLMServer(kind="openai", script=script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, keep_rounds=1), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "question one")
            await run_turn(pilot, "question two")
            card = await compact_through_preview(pilot)
            assert card.trigger == "manual"
            await app.workers.wait_for_complete()
            assert app.screen is app.screen_stack[0]
            assert "compacted (manual)" in chat_text(app) and "files the summary was given" in chat_text(app)


async def test_text_typed_over_an_automatic_compaction_goes_to_the_input_and_enter_sends_it(tmp_path):
    """`next one⏎` typed while the card is up: the letters go to the input beneath; enter closes the card and
    sends them, queued behind the running turn (it left them in the input, where the next message ran into
    them: `question 3question 4`)."""
    async with past_the_trigger(tmp_path, more=(finish("fourth answer"),)) as (srv, app, pilot):
        await type_and_send(pilot, "question three")
        await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal), timeout=10)
        await pilot.press("n", "e", "x", "t", "space", "o", "n", "e")
        assert app.query_one("#prompt").text == "next one"
        await pilot.press("enter")
        pad = app.query_one(ScratchpadView)
        await wait_for(pilot, lambda: len(pad.turns) == 4 and pad.turns[-1].outcome == "finished", timeout=10)
        assert [m.content for m in app.engine.history.messages if m.role == "user"][-2:] == ["question three",
                                                                                            "next one"]
        assert app.query_one("#prompt").text == ""



async def test_a_paste_over_an_automatic_compaction_goes_to_the_input_as_typed_text_does(tmp_path):
    """A paste while the card was up was lost (the modal holds no text), the keys typed around it kept: it goes to
    the input beneath in its place, a long one as its tag, and enter sends it whole."""
    pasted = "\n".join(f"log line {i}" for i in range(100))
    async with past_the_trigger(tmp_path, more=(finish("fourth answer"),)) as (srv, app, pilot):
        await type_and_send(pilot, "question three")
        await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal), timeout=10)
        await pilot.press("s", "e", "e", "space")
        app.post_message(events.Paste(pasted))        # as the terminal's bracketed paste arrives
        await pilot.press("space", "o", "k")
        assert app.query_one("#prompt").text == "see [pasted #1 · 100 lines] ok"
        await pilot.press("enter")
        pad = app.query_one(ScratchpadView)
        await wait_for(pilot, lambda: len(pad.turns) == 4 and pad.turns[-1].outcome == "finished", timeout=10)
        assert [m.content for m in app.engine.history.messages if m.role == "user"][-1] == f"see {pasted} ok"


async def test_quitting_on_a_card_inside_a_turn_closes_the_turn_before_the_session(tmp_path):
    """A compaction between two steps of a turn; the user quits on its card while the turn, gone on behind it,
    waits for its next answer. The turn's worker is cancelled: the engine's stream is closed there and then (not
    when the garbage collector finds it), so the turn is over, its round marked interrupted, before the session
    closes, and the app quits with 0 (it ended with 'a session cannot be attached while a turn runs')."""
    never = threading.Event()
    script = [finish("first answer"), finish("second answer"), Reply(READ_CART, usage_input=3500), SUMMARY,
              lambda body: "never released" if not never.wait(30) else finish("third answer")]
    with FakeLLMServer(kind="openai", script=script) as srv:
        host = make_host(tmp_path, srv.base_url, context_window=4000, keep_rounds=1)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "question one")
            await run_turn(pilot, "question two")
            session = app.engine.session.path
            await type_and_send(pilot, "question three")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal) and app.screen.result is not None,
                           timeout=10)
            await wait_for(pilot, lambda: len(srv.requests) == 5, timeout=10)     # the turn asks on, behind the card
            assert app.engine.turn.running and isinstance(app.screen, CompactionModal)
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: app.return_code is not None, timeout=10)
        assert app.return_code == 0 and app._exception is None
        assert not app.engine.turn.running and app.engine.session is None
        assert session.read_text().splitlines()[-1].count('"interrupted"')


async def test_quitting_while_compacting_before_a_turn_keeps_the_message(tmp_path):
    """The input is past the trigger, so the turn compacts first; the user quits on the card. The message was
    sent, not yet recorded: the session lost it (tmux QA). It is kept, as a turn stopped before its first call."""
    async with past_the_trigger(tmp_path, summary=Reply(SUMMARY, chunk_delay=0.05)) as (srv, app, pilot):
        session = app.engine.session.path
        await type_and_send(pilot, "turn one LOSTMSG")
        await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal), timeout=10)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: app.return_code is not None, timeout=10)
    assert app.return_code == 0 and app._exception is None
    lines = session.read_text().splitlines()
    assert any("LOSTMSG" in line and '"user"' in line for line in lines)
    assert '"interrupted"' in lines[-1]
    with FakeLLMServer(kind="openai", script=[finish("answered at last")]) as srv:   # resumed, it goes on
        host = make_host(tmp_path, srv.base_url, context_window=100_000)
        resumed = ContextualApp(host, animate=False, resume=session)
        async with resumed.run_test(size=SIZE) as pilot:
            await resumed.startup.started()
            await wait_for(pilot, lambda: "LOSTMSG" in " ".join(str(w.render()) for w in resumed.query_one(ChatLog).children))
            await run_turn(pilot, "go on")
            sent = srv.requests[0]["messages"]
            assert any("LOSTMSG" in str(m.get("content")) for m in sent)
            assert "stopped your previous turn" in str(sent[-1].get("content")) and "go on" in str(sent[-1].get("content"))
