"""The one fact extractor (issue 30) the loss ledger and the recall probe share: structure first, normalised keys,
deterministic matching — and none of the ledger's old noise (diff prefixes, argument names, enum values)."""

from __future__ import annotations

from contextual.core.context.facts import Held, extract_facts, normalise_path
from contextual.core.context.ledger import REPAIR_HEADING, Ledger, loss_ledger, repaired
from contextual.core.messages import Message
from tests.history_helpers import ledger_session, tool_call


def _noisy_archive() -> list[Message]:
    diff = ("diff --git a/src/app/cache.py b/src/app/cache.py\n--- a/src/app/cache.py\n+++ b/src/app/cache.py\n"
            "@@ -1,2 +1,2 @@\n-TTL = 30\n+TTL = 60\n")
    return [Message("user", "Make the cache TTL configurable. We decided to use seconds, not minutes."),
            *tool_call("Edit", {"file_path": "src/app/cache.py", "old_string": "TTL = 30",
                                "new_string": "def cache_ttl_seconds():\n    return 60\n"},
                       {"path": "src/app/cache.py", "diff": diff}, 1),
            *tool_call("TodoWrite", {"todos": [{"content": "wire the setting", "status": "in_progress"}]},
                       {"todos": []}, 2),
            *tool_call("Bash", {"command": "git diff"}, {"command": "git diff", "exit_code": 0, "stdout": diff,
                                                          "stderr": ""}, 3)]


def test_structure_first_without_the_old_noise():
    texts = {(f.kind, f.text) for f in extract_facts(_noisy_archive()).facts}
    assert ("path", "src/app/cache.py") in texts                          # from the call and the diff, once
    assert not any(t.startswith(("a/", "b/")) for _, t in texts)          # no diff prefixes
    for noise in ("file_path", "old_string", "new_string", "in_progress", "todos"):
        assert not any(noise in t for _, t in texts), noise                # no argument names or enum values
    assert ("identifier", "cache_ttl_seconds") in texts                   # what the edit defines
    assert ("constraint", "We decided to use seconds, not minutes.") in texts   # the user's own sentence


def test_matching_is_normalised_and_deterministic():
    facts = {f.text: f for f in extract_facts(ledger_session()[0]).facts}
    held = Held(["Edited `./src/net/http_client.py`; pytest failed with a connectionreseterror in "
                 "tests/test_http.py::test_retry. The user said: don't change the public API of http_client.py."])
    assert held.holds(facts["src/net/http_client.py"])                     # ./ and backticks normalised away
    assert held.holds(next(f for f in facts.values() if f.kind == "error" and "Reset" in f.text))
    assert held.holds(next(f for f in facts.values() if "public API" in f.text))   # most of its words
    assert not held.holds(next(f for f in facts.values() if "45 seconds" in f.text))
    assert normalise_path("a/src/x.py") == "src/x.py" and normalise_path("a.py") == "a.py"


def test_the_probe_counts_what_a_summary_keeps_and_the_repair_keeps_everything():
    archive, kept = ledger_session()
    empty = loss_ledger(archive, "", kept)
    total = empty.total
    assert total == len(extract_facts(archive).facts) and empty.kept() < total
    summary = "Fixed src/net/http_client.py; tests/test_http.py::test_retry passes now."
    some = loss_ledger(archive, summary, kept)
    assert empty.kept() < some.kept() < total and some.score() == f"keeps {some.kept()} of {total} facts"
    fixed = repaired(summary, some)
    assert REPAIR_HEADING in fixed and loss_ledger(archive, fixed, kept).kept() == total
    assert repaired(fixed, loss_ledger(archive, fixed, kept)) == fixed      # nothing missing: unchanged
    stored = Ledger.from_dict(some.to_dict())
    assert stored == some and stored.recall() == {"kept": some.kept(), "total": total, "lost": some.lost()}
    # A ledger stored before the probe existed has no total: it counts its lost facts only.
    old = Ledger.from_dict({"facts": [f.to_dict() for f in some.facts], "omitted": {}})
    assert old.total == old.lost() and old.kept() == 0
