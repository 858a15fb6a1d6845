"""Compaction's own rules (core/context/compaction.py): the trigger's minimum holds for manual compactions too, and
a compaction that archives without a summary always records why."""

from __future__ import annotations

from contextual.core.context import compaction
from contextual.core.context.file_analyzer import FileReport
from contextual.core.context.history import plan_compaction
from contextual.core.context.summary_outcome import SummaryResult
from contextual.core.context.trigger import MIN_MESSAGES
from contextual.core.messages import Message


def _rounds(n: int) -> list[Message]:
    return [m for i in range(n) for m in (Message("user", f"task {i}"), Message("assistant", f"done {i}"))]


def test_a_manual_compaction_below_the_trigger_minimum_is_refused_with_the_reason():
    history = _rounds(1)
    assert len(history) < MIN_MESSAGES
    plan, refused = compaction.plan(history, len(history), keep_rounds=0)
    assert plan is None and f"fewer than {MIN_MESSAGES} messages" in refused


async def test_an_empty_summary_archives_with_its_reason_recorded():
    class EmptySummary:          # the summary model answered, with nothing
        async def summarise(self, archive, **_):
            return SummaryResult("", ("a.py",), 1)

    plan = plan_compaction(_rounds(3), keep_rounds=1)
    outcome = await compaction.summarise(plan, "auto", EmptySummary(), FileReport([], []), None, lambda *_: None)
    assert outcome.summary is None and outcome.fallback == compaction.EMPTY_SUMMARY_MESSAGE


def test_an_undo_note_belongs_to_the_round_before_it_and_is_no_round_of_its_own():
    """/undo's note is a user-role message the app writes: counted as a round, the compaction dialog said "9 rounds
    in history" beside the Scratchpad's "Turn 8", and keep-N kept one round fewer of the user's (helper-59)."""
    from contextual.core.context.history import rounds
    note = Message("user", "[undo] The user undid the file changes of turn t1: restored a.py.", meta={"undo": "t1"})
    history = _rounds(2) + [note] + _rounds(1)
    assert [len(r) for r in rounds(history)] == [2, 3, 2]
    plan = plan_compaction(history, keep_rounds=1)
    assert plan is not None and plan.rounds_archived == 2 and note in plan.archive


async def test_a_compaction_with_no_model_to_summarise_is_refused_and_loses_no_round(tmp_path):
    """A session resumed in the app with no model configured: /compact fell back to archiving the rounds with no
    summary ("Summary generation failed (AttributeError…)"), losing them for a missing setting (helper-69)."""
    from contextual.core.agent import Engine
    from contextual.core.events import CompactionFinished
    from tests.engine_helpers import make_config
    engine = Engine(make_config(tmp_path, "http://127.0.0.1:9", model=None), None)
    for message in _rounds(8):
        engine.prompt.history.append(message)
    before = list(engine.history.messages)
    events = [ev async for ev in engine.compact(keep_rounds=1)]
    finished = [ev for ev in events if isinstance(ev, CompactionFinished)]
    assert finished and "a summary needs a model" in finished[-1].refused and "no model" in finished[-1].refused
    assert engine.history.messages == before and not engine.compactions
