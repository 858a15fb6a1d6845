"""The meter at a 20k window against the fake server: it names the trigger estimate (last usage + input) apart
from the size of the prompt that will be sent, turns colour at 70 % of the window, and says "compaction at the
next message" once the estimate reaches the trigger line."""

from __future__ import annotations

import threading

from contextual.core import tokens
from contextual.core.messages import Message
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.fakes.server_flavors import Flavor
from tests.tui_helpers import app_with_history, finish, long_session, make_host, run_turn, type_and_send, wait_for
from contextual.tui.app import ContextualApp
from contextual.tui.format import tokens as figure
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.history_view import HistoryView
from contextual.tui.widgets.scratchpad import ScratchpadView
from contextual.tui.widgets.token_meter import LEVEL_COLOUR, TokenMeter


def screen_text(app) -> str:
    return app.export_screenshot().replace("&#160;", " ")


def meter_lines(app) -> list[str]:
    """The meter's lines as shown: two, one under 30 rows."""
    return app.query_one(TokenMeter).render().plain.split("\n")


async def test_meter_warns_then_announces_compaction_at_a_20k_window(tmp_path):
    script = [Reply(finish("one"), usage_input=9_000), Reply(finish("two"), usage_input=14_200),
              Reply(finish("three"), usage_input=16_100)]
    with FakeLLMServer(kind="openai", script=script) as srv:
        # keep_rounds=1: from the second round on a compaction could archive something, so the estimate is the
        # last usage (A6); before that it is the counted prompt.
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=20_000, auto_compact=False,
                                      keep_rounds=1), animate=False)
        async with app.run_test(size=(120, 30)) as pilot:
            meter = app.query_one(TokenMeter)
            levels, hints = [], []
            for text in ("first", "second", "third"):
                await run_turn(pilot, text)
                first, second = meter_lines(app)
                shown = meter.shown
                trigger = app.engine.next_prompt().trigger
                assert shown.estimate == trigger.estimate
                if text != "first":
                    # the usage, rebased on what the prompt changed since that call (here: its answer)
                    assert trigger.basis == "usage" and 0 <= shown.estimate - app.engine.last_usage < 40
                assert f"{figure(shown.estimate)} of 14.6k trigger line" in first      # 938 under 1k, 14.2k above
                assert "│" in first                                     # the trigger line on the bar
                assert f"next prompt {figure(shown.total)} of 20.0k window" in second.replace("  ", " ")
                levels.append(meter.level)
                hints.append(("compaction at the next message" in first, "past the line: /compact" in first))
            assert levels == ["ok", "warn", "due"]
            # auto_compact off: past the line the meter says what to do, and promises no compaction (issue 24)
            assert hints == [(False, False), (False, False), (False, True)]
            styles = {str(span.style) for span in meter.render().spans}
            assert any(LEVEL_COLOUR["due"] in style for style in styles)


async def test_first_frame_does_not_wait_for_the_tokenizer(tmp_path, monkeypatch):
    """A fresh process: the tokenizer is not loaded. The first frame shows the meter's and History's placeholders
    while the load (held back here by the test) runs in a worker thread; an input sent meanwhile waits for it off
    the UI thread; once loaded, the figures are the engine's own, at the window the server states (asked after the
    first frame too)."""
    gate = threading.Event()
    waiting: list[str] = []                 # the threads that asked for the encoding before it was loaded
    real = tokens.encoding

    def gated_encoding():
        if not tokens.ready():
            waiting.append(threading.current_thread().name)
            assert gate.wait(10), "the tokenizer was never released"
        return real()

    monkeypatch.setattr(tokens, "_encoding", None)
    monkeypatch.setattr(tokens, "encoding", gated_encoding)
    with FakeLLMServer(kind="openai", script=[Reply(finish("loaded and answered"))],
                       flavor=Flavor("vllm", n_ctx=32768)) as srv:
        app = app_with_history(tmp_path, srv.base_url, [
            Message("user", "an earlier question"),
            Message("assistant", "Thought: done\nAction: Finish[an earlier answer]",
                    meta={"final": True, "answer": "an earlier answer"})])
        async with app.run_test(size=(120, 30)) as pilot:
            await wait_for(pilot, lambda: waiting)           # the load has started: the first frame is up
            first, second = meter_lines(app)
            assert first.split() == ["trigger", "estimate", "counting…"]
            assert second.strip() == "next prompt counting… (loading the tokenizer)"
            history = app.query_one(HistoryView)
            assert history.option_count == 0 and "counting tokens… · 2 messages" in str(history.border_title)
            assert "an earlier answer" in screen_text(app)             # the chat is there already
            await type_and_send(pilot, "sent while counting")
            await wait_for(pilot, lambda: len(waiting) == 2)          # the turn waits, in a thread of its own
            assert not app.query_one(ScratchpadView).turns
            gate.set()
            await wait_for(pilot, lambda: "loaded and answered" in screen_text(app))
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert waiting and "MainThread" not in waiting
            shown = app.query_one(TokenMeter).shown
            view = app.engine.next_prompt()
            assert (shown.total, shown.estimate, shown.layers) == (view.total, view.trigger.estimate, view.tokens)
            assert history.option_count == len(app.engine.history.messages) == 4
            assert "counting" not in meter_lines(app)[0]
            assert app.engine.config.context_window == 32768 and "of 32.8k window" in meter_lines(app)[1]


async def test_a_long_session_opens_with_its_recent_turns_and_history_rows_made_when_shown(tmp_path):
    """40 turns: the chat holds the newest 30 in order under a note for the 10 older ones (the newest first, the
    rest mounted once counts are shown); History has a row per message but makes only those it shows."""
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = app_with_history(tmp_path, srv.base_url, long_session(40))
        async with app.run_test(size=(120, 30)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            chat = app.query_one(ChatLog)
            users = [str(w.render()) for w in chat.children if w.has_class("user")]
            assert users == [f"you  question {i}" for i in range(10, 40)]
            assert "10 earlier turns" in str(chat.children[0].render())
            history = app.query_one(HistoryView)
            assert history.option_count == 160 and history.highlighted == 159
            made = [i for i in range(160) if history.get_option_at_index(i)._make is None]
            assert 0 < len(made) <= 30 and made[-1] == 159          # the rows on screen, at the end
            assert "question 0" in history.get_option_at_index(0).prompt.plain       # made when asked for


async def test_past_the_line_the_meter_advises_compact_only_when_compact_would_archive_something(tmp_path):
    """A 2,000-line log pasted at a 4k window, answered: one round of two messages, far past the trigger line.
    /compact refuses there (fewer messages than the trigger's minimum), so the meter must not advise it; it
    said "past the line: /compact" (helper-85). After a second round the next message compacts, as it says."""
    log = "\n".join(f"line {i}: ERROR something failed at module_{i}.py" for i in range(2000))
    with FakeLLMServer(kind="openai", script=[Reply(finish("read your log")), Reply(finish("ok"))]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=4096), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "review this log:\n" + log)
            first = meter_lines(app)[0]
            shown = app.query_one(TokenMeter).shown
            assert shown.level == "due" and not shown.due and shown.total < shown.estimate
            assert "/compact" not in first and "past the line: fitted" in first
            await type_and_send(pilot, "/compact")
            await wait_for(pilot, lambda: "nothing to compact yet" in screen_text(app))
            await run_turn(pilot, "and now?")
            assert app.query_one(TokenMeter).shown.due and "compaction at next message" in meter_lines(app)[0]
