"""Every number a screen shows is the engine's (issue 29): the meter, the History header and rows, /context, the
compaction card, /compactions, and the session's cost — through the real engine and the fake server, before and
after a compaction, mid-turn, and after a resume."""

from __future__ import annotations

import threading

from contextual.tui.app import ContextualApp
from contextual.tui.format import tokens as figure
from contextual.tui.screens.compaction import CompactionModal, result_card
from contextual.tui.screens.compaction_history import CompactionHistoryScreen
from contextual.tui.screens.compaction_preview import CompactionPreviewScreen
from contextual.tui.screens.context_view import ContextScreen
from contextual.tui.widgets.history_view import HistoryView, sent_tokens
from contextual.tui.widgets.token_meter import TokenMeter
from textual.widgets import DataTable

from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.fakes.scripted_model import is_summary_request
from tests.tui_helpers import (
    READ_CART,
    chat_text,
    finish,
    held,
    make_host,
    run_turn,
    type_and_send,
    wait_for,
)

PRICES = '[models."fake-model"]\ninput = 3.0\noutput = 15.0\n'       # dollars per million tokens
SIZE = (200, 50)                                               # wide enough for every figure on the meter


def plain(widget) -> str:
    return widget.render().plain


def check_idle_figures(app) -> None:
    """The meter, History and the engine's next prompt agree, figure by figure."""
    view = app.engine.next_prompt()
    meter = app.query_one(TokenMeter)
    shown = meter.shown
    assert (shown.estimate, shown.threshold, shown.total) == (view.trigger.estimate, view.trigger.threshold,
                                                               view.total)
    assert dict(shown.layers) == dict(view.tokens)
    first, second = plain(meter).split("\n")
    assert f"{figure(view.trigger.estimate)} of {figure(view.trigger.threshold)} trigger line" in first
    # one unit, ours: the window too, with the server's own figure beside it (its tokenizer counts apart here)
    assert f"next prompt {figure(view.total)} of {figure(view.counted_window)} window" in second
    assert view.server_factor == 1.0 or f"of {figure(view.window)} server tokens" in second
    for layer in ("L1", "L3"):
        assert f"{layer} {figure(view.tokens[layer])}" in second
    cost = app.engine.prompt.usage.session.cost
    assert cost is not None and f"${cost:.4f}" in second
    history = app.query_one(HistoryView)
    rows = [sent_tokens(m, shown) for m in history.messages]
    assert sum(rows) == view.tokens["L3"] == history.total_tokens
    assert f"· {figure(view.tokens['L3'])} tok" in history.border_title
    sent = {m.source: m.tokens for m in view.messages if m.layer == "L3"}
    for message, size in zip(history.messages, rows):
        assert size == sent.get(message.id, size), message.id


def model(body: dict) -> str | Reply:
    if is_summary_request(body):
        return "## Summary\nThe cart was read three times."
    last = body["messages"][-1]
    text = last.get("content") if isinstance(last.get("content"), str) else ""
    if last.get("role") == "user" and "read" in text and "Observation" not in text:
        return Reply(READ_CART, usage_input=2_000, usage_output=40)
    return Reply(finish("done"), usage_input=2_500, usage_output=20)


async def test_every_figure_on_screen_is_the_engines_through_a_compaction_and_a_resume(tmp_path):
    with FakeLLMServer(kind="openai", responder=model) as srv:
        (tmp_path / "home").mkdir()
        (tmp_path / "home" / "config.toml").write_text(PRICES)
        host = make_host(tmp_path, srv.base_url, keep_rounds=1)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            for i in range(3):
                await run_turn(pilot, f"read the cart {i}")
            check_idle_figures(app)

            # /context: its title's total is the next prompt's
            await pilot.press("ctrl+l")
            await wait_for(pilot, lambda: isinstance(app.screen, ContextScreen))
            title = app.screen.query("Static").first().content
            assert f"{figure(app.engine.next_prompt().total)} tok" in str(title)
            # Each block's title shows its text as sent: a status like [ok] is not swallowed as a markup tag.
            titles = [str(t.render()) for t in app.screen.query("CollapsibleTitle")]
            assert any("Observation: [ok]" in t for t in titles), titles
            await pilot.press("escape")

            # The compaction card: before = the meter's trigger estimate, after = the next prompt once done.
            before = app.query_one(TokenMeter).shown.estimate
            await type_and_send(pilot, "/compact")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionPreviewScreen))
            modal = app.screen_stack[-2]
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(modal, CompactionModal) and modal.result is not None)
            card = modal.result
            assert card.pre_tokens == before
            assert card.post_tokens == app.engine.next_prompt().total < before
            assert f"{figure(before)} → {figure(card.post_tokens)} tokens" in str(result_card(card))
            # the card went as the compaction ended: the chat's line gives the same figures
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0] and not app.turns.running)
            assert f"{figure(before)} → {figure(card.post_tokens)} tokens" in chat_text(app)
            await pilot.pause()
            check_idle_figures(app)

            # /compactions shows the log's own figures.
            await type_and_send(pilot, "/compactions")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionHistoryScreen))
            row = app.screen.query_one(DataTable).get_row_at(0)
            record = app.engine.compactions[0]
            assert row[3:5] == [figure(record.pre_tokens), figure(record.post_tokens)]
            await pilot.press("escape")
            cost = app.engine.prompt.usage.session.cost
            calls = app.engine.prompt.usage.session
            session_id = app.engine.session_id

        # Resumed: the cost and tokens of the session so far are still there, and every figure still agrees.
        app = ContextualApp(host, host.resume(session_id), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await app.startup.started()
            await wait_for(pilot, lambda: app.query_one(TokenMeter).shown is not None)
            assert app.engine.prompt.usage.session == calls
            assert f"${cost:.4f}" in plain(app.query_one(TokenMeter))
            await run_turn(pilot, "and now?")
            check_idle_figures(app)


async def test_history_header_counts_what_its_rows_show_mid_turn(tmp_path):
    read = threading.Event()                     # the answer after the Read waits for the mid-turn checks
    with FakeLLMServer(kind="openai", script=[READ_CART, held(read, "late")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await type_and_send(pilot, "read the cart")
                history = app.query_one(HistoryView)
                await wait_for(pilot, lambda: any(m.role == "tool" for m in history.messages))
                assert app.turns.running
                rows = sum(sent_tokens(m, history.shown) for m in history.messages)
                assert rows > 1_000
                assert f"· {figure(rows)} tok" in history.border_title
                # the rows hold the turn's input and steps, which the meter counts apart from L3: the title says so
                assert str(history.border_title).startswith("History as sent · L3 + turn · ")
                read.set()
                await wait_for(pilot, lambda: not app.turns.running)      # the turn ends before the app closes
                await wait_for(pilot, lambda: str(history.border_title).startswith("History as sent · L3 · "))
                await app.workers.wait_for_complete()
        finally:
            read.set()


def test_the_meter_fits_80_columns_with_the_cost_when_everything_is_shown():
    from contextual.tui.prompt_view import Shown
    from contextual.tui.widgets.token_meter import meter_text
    shown = Shown(messages=(), layers={"L1": 919, "L2": 1_200, "L3": 27_000, "input": 40, "scratchpad": 3_100},
                  total=32_259, window=32_768, estimate=27_900, threshold=24_100, due=True, warn_at=16_870,
                  cached_tokens=12_000, cost=0.0123, server_factor=1.15, last_usage=27_900)
    for width in (80, 100, 120, 200):
        first, second = meter_text(shown, width).plain.split("\n")
        assert len(first) <= width and len(second) <= width, (width, first, second)
        assert "$0.0123" in second and "32.3k of 28.5k window" in second      # 32,768 server tokens ÷ 1.15
        assert "27.9k" in first and "24.1k" in first


def test_history_rows_show_answers_without_markdown_marks():
    from contextual.core.messages import Message
    from contextual.tui.widgets.history_view import message_row
    answer = Message("assistant", "`total()` returns **euros** while the test expects *cents*; a*b stays")
    summary = Message("summary", "## Summary\nThe user asked about **the cart**")
    assert "total() returns euros while the test expects cents; a*b stays" in message_row(answer, 0).plain
    assert "Summary The user asked about the cart" in message_row(summary, 0).plain
    # A step is shown as sent: `**/*.py` in an Action's arguments is a glob, not bold.
    step = Message("assistant", 'Thought: look around\nAction: Glob[{"pattern": "**/*.py"}]')
    assert 'Glob[{"pattern": "**/*.py"}]' in message_row(step, 0).plain
