"""The one fact extractor (issue 30) the loss ledger and the recall probe share: structure first, normalised keys,
deterministic matching — and none of the ledger's old noise (diff prefixes, argument names, enum values)."""

from __future__ import annotations

import json
import sys

from contextual.core.agent import Engine
from contextual.core.context.fact_match import Held, normalise_path
from contextual.core.context.facts import extract_facts
from contextual.core.context.ledger import REPAIR_HEADING, Ledger, loss_ledger, repaired
from contextual.core.events import CompactionFinished
from contextual.core.messages import Message
from contextual.core.providers.factory import make_provider
from contextual.core.session import SessionWriter
from tests.engine_helpers import finished, make_config, read_action, run
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.scripted_model import Model, answer
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
    assert held.holds(next(f for f in facts.values() if f.kind == "error" and "::test_retry" in f.text))
    assert held.holds(next(f for f in facts.values() if "public API" in f.text))   # most of its words
    assert not held.holds(next(f for f in facts.values() if "45 seconds" in f.text))
    assert normalise_path("a/src/x.py") == "src/x.py" and normalise_path("a.py") == "a.py"


def test_the_probe_counts_what_a_summary_keeps_and_the_repair_keeps_everything():
    archive, kept = ledger_session()
    empty = loss_ledger(archive, "", kept)
    total = empty.total
    assert total == len(extract_facts(archive, later=kept).facts) and empty.kept() < total
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


# --- through the real engine: what a compaction's probe counts on real tool results ---------------------------

def _engine(root, srv, home):
    config = make_config(root, srv.base_url, keep_rounds=1, permission_mode="bypass")
    return Engine(config, make_provider(config, base_delay=0.01, max_delay=0.05),
                  session=SessionWriter.create(home, root, session_id="facts"))


async def _compacted(root, home, answers, summary, turns):
    """Run `turns` on a real engine, compact keeping the last round, and return its recorded ledger."""
    model = Model(answers, summary=summary)
    with FakeLLMServer(kind="openai", responder=model) as srv:
        engine = _engine(root, srv, home)
        try:
            for text in turns:
                finished(await run(engine, text))
            events = [ev async for ev in engine.compact(keep_rounds=1)]
        finally:
            await engine.provider.aclose()
            await engine.recorder.session.close()
    assert any(isinstance(e, CompactionFinished) for e in events), events[-3:]
    ledger = engine.compactions[-1].loss_ledger
    assert ledger is not None
    return ledger


async def test_five_reads_give_a_few_facts_that_a_reasonable_summary_keeps(tmp_path):
    root, home = tmp_path / "proj", tmp_path / "home"
    (root / "billing").mkdir(parents=True)
    names = "abcde"
    for n in names:       # 25 definitions each: the old extractor counted every one as a fact
        (root / "billing" / f"{n}.py").write_text("".join(f"def rate_{n}_{i}(x):\n    return x * {i}\n\n"
                                                          for i in range(25)))
    summary = ("The user asked where rounding happens in the billing modules. I read billing/a.py, billing/b.py, "
               "billing/c.py, billing/d.py and billing/e.py; none of them rounds, they multiply.")
    ledger = await _compacted(root, home, [*(read_action(f"billing/{n}.py") for n in names), answer("none rounds"),
                                           answer("they multiply")], summary,
                              ["Read the five billing modules and tell me where rounding happens.",
                               "Thanks. Now explain it briefly."])
    assert ledger.total == 5 and ledger.kept() == 5, ledger.to_dict()     # the five files, nothing else
    assert ledger.score() == "keeps 5 of 5 facts"


async def test_an_edit_a_failing_test_and_its_fix_give_the_expected_facts(tmp_path):
    root, home = tmp_path / "proj", tmp_path / "home"
    root.mkdir()
    (root / "billing.py").write_text("def total(items):\n    return sum(items) / 100\n")
    (root / "test_billing.py").write_text("from billing import total\n\n\ndef test_total():\n"
                                          "    assert total([150, 250]) == 400\n")
    pytest_line = f"{sys.executable} -m pytest -q -p no:cacheprovider test_billing.py"
    run_tests = f'Thought: run the test\nAction: Bash[{json.dumps({"command": pytest_line})}]'
    edit = {"file_path": "billing.py", "old_string": "    return sum(items) / 100",
            "new_string": "    return sum_cents(items)\n\n\ndef sum_cents(items):\n    return int(sum(items))"}
    answers = [run_tests, f"Thought: fix it\nAction: Edit[{json.dumps(edit)}]", run_tests, answer("fixed"),
               answer("added")]
    ledger = await _compacted(root, home, answers, "Summary: work on billing.",
                              ["Fix the failing test in test_billing.py. Amounts must stay in integer cents.",
                               "Now add a docstring to sum_cents."])
    facts = {(f.kind, f.key): f for f in ledger.facts}
    assert set(facts) == {("path", "billing.py"), ("path", "test_billing.py"),
                          ("constraint", "amounts must stay in integer cents."),
                          ("error", "test_billing.py::test_total"), ("identifier", "sum_cents")}, sorted(facts)
    error = facts[("error", "test_billing.py::test_total")]
    assert error.text.endswith(f"— solved: `{pytest_line}` passed after changing billing.py")
    assert facts[("path", "billing.py")].line == "changed by Edit: billing.py"
    assert ledger.total == len(facts) and ledger.kept() == 0               # the summary named none of them




def test_a_messages_names_each_keep_the_first_line_that_shows_them():
    """What the loss ledger checks a summary against, for a user's message (its time on a long message, linear in
    the length since helper-78: benchmarks/bench_facts_scaling.py)."""
    from contextual.core.context.facts import _seen
    text = "see load_config and apply_discount\napply_discount again, then cart_total\nload_config last"
    seen = {name: line for name, line, _where in _seen(Message("user", text, meta={"turn": "t1", "raw": text}))}
    assert seen == {"load_config": "see load_config and apply_discount",
                    "apply_discount": "see load_config and apply_discount",
                    "cart_total": "apply_discount again, then cart_total"}
