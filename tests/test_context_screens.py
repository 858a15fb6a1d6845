"""Pilot tests of issue 19's screens on real data: a ledger, a prompt diff, a preview, the policy replays."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App
from textual.widgets import DataTable, Input, Static, TextArea

from contextual.core.context.compaction_review import CompactionReview
from contextual.core.context.ledger import loss_ledger
from contextual.core.context.prompt_diff import diff_prompts
from contextual.core.prompt import PromptMessage
from contextual.core.session import SessionWriter, load_session
from tests.engine_helpers import engine_with, finish, finished, read_action, run
from tests.history_helpers import ledger_session as _session
from tests.tui_helpers import wait_for
from contextual.tui.format import tokens
from contextual.tui.screens.compaction_preview import CompactionPreviewScreen
from contextual.tui.screens.loss_ledger import LossLedgerScreen
from contextual.tui.screens.policies import PoliciesScreen
from contextual.tui.screens.prompt_diff import PromptDiffScreen

SIZE = (120, 40)


class Host(App):
    """Pushes one screen and keeps what it is dismissed with."""

    def __init__(self, screen) -> None:
        super().__init__()
        self.first = screen
        self.results: list = []

    def on_mount(self) -> None:
        self.push_screen(self.first, self.results.append)




def text_of(app, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def test_ledger_screen_lists_each_fact_and_enter_gives_the_highlighted_one():
    archive, kept = _session()
    ledger = loss_ledger(archive, "", kept)
    app = Host(LossLedgerScreen(ledger))
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one(DataTable)
        assert table.row_count == len(ledger.facts)
        assert "Lost:" in text_of(app, "#ledger-count")
        await pilot.press("down", "down")
        assert ledger.facts[2].line in text_of(app, "#ledger-line")
        assert f"from {ledger.facts[2].source.label}" in text_of(app, "#ledger-line")   # cut in the table at 80 cols
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.results)
    assert app.results == [ledger.facts[2]]


@pytest.mark.parametrize("for_summary,footer", [(False, "re-inject"), (True, "add to summary")])
async def test_the_ledgers_enter_is_named_for_what_its_opener_does_with_the_item(for_summary, footer):
    archive, kept = _session()
    ledger = loss_ledger(archive, "", kept)
    app = Host(LossLedgerScreen(ledger, for_summary=for_summary))
    async with app.run_test(size=SIZE) as pilot:
        shown = {b.binding.description for b in app.screen.active_bindings.values() if b.enabled and b.binding.show}
        assert footer in shown and {"re-inject", "add to summary"} - {footer} - shown
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.results)
    assert app.results == [ledger.facts[1]]


async def test_prompt_diff_screen_names_the_break_and_its_cost():
    before = [PromptMessage("system", "L1", "L1"), PromptMessage("user", "Observation: " + "x " * 500, "scratchpad")]
    after = [PromptMessage("system", "L1", "L1"), PromptMessage("user", "Observation: short", "scratchpad"),
             PromptMessage("assistant", "Thought: next", "scratchpad")]
    diff = diff_prompts(before, after)
    app = Host(PromptDiffScreen(diff))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "Cache broke at message 2" in text_of(app, "#diff-cache")
        assert app.screen.query_one(DataTable).row_count == len(diff.changes) == 3
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.results)


async def test_prompt_diff_screen_steps_through_the_calls_an_engine_sent(tmp_path):
    from contextual.core.context.sent_log import SentLog
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.py").write_text("".join(f"def f{i}(): return {i}\n" for i in range(200)))
    log = SentLog()
    async with engine_with(root, [read_action("a.py"), read_action("a.py"), finish("ok")]) as (engine, srv):
        finished(await run(engine, "read a.py twice"))
    for request in srv.requests:       # what the server got, as the engine's log would hold it
        log.add([PromptMessage("system" if m["role"] == "system" else m["role"], m["content"], "L3")
                 for m in request["messages"]], request["model"])
    app = Host(PromptDiffScreen(log=log))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        box = app.screen.query_one("#diff-box")
        assert "call 2 → call 3 of 3" in str(box.border_title)
        assert app.screen.query_one(DataTable).row_count == len(log.diff(2).changes) > 0
        await pilot.press("left")
        assert "call 1 → call 2" in str(box.border_title)
        await pilot.press("left")                      # nothing older: stays
        assert "call 1 → call 2" in str(box.border_title)
        await pilot.press("right")
        assert "call 2 → call 3" in str(box.border_title)


def _review(summary: str, future) -> CompactionReview:
    archive, kept = _session()
    return CompactionReview("manual", tuple(archive), tuple(kept), summary, future)


async def test_preview_accepts_the_edited_text_and_shows_what_it_would_lose():
    future = asyncio.get_running_loop().create_future()
    review = _review("Summary: retry bug in src/net/http_client.py.", future)
    app = Host(CompactionPreviewScreen(review))
    async with app.run_test(size=SIZE) as pilot:
        before = text_of(app, "#preview-loss")
        total = review.ledger_for(review.summary).total
        assert total and f"of {total} facts; missing: You must not change the public API" in before   # the recall probe
        area = app.screen.query_one(TextArea)
        area.load_text("Summary: backoff_ms = 250 in src/net/http_client.py; tests/test_http.py fails with "
                       "ConnectionResetError.")
        await wait_for(pilot, lambda: text_of(app, "#preview-loss") != before)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.results)
    (decision,) = app.results
    assert decision.action == "accept" and decision.text.startswith("Summary: backoff_ms = 250")


async def test_preview_appends_the_missing_facts_with_one_key():
    future = asyncio.get_running_loop().create_future()
    review = _review("Summary: retry bug in src/net/http_client.py.", future)
    app = Host(CompactionPreviewScreen(review))
    async with app.run_test(size=SIZE) as pilot:
        total = review.ledger_for(review.summary).total
        assert f"of {total} facts; missing" in text_of(app, "#preview-loss")
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: "loses nothing" in text_of(app, "#preview-loss"))
        assert f"keeps {total} of {total} facts" in text_of(app, "#preview-loss")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.results)
    (decision,) = app.results
    assert decision.text.startswith("Summary: retry bug") and "## Facts the summary must keep" in decision.text
    assert "backoff_ms" in decision.text and "tests/test_http.py::test_retry" in decision.text


async def test_preview_says_when_the_summary_is_no_smaller_than_the_rounds_it_replaces():
    """`/compact 1` over short rounds: a summary as long as what it replaces would grow the prompt; the preview
    says so (and stops saying so once the summary is cut), with both sizes counted as the prompt counts them."""
    from contextual.core.context.builder import history_message
    from contextual.core.tokens import count
    loop = asyncio.get_running_loop()
    archive, _ = _session()
    replaced = sum(count(history_message(m).content) for m in archive)    # as the prompt holds them: stored forms as text
    assert replaced < sum(count(m.content) for m in archive)               # not their JSON (17.9k against 2.0k, tmux QA)
    long_summary = "Summary: " + " ".join(m.content for m in archive)
    app = Host(CompactionPreviewScreen(_review(long_summary, loop.create_future())))
    async with app.run_test(size=SIZE) as pilot:
        assert "compacting saves nothing" in text_of(app, "#preview-loss")
        assert f", ~{tokens(replaced)} tokens); keeps" in text_of(app, "#preview-head")
        app.screen.query_one(TextArea).load_text("Summary: retry bug in src/net/http_client.py.")
        await wait_for(pilot, lambda: "compacting saves nothing" not in text_of(app, "#preview-loss"))
        assert "summary ~" in text_of(app, "#preview-loss") and "tokens, replacing ~" in text_of(app, "#preview-loss")


async def test_a_retry_over_an_edited_summary_asks_once_before_dropping_the_edits():
    loop = asyncio.get_running_loop()
    app = Host(CompactionPreviewScreen(_review("Summary.", loop.create_future())))
    async with app.run_test(size=SIZE) as pilot:
        app.screen.query_one(TextArea).load_text("Summary. And the port is 8443.")
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert not app.results and any("drops your edits" in n.message for n in app._notifications)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.results)
    assert app.results[0].action == "retry"


async def test_preview_retry_carries_instructions_and_escape_cancels():
    loop = asyncio.get_running_loop()
    app = Host(CompactionPreviewScreen(_review("Summary.", loop.create_future())))
    async with app.run_test(size=SIZE) as pilot:
        app.screen.query_one(Input).value = "keep the exact error text"
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.results)
        app.push_screen(CompactionPreviewScreen(_review("Summary.", loop.create_future())), app.results.append)
        await pilot.pause()
        await pilot.press("escape")
        await wait_for(pilot, lambda: len(app.results) == 2)
    assert [(d.action, d.instructions) for d in app.results] == [("retry", "keep the exact error text"),
                                                                  ("cancel", "")]


async def test_policies_screen_replays_the_session_and_enter_picks_a_policy(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.py").write_text("".join(f"def f{i}(): return {i}\n" for i in range(200)))
    writer = SessionWriter.create(tmp_path / "home", root, session_id="polscr")
    async with engine_with(root, [read_action("a.py"), read_action("a.py"), finish("ok")], session=writer) as (
            engine, srv):
        finished(await run(engine, "read a.py twice"))
        await writer.close()
        config = engine.config
    record = load_session(writer.path).full_record
    app = Host(PoliciesScreen(record, config, "ours", ("ours", "raw", "mask")))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        # its keys (it once ended in "· esc", a key without what it does) are the footer's: the title is its name
        assert str(screen.query_one("#policies-box").border_title) == "Context policies on this session"
        assert {"make live", "close"} <= {k.description for k in screen.query_one("Footer").query("FooterKey")}
        await wait_for(pilot, lambda: "3 policies replayed" in text_of(app, "#policies-status"))
        # a peak past the session's window read as the live session having outgrown it (tmux QA)
        assert "no window and no compaction" in text_of(app, "#policies-status")
        table = screen.query_one(DataTable)
        assert table.row_count == 3 and screen.error is None and len(screen.figures) == 3
        await pilot.press("down")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.results)
    assert app.results == ["raw"]
    assert screen.figures["raw"].calls == len(srv.requests) == 3


async def test_policies_that_send_the_same_say_why(tmp_path):
    """A session whose turns have no earlier observation: every row is the same, which read as a broken screen."""
    root = tmp_path / "project"
    root.mkdir()
    writer = SessionWriter.create(tmp_path / "home", root, session_id="polsame")
    async with engine_with(root, [finish("one"), finish("two")], session=writer) as (engine, srv):
        finished(await run(engine, "first"))
        finished(await run(engine, "second"))
        await writer.close()
        config = engine.config
    app = Host(PoliciesScreen(load_session(writer.path).full_record, config, "ours", ("ours", "raw", "mask")))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "3 policies replayed on this session's 2 turns" in text_of(app, "#policies-status"))
        assert len({f.prompt_tokens for f in app.screen.figures.values()}) == 1
        assert "They send the same here" in text_of(app, "#policies-status")


async def test_typing_on_the_preview_goes_to_the_retry_instructions_and_enter_retries_with_them():
    """Typed at once, text landed before the summary's heading (`typed first## 📌 Archived…`; tmux QA)."""
    loop = asyncio.get_running_loop()
    app = Host(CompactionPreviewScreen(_review("## Summary\nThe port is 8443.", loop.create_future())))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(*"keep the port")
        assert app.screen.query_one(TextArea).text == "## Summary\nThe port is 8443."
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.results)
    assert app.results[0].action == "retry" and app.results[0].instructions == "keep the port"


async def test_the_compaction_history_shows_the_selected_rows_files_and_fallback_whole_at_80_columns():
    from contextual.core.session.schema import CompactionRecord
    from contextual.tui.screens.compaction_history import CompactionHistoryScreen
    files = tuple(f"src/package/module_{i}.py" for i in range(6))
    records = [CompactionRecord("auto", 9100, 881, files, None, 1),
               CompactionRecord("manual", 5000, 4000, (), "the summary call timed out after 120 s", 2)]
    app = Host(CompactionHistoryScreen(records))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        line = app.screen.query_one("#history-line")
        assert all(f in text_of(app, "#history-line") for f in files) and line.size.height >= 2
        await pilot.press("down")
        await wait_for(pilot, lambda: "timed out after 120 s" in text_of(app, "#history-line"))


async def test_preview_head_says_what_it_keeps_verbatim_in_messages():
    """The head said "replaces 9 messages (2 rounds, …); keeps 2 verbatim": 2 messages or 2 rounds? (tmux QA)"""
    loop = asyncio.get_running_loop()
    review = _review("Summary.", loop.create_future())
    app = Host(CompactionPreviewScreen(review))
    async with app.run_test(size=SIZE):
        assert text_of(app, "#preview-head").endswith(f"; keeps {len(review.kept)} messages verbatim")


async def test_a_cache_break_on_an_unpriced_model_speaks_of_time_not_of_billing():
    """A local llama.cpp model has no prices: /diff spoke of tokens "billed in full again (≈4.5k extra at full
    price)" (user review, helper-121)."""
    before = [PromptMessage("system", "L1", "L1"), PromptMessage("user", "Observation: " + "x " * 500, "scratchpad")]
    after = [PromptMessage("system", "L1", "L1"), PromptMessage("user", "Observation: short", "scratchpad")]
    diff = diff_prompts(before, after)
    for priced, said, unsaid in ((False, "are read again (this model has no prices", "billed"),
                                 (True, "are billed in full again (≈", "no prices")):
        app = Host(PromptDiffScreen(diff, priced=priced))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            line = text_of(app, "#diff-cache")
            assert said in line and unsaid not in line, line


async def test_the_card_opened_from_compactions_gives_the_chat_lines_figures_and_points_back_to_the_list():
    """It lacked the "keeps N of M facts" the chat line gave, and its footer said "/compactions shows the history"
    inside /compactions (user review, helper-121)."""
    from contextual.core.session.schema import CompactionRecord
    from contextual.tui.format import compaction_note
    from contextual.tui.screens.compaction import CompactionModal
    archive, kept = _session()
    ledger = loss_ledger(archive, "", kept)
    record = CompactionRecord("auto", 6_700, 4_300, (), None, 1, loss_ledger=ledger)
    assert ledger.lost() and ledger.score() in compaction_note(record)
    app = Host(CompactionModal.card_of(record, 1))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        card, hint = text_of(app, "#compaction-stage"), text_of(app, "#compaction-hint")
    figures = "trigger estimate 6.7k → 4.3k tokens"           # the meter's name for them, in the card and the chat
    assert figures in card and figures in compaction_note(record)
    assert f"{ledger.score()} (l in the list: the {ledger.lost()} facts lost, to re-inject)" in card, card
    assert hint == "enter or esc: back to the list" and "/compactions" not in hint
