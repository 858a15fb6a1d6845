"""A compaction's summary request tried again is said, as a turn's call is (tests/test_retries_shown.py): on the
compaction's card while it runs, on `-p`'s stderr and as a `retrying` line of stream-json (`"call": "summary"`).
Before, the card sat on "asking the summary model" through every wait in silence, and -p said nothing."""

from __future__ import annotations

import json
from pathlib import Path

from contextual.tui.app import ContextualApp
from contextual.tui.screens.compaction import CompactionModal
from tests.cli_helpers import cli_env, contextual, home_of
from tests.fakes.llm_server import Fault, FakeLLMServer, Reply
from tests.fakes.scripted_model import SUMMARY_TEXT, Model, answer
from tests.tui_helpers import SIZE, chat_text, finish, make_host, run_turn, type_and_send, wait_for

SUMMARY = "## Summary\nThe user asked two questions about the cart; both were answered."
SAID = "retrying the summary 2/5 in 1s (Retry-After): HTTP 503 Service Unavailable"


async def test_the_card_says_the_summary_requests_retry_and_the_compaction_lands(tmp_path, monkeypatch):
    monkeypatch.setattr(CompactionModal, "AUTO_CONTINUE_S", 600.0)     # the card stays to be read
    # Window 4000, one round kept: the second answer reports 3500 prompt tokens, so the third input compacts first
    script = [finish("first answer"), Reply(finish("second answer"), usage_input=3500),
              Fault("503", retry_after=1), Reply(SUMMARY), finish("third answer")]
    with FakeLLMServer(kind="openai", script=script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=4000, keep_rounds=1), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "question one")
            await run_turn(pilot, "question two")
            await type_and_send(pilot, "question three")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal))
            card = app.screen
            figures = card.query_one("#compaction-figures")
            await wait_for(pilot, lambda: SAID in str(figures.render()))    # the wait: a second at least
            await wait_for(pilot, lambda: card.result is not None)
            assert not card.result.fallback and card.result.rounds_archived == 1
            assert "retrying" not in str(figures.render())
            assert str(card.query_one("#compaction-stage").render()).startswith("Done\n")
            await wait_for(pilot, lambda: not app.turns.running)
            summaries = [m for m in app.engine.history.messages if m.role == "summary"]
            assert len(summaries) == 1 and "both were answered." in summaries[0].content
            assert len(srv.requests) == 5 and "third answer" in chat_text(app)


def test_print_mode_says_the_summary_requests_retry_on_stderr_and_in_stream_json(project: Path):
    model = Model([Reply(answer("one"), usage_input=300, usage_output=10),
                   Reply(answer("two"), usage_input=19_000, usage_output=10), answer("three")],
                  summary=[Fault("503", retry_after=1), SUMMARY_TEXT])
    with FakeLLMServer(kind="openai", responder=model) as srv:
        env = cli_env(home_of(project), srv.base_url, CONTEXTUAL_CONTEXT_WINDOW="20000")
        for index, prompt in enumerate(["alpha", "beta"]):
            first = contextual(["-p", prompt, "--keep-rounds", "1"] + (["--continue"] if index else []), project, env)
            assert first.returncode == 0, first.stderr
        result = contextual(["-p", "gamma", "--keep-rounds", "1", "--continue", "--output-format", "stream-json"],
                            project, env)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    compacting = next(i for i, line in enumerate(lines) if line.startswith("compacting (auto)"))
    retried = lines.index(SAID)
    landed = next(i for i, line in enumerate(lines) if line.startswith("compacted:"))
    assert compacting < retried < landed and "fell back" not in lines[landed].lower(), result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    retries = [e for e in events if e["type"] == "retrying"]
    assert [(e["call"], e["attempt"], e["attempts"], e["reason"]) for e in retries] == [
        ("summary", 2, 5, "HTTP 503 Service Unavailable")]
    assert len(model.summary_requests) == 2 and events[-1]["type"] == "result" and events[-1]["result"] == "three"
    assert "SUMMARY-MARKER-z9" in json.dumps(model.turn_requests[-1])       # the next call carries the summary
