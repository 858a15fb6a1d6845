"""Issue 24, one unit, through the real app (Pilot) and the real engine: before a message that compacts, the
meter and /context show the same figure, the meter promises the compaction, and the card's "before" is it."""

from __future__ import annotations

import threading

from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.tui_helpers import SIZE, finish, make_host, run_turn, type_and_send, wait_for
from contextual.tui.app import ContextualApp
from contextual.tui.format import tokens
from contextual.tui.screens.compaction import CompactionModal
from contextual.tui.screens.context_view import ContextScreen
from contextual.tui.widgets.token_meter import TokenMeter

SUMMARY = "## Summary\nThe user asked two questions about the cart; both were answered."


async def test_card_meter_and_context_agree_and_the_meters_promise_holds(tmp_path):
    third = threading.Event()       # the turn goes on behind the card: its next answer waits until the card is read
    script = [finish("first answer"), Reply(finish("second answer"), usage_input=3500), SUMMARY,
              lambda body: finish("third answer") if third.wait(30) else "never released"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=4000, keep_rounds=1), animate=False)
        async with app.run_test(size=(200, 50)) as pilot:
            meter = app.query_one(TokenMeter)
            await run_turn(pilot, "question one")
            first = str(meter.render()).split("\n")[0]
            assert not meter.shown.due and "compaction at the next message" not in first
            await run_turn(pilot, "question two")
            shown = meter.shown
            line = str(meter.render()).split("\n")[0]
            assert shown.due and "compaction at the next message" in line
            assert f"{tokens(shown.estimate)} of {tokens(shown.threshold)}" in line
            # the server's figure keeps the name the card gives it (the meter said "server usage", the card "trigger
            # estimate" for the same number); whose count it is, the tooltip and /context say
            assert shown.basis == "usage" and line.startswith(" trigger estimate ▕") and "usage" not in line
            assert str(meter.tooltip).startswith(f"trigger estimate {tokens(shown.estimate)}, the server's usage: ")
            await pilot.press("ctrl+l")
            await wait_for(pilot, lambda: isinstance(app.screen, ContextScreen), timeout=10)
            header = str(app.screen.query_one("#context-summary").render())
            assert f"trigger estimate {tokens(shown.estimate)} (server usage) of {tokens(shown.threshold)}" in header
            assert f"{tokens(shown.total)} tok of {tokens(shown.window)} window" in header
            await pilot.press("escape")
            await type_and_send(pilot, "question three")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal), timeout=10)
            modal = app.screen
            await wait_for(pilot, lambda: modal.result is not None, timeout=10)
            assert modal.pre_tokens == modal.result.pre_tokens == shown.estimate      # the promise, the figure
            card = str(modal.query_one("#compaction-stage").render())
            assert f"trigger estimate {tokens(shown.estimate)} → " in card            # by the meter's name
            assert modal.result.post_tokens == app.engine.compaction_due().estimate
            third.set()
            await pilot.press("enter")
            await app.workers.wait_for_complete()
            await pilot.pause()


async def test_a_server_window_too_small_for_the_users_reserve_is_one_warning_in_the_chat(tmp_path):
    from contextual.tui.widgets.chat_log import ChatLog
    from tests.fakes.server_flavors import Flavor
    with FakeLLMServer(kind="openai", script=[finish("ok")], flavor=Flavor("llamacpp", n_ctx=4096)) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, output_reserve=8000), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            def said() -> list[str]:
                return [str(w.render()) for w in app.query_one(ChatLog).children if "output_reserve" in str(w.render())]
            await wait_for(pilot, lambda: bool(said()), timeout=10)
            assert len(said()) == 1 and "output_reserve 8,000" in said()[0] and "using 1,024 for now" in said()[0]
            assert app.engine.config.output_reserve == 1024


async def test_the_turns_warning_says_the_meters_figure_as_the_meter_does(tmp_path):
    """A user read "trigger estimate … (71%, past the 70% warning line …)" in the chat beside the meter's 97 % for
    the same figure: the warning gave a share of the window, the meter a share of the trigger line. One figure, one
    way of saying it: the estimate against the trigger line, with its share, in both."""
    from contextual.tui.widgets.chat_log import ChatLog
    script = [finish("first answer"), finish("second answer"), finish("third answer")]
    with FakeLLMServer(kind="openai", script=script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=4000, warn_ratio=0.5), animate=False)
        async with app.run_test(size=(200, 50)) as pilot:
            meter = app.query_one(TokenMeter)
            await run_turn(pilot, "question one")
            await run_turn(pilot, "question two about " + "words " * 1500)      # past 2,000, under 2,920
            shown = meter.shown
            assert shown.level == "warn" and not shown.due
            share = f"({shown.estimate / shown.threshold:.0%})"
            line = str(meter.render()).split("\n")[0]
            assert f"{tokens(shown.estimate)} of {tokens(shown.threshold)} trigger line {share}" in line, line
            await run_turn(pilot, "go")          # two letters: the estimate the turn warns with is the meter's
            warned = [str(w.render()) for w in app.query_one(ChatLog).children if "warning line" in str(w.render())]
            assert warned == [f"trigger estimate {shown.estimate:,} of {shown.threshold:,} trigger line {share}: past "
                              f"the warning line at {shown.warn_at:,} (50% of the {shown.counted_window:,}-token "
                              "window)"], warned
