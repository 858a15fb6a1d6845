"""Esc on the compaction modal in the real app (Pilot): after the first part of a summary made in parts, the part
is kept (card, chat line, History); and esc on the card of a compaction whose turn goes on behind it stops that
turn, as esc does anywhere while a turn runs (it only closed the card, and the turn went on unseen)."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from textual.pilot import Pilot

from contextual.tui.app import ContextualApp
from contextual.tui.screens.compaction import CompactionModal, result_card
from contextual.tui.widgets.history_view import HistoryView
from contextual.tui.widgets.scratchpad import ScratchpadView
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.test_stopped_compaction import PASTE, WINDOW, Summariser
from tests.tui_helpers import SIZE, chat_text, finish, make_host, run_turn, type_and_send, wait_for


async def six_turns_then_compact(pilot) -> None:
    for turn in range(6):
        await run_turn(pilot, f"turn {turn}: keep this log in mind\n{PASTE}")
    await type_and_send(pilot, "/compact")

async def test_esc_after_the_first_part_keeps_it_and_the_card_and_chat_say_what_was_kept(tmp_path):
    agent = Summariser(hold=2)
    with FakeLLMServer("openai", responder=agent, max_context_tokens=WINDOW) as srv:
        host = make_host(tmp_path, srv.base_url, context_window=WINDOW, auto_compact=False, keep_rounds=1)
        app = ContextualApp(host, animate=False)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await six_turns_then_compact(pilot)
                await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal))
                modal = app.screen
                await wait_for(pilot, lambda: "part 2 of" in str(modal.query_one("#compaction-figures").render()))
                await pilot.press("escape")
                await wait_for(pilot, lambda: modal.result is not None)
                record = app.engine.compactions[-1]
                assert record.parts is not None and record.parts[0] == 1 and record.rounds_truncated
                card = str(result_card(modal.result))           # its words, as /compactions opens it
                assert "Compaction stopped: the finished parts are kept" in card and record.stopped() in card
                await wait_for(pilot, lambda: record.stopped() in chat_text(app))
                shown = app.query_one(HistoryView).messages[0]
                assert shown.role == "summary" and "PART-1-DONE" in shown.content
                # no turn runs behind a manual compaction's card: it goes as it ends, the chat's line holds it
                await wait_for(pilot, lambda: not isinstance(app.screen, CompactionModal))
                assert not app.turns.running
                await type_and_send(pilot, "/compactions")
                await wait_for(pilot, lambda: app.screen.query("#history-line"))
                await wait_for(pilot, lambda: record.stopped().startswith("stopped: ")
                               and record.stopped() in str(app.screen.query_one("#history-line").render()))
        finally:
            agent.gate.set()


async def test_a_later_part_that_times_out_keeps_the_first_and_the_card_and_chat_say_so_as_after_esc(tmp_path):
    """No esc: part 2's deadline ends the summary. The part finished is kept, with no preview to accept (as after
    esc) and the same words on the card, the chat line and /compactions, the cause in place of "stopped"."""
    agent = Summariser(hold=2)
    with FakeLLMServer("openai", responder=agent, max_context_tokens=WINDOW) as srv:
        host = make_host(tmp_path, srv.base_url, context_window=WINDOW, auto_compact=False, keep_rounds=1,
                         summary_timeout=3)
        app = ContextualApp(host, animate=False)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await six_turns_then_compact(pilot)
                await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal))
                modal = app.screen
                await wait_for(pilot, lambda: modal.result is not None)
                record = app.engine.compactions[-1]
                assert record.stopped().startswith("timed out: 1 of ") and record.rounds_truncated
                card = str(result_card(modal.result))           # its words, as /compactions opens it
                assert "Summary timed out: the finished parts are kept" in card and record.stopped() in card
                assert "fallback" not in card
                await wait_for(pilot, lambda: f" tokens, {record.stopped()}" in chat_text(app))
                assert "PART-1-DONE" in app.query_one(HistoryView).messages[0].content
                await wait_for(pilot, lambda: app.screen is app.screen_stack[0])      # the card went as it ended
                await type_and_send(pilot, "/compactions")
                await wait_for(pilot, lambda: app.screen.query("#history-line"))
                await wait_for(pilot, lambda: record.stopped() in str(app.screen.query_one("#history-line").render()))
        finally:
            agent.gate.set()


def held_turn(gate: threading.Event):
    """The turn's call after the compaction: it waits for ``gate``, so the turn still runs behind the card."""
    return lambda body: finish("third answer") if gate.wait(20) else "never released"


@asynccontextmanager
async def summarising_in_a_turn(tmp_path: Path) -> AsyncIterator[tuple[FakeLLMServer, ContextualApp, Pilot]]:
    """Question three compacts first (the second answer reported 3,500 of 4,000); its summary waits, and so does
    the turn's next call after it: the modal is up, the summary asked for, when this yields."""
    summary_gate, turn_gate = threading.Event(), threading.Event()
    script = [finish("first answer"), Reply(finish("second answer"), usage_input=3500),
              lambda body: "## Summary\nlate" if summary_gate.wait(20) else "", held_turn(turn_gate)]
    with FakeLLMServer(kind="openai", script=script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=4000, keep_rounds=1), animate=False)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await run_turn(pilot, "question one")
                await run_turn(pilot, "question two")
                await type_and_send(pilot, "question three")
                await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal) and len(srv.requests) == 3)
                yield srv, app, pilot
        finally:
            summary_gate.set()
            turn_gate.set()


async def test_esc_on_the_card_of_a_compaction_inside_a_turn_stops_the_turn(tmp_path):
    async with summarising_in_a_turn(tmp_path) as (srv, app, pilot):
        modal = app.screen
        await pilot.press("escape")                   # stops the summary: the card, the turn goes on
        await wait_for(pilot, lambda: modal.result is not None and len(srv.requests) == 4)
        pad = app.query_one(ScratchpadView)
        assert app.screen is modal and pad.turns[-1].outcome == "running"
        assert "esc stops the turn" in str(modal.query_one("#compaction-hint").render())
        await pilot.press("escape")                   # esc again: the turn behind the card stops
        await wait_for(pilot, lambda: pad.turns[-1].outcome == "interrupted")
        assert not isinstance(app.screen, CompactionModal)
        assert app.engine.compactions[-1].fallback     # the compaction itself was applied


async def test_esc_twice_in_a_row_on_an_automatic_compaction_stops_the_summary_and_then_the_turn(tmp_path):
    """The second esc may land before the card shows (while the summary is being stopped) or on it: either way
    the turn stops once the compaction has applied what it had."""
    async with summarising_in_a_turn(tmp_path) as (srv, app, pilot):
        await pilot.press("escape", "escape")
        pad = app.query_one(ScratchpadView)
        await wait_for(pilot, lambda: pad.turns[-1].outcome == "interrupted")
        assert not isinstance(app.screen, CompactionModal) and app.engine.compactions
