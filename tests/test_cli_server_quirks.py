"""What local OpenAI-compatible servers send besides the ReAct text, through the real CLI: a tool call in the
server's own field runs as the step's Action and is kept in the session, a Hermes `<tool_call>` block written as
text is a format error that gives the model the Action line it means,
a reply cut at max_tokens is told to the model, a reply of 2,000 calls is said (tests/test_provider_tool_calls.py
has each server's dialect at the provider)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import cli_env, contextual, home_of, one_line_error, session_text
from tests.fakes.llm_server import Fault, FakeLLMServer, Reply

DONE = "Thought: I read it.\nAction: Finish[read it]"
READ_ARGS = json.dumps({"file_path": "notes.txt"})


@pytest.fixture()
def project(project: Path) -> Path:
    (project / "notes.txt").write_text("the launch code is 7243\n")
    return project


def _run(project: Path, script: list) -> tuple:
    with FakeLLMServer("openai", script) as srv:
        result = contextual(["-p", "read notes.txt"], project, cli_env(home_of(project), srv.base_url))
    return result, srv


NATIVE = {
    "delta.tool_calls in pieces": Reply("", tool_calls=(
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "Read", "arguments": ""}},
        *({"index": 0, "function": {"arguments": READ_ARGS[i:i + 4]}} for i in range(0, len(READ_ARGS), 4)))),
}


@pytest.mark.parametrize("reply", NATIVE.values(), ids=NATIVE.keys())
def test_a_tool_call_outside_the_react_text_runs_and_the_session_keeps_it_as_an_action(project: Path, reply: Reply):
    result, srv = _run(project, [reply, DONE])
    assert result.returncode == 0 and result.stdout == "read it\n", result.stderr
    assert "7243" in json.dumps(srv.requests[1]["messages"]), "the model read the tool's result"
    assert 'Action: Read[{\\"file_path\\": \\"notes.txt\\"}]' in session_text(home_of(project))


def test_a_hermes_tool_call_block_in_the_text_is_a_format_error_naming_the_action_line(project: Path):
    hermes = Reply('<think>the file first</think>I will read it.\n<tool_call>\n{"name": "Read", "arguments": '
                   f'{READ_ARGS}}}\n</tool_call>')
    result, srv = _run(project, [hermes, DONE])
    assert result.returncode == 0, result.stderr
    told = srv.requests[1]["messages"][-1]["content"]
    assert 'Write that call as:\nAction: Read[{"file_path": "notes.txt"}]' in told
    assert "7243" not in json.dumps(srv.requests[1]["messages"]), "nothing ran"


def test_a_reply_cut_at_max_tokens_is_told_to_the_model(project: Path):
    cut = Reply('Thought: save it\nAction: Write[{"file_path": "big.txt", "content": "aaaa', finish_reason="length")
    result, srv = _run(project, [cut, DONE])
    assert result.returncode == 0, result.stderr
    told = srv.requests[1]["messages"][-1]["content"]
    assert "cut off at the output limit" in told and "not valid JSON" in told


def test_two_thousand_tool_calls_run_the_first_and_say_the_rest(project: Path):
    calls = tuple({"index": i, "id": f"c{i}", "function": {"name": "Read", "arguments": READ_ARGS}} for i in range(2000))
    result, srv = _run(project, [Reply("", tool_calls=calls), DONE])
    assert result.returncode == 0, result.stderr
    assert "2,000 tool calls in one reply: only the first runs" in result.stderr and len(srv.requests) == 2


def test_a_200_holding_an_error_object_says_the_servers_message_in_one_line(project: Path):
    refusal = Fault("json_error_200", message="model 'qwen3:8b' not found, try pulling it first",
                    error_type="invalid_request_error")
    result, srv = _run(project, [refusal])
    assert result.returncode == 1 and len(srv.requests) == 1
    assert "model 'qwen3:8b' not found, try pulling it first" in one_line_error(result.stderr)


def test_a_reply_of_two_actions_runs_the_first_and_tells_the_model_the_second_did_not_run(project: Path):
    two = f'Thought: both at once\nAction: Read[{READ_ARGS}]\nAction: Bash[{{"command": "rm -rf /"}}]'
    result, srv = _run(project, [two, DONE])
    assert result.returncode == 0, result.stderr
    told = json.dumps(srv.requests[1]["messages"][-1]["content"])
    assert "7243" in told and "1 more `Action:` line after this one; only this one ran" in told
    # the record keeps the engine's note under its own name: no hook said it
    entries = [json.loads(line) for line in session_text(home_of(project)).splitlines()]
    [result] = [e["toolResult"] for e in entries if e["type"] == "tool_result"]
    stored = json.loads(result["stored"])
    assert "only this one ran" in stored["note"] and "hook" not in stored


def test_an_anthropic_tool_use_block_runs_as_the_action_and_the_session_keeps_it(project: Path):
    """A tool_use block's input was dropped: the reply read as no Action, and 50 such replies spent the turn."""
    use = Reply("Thought: read the notes", tool_calls=({"name": "Read", "input": {"file_path": "notes.txt"}},))
    with FakeLLMServer("anthropic", [use, DONE]) as srv:
        result = contextual(["-p", "read notes.txt"], project, cli_env(home_of(project), srv.base_url, "anthropic"))
    assert result.returncode == 0 and result.stdout == "read it\n", result.stderr
    assert "7243" in json.dumps(srv.requests[1]["messages"]), "the model read the tool's result"
    assert 'Thought: read the notes\\nAction: Read[{\\"file_path\\": \\"notes.txt\\"}]' in session_text(home_of(project))


PROSE = "I would read notes.txt now, then tell you what it says."
NO_ACTION = {
    "prose": ("openai", Reply(PROSE), f"it sent prose: “{PROSE}”"),
    "tool_use of a tool not here": ("anthropic", Reply("", tool_calls=({"name": "str_replace_based_edit_tool",
                                                                        "input": {"command": "view"}},)),
                                    "it sent tool_use blocks (str_replace_based_edit_tool) that do not read as a call"
                                    " of this agent's tools: this model may need native tool calls"),
    "empty": ("openai", Reply(""), "it sent empty replies"),
}


@pytest.mark.parametrize("kind, reply, said", NO_ACTION.values(), ids=NO_ACTION.keys())
def test_three_replies_in_a_row_without_an_action_end_the_turn_naming_what_the_model_sent(
        project: Path, kind: str, reply: Reply, said: str):
    """Each was a format error and the turn went on: a model that never writes an Action used up all 50 steps
    (76 s; red team). The third in a row ends the turn in one line; the script's Finish is never asked for."""
    with FakeLLMServer(kind, [reply] * 3 + [DONE]) as srv:
        result = contextual(["-p", "read notes.txt"], project, cli_env(home_of(project), srv.base_url, kind))
    assert result.returncode == 1 and len(srv.requests) == 3, result.stderr
    line = one_line_error(result.stderr)
    assert line.startswith("error: the model answered 3 times in a row without an Action line (") and said in line
    assert result.stderr.count("! format error returned to the model") == 3


def test_a_reply_without_an_action_between_working_steps_is_only_a_format_error(project: Path):
    """One slip, or two, is the model's to correct: a step that runs a tool starts the count again."""
    read = f"Thought: read it\nAction: Read[{READ_ARGS}]"
    with FakeLLMServer("openai", [PROSE, PROSE, read, PROSE, PROSE, DONE]) as srv:
        result = contextual(["-p", "read notes.txt"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0 and result.stdout == "read it\n", result.stderr
    assert "had no `Action:` line" in srv.requests[1]["messages"][-1]["content"]
