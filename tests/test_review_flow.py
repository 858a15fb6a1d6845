"""The compaction's issue-19 steps: pins leave the archive, the review round, the accepted text, the ledger."""

from __future__ import annotations

from dataclasses import dataclass

from contextual.core.context.compaction_review import ReviewDecision
from contextual.core.context.history import plan_compaction
from contextual.core.context.pins import Pins, protect
from contextual.core.context.review_flow import (ledger_of, pinned_in_archive, start_review, summary_instructions,
                                      with_text)
from contextual.core.messages import Message
from tests.history_helpers import rounds_of_reads as _history


@dataclass(frozen=True)
class Outcome:          # the shape of the engine's CompactionOutcome that these steps use
    plan: object
    summary: Message | None


def test_instructions_name_the_pins_after_the_users_own():
    history = _history(2)
    assert summary_instructions(None, []) is None
    assert summary_instructions("keep the API notes", []) == "keep the API notes"
    text = summary_instructions("keep the API notes", [history[0]])
    assert text.startswith("keep the API notes\n\n") and "[user message] task 0" in text


def test_held_pins_are_the_pinned_messages_of_the_archive():
    history = _history(3)
    pins = Pins()
    pins.toggle(history, history[2].id)
    original = plan_compaction(history, keep_rounds=1)
    held = pinned_in_archive(original, pins)
    assert held == [history[1].id, history[2].id]
    plan = protect(original, pins)
    assert [m.id for m in plan.kept[:3]] == [history[1].id, history[2].id, history[8].id]


async def test_a_review_round_waits_for_the_decision_and_the_accepted_text_is_stored():
    history = _history(3)
    plan = plan_compaction(history, keep_rounds=1)
    review = start_review("manual", plan, "Summary: task 0 and task 1.", attempt=1)
    review.event.decide(ReviewDecision.accept("Summary (edited): m0 and m1 were read."))
    review.event.decide(ReviewDecision.cancel())          # a second answer is ignored
    decision = await review.decision()
    assert decision.action == "accept"
    summary = Message("summary", "Summary: task 0 and task 1.", meta={"trigger": "manual"})
    stored = with_text(Outcome(plan, summary), decision.text)
    assert stored.summary.content == "Summary (edited): m0 and m1 were read."
    assert stored.summary.id == summary.id and stored.summary.meta == {"trigger": "manual", "edited": True}
    unchanged = Outcome(plan, summary)
    assert with_text(unchanged, summary.content) is unchanged


def test_the_ledger_counts_earlier_summaries_as_held():
    history = _history(3)
    plan = plan_compaction(history, keep_rounds=1)
    lost = {f.text for f in ledger_of(plan.archive, plan.kept, "", []).facts}
    assert "src/m0.py" in lost
    again = {f.text for f in ledger_of(plan.archive, plan.kept, "", [Message("summary", "read src/m0.py")]).facts}
    assert "src/m0.py" not in again
