"""Compaction end to end (issue 4): `contextual -p` / `-p --continue` subprocesses against the fake servers.

The compaction is triggered purely by the usage figures the server reports (A6/C7: last usage + len(input)//3
≥ 0.8 × window), or by the server's context-length error; the request that follows must carry the summary
and the kept round, and not the archived one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contextual.core.prompt import SUMMARY_PREFIX
from contextual.prompts.agents_prompts.summary_prompt import SUMMARY_HEADING
from tests.cli_helpers import cli_env, contextual, home_of, session_files
from tests.fakes.llm_server import Fault, FakeLLMServer, Reply
from tests.fakes.scripted_model import (SUMMARY_TEXT, TIMEOUT_FALLBACK, Model, answer,  # noqa: F401
                                         is_summary_request, system_text)

# Unique words, so "the archived round is absent" cannot be fooled by the system prompt or the template.
ALPHA, BETA, GAMMA = "ALPHA-q7x1", "BETA-q7x2", "GAMMA-q7x3"
WINDOW = 20_000


def content_text(content: str | list[dict[str, Any]]) -> str:
    """An Anthropic message's text: a plain string or its text blocks joined."""
    return content if isinstance(content, str) else "\n\n".join(block.get("text", "") for block in content)


def wire_text(body: dict[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False)


def run_turns(project: Path, srv: FakeLLMServer, kind: str, turns: list[tuple[str, list[str]]], **env: str):
    """Each turn: (prompt, extra flags); the first starts a session, the others continue it."""
    environment = cli_env(home_of(project), srv.base_url, kind, CONTEXTUAL_CONTEXT_WINDOW=str(WINDOW), **env)
    results = []
    for index, (prompt, flags) in enumerate(turns):
        args = ["-p", prompt, "--keep-rounds", "1", *flags] + (["--continue"] if index else [])
        results.append(contextual(args, project, environment, timeout=30))
        assert results[-1].returncode == 0, results[-1].stderr
    return results


def session_entries(project: Path) -> list[dict[str, Any]]:
    files = session_files(home_of(project))
    assert len(files) == 1, files
    return [json.loads(line) for line in files[0].read_text().splitlines() if line.strip()]


def three_turns(high_usage_reply: str = answer("two")) -> list[str | Reply]:
    """alpha answered with small usage; beta reports a prompt near the window; gamma comes after."""
    return [Reply(answer("one"), usage_input=300, usage_output=10),
            Reply(high_usage_reply, usage_input=19_000, usage_output=10),
            answer("three")]


# ---- A6/C7: compaction triggered by the reported usage --------------------------------------------------
@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a6_usage_reported_by_the_server_triggers_compaction_and_the_next_request_carries_summary_and_kept_round(
        project: Path, kind: str):
    model = Model(three_turns() + [answer("four")])
    with FakeLLMServer(kind=kind, responder=model) as srv:
        results = run_turns(project, srv, kind, [(ALPHA, []), (BETA, []), (GAMMA, []), ("DELTA-q7x4", [])])
    assert [r.stdout for r in results] == ["one\n", "two\n", "three\n", "four\n"]
    assert "compacting (auto)" in results[2].stderr and "compacted:" in results[2].stderr
    assert len(model.summary_requests) == 1           # gamma's small usage does not trigger another one
    # A4: the session resumed after the compaction still omits the archived round.
    fourth = wire_text(model.turn_requests[-1])
    assert "DELTA-q7x4" in fourth and "SUMMARY-MARKER-z9" in fourth and ALPHA not in fourth
    summary_request = wire_text(model.summary_requests[0])
    assert ALPHA in summary_request and BETA not in summary_request      # only the archived round is summarised

    gamma = model.turn_requests[-2]
    sent = wire_text(gamma)
    assert GAMMA in sent and BETA in sent and ALPHA not in sent
    assert "SUMMARY-MARKER-z9" in sent and sent.count(SUMMARY_HEADING) == 1
    if kind == "openai":
        summaries = [m for m in gamma["messages"] if m["role"] == "system" and "SUMMARY-MARKER-z9" in m["content"]]
        assert len(summaries) == 1 and summaries[0]["content"].startswith(SUMMARY_PREFIX)
        assert gamma["messages"].index(summaries[0]) == 1                   # right after L1, before the kept round
    else:
        assert "SUMMARY-MARKER-z9" not in system_text(gamma)                 # a marked user message, not system
        first_user = gamma["messages"][0]
        assert first_user["role"] == "user"
        assert content_text(first_user["content"]).startswith(SUMMARY_PREFIX)

    entries = session_entries(project)
    boundaries = [e for e in entries if e.get("subtype") == "compact_boundary"]
    assert len(boundaries) == 1
    meta = boundaries[0]["compactMetadata"]
    assert meta["trigger"] == "auto" and isinstance(meta["filesIncluded"], list)
    assert meta["preTokens"] >= 19_000 and 0 < meta["postTokens"] < meta["preTokens"]
    summaries = [e for e in entries if e.get("isCompactSummary") is True]
    assert len(summaries) == 1 and "SUMMARY-MARKER-z9" in summaries[0]["message"]["content"]
    assert entries.index(boundaries[0]) < entries.index(summaries[0])


def test_a6_no_compaction_while_the_reported_usage_stays_below_the_threshold(project: Path):
    model = Model([Reply(answer("one"), usage_input=300), Reply(answer("two"), usage_input=14_000), answer("three")])
    with FakeLLMServer(kind="openai", responder=model) as srv:
        results = run_turns(project, srv, "openai", [(ALPHA, []), (BETA, []), (GAMMA, [])])
    assert not model.summary_requests and "compact" not in results[2].stderr
    assert ALPHA in wire_text(model.turn_requests[-1])
    # 14,010 + 3 ≥ 0.7 × 20,000 (the trigger: 14,600); in the meter's words, a share of the trigger line, not of the
    # window (it said "context at", a third name: helper-121; then "(70%, …" beside the meter's 96 %)
    said = results[2].stderr
    import re
    found = re.search(r"trigger estimate (14,0\d\d) of 14,600 trigger line \((\d+)%\): past the warning line at "
                      r"14,000 \(70% of the 20,000-token window\)", said)
    assert found and int(found.group(2)) == round(100 * int(found.group(1).replace(",", "")) / 14_600), said


def test_a4_a_second_compaction_appends_its_summary_and_never_resummarises_the_first(project: Path):
    first = SUMMARY_TEXT
    second = SUMMARY_TEXT.replace("SUMMARY-MARKER-z9", "SECOND-MARKER-k4")
    model = Model(three_turns(high_usage_reply=answer("two"))[:2]
                  + [Reply(answer("three"), usage_input=19_000, usage_output=10), answer("four")],
                  summary=[first, second])
    with FakeLLMServer(kind="openai", responder=model) as srv:
        results = run_turns(project, srv, "openai", [(ALPHA, []), (BETA, []), (GAMMA, []), ("DELTA-q7x4", [])])
    assert all("compacted:" in r.stderr for r in results[2:])
    assert len(model.summary_requests) == 2
    second_request = wire_text(model.summary_requests[1])
    assert BETA in second_request and "SUMMARY-MARKER-z9" not in second_request and ALPHA not in second_request
    delta = model.turn_requests[-1]["messages"]
    texts = [m["content"] for m in delta]
    assert [t.startswith(SUMMARY_PREFIX) for t in texts[1:3]] == [True, True]
    assert "SUMMARY-MARKER-z9" in texts[1] and "SECOND-MARKER-k4" in texts[2]      # oldest first, unchanged
    sent = wire_text(model.turn_requests[-1])
    assert GAMMA in sent and "DELTA-q7x4" in sent and ALPHA not in sent and BETA not in sent
    summaries = [e for e in session_entries(project) if e.get("isCompactSummary") is True]
    assert len(summaries) == 2


def test_a5_files_the_archived_round_read_go_into_the_summary_request_and_files_included(project: Path):
    (project / "notes.py").write_text("NOTES_CONTENT_r5 = 1\n")
    read = 'Thought: look\nAction: Read[{"file_path": "notes.py"}]'
    model = Model([read, Reply(answer("one"), usage_input=300), Reply(answer("two"), usage_input=19_000),
                   answer("three")])
    with FakeLLMServer(kind="openai", responder=model) as srv:
        run_turns(project, srv, "openai", [(ALPHA, []), (BETA, []), (GAMMA, [])])
    assert "NOTES_CONTENT_r5" in wire_text(model.summary_requests[0])
    [boundary] = [e for e in session_entries(project) if e.get("subtype") == "compact_boundary"]
    assert boundary["compactMetadata"]["filesIncluded"] == ["notes.py"]
    assert "NOTES_CONTENT_r5" not in wire_text(model.turn_requests[-1])     # the archived Read is gone


# ---- E2: a summary that times out ------------------------------------------------------------------------
def test_e2_summary_timeout_falls_back_to_the_kept_round_without_a_summary(project: Path):
    # A 3 s budget (not 1 s): on a loaded machine the summary request must still reach the server in time.
    model = Model(three_turns(), summary=Fault("slow_first_byte", seconds=6, text=SUMMARY_TEXT))
    with FakeLLMServer(kind="openai", responder=model) as srv:
        results = run_turns(project, srv, "openai", [(ALPHA, []), (BETA, []), (GAMMA, ["--summary-timeout", "3"])])
    assert TIMEOUT_FALLBACK in results[2].stderr and results[2].stdout == "three\n"
    assert len(model.summary_requests) == 1
    sent = wire_text(model.turn_requests[-1])
    assert GAMMA in sent and BETA in sent and ALPHA not in sent
    assert "SUMMARY-MARKER-z9" not in sent and SUMMARY_PREFIX[:40] not in sent
    # the model is told, with this very input (it went with the next one, which -p never reached: red team)
    assert "The oldest round of this conversation was removed without a summary" in sent
    boundary = [e for e in session_entries(project) if e.get("subtype") == "compact_boundary"]
    assert len(boundary) == 1 and boundary[0]["fallback"] == TIMEOUT_FALLBACK
    assert not [e for e in session_entries(project) if e.get("isCompactSummary")]


@pytest.mark.parametrize("filler", [0, 9_000])
def test_e2_fallbacks_in_a_row_tell_the_model_of_every_round_gone(project: Path, filler: int):
    """The second fallback's note counts the first's rounds too. With GAMMA too large to keep whole, the first note
    rode on GAMMA, which the second compaction archived unsummarised: the model was told of one round where two were
    gone (a user review, helper-139); with GAMMA kept, it read "the oldest round" twice. Each -p resumes."""
    gamma = GAMMA + " filler" * filler
    model = Model([Reply(answer("one"), usage_input=300), Reply(answer("two"), usage_input=19_000),
                   Reply(answer("three"), usage_input=19_000), answer("four")], summary=Fault("400"))
    with FakeLLMServer(kind="openai", responder=model) as srv:
        run_turns(project, srv, "openai", [(ALPHA, []), (BETA, []), (gamma, []), ("DELTA-q7x4", [])])
    sent = wire_text(model.turn_requests[-1])
    boundaries = [e for e in session_entries(project) if e.get("subtype") == "compact_boundary"]
    archived = [b["compactMetadata"]["roundsArchived"] for b in boundaries]
    assert len(archived) == 2 and ALPHA not in sent and BETA not in sent and (GAMMA in sent) == (not filler)
    assert f"The {sum(archived)} oldest rounds of this conversation were removed without a summary" in sent
    assert [b["compactMetadata"]["cut"]["rounds"] for b in boundaries] == [archived[0], sum(archived)]


def test_e2_a_fallback_that_archives_an_earlier_fallbacks_note_says_the_round_before_the_summary(project: Path):
    """ALPHA cut without a summary (the note on GAMMA), BETA summarised, GAMMA cut without one: the note about ALPHA
    went with GAMMA unread, so the last note says a round before the summary's went too."""
    model = Model([Reply(answer(word), usage_input=usage) for word, usage in
                   (("one", 300), ("two", 19_000), ("three", 19_000), ("four", 19_000), ("five", 300))],
                  summary=[Fault("400"), SUMMARY_TEXT, Fault("400")])
    with FakeLLMServer(kind="openai", responder=model) as srv:
        run_turns(project, srv, "openai", [(word, []) for word in (ALPHA, BETA, GAMMA, "DELTA-q7x4", "EPS-q7x5")])
    sent = wire_text(model.turn_requests[-1])
    assert "SUMMARY-MARKER-z9" in sent and GAMMA not in sent
    assert ("The round after the last summary above was removed without a summary (Summary generation failed" in sent
            and "Before the rounds that summary holds, 1 more round was removed without a summary too." in sent)


# ---- auto-compaction switched off -------------------------------------------------------------------------
def test_a6_no_auto_compact_warns_and_keeps_the_whole_history(project: Path):
    model = Model(three_turns())
    with FakeLLMServer(kind="openai", responder=model) as srv:
        results = run_turns(project, srv, "openai", [(ALPHA, []), (BETA, []), (GAMMA, ["--no-auto-compact"])])
    assert not model.summary_requests
    assert "warning:" in results[2].stderr and "auto-compaction is off" in results[2].stderr
    # the trigger's own line, not trigger_ratio: the output reserve puts it lower at this window (red team)
    import re
    said = re.search(r"of ([\d,]+) trigger line \(\d+%\), past the trigger line; auto-compaction is off — compact "
                     r"between turns with", results[2].stderr)
    assert said and int(said.group(1).replace(",", "")) < 0.8 * WINDOW, results[2].stderr
    assert "compacting" not in results[2].stderr
    sent = wire_text(model.turn_requests[-1])
    assert ALPHA in sent and BETA in sent and GAMMA in sent
    assert not [e for e in session_entries(project) if e.get("subtype") == "compact_boundary"]


def test_no_auto_compact_advises_compact_only_when_it_would_archive_something(project: Path):
    """One round past the trigger (a pasted log): /compact would refuse ("fewer than 3 messages"), so the warning
    does not send the user there (helper-85)."""
    model = Model([Reply(answer("one"), usage_input=19_000, usage_output=10), answer("two")])
    pasted = "\n".join(f"log line {i}: worker-{i % 7} handled request {i * 13}" for i in range(3_000))
    with FakeLLMServer(kind="openai", responder=model) as srv:
        results = run_turns(project, srv, "openai", [(ALPHA, []), (pasted, ["--no-auto-compact"])])
    assert "auto-compaction is off — nothing is old enough to archive" in results[1].stderr, results[1].stderr
    assert "run /compact" not in results[1].stderr and "-p /compact" not in results[1].stderr


# ---- a context-length error from the provider ------------------------------------------------------------
@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a6_context_length_error_compacts_and_retries_once_and_the_turn_succeeds(project: Path, kind: str):
    model = Model([Reply(answer("one"), usage_input=300), Reply(answer("two"), usage_input=400),
                   Fault("400_context_length"), answer("three")])
    with FakeLLMServer(kind=kind, responder=model) as srv:
        results = run_turns(project, srv, kind, [(ALPHA, []), (BETA, []), (GAMMA, [])])
    assert results[2].stdout == "three\n"
    assert "over the model's window" in results[2].stderr and "compacted:" in results[2].stderr
    assert len(model.summary_requests) == 1
    failed, retried = model.turn_requests[-2], model.turn_requests[-1]
    assert ALPHA in wire_text(failed)
    sent = wire_text(retried)
    assert GAMMA in sent and BETA in sent and "SUMMARY-MARKER-z9" in sent and ALPHA not in sent
    boundary = [e for e in session_entries(project) if e.get("subtype") == "compact_boundary"]
    assert len(boundary) == 1 and boundary[0]["compactMetadata"]["trigger"] == "auto"


def test_a6_a_second_context_length_error_after_compaction_is_one_clear_error(project: Path):
    model = Model([Reply(answer("one"), usage_input=300), Reply(answer("two"), usage_input=400),
                   Fault("400_context_length"), Fault("400_context_length")])
    with FakeLLMServer(kind="openai", responder=model) as srv:
        environment = cli_env(home_of(project), srv.base_url, CONTEXTUAL_CONTEXT_WINDOW=str(WINDOW))
        for index, prompt in enumerate((ALPHA, BETA)):
            assert contextual(["-p", prompt, "--keep-rounds", "1"] + (["--continue"] if index else []),
                              project, environment).returncode == 0
        result = contextual(["-p", GAMMA, "--keep-rounds", "1", "--continue"], project, environment)
    assert result.returncode == 1 and result.stdout == ""
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "still too long" in errors[0]
    assert len(model.summary_requests) == 1 and len(model.turn_requests) == 4     # one retry, not a loop


def test_ctrl_c_during_an_automatic_compaction_in_p_abandons_it_and_drops_no_round(project: Path):
    """SIGINT while the summary was asked for cut the archived rounds without a summary, and neither the user nor
    the model was told (small-window red team). Stopping the run is not choosing truncation: the compaction is
    abandoned, history stays whole, and the next input compacts it properly."""
    import signal
    import subprocess
    import sys

    from tests.cli_helpers import sigint_at_default
    from tests.waits import until
    model = Model(three_turns(), summary=[Fault("slow_first_byte", seconds=20, text=SUMMARY_TEXT), SUMMARY_TEXT])
    with FakeLLMServer(kind="openai", responder=model) as srv:
        env = cli_env(home_of(project), srv.base_url, "openai", CONTEXTUAL_CONTEXT_WINDOW=str(WINDOW))
        run_turns(project, srv, "openai", [(ALPHA, []), (BETA, [])])
        child = subprocess.Popen([sys.executable, "-m", "contextual", "-p", GAMMA, "--keep-rounds", "1", "-c"],
                                 cwd=project, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, preexec_fn=sigint_at_default)
        try:
            until(lambda: len(model.summary_requests) == 1, "the summary request", 30)
            child.send_signal(signal.SIGINT)
            _out, err = child.communicate(timeout=30)
        finally:
            if child.poll() is None:
                child.kill()
        assert child.returncode != 0 and "Traceback" not in err
        assert not [e for e in session_entries(project) if e.get("subtype") == "compact_boundary"]
        fourth = contextual(["-p", "DELTA-q7x4", "--keep-rounds", "1", "-c"], project, env, timeout=30)
    assert fourth.returncode == 0 and fourth.stdout == "three\n", fourth.stderr      # the stopped turn asked nothing
    sent = wire_text(model.turn_requests[-1])
    assert "SUMMARY-MARKER-z9" in sent and GAMMA in sent                # summarised, and the stopped input kept
    boundary = [e for e in session_entries(project) if e.get("subtype") == "compact_boundary"]
    assert len(boundary) == 1 and not boundary[0].get("fallback")


def test_a_summary_reply_that_never_ends_is_kept_cut_to_its_budget_not_thrown_away(project: Path):
    """A server that ignores max_tokens: the reply passed its cap, the summary was thrown away, and every
    compaction fell back to cutting the rounds without a summary (small-window red team)."""
    model = Model(three_turns(), summary=Fault("endless_text", text="- a line of the summary, again\n" * 300,
                                                 interval=0.01, seconds=60))
    with FakeLLMServer(kind="openai", responder=model) as srv:
        results = run_turns(project, srv, "openai", [(ALPHA, []), (BETA, []), (GAMMA, [])])
    assert results[2].stdout == "three\n" and "keeping recent history only" not in results[2].stderr, results[2].stderr
    boundary = [e for e in session_entries(project) if e.get("subtype") == "compact_boundary"]
    assert len(boundary) == 1 and not boundary[0].get("fallback")
    sent = wire_text(model.turn_requests[-1])
    assert "the summary model did not stop: its summary is cut here" in sent and GAMMA in sent


def test_a_summary_calls_usage_is_in_the_turns_cost_and_the_session_but_not_the_next_prompts_basis(project: Path):
    """The summary call cost money and nothing counted it: -p's usage and cost, the app's session cost and the
    record left out every compaction. Its usage (here near the window) must not become the next trigger's basis."""
    home = home_of(project)
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[models."fake-model"]\ninput = 3.0\noutput = 15.0\n')
    model = Model(three_turns() + [answer("four")],
                  summary=Reply(SUMMARY_TEXT, usage_input=19_500, usage_output=400))
    with FakeLLMServer(kind="openai", responder=model) as srv:
        results = run_turns(project, srv, "openai", [(ALPHA, []), (BETA, []), (GAMMA, ["--output-format", "json"]),
                                                      ("DELTA-q7x4", [])])
    assert len(model.summary_requests) == 1          # the summary's 19,500 did not make the fourth turn compact
    third = json.loads(results[2].stdout)
    gamma_call = third["usage"]["input_tokens"] - 19_500
    assert gamma_call > 0 and third["usage"]["output_tokens"] > 400
    assert third["total_cost_usd"] == pytest.approx(
        (third["usage"]["input_tokens"] * 3.0 + third["usage"]["output_tokens"] * 15.0) / 1e6)
    spent = [e for e in session_entries(project) if e.get("subtype") == "usage"]
    assert [e.get("purpose") for e in spent] == [None, None, "summary", None, None]
    assert spent[2]["usage"]["input_tokens"] == 19_500 and spent[2]["model"] == "fake-model"


def test_a_resumed_session_costs_its_summary_calls_and_keeps_the_agents_call_as_the_basis(project: Path):
    from contextual.core.session.loader import load_session
    home = home_of(project)
    model = Model(three_turns(), summary=Reply(SUMMARY_TEXT, usage_input=19_500, usage_output=400))
    with FakeLLMServer(kind="openai", responder=model) as srv:
        run_turns(project, srv, "openai", [(ALPHA, []), (BETA, []), (GAMMA, [])])
    loaded = load_session(session_files(home)[0])
    assert [c.purpose for c in loaded.calls].count("summary") == 1
    assert loaded.last_usage is not None and loaded.last_usage.purpose == "" and loaded.last_usage.input_tokens != 19_500
