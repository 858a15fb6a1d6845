"""Issue 24 at a 4,096-token window through the real engine and the fake server: the summary call itself fits
the window (the archived history is summarised in chunks, then combined), and summaries that together outgrow a
quarter of the window are merged into one (the recorded departure from seed A5)."""

from __future__ import annotations

from pathlib import Path

from contextual.core.agent import Engine
from contextual.core.events import CompactionFinished, CompactionStarted, Notice
from contextual.core.providers.factory import make_provider
from contextual.core.runtime import restore_into
from contextual.core.session import SessionWriter, load_session
from tests.engine_helpers import finish, finished, make_config, read_action, run
from tests.fakes.llm_server import Fault, FakeLLMServer, Reply

WINDOW = 4096
PASTE = " ".join(f"row {i}: status=ok latency={i * 37 % 1000}ms host=web-{i % 7}" for i in range(70))


def is_summary(body: dict) -> bool:
    return "Archived Session Summary" in str(body["messages"][0]["content"])


def long_summary(tag: str) -> str:
    facts = " ".join(f"fact-{tag}-{i} holds." for i in range(90))
    return f"## 📌 Archived Session Summary\n\n### 🎯 Objectives & Status\n* {facts}\n"


class Agent:
    """Each turn finishes at once; summary requests get a long summary (so two outgrow window/4), merges a short."""

    def __init__(self) -> None:
        self.summaries = 0

    def __call__(self, body: dict) -> Reply:
        if not is_summary(body):
            return Reply(finish("noted"))
        text = str(body["messages"][-1]["content"])
        if "Merge them into ONE summary" in text and "fact-" in text:
            return Reply("## 📌 Archived Session Summary\n\n### 🎯 Objectives & Status\n* merged: all facts kept\n")
        self.summaries += 1
        return Reply(long_summary(str(self.summaries)))


async def _session(tmp_path: Path, turns: int, then_compact: bool = False, session=None,
                   **cfg) -> tuple[Engine, FakeLLMServer, list]:
    agent = Agent()
    with FakeLLMServer("openai", responder=agent, max_context_tokens=WINDOW) as srv:
        config = make_config(tmp_path, srv.base_url, context_window=WINDOW, **cfg)
        provider = make_provider(config, base_delay=0.01, max_delay=0.05)
        engine = Engine(config, provider, session=session)
        events: list = []
        try:
            for turn in range(turns):
                events += await run(engine, f"turn {turn}: keep this log in mind\n{PASTE}")
            if then_compact:
                events += [ev async for ev in engine.compact(keep_rounds=0)]
        finally:
            await provider.aclose()
    return engine, srv, events


def assert_every_request_fits(srv: FakeLLMServer) -> None:
    assert srv.violations == []
    for body, tokens in zip(srv.requests, srv.token_counts):    # the prompt and the answer it asks room for
        assert tokens + int(body["max_tokens"]) <= WINDOW, (tokens, body["max_tokens"])


async def test_at_4k_summaries_outgrowing_a_quarter_of_the_window_are_merged(tmp_path: Path):
    root = tmp_path / "proj"
    root.mkdir()
    writer = SessionWriter.create(tmp_path / "home", root)
    engine, srv, events = await _session(root, 6, session=writer)
    await writer.close()
    assert_every_request_fits(srv)
    done = [e for e in events if isinstance(e, CompactionFinished) and not e.refused]
    assert len(done) >= 3 and all(e.fallback is None for e in done)
    assert any("merged into one" in e.message for e in events if isinstance(e, Notice))
    merged = [r for r in engine.compactions if r.merged]
    assert merged and merged[0].metadata()["summariesMerged"] == merged[0].merged
    summaries = engine.history.summaries          # never more than a merge leaves plus the newest
    assert 1 <= len(summaries) <= 2 and summaries[0].meta.get("merged")
    assert "merged: all facts kept" in summaries[0].content
    loaded = load_session(writer.path)                  # a resume rebuilds the same history
    assert [m.content for m in loaded.history] == [m.content for m in engine.history.messages]
    assert [r.merged for r in loaded.compactions] == [r.merged for r in engine.compactions]


async def test_at_4k_a_history_too_long_for_one_summary_call_is_summarised_in_parts(tmp_path: Path):
    # Auto compaction off: four long rounds pile up (the builder fits each prompt), then /compact archives them
    # all: more than one summary request can hold.
    engine, srv, events = await _session(tmp_path, 4, then_compact=True, auto_compact=False)
    assert_every_request_fits(srv)
    asked = [str(b["messages"][-1]["content"]) for b in srv.requests if is_summary(b)]
    assert any("part 1 of" in text for text in asked) and any("Merge them into ONE" in text for text in asked)
    for turn in range(4):                           # every round reached the summary model, whole or in a part
        assert any(f"turn {turn}: keep this log" in text for text in asked)
    done = [e for e in events if isinstance(e, CompactionFinished)]
    assert done and done[-1].fallback is None and done[-1].rounds_archived == 4


def test_a_merged_summary_replaces_the_earlier_ones_in_history_and_on_resume(tmp_path: Path):
    from contextual.core.context.history import apply_compaction
    from contextual.core.messages import Message
    old = [Message("summary", "s1"), Message("summary", "s2")]
    rest = [Message("user", "u"), Message("assistant", finish())]
    merged = Message("summary", "s1+s2+s3", meta={"merged": 2})
    assert apply_compaction(old + rest, merged, rest[0].id, ()) == [merged, *rest]
    plain = Message("summary", "s3")
    assert apply_compaction(old + rest, plain, rest[0].id, ()) == [*old, plain, *rest]


async def test_at_4k_a_failed_summary_call_gives_the_recorded_fallback_the_user_is_shown(tmp_path: Path):
    def agent(body: dict) -> Reply | Fault:
        return Fault("401", message="summary model refused") if is_summary(body) else Reply(finish("noted"))
    with FakeLLMServer("openai", responder=agent, max_context_tokens=WINDOW) as srv:
        config = make_config(tmp_path, srv.base_url, context_window=WINDOW)
        provider = make_provider(config, base_delay=0.01, max_delay=0.05)
        engine = Engine(config, provider)
        events: list = []
        try:
            for turn in range(3):
                events += await run(engine, f"turn {turn}: keep this log in mind\n{PASTE}")
        finally:
            await provider.aclose()
    assert_every_request_fits(srv)
    done = [e for e in events if isinstance(e, CompactionFinished) and not e.refused]
    assert done and all(e.fallback and e.fallback.startswith("Summary generation failed (") for e in done)
    assert [r.fallback for r in engine.compactions] == [e.fallback for e in done]     # recorded as shown
    assert all(r.rounds_archived for r in engine.compactions) and not engine.history.summaries


async def test_at_4k_a_turn_with_one_huge_observation_finishes_with_the_observation_shortened_and_said(tmp_path: Path):
    (tmp_path / "huge.log").write_text("".join(f"{i:06d} worker-{i % 13} processed batch {i * 7919 % 100003} ok\n"
                                               for i in range(3000)))          # ~50k tokens: 12 windows
    (tmp_path / "small.py").write_text("VALUE = 42\n")
    script = [read_action("huge.log"), read_action("small.py"), finish("VALUE is 42")]

    def agent(body: dict) -> Reply:
        return Reply(long_summary("x")) if is_summary(body) else Reply(script.pop(0) if script else finish("done"))
    with FakeLLMServer("openai", responder=agent, max_context_tokens=WINDOW) as srv:
        config = make_config(tmp_path, srv.base_url, context_window=WINDOW)
        provider = make_provider(config, base_delay=0.01, max_delay=0.05)
        engine = Engine(config, provider)
        try:
            events = await run(engine, "what is VALUE in small.py? look at huge.log first")
        finally:
            await provider.aclose()
    assert_every_request_fits(srv)
    assert finished(events).answer == "VALUE is 42"
    last = str(srv.requests[-1]["messages"])
    # the huge one in its turn form (a view's digest) with a note on how to see the rest; the newest whole
    assert "[2001 lines, " in last and "omitted; run it again to see them]" in last and "VALUE = 42" in last


async def test_the_meters_promise_holds_and_the_card_shows_the_meters_figure(tmp_path: Path):
    """One unit (issue 24): before each message, the view the meter and /context read says whether it compacts;
    the turn does exactly that, and the card's "before" is the figure they showed."""
    agent = Agent()
    with FakeLLMServer("openai", responder=agent, max_context_tokens=WINDOW * 2) as srv:
        config = make_config(tmp_path, srv.base_url, context_window=WINDOW * 2)
        provider = make_provider(config, base_delay=0.01, max_delay=0.05)
        engine = Engine(config, provider)
        promised, kept = [], []
        try:
            for turn in range(7):
                text = f"turn {turn}: keep this log in mind\n{PASTE}"
                view, bare = engine.next_prompt(text), engine.next_prompt("")
                events = await run(engine, text)
                started = [e for e in events if isinstance(e, CompactionStarted)]
                promised.append(view.trigger.due)
                kept.append(bool(started))
                if started:
                    assert started[0].pre_tokens == bare.trigger.estimate
        finally:
            await provider.aclose()
    assert promised == kept and any(promised)


async def test_a_turn_that_read_a_big_file_does_not_make_the_next_message_compact(tmp_path):
    """At 8k, a turn reads a 5k-token file: its last call's usage is past the trigger (the observation was whole
    in it), while history keeps the observation stored and the next prompt is small. The trigger's basis is that
    usage rebased on what the prompt no longer holds, so the next message does not compact (each one did, a
    summary call per message); a prompt that really grew past the trigger still does. (A reserve of 1,000 puts the
    trigger, 80 % of the window, below what a fitted prompt may use, so the read's call can pass it.)"""
    from tests.engine_helpers import engine_with
    root = tmp_path / "proj"
    root.mkdir()
    (root / "big.py").write_text("".join(f"def handler_{i}(request):\n    return route_{i}(request)\n"
                                         for i in range(400)))
    writer = SessionWriter.create(tmp_path / "home", root, session_id="bigread")
    async with engine_with(root, [finish("hello"), read_action("big.py"), finish("read it"), finish("three")],
                           context_window=8000, reserve_setting=1000, keep_rounds=1, session=writer) as (engine, srv):
        finished(await run(engine, "hi"))
        finished(await run(engine, "read big.py"))
        assert engine.last_usage is not None and engine.last_usage > engine.config.threshold
        sent = engine.next_prompt().total
        trigger = engine.compaction_due("a short question")
        assert srv.requests and trigger.basis == "usage"
        assert trigger.estimate < trigger.threshold and not trigger.due, (trigger, sent)
        assert abs(trigger.estimate - sent * engine.prompt.calibration.factor("fake-model")) < 300
        resumed = Engine(engine.config, None)         # resumed: the usage entry holds our count of that call
        restore_into(resumed, load_session(writer.path))
        again = resumed.compaction_due("a short question")
        assert again.basis == "usage" and abs(again.estimate - trigger.estimate) < 50 and not again.due
        events = await run(engine, "a short question")
        assert not [e for e in events if isinstance(e, CompactionStarted)]


async def test_a_fitted_prompt_leaves_room_when_the_servers_count_drifts_up(tmp_path):
    """The calibration is the largest ratio of the server's count to ours seen so far; the next prompt's can be a
    little larger (Anthropic's wire merges blocks differently per prompt). A turn fitted to the last token of
    window − reserve went 3 over at 8k, and Anthropic refuses prompt + max_tokens past the window (helper-85).
    Here the server counts 1.2 % more at each call: fitted prompts keep the trigger's margin, and none is refused."""
    root = tmp_path / "proj"
    root.mkdir()
    for n in range(10):
        (root / f"m{n}.py").write_text("".join(f"def handler_{n}_{i}(request):\n    return route_{n}_{i}(request)\n"
                                                for i in range(90)))
    replies = [read_action(f"m{n}.py") for n in range(10)] + [finish("read")]

    def answer(body: dict) -> str:
        srv.token_scale = round(srv.token_scale + 0.012, 3)
        return replies.pop(0)

    with FakeLLMServer("anthropic", responder=answer, max_context_tokens=8000, answer_in_window=True) as srv:
        config = make_config(root, srv.base_url, provider="anthropic", context_window=8000)
        provider = make_provider(config, base_delay=0.01, max_delay=0.05)
        try:
            finished(await run(Engine(config, provider), "read every module"))
        finally:
            await provider.aclose()
    assert not replies and not srv.violations, srv.violations
    assert max(srv.token_counts) > 5_500         # the turn was fitted: its prompts reached the limit
