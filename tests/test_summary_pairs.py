"""One pairing of summaries with the compactions that wrote them, read by the History pane and by /export."""

from __future__ import annotations

from contextual.core.context.summary_pairs import summary_records
from contextual.core.messages import Message
from contextual.core.session.schema import CompactionRecord
from contextual.tui.widgets.history_view import summary_numbers

LOG = [CompactionRecord("auto", 9000, 2000), CompactionRecord("auto", 9000, 9000, fallback="summary timed out"),
       CompactionRecord("manual", 7000, 1500), CompactionRecord("auto", 8000, 1800)]


def summary(n: int) -> Message:
    return Message("summary", f"## Summary {n}")


def test_the_full_record_pairs_every_summary_and_skips_the_compaction_cut_without_one():
    first, third, fourth = summary(1), summary(3), summary(4)
    record = [first, Message("user", "q"), third, Message("user", "q2"), fourth]
    pairs = summary_records(record, LOG)
    assert pairs == {first.id: (1, LOG[0]), third.id: (3, LOG[2]), fourth.id: (4, LOG[3])}


def test_a_history_holding_only_the_newest_summaries_is_numbered_as_the_full_record_is():
    third, fourth = summary(3), summary(4)
    assert summary_numbers([third, Message("user", "q"), fourth], LOG) == {third.id: 3, fourth.id: 4}
    merged = summary(5)           # a merge leaves one summary, the newest compaction's
    assert summary_numbers([merged], LOG) == {merged.id: 4}
