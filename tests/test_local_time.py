"""Times are stored in UTC (core/clock.now_iso) and shown in the user's own time zone: /resume's list and a turn's
name in /undo and `contextual undo` showed the stored UTC hour as if it were local."""

from __future__ import annotations

import time
from datetime import datetime

import pytest

from contextual.core.clock import local_minutes
from contextual.core.messages import Message
from contextual.core.snapshot.undo import turn_label
from contextual.tui.screens.session_picker import when


@pytest.fixture
def in_tokyo(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Tokyo")       # UTC+9 all year: no daylight saving to reason about
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_a_stored_time_is_shown_in_the_local_time_zone(in_tokyo):
    assert local_minutes("2026-11-27T23:30:05.123Z") == "2026-11-28 08:30"
    assert when("2026-11-27T23:30:05.123Z", now=datetime(2026, 12, 1)) == "11-28 08:30"
    assert when("2025-12-31T20:00:00.000Z", now=datetime(2026, 12, 1)) == "01-01 05:00"     # 2026 there
    assert when("2025-12-31T20:00:00.000Z", now=datetime(2027, 1, 2)) == "2026-01-01 05:00"
    message = Message("user", "fix it", meta={"turn": "t1", "timestamp": "2026-11-27T23:30:05.123Z"})
    assert turn_label("t1", [message]) == "“fix it” (08:30)"


def test_text_that_is_not_a_time_comes_back_as_written():
    assert local_minutes("not a time at all") == "not a time at all"[:16]
    assert local_minutes("2026-11-27T07:36") == "2026-11-27 07:36"      # no zone: taken as written
