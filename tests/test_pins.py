"""Pins: messages marked "keep" are never archived; the session remembers them (issue 19.3)."""

from __future__ import annotations

from contextual.core.session.schema import CompactionRecord
from contextual.core.context.history import HistoryManager, apply_compaction, plan_compaction, rounds
from contextual.core.context.pairing import unit_of
from contextual.core.context.pins import Pins, pinned_form, protect, summary_note
from contextual.core.messages import Message
from contextual.core.session import SessionWriter, load_session


from tests.history_helpers import rounds_of_reads as _history


def test_pinning_an_observation_pins_its_step_and_unpinning_frees_both():
    history = _history()
    obs = history[2]
    assert unit_of(history, obs.id) == {history[1].id, obs.id}
    pins = Pins()
    assert pins.toggle(history, obs.id) is True
    assert pins.ids == {history[1].id, obs.id}
    assert pins.toggle(history, history[1].id) is False and not pins
    assert pins.toggle(history, history[0].id) is True and pins.ids == {history[0].id}   # a user message alone
    assert pins.toggle(history, "no-such-id") is False


def test_summaries_are_not_pinnable_and_pins_of_gone_messages_are_forgotten():
    summary = Message("summary", "earlier work")
    history = [summary, *_history(1)]
    pins = Pins()
    assert pins.toggle(history, summary.id) is False and not pins
    pins.toggle(history, history[1].id)
    pins.prune(history[2:])
    assert not pins


def test_a_compaction_keeps_pinned_messages_after_the_summaries_in_their_order():
    history = HistoryManager(_history(4))
    pins = Pins()
    old_obs, old_user = history.messages[2], history.messages[4]      # round 0's observation, round 1's task
    pins.toggle(history.messages, old_obs.id)
    pins.toggle(history.messages, old_user.id)
    plan = protect(plan_compaction(history.messages, keep_rounds=2), pins)
    assert [m.id for m in plan.kept[:3]] == [history.messages[1].id, old_obs.id, old_user.id]
    assert not {m.id for m in plan.archive} & pins.ids
    summary = Message("summary", "summary of rounds 0-1")
    history.messages = apply_compaction(history.messages, summary, plan.kept[3].id, pins.ids)
    assert history.messages[0] is summary
    assert [m.id for m in history.messages[1:4]] == [plan.kept[0].id, old_obs.id, old_user.id]
    # The next compaction still keeps them: pins hold across compactions.
    again = protect(plan_compaction(history.messages, keep_rounds=1), pins)
    assert pins.ids <= {m.id for m in again.kept}


def test_nothing_to_summarise_when_every_archived_message_is_pinned():
    history = _history(2)
    pins = Pins()
    for m in history[:4]:
        pins.ids.add(m.id)
    assert protect(plan_compaction(history, keep_rounds=1), pins) is None
    plan = plan_compaction(history, keep_rounds=1)
    assert protect(plan, Pins()) is plan


def test_the_summary_prompt_note_names_each_pinned_message():
    history = _history(1)
    note = summary_note([history[0], history[2]])
    assert "pinned" in note and "[user message] task 0" in note
    assert "[Read src/m0.py observation step 1]" in note
    assert summary_note([]) == ""
    assert pinned_form(history[2]) == '{"data":"whole file 0"}'      # an observation is sent whole
    assert pinned_form(history[0]) == "task 0"


async def test_the_session_restores_pins_and_the_pinned_messages_a_compaction_kept(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    writer = SessionWriter.create(tmp_path / "home", root, session_id="pins1")
    messages = _history(3)
    for m in messages:
        writer.append_message(m)
    pins = Pins()
    pins.toggle(messages, messages[2].id)
    writer.append_pins(sorted(pins.ids))
    plan = protect(plan_compaction(messages, keep_rounds=1), pins)
    summary = Message("summary", "rounds 0-1 in short")
    first_kept = messages[8]                            # round 2's user message
    writer.append_compaction(CompactionRecord("manual", 900, 300, kept_from_id=first_kept.id, 
                                              pinned_ids=tuple(m.id for m in plan.kept if m.id in pins)),
                             summary)
    await writer.close()

    loaded = load_session(writer.path)
    assert sorted(loaded.pins) == sorted(pins.ids)
    assert [m.id for m in loaded.history] == [summary.id, messages[1].id, messages[2].id,
                                              *(m.id for m in messages[8:])]
    assert len(rounds(loaded.history)) == 2       # the pinned pair joins the first round; nothing else came back
    assert not loaded.warnings


def test_a_pin_that_would_hold_more_than_a_quarter_of_the_window_is_refused_with_why():
    """Pinned messages go whole and are never archived: a 12k-token result pinned at an 8k window put every later
    prompt over the window for good (auto-compaction had nothing it could archive). Refused, it stays stored."""
    import pytest
    from contextual.core.context.pins import PinRefused
    from contextual.core.tokens import count
    history = _history()
    from dataclasses import replace
    big = replace(history[2], full="[ok]\n" + "\n".join(f"value_{i} = compute_{i}({i})" for i in range(1_500)))
    history[2] = big
    pins = Pins()
    with pytest.raises(PinRefused, match=r"more than a quarter of the 8,000-token window \(2,000\)"):
        pins.toggle(history, big.id, count, 8_000)
    assert not pins
    assert pins.toggle(history, big.id, count, 200_000) is True          # at 200k it fits
    small = Pins()
    assert small.toggle(history, history[0].id, count, 8_000) is True
    assert small.toggle(history, history[0].id, count, 8_000) is False   # unpinning is never refused
