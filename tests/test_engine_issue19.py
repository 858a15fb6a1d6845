"""Issue 19 in the real engine against the fake server: the ledger a compaction stores, re-injection, pins,
the compaction preview, the calls sent, the live policy."""

from __future__ import annotations

import contextlib
import json

from contextual.core.agent import Engine
from contextual.core.context.compaction_review import CompactionReview, ReviewDecision
from contextual.core.events import CompactionFinished
from contextual.core.providers.factory import make_provider
from contextual.core.session import SessionWriter, load_session
from tests.engine_helpers import finished, make_config, read_action, run
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.scripted_model import Model, answer

FILES = {"billing.py": "def invoice_total_q9(items):\n    return sum(i.price_cents for i in items)\n",
         "shipping.py": "def parcel_weight_k4(box):\n    return box.grams\n",
         "notes.py": "RETRY_LIMIT_Z7 = 12\n"}


def project(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    for name, text in FILES.items():
        (root / name).write_text(text)
    return root


@contextlib.asynccontextmanager
async def engine_for(tmp_path, model: Model, session=True, **cfg):
    root = project(tmp_path)
    writer = SessionWriter.create(tmp_path / "home", root, session_id="s19") if session else None
    with FakeLLMServer(kind="openai", responder=model) as srv:
        config = make_config(root, srv.base_url, keep_rounds=1, **cfg)
        provider = make_provider(config, base_delay=0.01, max_delay=0.05)
        engine = Engine(config, provider, session=writer)
        try:
            yield engine, srv
        finally:
            await provider.aclose()
            if writer is not None and not writer.closed:
                await writer.close()


# Each round names what the one before it read: the names later rounds still use are the facts (core/context/facts.py).
TEXTS = ("read billing.py", "now shipping.py, beside invoice_total_q9", "and notes.py, after parcel_weight_k4")


def three_turns() -> list[str]:
    return [read_action("billing.py"), answer("billing read"), read_action("shipping.py"), answer("shipping read"),
            read_action("notes.py"), answer("notes read"), answer("after")]


async def compact(engine, **kw) -> list:
    return [ev async for ev in engine.compact(**kw)]


def contents(body) -> str:
    return "\n".join(m["content"] for m in body["messages"])


async def test_a_compaction_stores_its_ledger_and_a_reinjected_item_rides_on_the_next_input(tmp_path):
    model = Model(three_turns())
    async with engine_for(tmp_path, model) as (engine, srv):
        for text in TEXTS:
            finished(await run(engine, text))
        events = await compact(engine)
        done = [e for e in events if isinstance(e, CompactionFinished)][-1]
        assert not done.refused and done.summary
        ledger = engine.compactions[-1].loss_ledger
        lost = {f.text: f for f in ledger.facts}
        assert "invoice_total_q9" in lost and "parcel_weight_k4" in lost      # the summary never named them
        assert "RETRY_LIMIT_Z7" not in lost                                   # the kept round holds it
        fact = lost["invoice_total_q9"]
        assert fact.source.tool == "Read" and fact.source.location == "billing.py:1"
        engine.remind(fact.reminder())
        assert "invoice_total_q9" in engine.next_prompt("go on").messages[-1].content
        finished(await run(engine, "go on"))
        sent = model.turn_requests[-1]
        last_user = [m for m in sent["messages"] if m["role"] == "user"][-1]["content"]
        assert last_user.startswith("go on") and "invoice_total_q9" in last_user and "billing.py:1" in last_user
        assert engine.reminders == []                                          # it rode once
        await engine.session.close()
        log = load_session(engine.session.path).compactions
    assert log[-1].loss_ledger == ledger


async def test_a_pinned_observation_is_sent_whole_survives_compaction_and_the_summary_is_told(tmp_path):
    model = Model(three_turns())
    async with engine_for(tmp_path, model) as (engine, srv):
        for text in TEXTS:
            finished(await run(engine, text))
        billing = next(m for m in engine.history.messages if m.role == "tool" and "billing" in json.dumps(m.meta))
        assert engine.toggle_pin(billing.id) is True
        view = engine.next_prompt("x")
        sent = next(m for m in view.messages if m.source.message_id == billing.id)
        assert sent.form == "full" and sent.content.endswith(billing.full)
        await compact(engine)
        assert "The user pinned" in contents(model.summary_requests[-1])
        ids = [m.id for m in engine.history.messages]
        assert billing.id in ids and ids.index(billing.id) < ids.index(next(
            m.id for m in engine.history.messages if m.role == "user"))         # ahead of the kept round
        finished(await run(engine, "after"))
        assert billing.full in contents(model.turn_requests[-1])
        path = engine.session.path
        await engine.session.close()
    loaded = load_session(path)
    assert billing.id in [m.id for m in loaded.history] and billing.id in loaded.pins


async def test_the_preview_holds_the_summary_until_accepted_and_the_edit_is_what_is_stored(tmp_path):
    model = Model(three_turns())
    async with engine_for(tmp_path, model) as (engine, srv):
        for text in TEXTS:
            finished(await run(engine, text))
        before = list(engine.history.messages)
        stream = engine.compact(preview=True)
        reviews = []
        async for ev in stream:
            if isinstance(ev, CompactionReview):
                reviews.append(ev)
                assert engine.history.messages == before                      # nothing changed yet
                assert "SUMMARY-MARKER-z9" in ev.summary and ev.ledger_for(ev.summary).facts
                if len(reviews) == 1:
                    ev.decide(ReviewDecision.retry("name every function"))
                else:
                    ev.decide(ReviewDecision.accept("EDITED-SUMMARY invoice_total_q9"))
        assert [r.attempt for r in reviews] == [1, 2]
        assert "name every function" in contents(model.summary_requests[-1])
        summary = engine.history.messages[0]
        assert summary.role == "summary" and summary.content == "EDITED-SUMMARY invoice_total_q9"
        lost = {f.text for f in engine.compactions[-1].loss_ledger.facts}
        assert "invoice_total_q9" not in lost and "parcel_weight_k4" in lost
        path = engine.session.path
        await engine.session.close()
    loaded = load_session(path)
    assert loaded.history[0].content == "EDITED-SUMMARY invoice_total_q9"


async def test_cancelling_the_preview_leaves_history_exactly_as_it_was(tmp_path):
    model = Model(three_turns())
    async with engine_for(tmp_path, model, session=False) as (engine, srv):
        for text in TEXTS:
            finished(await run(engine, text))
        before = list(engine.history.messages)
        events = []
        async for ev in engine.compact(preview=True):
            events.append(ev)
            if isinstance(ev, CompactionReview):
                ev.decide(ReviewDecision.cancel())
        assert engine.history.messages == before and engine.compactions == []
        assert "cancelled in the preview" in events[-1].refused


async def test_the_sent_log_holds_every_call_and_the_policy_switches_live(tmp_path):
    model = Model(three_turns())
    async with engine_for(tmp_path, model, session=False) as (engine, srv):
        finished(await run(engine, "read billing.py"))
        assert engine.sent.count == len(srv.requests) == 2
        assert [m.content for m in engine.sent.calls[-1].messages] == [m["content"] for m in srv.requests[-1]["messages"]]
        step = engine.sent.diff(1)                        # call 2 = call 1 + the Read step: the cache holds
        assert step.cache_break is None and [c.kind for c in step.changes] == ["added", "added"]
        engine.set_policy("raw")
        assert engine.policy == "raw" and engine.builder.policy == "raw"


async def test_an_automatic_compaction_waits_for_review_when_the_config_asks(tmp_path):
    from tests.fakes.llm_server import Reply
    turns = [read_action("billing.py"), answer("billing read"), read_action("shipping.py"),
             Reply(answer("shipping read"), usage_input=17_500), answer("after")]
    model = Model(turns)
    async with engine_for(tmp_path, model, session=False, context_window=20_000, compaction_preview=True) as (
            engine, srv):
        finished(await run(engine, "read billing.py"))
        finished(await run(engine, "now shipping.py"))
        reviews = []
        events = []
        async for ev in engine.run_turn("go on"):
            events.append(ev)
            if isinstance(ev, CompactionReview):
                reviews.append(ev)
                assert ev.trigger == "auto"
                ev.decide(ReviewDecision.accept("AUTO-EDITED summary"))
        finished(events)
        assert len(reviews) == 1 and engine.history.messages[0].content == "AUTO-EDITED summary"
        assert "AUTO-EDITED summary" in contents(model.turn_requests[-1])
