"""Which compaction wrote which summary message: the one pairing the History pane (a summary's number) and
/export (a summary's header) both read.

The log holds every compaction, those cut without a summary (a fallback) too; summaries are paired with the
summarised ones from the newest back, so a history that keeps only the newest summaries (a merge leaves one) and
a full record that holds all of them are numbered alike."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from contextual.core.messages import Message

Record = TypeVar("Record")


def summary_records(messages: Sequence[Message], compactions: Sequence[Record]) -> dict[str, tuple[int, Record]]:
    """For each summary message's id: its compaction's number as /compactions gives it (from 1) and its record."""
    summarised = [(n, record) for n, record in enumerate(compactions, 1) if _summarised(record)]
    summaries = [m for m in messages if m.role == "summary"]
    return {m.id: pair for m, pair in zip(reversed(summaries), reversed(summarised))}


def _summarised(record: Any) -> bool:
    return getattr(record, "fallback", None) is None
