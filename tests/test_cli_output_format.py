"""`contextual -p --output-format text|json|stream-json` (CONTRACT Additions, issue 16.2) through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import cli_env, contextual, home_of, session_files
from tests.fakes.llm_server import Fault, FakeLLMServer, Reply

RESULT_KEYS = {"result", "is_error", "session_id", "num_steps", "usage", "duration_ms", "total_cost_usd",
               "unpriced_calls"}
USAGE_KEYS = {"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"}


def _script() -> list:
    return [Reply('Thought: look\nAction: Read[{"file_path": "notes.txt"}]', usage_input=1000, usage_output=30,
                  cached_tokens=400, cache_creation_tokens=100),
            Reply("Thought: seen\nAction: Finish[the notes say hello]", usage_input=1200, usage_output=20,
                  cached_tokens=900)]


@pytest.fixture()
def project(project: Path) -> Path:
    """The shared empty project (tests/conftest.py) with a file to work on."""
    (project / "notes.txt").write_text("hello\n")
    return project


def _session_ids(home: Path) -> list[str]:
    return [p.stem for p in session_files(home)]


def _check_result(obj: dict) -> None:
    assert set(obj) - {"type"} == RESULT_KEYS
    assert set(obj["usage"]) == USAGE_KEYS and all(isinstance(v, int) for v in obj["usage"].values())
    assert isinstance(obj["duration_ms"], int) and obj["duration_ms"] >= 0


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_json_prints_one_object_at_the_end_with_the_contract_fields(project: Path, kind: str):
    home = home_of(project)
    with FakeLLMServer(kind=kind, script=_script()) as srv:
        result = contextual(["-p", "what do the notes say?", "--output-format", "json"], project,
                            cli_env(home, srv.base_url, kind))
    assert result.returncode == 0, result.stderr
    obj = json.loads(result.stdout)                 # exactly one JSON document, nothing else on stdout
    _check_result(obj)
    assert obj["result"] == "the notes say hello" and obj["is_error"] is False
    assert obj["num_steps"] == 2
    assert obj["session_id"] in _session_ids(home)
    assert obj["usage"]["input_tokens"] == 2200 and obj["usage"]["output_tokens"] == 50
    assert obj["usage"]["cache_read_input_tokens"] == 1300
    # Only Anthropic's wire carries cache writes; the OpenAI-compatible one has no such field.
    assert obj["usage"]["cache_creation_input_tokens"] == (100 if kind == "anthropic" else 0)
    assert obj["total_cost_usd"] is None            # "fake-model" has no prices: unknown, not $0
    assert obj["unpriced_calls"] == 2


def test_json_totals_the_turn_cost_at_the_model_table_prices(project: Path):
    home = home_of(project)
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[models."fake-model"]\ninput = 3.0\ncached_input = 0.3\noutput = 15.0\n')
    with FakeLLMServer(kind="openai", script=_script()) as srv:
        result = contextual(["-p", "what do the notes say?", "--output-format", "json"], project,
                            cli_env(home, srv.base_url))
    assert result.returncode == 0, result.stderr
    obj = json.loads(result.stdout)
    # fresh input 2200 - 1300 cached at $3, cached at $0.30, output 50 at $15, per million tokens
    assert obj["total_cost_usd"] == pytest.approx((900 * 3.0 + 1300 * 0.3 + 50 * 15.0) / 1e6)


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_stream_json_prints_one_typed_object_per_line_ending_with_the_result(project: Path, kind: str):
    home = home_of(project)
    with FakeLLMServer(kind=kind, script=_script()) as srv:
        result = contextual(["-p", "what do the notes say?", "--output-format", "stream-json"], project,
                            cli_env(home, srv.base_url, kind))
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert all(isinstance(o, dict) and isinstance(o.get("type"), str) for o in lines)
    types = [o["type"] for o in lines]
    assert types[0] == "system" and lines[0]["subtype"] == "init"
    assert lines[0]["session_id"] in _session_ids(home)
    assert types[-1] == "result" and types.count("result") == 1
    for expected in ("thought", "action", "tool_started", "tool_finished", "usage", "turn_finished"):
        assert expected in types, types
    assert types.index("tool_finished") < types.index("turn_finished")
    read = next(o for o in lines if o["type"] == "tool_finished")
    assert read["tool"] == "Read" and read["status"] == "success"
    final = lines[-1]
    _check_result(final)
    assert final["result"] == "the notes say hello" and final["is_error"] is False
    usage = [o for o in lines if o["type"] == "usage"]
    assert len(usage) == 2 and all(set(o) - {"type"} == USAGE_KEYS for o in usage)
    assert final["usage"] == {k: sum(o[k] for o in usage) for k in USAGE_KEYS}


@pytest.mark.parametrize("form", ["json", "stream-json"])
@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_provider_errors_exit_1_and_come_as_an_error_result(project: Path, kind: str, form: str):
    with FakeLLMServer(kind=kind, script=[Fault("401")]) as srv:
        result = contextual(["-p", "hi", "--output-format", form], project,
                            cli_env(home_of(project), srv.base_url, kind))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert len([line for line in result.stderr.splitlines() if line.startswith("error:")]) == 1
    final = json.loads(result.stdout.splitlines()[-1])
    _check_result(final)
    assert final["is_error"] is True and "401" in final["result"]
    if form == "stream-json":
        assert final["type"] == "result"
        assert any(json.loads(line)["type"] == "error" for line in result.stdout.splitlines())


@pytest.mark.parametrize("priced", [False, True])
def test_total_cost_usd_is_null_when_unpriced_and_a_sum_when_priced_on_an_error_as_on_a_success(project: Path,
                                                                                                 priced: bool):
    # An unpriced model's success said null while its failed run said 0.0: the same unknown, two answers
    home = home_of(project)
    home.mkdir(parents=True, exist_ok=True)
    if priced:
        (home / "config.toml").write_text('[models."fake-model"]\ninput = 3.0\noutput = 15.0\n')
    with FakeLLMServer(kind="openai", script=[Fault("401")]) as srv:
        failed = contextual(["-p", "hi", "--output-format", "json"], project, cli_env(home, srv.base_url))
    with FakeLLMServer(kind="openai", script=_script()) as srv:
        done = contextual(["-p", "hi", "--output-format", "json"], project, cli_env(home, srv.base_url))
    error, success = json.loads(failed.stdout), json.loads(done.stdout)
    assert error["is_error"] is True and success["is_error"] is False
    if priced:
        assert error["total_cost_usd"] == 0.0 and success["total_cost_usd"] > 0
    else:
        assert error["total_cost_usd"] is None and success["total_cost_usd"] is None
    config_error = contextual(["-p", "hi", "--output-format", "json"], project, cli_env(home))   # no model known
    assert json.loads(config_error.stdout)["total_cost_usd"] is None


@pytest.mark.parametrize("form", ["json", "stream-json"])
def test_a_configuration_error_is_an_error_result_too(project: Path, form: str):
    env = cli_env(home_of(project))          # no model, no endpoint
    result = contextual(["-p", "hi", "--output-format", form], project, env)
    assert result.returncode == 1
    final = json.loads(result.stdout.strip())
    _check_result(final)
    assert final["is_error"] is True and "CONTEXTUAL_MODEL" in final["result"]
    assert final["session_id"] is None and final["num_steps"] == 0
    assert result.stderr.count("\n") == 1 and "CONTEXTUAL_MODEL" in result.stderr


def test_text_stays_the_default_form(project: Path):
    with FakeLLMServer(kind="openai", script=_script()) as srv:
        result = contextual(["-p", "what do the notes say?"], project,
                            cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0 and result.stdout == "the notes say hello\n"


def test_output_format_without_p_is_refused_in_one_line(project: Path):
    result = contextual(["--output-format", "json"], project, cli_env(home_of(project)))
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip().count("\n") == 0 and "--output-format needs -p" in result.stderr


def test_stream_json_never_prints_part_of_a_key_split_across_streamed_fragments(project: Path):
    """The fake server streams the reply 6 characters at a time, so the configured key arrives cut in pieces:
    no line of stdout holds any piece of it, and the streamed deltas still join to the whole reply, redacted."""
    home, key = home_of(project), "sk-Zq8vW3xK7pL2mN9rT4yB6hJ1"
    reply = f"Thought: the key is {key} now\nAction: Finish[done: {key} is set]"
    with FakeLLMServer(kind="openai", script=[Reply(reply, chunk_size=6)]) as srv:
        result = contextual(["-p", "what is the key?", "--output-format", "stream-json"], project,
                            cli_env(home, srv.base_url, "openai", CONTEXTUAL_API_KEY=key))
    assert result.returncode == 0, result.stderr
    assert not any(key[i:i + 6] in result.stdout for i in range(len(key) - 5))     # no piece of it, anywhere
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    deltas = [o["text"] for o in lines if o["type"] == "text_delta"]
    assert len(deltas) > 5                                   # it did stream in pieces
    assert "".join(deltas) == reply.replace(key, "[redacted]")
    assert lines[-1]["result"] == "done: [redacted] is set"


def test_text_progress_says_a_commands_non_zero_exit_not_success(project: Path):
    """stderr's progress line of a Bash call that exited 1 (a failing test run) read "Bash success", where the app's
    trail marks it ✗ "exit 1" (helper-85)."""
    script = ['Thought: run it\nAction: Bash[{"command": "echo 1 failed; exit 1"}]',
              'Thought: and this\nAction: Bash[{"command": "echo fine"}]', "Thought: seen\nAction: Finish[done]"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "run the tests", "--permission-mode", "bypass"], project,
                            cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0, result.stderr
    progress = [line.strip() for line in result.stderr.splitlines() if line.startswith("  Bash")]
    assert progress == ["Bash exit 1", "Bash success"]


# stream-json's "type" of each event as scripts read it (the names the class names gave before the table).
WIRE_NAMES = {"text_delta", "reasoning_delta", "stream_restarted", "retrying", "thought", "action", "format_error",
              "tool_started", "tool_finished", "usage", "permission_decided", "message_recorded", "answer_delta",
              "final_answer", "turn_adjustments", "budget_warning", "compaction_started", "compaction_progress",
              "compaction_finished", "notice", "tools_changed", "stop_hook_continued", "turn_finished", "error",
              "compaction_review"}


def test_every_event_has_its_stream_json_type_written_out_and_the_names_are_unchanged():
    """The "type" came from the class name by a regex: renaming an event changed the wire. Every event the
    engine's streams yield has an entry (None: not streamed), each name once."""
    import typing

    from contextual.core import events as ev
    from contextual.core.context.compaction_review import Event
    from contextual.wire_types import WIRE_TYPES
    assert set(WIRE_TYPES) == set(typing.get_args(Event))
    streamed = [name for name in WIRE_TYPES.values() if name is not None]
    assert len(streamed) == len(set(streamed)) and set(streamed) == WIRE_NAMES
    assert {kind for kind, name in WIRE_TYPES.items() if name is None} == {ev.PermissionRequest, ev.PromptChanged,
                                                                           ev.ToolOutput}


def test_the_progress_lines_match_every_event_and_one_they_do_not_know_fails_loudly():
    """-p's printers are an exhaustive match (assert_never, proved whole by mypy): an event kind added to the
    engine and forgotten here is an error, not a silent line less."""
    from contextual.headless import progress_line

    class Unknown:
        pass

    with pytest.raises(AssertionError):
        progress_line(Unknown())        # type: ignore[arg-type]
