"""PromptView (issue 12.1): the next prompt as the one source of truth, and the events that carry it.

A real Engine against the fake OpenAI server on 127.0.0.1: what `next_prompt()` says before a call is what the
server receives in that call, message for message, with the figures the panels show.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contextual.core.events import (AnswerDelta, FinalAnswer, MessageRecorded, PromptChanged, TextDelta, TurnAdjustments,
                         TurnFinished)
from contextual.core.providers.openai import render_messages
from contextual.core.tokens import PER_MESSAGE_OVERHEAD, count
from tests.engine_helpers import engine_with, finish, read_action, run
from tests.fakes.llm_server import Reply


async def test_next_prompt_is_what_the_next_call_sends(tmp_path: Path):
    (tmp_path / "a.py").write_text("print('a')\n" * 50)
    async with engine_with(tmp_path, [read_action("a.py"), finish("first"), finish("second")]) as (engine, srv):
        await run(engine, "read a.py")
        view = engine.next_prompt("and now?")
        await run(engine, "and now?")
    sent = srv.requests[2]["messages"]
    assert render_messages(list(view.messages)) == sent
    for m in view.messages:                       # every figure is the builder's count of what is sent
        assert m.tokens == count(m.content) + PER_MESSAGE_OVERHEAD
    assert view.total == sum(m.tokens for m in view.messages) == sum(view.tokens.values())
    forms = {(m.layer, m.form) for m in view.messages}
    # The Read's stored JSON is more tokens than its plain text here, so the full form is sent (issue 24).
    assert ("L1", "system") in forms and ("input", "input") in forms and ("L3", "full") in forms
    tool = next(m for m in view.messages if m.layer == "L3" and m.source.tool == "Read")
    assert tool.source.path == "a.py" and tool.source.message_id in {m.id for m in engine.history.messages}


async def run_reading_views(engine, text: str) -> tuple[list, list]:
    """The turn's events, and each PromptChanged's view read while the event is handled (as a front end does)."""
    events, views = [], []
    async for ev in engine.run_turn(text):
        events.append(ev)
        if isinstance(ev, PromptChanged):
            views.append(ev.view)
    return events, views


async def test_turn_events_record_messages_and_the_changed_prompt(tmp_path: Path):
    (tmp_path / "a.py").write_text("x = 1\n")
    answer = "Done.\n\n```python\nx = [1, 2]\n```\n\nThat is  all."
    async with engine_with(tmp_path, [read_action("a.py"), Reply(finish(answer), chunk_size=3)]) as (engine, srv):
        events, views = await run_reading_views(engine, "look")
    recorded = [e.message for e in events if isinstance(e, MessageRecorded)]
    assert [m.role for m in recorded] == ["user", "assistant", "tool", "assistant"]
    assert [m.id for m in recorded] == [m.id for m in engine.history.messages]
    # One view after the input, one after the step's result, one for the next turn: at most one per step.
    assert len(views) == 3
    assert views[-1].trigger == engine.compaction_due("")
    assert render_messages(list(views[-1].messages)) == render_messages(list(engine.next_prompt().messages))
    deltas = "".join(e.text for e in events if isinstance(e, AnswerDelta))
    final = [e for e in events if isinstance(e, FinalAnswer)]
    assert len(final) == 1 and final[0].text == answer            # fences and inner spacing kept
    assert answer.startswith(deltas) and len(deltas) >= len(answer) - 2
    assert "Thought" not in deltas and any(isinstance(e, TextDelta) for e in events)
    assert isinstance(events[-1], TurnFinished) and events[-1].answer == answer


async def test_adjustments_are_summed_up_once_per_turn_and_marked_on_messages(tmp_path: Path):
    (tmp_path / "big.txt").write_text("\n".join(f"line {i} " + "y" * 60 for i in range(3000)))
    steps = [read_action("big.txt")] * 4 + [finish("ok")]
    async with engine_with(tmp_path, steps, context_window=6000, reserve_setting=1000) as (engine, srv):
        events, seen = await run_reading_views(engine, "read it many times")
    summaries = [e for e in events if isinstance(e, TurnAdjustments)]
    assert len(summaries) == 1 and summaries[0].adjustments
    kinds = [type(e) for e in events]
    assert kinds.index(TurnAdjustments) < kinds.index(AnswerDelta)      # the answer stays the last thing read
    views = [v for v in seen if v.adjustments]
    assert views, "the view of a fitted prompt carries its adjustments"
    marked = [m for v in views for m in v.messages if m.form in ("hard", "cut")]
    assert marked and all(m.source.message_id in {i for a in v.adjustments for i in a.message_ids}
                          for v in views for m in v.messages if m.form in ("hard", "cut") and m.source.message_id)
    assert all(json.dumps(r["messages"]).count("Observation") >= 1 for r in srv.requests[1:])
    assert all(v.total <= v.limit for v in views)


async def test_cache_figures_per_call_and_per_session(tmp_path: Path):
    script = [Reply(finish("a"), cached_tokens=100), Reply(finish("b"), cached_tokens=250)]
    async with engine_with(tmp_path, script) as (engine, srv):
        await run(engine, "one")
        await run(engine, "two")
        view = engine.next_prompt()
    assert view.last_call is not None and view.last_call.cached_tokens == 250
    assert view.session_usage.cached_tokens == 350
    assert view.session_usage.input_tokens == sum(r.tokens for r in srv.requests)
    assert view.last_call.cost is None                   # no price known for "fake-model"


async def test_cost_of_a_priced_model_counts_cached_input_at_its_own_price(tmp_path: Path):
    script = [Reply(finish("a"), usage_input=1_000_000, usage_output=0, cached_tokens=600_000)]
    async with engine_with(tmp_path, script, model="gpt-4o") as (engine, srv):
        await run(engine, "one")
        view = engine.next_prompt()
    # gpt-4o: input 2.50, cached input 1.25 per million -> 400k fresh + 600k cached = 1.00 + 0.75
    assert view.last_call.cost == pytest.approx(1.75)
    assert view.cost == pytest.approx(1.75) and view.cached_tokens == 600_000


async def test_a_resumed_session_prices_each_call_at_the_model_it_named(tmp_path: Path):
    """Calls to an unpriced model, then `/model gpt-4o` and a fork (or resume): the earlier calls were priced at
    gpt-4o, a cost nobody paid. Each usage entry now records its model."""
    from contextual.core.engine.usage import Usage
    from contextual.core.session import SessionWriter, load_session
    from tests.engine_helpers import make_config
    writer = SessionWriter.create(tmp_path / "home", tmp_path, session_id="priced")
    script = [Reply(finish("a"), usage_input=1_000_000, usage_output=0)]
    async with engine_with(tmp_path, script, model="fake-model", session=writer) as (engine, srv):
        await run(engine, "one")
    await writer.close()
    calls = load_session(writer.path).calls
    assert [c.model for c in calls] == ["fake-model"]
    usage = Usage()
    usage.restore(calls, make_config(tmp_path, "http://127.0.0.1:9", model="gpt-4o"))
    assert usage.session.input_tokens == 1_000_000 and usage.session.cost is None


@pytest.mark.parametrize("output_format", ["text", "stream-json"])
async def test_headless_never_computes_a_prompt_view(tmp_path: Path, output_format: str):
    """-p shows no prompt: the PromptChanged events it gets are never expanded into views (each is a full count)."""
    import io

    from contextual.headless import run_headless
    from contextual.output import make_printer
    (tmp_path / "a.py").write_text("x = 1\n")
    async with engine_with(tmp_path, [read_action("a.py"), finish("ok")]) as (engine, srv):
        views = []
        view_of = engine.prompt.view_of
        engine.prompt.view_of = lambda *a, **k: views.append(1) or view_of(*a, **k)
        code = await run_headless(engine, "look", make_printer(output_format, io.StringIO(), io.StringIO()))
    assert code == 0 and len(srv.requests) == 2
    assert views == []


async def test_a_kept_round_too_large_for_the_window_is_sent_in_its_harder_a3_form(tmp_path: Path):
    """Below the window even after stored forms, an older round's Read goes to A3's harder limits (its first 80
    lines, and how to see the rest), made from the result when it was recorded: not a blind cut of its text."""
    (tmp_path / "big.py").write_text("".join(f"value_{i} = compute_{i}(alpha, beta)  # line {i}\n" for i in range(300)))
    script = [read_action("big.py"), finish("read"), finish("second")]
    async with engine_with(tmp_path, script, context_window=5000, reserve_setting=1000, auto_compact=False) as (
            engine, srv):
        await run(engine, "read big.py")
        view = engine.next_prompt("and now?")
        await run(engine, "and now?")
    assert render_messages(list(view.messages)) == srv.requests[2]["messages"]
    read = next(m for m in view.messages if m.layer == "L3" and m.content.startswith("Observation: "))
    assert read.form == "hard"
    text = read.content.removeprefix("Observation: ")
    assert text.startswith("[ok]\npath: big.py\n")
    shown = [line for line in text.splitlines() if "= compute_" in line]
    assert len(shown) == 80 and "# line 79" in shown[-1]
    assert "omitted: lines after the first 80 of this range were cut; Read again with offset" in text
    hard = next(m for m in engine.history.messages if m.role == "tool").meta["hard"]
    assert json.loads(hard)["data"]["content"].count("\n") == 79        # history keeps C1's JSON
    assert view.total <= view.limit


@pytest.mark.parametrize("estimate, due, level", [(507, False, "ok"), (508, False, "warn"), (1006, False, "warn"),
                                                   (1007, False, "due"), (10, True, "due")])
def test_the_meter_and_the_turn_s_warning_read_one_warning_line(estimate: int, due: bool, level: str):
    """The meter rebuilt the warning line as a share of the trigger line, rounded: at 508 of a line at 508 the turn
    warned while the meter said ok."""
    from contextual.core.prompt import PromptView, Trigger
    from contextual.tui.prompt_view import shown_from_view
    trigger = Trigger(estimate=estimate, threshold=1007, due=due, basis="counted", warn_at=508, compactable=True)
    shown = shown_from_view(PromptView(messages=(), tokens={}, total=0, window=1400, limit=1000, trigger=trigger))
    assert shown.level == level
    assert trigger.warn is (level != "ok") or due
