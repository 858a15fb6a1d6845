"""The loss ledger: what a compaction dropped, with where it came from (issue 19.2).

Extraction is checked on hand-made messages in the tools' real stored forms, and on the shared real
trajectories: a compaction over a trajectory's rounds lists the identifiers the summary lost.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from contextual.core.context.names import looks_like_code
from contextual.core.context.history import plan_compaction
from contextual.core.context.ledger import Ledger, LostFact, loss_ledger, plain_text
from contextual.core.messages import Message
from contextual.core.replay.metrics import identifiers
from tests.history_helpers import trajectory_history
from tests.history_helpers import ledger_session as _session, read_call as _read, tool_call as _tool  # noqa: F401

# A trajectory in this repository (never a machine path: anywhere else the test would silently not run).
TRAJECTORIES = [Path(__file__).parent / "fixtures" / "replay" / "retry_cap.traj.json"]


def of_kind(ledger: Ledger, kind: str) -> list[LostFact]:
    return [f for f in ledger.facts if f.kind == kind]


def test_lists_each_kind_with_its_source_and_location():
    archive, kept = _session()
    ledger = loss_ledger(archive, "Summary: the bug is in src/net/http_client.py; pytest fails.", kept)
    by_text = {f.text: f for f in ledger.facts}
    # The user's constraint, as a sentence, from the user message.
    constraint = next(f for f in of_kind(ledger, "constraint") if "public API" in f.text)
    assert constraint.source.role == "user" and constraint.source.message_id == archive[0].id
    assert any("45 seconds" in f.text for f in of_kind(ledger, "constraint")) and not of_kind(ledger, "number")
    # A name seen in a Read that the later round still uses: located at its file line.
    backoff = by_text["backoff_ms"]
    assert backoff.kind == "identifier"
    assert backoff.source.tool == "Read" and backoff.source.location == "src/net/http_client.py:4"
    assert backoff.source.step == 1 and "Read src/net/http_client.py:4 (step 1)" == backoff.source.label
    # The failing test's error line, located by its own path:line, from the Bash step.
    error = next(f for f in of_kind(ledger, "error") if "tests/test_http.py::test_retry" in f.text)
    assert error.source.tool == "Bash" and error.source.step == 2
    assert by_text["tests/test_http.py"].kind == "path"


def test_what_the_summary_or_kept_rounds_hold_is_not_lost():
    archive, kept = _session()
    ledger = loss_ledger(archive, "Summary: edited src/net/http_client.py, backoff_ms stays 250.", kept)
    texts = {f.text for f in ledger.facts}
    assert "src/net/http_client.py" not in texts          # the summary names it
    assert "backoff_ms" not in texts and "250" not in texts
    assert "fetch_with_retry" not in texts and "max_attempts" not in texts   # no later round writes them
    assert "tests/test_http.py" in texts                   # nobody holds it any more
    # Earlier summaries still in the prompt count as held too.
    again = loss_ledger(archive, "", kept, also_held=["tests/test_http.py failed in test_retry"])
    assert "tests/test_http.py" not in {f.text for f in again.facts}


def test_round_trips_through_its_stored_dict_and_makes_a_reminder():
    archive, kept = _session()
    ledger = loss_ledger(archive, "", kept)
    restored = Ledger.from_dict(ledger.to_dict())
    assert restored == ledger
    fact = next(f for f in restored.facts if f.text == "backoff_ms")
    reminder = fact.reminder()
    assert reminder.startswith("<system-reminder>") and reminder.endswith("</system-reminder>")
    assert "backoff_ms" in reminder and "Read src/net/http_client.py:4" in reminder
    assert "backoff_ms = 250" in reminder           # the whole line it came from
    assert LostFact.from_dict(fact.to_dict()) == fact
    assert Ledger.from_dict(None) == Ledger((), {})


def _history(path: Path) -> list[Message]:
    return trajectory_history(path)[1]


@pytest.mark.parametrize("path", TRAJECTORIES, ids=lambda p: p.name.split(".")[0])
def test_on_real_trajectories_lists_the_names_later_rounds_use_that_the_summary_lost(path):
    plan = plan_compaction(_history(path), keep_rounds=1)
    assert plan is not None and plan.rounds_archived == 1
    later = [m for m in plan.kept if m.role == "assistant"]
    written_later = {n for m in later for n in identifiers(m.content) if looks_like_code(n) and "/" not in n}
    seen = {n for m in plan.archive for n in identifiers(plain_text(m))}
    carried = sorted(written_later & seen)
    assert carried, "no name crosses the rounds: the check below would be empty"
    # A summary that remembers every other name the later round uses and forgets the rest.
    remembered, forgotten = carried[::2], carried[1::2]
    ledger = loss_ledger(plan.archive, "Summary of earlier work: " + ", ".join(remembered), plan.kept)
    archived = "\n".join(plain_text(m) for m in plan.archive)
    for fact in ledger.facts:
        assert fact.text.split(" — solved: ")[0].rstrip("…") in " ".join(archived.split()) or fact.text in archived
        assert fact.source.message_id in {m.id for m in plan.archive}
    names = {f.text for f in of_kind(ledger, "identifier")}
    assert not names & set(remembered)
    assert {n for n in forgotten if len(n) >= 4 and not (n.isalpha() and n.isupper())} <= names
    # Only names a later round writes: a name the archive shows and nobody writes again is no fact.
    assert names <= written_later | {n for m in plan.archive if m.role in ("user", "assistant")
                                     for n in identifiers(m.content)}
