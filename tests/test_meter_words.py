"""The meter's figures explained where a user reads them: its tooltip and /context's "figures" row (user review,
helper-121: "trigger estimate 8.6k of 6.0k (143%)" beside "next prompt 5.8k of 8.2k window" and a chat line
"context at 5,753 of 8,192", three figures, nothing saying the first is counted before the prompt is fitted)."""

from __future__ import annotations

from rich.text import Text

from contextual.tui.meter_words import figures_explained
from contextual.tui.prompt_view import Shown
from tests.fakes.llm_server import FakeLLMServer
from tests.tui_helpers import finish, make_host, run_turn, type_and_send, wait_for


def _shown(**figures) -> Shown:
    defaults = dict(messages=(), layers={"L1": 600, "L3": 5_200}, total=5_800, window=8_192, estimate=8_600,
                    threshold=5_981, due=True, limit=5_980, reserve=2_048, room=5_981)
    defaults.update(figures)
    return Shown(**defaults)


def test_each_figure_says_what_it_counts():
    first, second, third = figures_explained(_shown(fitted=2_800))
    assert first.startswith("trigger estimate 8.6k: the next prompt counted whole, before anything is fitted")
    assert "compaction runs when it reaches the trigger line, 6.0k" in first
    assert second.startswith("next prompt 5.8k: what will be sent, 2.8k smaller than counted because it was fitted")
    assert third == ("window 8.2k: the model's whole context: a prompt may use 6.0k of it, 2,048 is kept for the "
                     "answer and 163 as a margin for counting errors.")
    # not fitted: the two are one figure; the server's usage says whose count it is
    assert "the estimate until something must be fitted" in figures_explained(_shown(estimate=5_800, due=False))[1]
    usage = figures_explained(_shown(basis="usage", estimate=6_100))
    assert usage[0].startswith("trigger estimate 6.1k, the server's usage: the server's own count of the last call")


def test_the_meter_names_its_first_figure_one_way_whichever_count_it_came_from():
    """At 80 columns the meter said "usage 6.1k / 6.0k trigger" where the compaction card, for the same number, said
    "trigger estimate" (user review): one name, at every width; the tooltip says whose count it is."""
    from contextual.tui.widgets.token_meter import meter_text
    for width, label in ((80, " estimate ▕"), (200, " trigger estimate ▕")):
        ours, server = (str(meter_text(_shown(basis=basis, estimate=6_100), width)) for basis in ("counted", "usage"))
        assert ours.startswith(label) and server.startswith(label) and "usage" not in server, server
        assert len(server.split("\n")[0]) <= width


def test_the_window_is_shared_in_its_own_tokens_and_our_counts_limit_is_said_apart():
    """At 4k before the first reply /context said "a prompt is at most 2.6k, the rest is kept for the answer" (our
    count's limit, under the 1.15 guess) beside a 3.0k trigger and a 1,024 reserve (a user review, helper-130)."""
    third = figures_explained(_shown(window=4_096, threshold=2_991, reserve=1_024, room=2_991, limit=2_600))[2]
    assert third == ("window 4.1k: the model's whole context: a prompt may use 3.0k of it, 1,024 is kept for the "
                     "answer and 81 as a margin for counting errors (by our count 2.6k: the server's tokenizer is "
                     "taken to count 1.15× ours).")
    # measured apart (×1.30): the window in our count first, the server's beside it, its shares in its own tokens
    measured = figures_explained(_shown(window=8_192, threshold=4_600, reserve=2_048, room=5_980, limit=4_600,
                                        server_factor=1.3))[2]
    assert measured.startswith("window 6.3k: the model's whole context (8.2k by the server's count, ×1.30 ours")
    assert "a prompt may use 6.0k of the server's 8.2k, 2,048 is kept for the answer" in measured


async def test_context_says_the_same_window_before_the_first_reply_and_after(tmp_path):
    from contextual.tui.app import ContextualApp
    from contextual.tui.widgets.token_meter import TokenMeter
    with FakeLLMServer(kind="openai", script=[finish("one")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=4096), animate=False)
        async with app.run_test(size=(120, 40)) as pilot:
            meter = app.query_one(TokenMeter)
            await wait_for(pilot, lambda: meter.shown is not None and meter.shown.room)
            before = figures_explained(meter.shown)[2]
            await run_turn(pilot, "first")
            after = figures_explained(meter.shown)[2]
    said = "window 4.1k: the model's whole context: a prompt may use 3.0k of it, 1,024 is kept for the answer"
    assert before.startswith(said) and after.startswith(said), (before, after)
    assert meter.shown.threshold == 2_991        # the trigger line /context gives beside it: the same 3.0k


async def test_the_meter_and_context_explain_their_figures(tmp_path):
    from contextual.tui.app import ContextualApp
    from contextual.tui.screens.context_view import ContextScreen
    from contextual.tui.widgets.token_meter import TokenMeter
    with FakeLLMServer(kind="openai", script=[finish("one")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=8192), animate=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await run_turn(pilot, "first")
            meter = app.query_one(TokenMeter)
            assert meter.shown is not None
            assert str(meter.tooltip).split("\n") == figures_explained(meter.shown)
            await type_and_send(pilot, "/context")
            await wait_for(pilot, lambda: isinstance(app.screen, ContextScreen))
            table = app.screen.query_one("#context-totals").content   # the Rich table the Static holds
            cells = [c.plain if isinstance(c, Text) else str(c) for column in table.columns for c in column.cells]
            assert "figures" in cells, cells
            assert "\n".join(figures_explained(app.screen.shown)) in cells, cells
