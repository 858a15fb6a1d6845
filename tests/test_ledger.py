"""The loss ledger: what a compaction dropped, with where it came from (issue 19.2).

Extraction is checked on hand-made messages in the tools' real stored forms, and on the shared real
trajectories: a compaction over a trajectory's rounds lists the identifiers the summary lost.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from contextual.core.context.digest import looks_like_code
from contextual.core.context.history import plan_compaction
from contextual.core.context.ledger import Ledger, LostFact, loss_ledger, plain_text
from contextual.core.messages import Message
from contextual.core.replay.metrics import identifiers
from tests.history_helpers import trajectory_history
from tests.history_helpers import ledger_session as _session, read_call as _read, tool_call as _tool  # noqa: F401

# A trajectory in this repository (never a machine path: anywhere else the test would silently not run).
TRAJECTORIES = [Path(__file__).parent / "fixtures" / "replay" / "retry_cap.traj.json"]




def test_lists_each_kind_with_its_source_and_location():
    archive, kept = _session()
    ledger = loss_ledger(archive, "Summary: the bug is in src/net/http_client.py; pytest fails.", kept)
    by_text = {f.text: f for f in ledger.facts}
    # The user's constraint, as a sentence, from the user message.
    constraint = next(f for f in ledger.of_kind("constraint") if "public API" in f.text)
    assert constraint.source.role == "user" and constraint.source.message_id == archive[0].id
    assert "45" in {f.text for f in ledger.of_kind("number")}
    # An identifier seen in a Read: located at its file line.
    backoff = by_text["backoff_ms"]
    assert backoff.kind == "identifier"
    assert backoff.source.tool == "Read" and backoff.source.location == "src/net/http_client.py:4"
    assert backoff.source.step == 1 and "Read src/net/http_client.py:4 (step 1)" == backoff.source.label
    # The failing test's error line, located by its own path:line, from the Bash step.
    error = next(f for f in ledger.of_kind("error") if "ConnectionResetError" in f.text)
    assert error.source.tool == "Bash" and error.source.step == 2
    assert by_text["tests/test_http.py"].kind == "path"


def test_what_the_summary_or_kept_rounds_hold_is_not_lost():
    archive, kept = _session()
    ledger = loss_ledger(archive, "Summary: edited src/net/http_client.py, backoff_ms stays 250.", kept)
    texts = {f.text for f in ledger.facts}
    assert "src/net/http_client.py" not in texts          # the summary names it
    assert "backoff_ms" not in texts and "250" not in texts
    assert "fetch_with_retry" not in texts and "max_attempts" not in texts   # the kept rounds hold them
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
def test_on_real_trajectories_lists_the_identifiers_the_summary_lost(path):
    plan = plan_compaction(_history(path), keep_rounds=1)
    assert plan is not None and plan.rounds_archived == 1
    actions = [m for m in plan.archive if m.role == "assistant"]
    used = sorted({n for m in actions for n in identifiers(m.content) if looks_like_code(n) and "/" not in n})
    # A summary that remembers every other name the agent used and forgets the rest.
    remembered, forgotten = used[::2], used[1::2]
    summary = "Summary of earlier work: " + ", ".join(remembered)
    ledger = loss_ledger(plan.archive, summary, plan.kept)

    held = identifiers(summary) | {n for m in plan.kept for n in identifiers(plain_text(m))}
    archived = "\n".join(plain_text(m) for m in plan.archive)
    listed = {f.text for f in ledger.facts}
    for fact in ledger.facts:
        assert fact.text.rstrip("…") in " ".join(archived.split()) or fact.text in archived
        assert fact.source.message_id in {m.id for m in plan.archive}
    for fact in ledger.of_kind("identifier"):
        assert fact.text not in held
    assert not listed & set(remembered)
    held_text = summary + "\n".join(plain_text(m) for m in plan.kept)
    # (a path inside a longer path still held counts as held)
    lost_by_agent = {n for n in forgotten if n not in held and n not in held_text
                     and len(n) >= 4 and not (n.isalpha() and n.isupper())}
    assert lost_by_agent, "the summary forgot nothing: the check below would be empty"
    # Names the agent itself used rank first, so none of them is cut by the cap.
    missing = {n for n in lost_by_agent - listed if not any(n in f.text for f in ledger.facts)}
    assert not missing, sorted(missing)[:10]
