"""Esc during a summary made in parts (a 4,096-token window): the parts finished are kept as a real summary of the
rounds they cover, and only the archived rounds they did not reach fall back to truncation (said to the model, in
the ledger, on the card and in the chat line). With no part finished it is the truncation it always was. Through
the real engine and the fake server, whose answer to a later part waits on an Event the test holds."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from contextual.core.agent import Engine
from contextual.core.context.compaction import CANCELLED_MESSAGE
from contextual.core.events import CompactionFinished, CompactionProgress
from contextual.core.providers.factory import make_provider
from contextual.core.runtime import restore_into
from contextual.core.session import SessionWriter, load_session
from contextual.core.session.schema import Truncation
from tests.engine_helpers import finish, make_config, run
from tests.fakes.llm_server import Fault, FakeLLMServer, Reply

WINDOW = 4096
PASTE = " ".join(f"row {i}: status=ok latency={i * 37 % 1000}ms host=web-{i % 7}" for i in range(70))
PART = re.compile(r"part (\d+) of (\d+) of the archived history")


class Summariser:
    """Agent calls finish at once; summary part K answers at once while K < ``hold``, and from part ``hold`` on
    waits for ``gate`` (the test sets it once it has stopped the compaction), or answers with ``fault``; the merge
    of the parts counts as part 100."""

    def __init__(self, hold: int, fault: Fault | None = None) -> None:
        self.hold = hold
        self.fault = fault
        self.gate = threading.Event()
        self.asked: list[str] = []          # each summary request's text

    def __call__(self, body: dict) -> Reply | Fault:
        if "Archived Session Summary" not in str(body["messages"][0]["content"]):
            return Reply(finish("noted"))
        text = str(body["messages"][-1]["content"])
        self.asked.append(text)
        part = PART.search(text)
        index = int(part.group(1)) if part else 0 if "Merge them into ONE" not in text else 100
        if index >= self.hold and self.fault is not None:
            return self.fault
        if index >= self.hold:
            self.gate.wait(20)           # released by the test (a bound only against a hang)
        return Reply(f"## 📌 Archived Session Summary\n\n### 🎯 Objectives & Status\n* PART-{index}-DONE\n")


def recorded_project(tmp_path: Path) -> tuple[Path, SessionWriter]:
    """A project folder and a session recorded for it under a home beside it."""
    root = tmp_path / "proj"
    root.mkdir()
    return root, SessionWriter.create(tmp_path / "home", root)


@asynccontextmanager
async def six_turns(root: Path, agent: "Summariser", session: SessionWriter | None = None, **settings: object
                    ) -> AsyncIterator[tuple[FakeLLMServer, Engine]]:
    """An engine at WINDOW (auto-compaction off, ``settings`` besides) after six turns that each paste a log, its
    summaries answered by `agent`; the gate is set and the provider closed on the way out."""
    with FakeLLMServer("openai", responder=agent, max_context_tokens=WINDOW) as srv:
        config = make_config(root, srv.base_url, context_window=WINDOW, auto_compact=False, **settings)
        provider = make_provider(config, base_delay=0.01, max_delay=0.05)
        engine = Engine(config, provider, session=session)
        try:
            for turn in range(6):
                await run(engine, f"turn {turn}: keep this log in mind\n{PASTE}")
            yield srv, engine
        finally:
            agent.gate.set()
            await provider.aclose()


def whole_rounds_in(request: str) -> int:
    """Rounds a part holds whole: each round here is a user message and one final answer, the answer last."""
    return request.count("[assistant] Thought: done")


async def stop_after(engine: Engine, part: str) -> tuple[CompactionFinished, list]:
    """/compact keeping one round; esc (cancel_compaction) once the summary reports ``part`` under way."""
    events: list = []
    async for ev in engine.compact(keep_rounds=1):
        events.append(ev)
        if isinstance(ev, CompactionProgress) and part in ev.detail:
            engine.cancel_compaction()
    return next(e for e in events if isinstance(e, CompactionFinished)), events


async def test_esc_after_two_parts_keeps_their_summary_and_truncates_only_the_rounds_they_did_not_reach(
        tmp_path: Path):
    root, writer = recorded_project(tmp_path)
    agent = Summariser(hold=3)
    async with six_turns(root, agent, writer) as (srv, engine):
        card, _ = await stop_after(engine, "part 3 of")
        agent.gate.set()
        total = int(PART.search(agent.asked[0]).group(2))
        summarised = whole_rounds_in(agent.asked[0]) + whole_rounds_in(agent.asked[1])
        assert total >= 3 and 1 <= summarised < 5         # the case asked for: some rounds summarised, some not
        assert card.fallback is None and card.parts == (2, total)
        assert card.rounds_archived == 5 and card.rounds_truncated == 5 - summarised
        record = engine.compactions[-1]
        assert (record.parts, record.rounds_truncated) == ((2, total), 5 - summarised)
        assert record.stopped() == f"stopped: 2 of {total} parts kept; {summarised} round{'s' * (summarised > 1)} " \
                                   f"summarised, {5 - summarised} truncated"
        assert record.loss_ledger is not None and record.loss_ledger.total    # the ledger of what was lost
        summary, *rest = engine.history.messages
        assert summary.role == "summary" and "PART-1-DONE" in summary.content and "PART-2-DONE" in summary.content
        assert "Part 2 of 2 of the archived history (not merged)" in summary.content
        assert summary.meta["rounds_archived"] == summarised
        assert [m.content.split(":")[0] for m in rest if m.role == "user"] == ["turn 5"]
        # The next call sends the summary, and tells the model the rounds after it went without one.
        await run(engine, "go on")
        sent = srv.requests[-1]["messages"]
        said = json.dumps(sent)
        assert sent[1]["role"] == "system" and "PART-1-DONE" in sent[1]["content"]
        gone = 5 - summarised
        assert ("The round after the last summary above was" if gone == 1 else
                f"The {gone} rounds after the last summary above were") + " removed without a summary" in said
        assert f"turn {summarised}: keep this log" not in said and "turn 5: keep this log" in said
    await writer.close()
    lines = [json.loads(line) for line in writer.path.read_text().splitlines()]
    boundary = next(e for e in lines if e.get("subtype") == "compact_boundary")
    assert boundary["fallback"] is None and boundary["compactMetadata"]["partsKept"] == 2     # read whole by old builds
    assert boundary["compactMetadata"]["roundsTruncated"] == 5 - summarised
    assert any(e.get("isCompactSummary") and "PART-1-DONE" in e["message"]["content"] for e in lines)


async def test_a_resumed_session_shows_the_kept_parts_summary_and_owes_the_model_the_truncation_note(tmp_path: Path):
    root, writer = recorded_project(tmp_path)
    agent = Summariser(hold=2)
    async with six_turns(root, agent, writer) as (srv, engine):
        card, _ = await stop_after(engine, "part 2 of")
        await writer.close()
        loaded = load_session(writer.path)
        assert [m.content for m in loaded.history] == [m.content for m in engine.history.messages]
        assert loaded.history[0].role == "summary" and "PART-1-DONE" in loaded.history[0].content
        assert loaded.compactions[-1].stopped() == engine.compactions[-1].stopped()
        assert loaded.cut == Truncation(card.rounds_truncated,
                                        f"the user stopped the summary after 1 of {card.parts[1]} parts", True,
                                        engine.compactions[-1].partly)
        provider = make_provider(engine.config, base_delay=0.01, max_delay=0.05)
        resumed = Engine(engine.config, provider)
        try:
            restore_into(resumed, loaded)
            await run(resumed, "go on")
        finally:
            await provider.aclose()
        said = json.dumps(srv.requests[-1]["messages"])
        assert "PART-1-DONE" in said and "rounds after the last summary above were removed" in said


async def test_esc_before_any_part_is_finished_falls_back_to_truncation_as_before(tmp_path: Path):
    agent = Summariser(hold=1)
    async with six_turns(tmp_path, agent) as (srv, engine):
        card, _ = await stop_after(engine, "part 1 of")
    assert card.fallback == CANCELLED_MESSAGE and card.parts is None and card.rounds_truncated == 0
    assert not engine.history.summaries and engine.compactions[-1].stopped() == ""


async def test_the_turn_stopped_right_after_esc_is_stopped_and_the_compaction_abandoned(tmp_path: Path):
    """Esc on the summary, then the turn itself stopped before the compaction is applied (ctrl+c, quitting): the
    turn's stop is not swallowed as the compaction's (the turn went on), and history stays whole as whenever a
    stopped run abandons a compaction."""
    import asyncio
    agent = Summariser(hold=2)
    with FakeLLMServer("openai", responder=agent, max_context_tokens=WINDOW) as srv:
        config = make_config(tmp_path, srv.base_url, context_window=WINDOW, auto_compact=False)
        provider = make_provider(config, base_delay=0.01, max_delay=0.05)
        engine = Engine(config, provider)
        seen: list = []

        async def compact() -> None:
            async for ev in engine.compact(keep_rounds=1):
                seen.append(ev)
                if isinstance(ev, CompactionProgress) and "part 2 of" in ev.detail:
                    engine.cancel_compaction()
                    task.cancel()
        try:
            for turn in range(6):
                await run(engine, f"turn {turn}: keep this log in mind\n{PASTE}")
            before = list(engine.history.messages)
            task = asyncio.ensure_future(compact())
            await asyncio.wait({task}, timeout=20)
            assert task.cancelled()
            assert engine.history.messages == before and not engine.compactions
            assert not any(isinstance(ev, CompactionFinished) for ev in seen)
        finally:
            agent.gate.set()
            await provider.aclose()


async def test_esc_while_the_rounds_are_chosen_stops_the_summary_before_it_is_asked(tmp_path: Path):
    """Esc comes before the summary call starts (the modal shows 'choosing rounds'): it was forgotten there, the
    modal said 'stopping' and the whole summary was made all the same."""
    agent = Summariser(hold=99)
    async with six_turns(tmp_path, agent) as (srv, engine):
        card, _ = await stop_after(engine, "archiving 5 rounds")
    assert card.fallback == CANCELLED_MESSAGE and agent.asked == []


async def test_esc_during_the_merge_of_the_parts_keeps_them_all_and_truncates_nothing(tmp_path: Path):
    agent = Summariser(hold=100)
    async with six_turns(tmp_path, agent) as (srv, engine):
        card, _ = await stop_after(engine, "merging 3 partial summaries")
    assert card.fallback is None and card.parts == (3, 3) and card.rounds_truncated == 0
    assert engine.compactions[-1].stopped() == "stopped: 3 of 3 parts kept; 5 rounds summarised, 0 truncated"
    assert all(f"PART-{i}-DONE" in engine.history.summaries[0].content for i in (1, 2, 3))


# ---- a later part that times out or fails keeps the finished parts, as esc does (seed 002 E2: nothing summarised
# is lost); before, every finished part was thrown away and all the archived rounds were truncated

async def test_a_later_part_that_times_out_keeps_the_finished_parts_and_says_so_everywhere(tmp_path: Path):
    from contextual.core.export import transcript
    from contextual.headless import progress_line
    root, writer = recorded_project(tmp_path)
    agent = Summariser(hold=2)                     # part 2 never answers (until the test ends): its deadline ends it
    # 3 s (not 1 s): on a loaded machine part 1 must still be answered within its own deadline
    async with six_turns(root, agent, writer, summary_timeout=3.0) as (srv, engine):
        card = next(e for e in [ev async for ev in engine.compact(keep_rounds=1)] if isinstance(e, CompactionFinished))
        total = int(PART.search(agent.asked[0]).group(2))
        summarised = whole_rounds_in(agent.asked[0])
        assert card.fallback is None and card.parts == (1, total) and card.ended == "timed out"
        assert card.rounds_truncated == 5 - summarised
        record = engine.compactions[-1]
        assert record.stopped() == (f"timed out: 1 of {total} parts kept; {summarised} round{'s' * (summarised > 1)} "
                                    f"summarised, {5 - summarised} truncated")
        assert progress_line(card).endswith(f" tokens — {record.stopped()}")        # -p's stderr line
        summary = engine.history.messages[0]
        assert summary.role == "summary" and "PART-1-DONE" in summary.content
        await run(engine, "go on")
        said = json.dumps(srv.requests[-1]["messages"])
        assert "PART-1-DONE" in said and f"(the summary timed out after 1 of {total} parts)" in said
    await writer.close()
    boundary = next(json.loads(line) for line in writer.path.read_text().splitlines() if "compact_boundary" in line)
    assert boundary["fallback"] is None and boundary["compactMetadata"]["partsEnded"] == "timed out"
    loaded = load_session(writer.path)
    assert loaded.compactions[-1] == record          # read back whole: the card of /compactions says the same
    written = (f"compacted (manual): trigger estimate {record.pre_tokens:,} → {record.post_tokens:,} tokens, "
               f"{record.stopped()}")
    assert written in transcript(loaded)          # the chat's line, its figures written out


async def test_a_later_part_that_fails_keeps_the_finished_parts_and_names_the_failure(tmp_path: Path):
    agent = Summariser(hold=3, fault=Fault("400", message="bad part"))      # not a fault a retry cures
    async with six_turns(tmp_path, agent) as (srv, engine):
        card = next(e for e in [ev async for ev in engine.compact(keep_rounds=1)] if isinstance(e, CompactionFinished))
        assert card.fallback is None and card.parts is not None and card.parts[0] == 2
        assert card.ended.startswith("failed (") and "bad part" in card.ended
        assert engine.compactions[-1].stopped().startswith(f"{card.ended}: 2 of ")
        assert all(f"PART-{i}-DONE" in engine.history.summaries[0].content for i in (1, 2))


async def test_a_merge_of_the_parts_that_fails_keeps_them_all_and_truncates_nothing(tmp_path: Path):
    agent = Summariser(hold=100, fault=Fault("400", message="bad merge"))
    async with six_turns(tmp_path, agent) as (srv, engine):
        card = next(e for e in [ev async for ev in engine.compact(keep_rounds=1)] if isinstance(e, CompactionFinished))
    assert card.fallback is None and card.parts == (3, 3) and card.rounds_truncated == 0
    assert all(f"PART-{i}-DONE" in engine.history.summaries[0].content for i in (1, 2, 3))


def test_one_part_in_all_is_counted_as_one_part():
    """A summary of one part whose merge timed out read "1 of 1 parts kept" on the card, the chat and /compactions
    at 4k (helper-96, tmux)."""
    from contextual.core.context.compaction_words import outcome
    assert outcome(1, (1, 1), 0, "timed out") == "timed out: 1 of 1 part kept; 1 round summarised, 0 truncated"
    assert outcome(5, (2, 3), 3) == "stopped: 2 of 3 parts kept; 2 rounds summarised, 3 truncated"
    assert outcome(1, (1, 3), 1, "timed out") == "timed out: 1 of 3 parts kept, no whole round in them; 1 round truncated"


# ---- esc inside one large round: its start is in the kept part, and the model is told so (a user review,
# helper-130: "what it held is not above", right under the part's summary of it)
class OneLongRound(Summariser):
    """The agent's first turn reads the four logs (one round of ten messages); every other call as Summariser."""

    def __init__(self, hold: int) -> None:
        super().__init__(hold)
        self.steps = [f'Thought: read\nAction: Read[{{"file_path": "log{i}.txt"}}]' for i in range(4)]

    def __call__(self, body: dict) -> Reply | Fault:
        if "Archived Session Summary" not in str(body["messages"][0]["content"]) and self.steps:
            return Reply(self.steps.pop(0))
        return super().__call__(body)


async def test_esc_inside_one_round_says_its_start_is_summarised_and_only_the_rest_removed(tmp_path: Path):
    root, writer = recorded_project(tmp_path)
    for i in range(4):
        (root / f"log{i}.txt").write_text(PASTE.replace(" row", "\nrow"))
    agent = OneLongRound(hold=2)
    with FakeLLMServer("openai", responder=agent, max_context_tokens=WINDOW) as srv:
        config = make_config(root, srv.base_url, context_window=WINDOW, auto_compact=False)
        provider = make_provider(config, base_delay=0.01, max_delay=0.05)
        engine = Engine(config, provider, session=writer)
        try:
            await run(engine, "read the four logs")
            await run(engine, "and now?")
            card, _ = await stop_after(engine, "part 2 of")
            agent.gate.set()
            record = engine.compactions[-1]
            assert card.rounds_archived == 1 and card.rounds_truncated == 1 and card.parts[0] == 1, card
            assert record.partly and "no whole round in them" in record.stopped()
            assert "PART-1-DONE" in engine.history.messages[0].content
            await run(engine, "go on")
        finally:
            agent.gate.set()
            await provider.aclose()
    said = json.dumps(srv.requests[-1]["messages"])
    assert "PART-1-DONE" in said
    assert ("The round after the last summary above is summarised there only in part (the user stopped the "
            f"summary after 1 of {card.parts[1]} parts): the rest of it was removed without a summary") in said
    assert "what it held is not above" not in said
    await writer.close()
    assert load_session(writer.path).compactions[-1].partly         # read back: a resumed session says it too

