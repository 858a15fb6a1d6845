"""A 40-call turn at a 4,096-token window through the real CLI, read from what the server received (helper-132).

A user's review (helper-130) found the model nearly blind by the 40th call of such a turn: 39 of 40 earlier actions
cut to a marker that hid their tool, the newest observation cut, the project's AGENTS.md cut to 67 characters, and
the user told only "fitted to the window at 54 points". Here every request must show each earlier step's tool (on
its own Action line, or on its line of the note of folded steps), the newest observation whole, AGENTS.md whole,
and stderr must say in words what was folded. And what gave way stays given for the rest of the turn, so each call
resends the last call's prompt, unchanged, up to its newest step: the server's prompt cache (llama.cpp's KV cache, a
provider's prefix cache) stays valid; the fold had moved with each call's newest output (helper-135).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.cli_helpers import cli_env, contextual, home_of
from tests.fakes.llm_server import FakeLLMServer

WINDOW = 4_096
PROMPT_LIMIT = WINDOW - 1_024          # the answer's reserve at 4k (docs/small-windows.md)
THOUGHT = " ".join(["I will look at this next part carefully before I decide what to change in the code"] * 4)
RULES = "# Project rules\n" + "".join(f"- Rule {i}: when editing module number {i} keep the public function names "
                                      "stable and add a test.\n" for i in range(1, 13))
MODULES = [f"pkg/m{i}.py" for i in range(6)]


def plan() -> list[tuple[str, dict[str, Any]]]:
    calls: list[tuple[str, dict[str, Any]]] = [("LS", {}), ("Glob", {"pattern": "**/*.py"})]
    i = 0
    while len(calls) < 40:
        path = MODULES[i % len(MODULES)]
        calls.append(("Read", {"file_path": path, "offset": 1 + (i * 37) % 150, "limit": 60}))
        calls.append(("Grep", {"pattern": "def \\w+", "path": path}))
        if i % 3 == 0:
            calls.append(("Bash", {"command": f"wc -l {path}"}))
        i += 1
    return calls[:40]


class LongTurn:
    """The next call of the plan at each request: the step is the calls the prompt shows, folded ones included."""

    def __init__(self) -> None:
        self.calls = plan()

    def __call__(self, body: dict[str, Any]) -> str:
        step = len(steps_shown(body["messages"]))
        if step >= len(self.calls):
            return "Thought: done\nAction: Finish[read them all]"
        tool, args = self.calls[step]
        return f"Thought: step {step + 1}. {THOUGHT}\nAction: {tool}[{json.dumps(args)}]"


def turn_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    start = max(i for i, m in enumerate(messages) if m["role"] == "user" and m["content"].startswith("read the"))
    return messages[start + 1:]


def steps_shown(messages: list[dict[str, Any]]) -> list[str]:
    """The tool each earlier step of the turn called, as the prompt shows it: folded lines, then Action lines."""
    tools: list[str] = []
    for m in turn_messages(messages):
        if m["role"] == "user" and "folded to one line each" in m["content"]:
            lines = re.findall(r"^(\d+)\. (\w+) ", m["content"], re.M)
            assert [int(n) for n, _ in lines] == list(range(1, len(lines) + 1)), m["content"]
            tools += [tool for _, tool in lines]
        elif m["role"] == "assistant":
            found = re.search(r"^Action: (\w+)\[", m["content"], re.M)
            tools.append(found.group(1) if found else "?")
    return tools


@pytest.fixture(scope="module")
def long_turn(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, FakeLLMServer]:
    """The 40-call turn, run once for the tests of this module: the CLI's result and the server that heard it."""
    project = tmp_path_factory.mktemp("long") / "proj"
    (project / "pkg").mkdir(parents=True)
    for i, path in enumerate(MODULES):
        (project / path).write_text("".join(f"def f{i}_{k}(x):\n    return x * {k} + {i}\n" for k in range(100)))
    (project / "AGENTS.md").write_text(RULES)
    env = cli_env(home_of(project))
    with FakeLLMServer(kind="openai", responder=LongTurn(), max_context_tokens=PROMPT_LIMIT) as srv:
        result = contextual(["-p", "read the modules", "--permission-mode", "bypass", "--max-steps", "60",
                             "--base-url", srv.base_url, "--model", "fake", "--context-window", str(WINDOW)],
                            project, env, timeout=240)
    return result, srv


def test_a_40_call_turn_at_4k_keeps_every_action_readable_the_newest_observation_and_the_rules_whole(
        long_turn: tuple[Any, FakeLLMServer]) -> None:
    result, srv = long_turn
    assert result.returncode == 0, result.stderr
    assert result.stdout == "read them all\n"
    assert srv.violations == []
    calls = [tool for tool, _ in plan()]
    assert len(srv.requests) == len(calls) + 1
    folded_at = 0
    for k, request in enumerate(srv.requests):
        messages = request["messages"]
        assert steps_shown(messages) == calls[:k], k                 # every earlier action names its tool, in order
        rules = [m["content"] for m in messages if m["role"] == "system" and m["content"].startswith("Project rules")]
        assert rules == [f"Project rules (AGENTS.md):\n\n{RULES.strip()}"], k           # L2 whole
        if k:
            newest = turn_messages(messages)[-1]["content"]
            assert newest.startswith("Observation: [") and "truncated]" not in newest and "left out" not in newest, k
        folded_at += any("folded to one line each" in m["content"] for m in messages)
    assert folded_at >= 10                                          # the turn did outgrow the window, often
    said = [line for line in result.stderr.splitlines() if line.startswith("context:")]
    assert len(said) == 1 and re.match(r"context: steps 1–\d+ of this turn folded to one line each to fit the "
                                       r"4,096-token window \(their full record is in the session\)", said[0]), said


def test_rules_cut_anyway_are_said_by_name_with_what_they_kept(project: Path):
    """A pasted message larger than the window, with an answer's reserve that leaves the prompt 1,096 tokens of 4,096:
    the rules give way with the user's own words, and the user reads which file was cut and to what (it read
    "cut_observation: cut 2 oversized messages head+tail")."""
    (project / "AGENTS.md").write_text(RULES)
    (project / ".contextual").mkdir()
    (project / ".contextual" / "config.toml").write_text("output_reserve = 3000\n")
    pasted = "please look at this trace:\n" + "\n".join(f"  at frame_{i} (file_{i}.py:{i})" for i in range(900))
    with FakeLLMServer(kind="openai", script=["Thought: done\nAction: Finish[seen]"],
                       max_context_tokens=WINDOW - 3000) as srv:
        result = contextual(["-p", pasted, "--permission-mode", "bypass", "--base-url", srv.base_url, "--model", "fake",
                             "--context-window", str(WINDOW)], project, cli_env(home_of(project)), timeout=60)
    assert result.returncode == 0 and result.stdout == "seen\n", result.stderr
    assert srv.violations == []
    said = re.search(r"^warning: project rules \(AGENTS\.md\) cut to (\d+) tokens to fit the 4,096-token window: the "
                     r"model gets its head and tail$", result.stderr, re.M)
    assert said, result.stderr
    sent = next(m["content"] for m in srv.requests[0]["messages"] if m["content"].startswith("Project rules"))
    assert "truncated]" in sent and "Rule 1:" in sent
    assert re.search(r"^context: .*project rules \(AGENTS\.md\) cut to \d+ tokens", result.stderr, re.M), result.stderr


def folded(messages: list[dict[str, Any]]) -> int:
    note = next((m["content"] for m in messages if "folded to one line each" in m["content"]), "")
    found = re.search(r"\((\d+) steps? folded\.\)", note)
    return int(found.group(1)) if found else 0


def test_what_gave_way_stays_given_so_each_call_resends_the_last_prompt_up_to_its_newest_step(
        long_turn: tuple[Any, FakeLLMServer]) -> None:
    """From the request bodies: the fold only moves forward, and most calls keep the previous call's messages, as
    sent, up to the previous newest step (that step may change: `ours` stores an output one call after it is new).
    Before, 5 of 40 calls did and the last call had unfolded everything (the fold moved with each newest output: a
    long Grep folded steps, the next short output unfolded them); now 24, the others a forward move."""
    result, srv = long_turn
    assert result.returncode == 0, result.stderr
    requests = [r["messages"] for r in srv.requests]
    kept = 0
    for before, after in zip(requests, requests[1:]):
        assert folded(after) >= folded(before)                     # the boundary only moves forward
        newest = max(i for i, m in enumerate(before) if m["role"] == "assistant") if len(before) > 3 else len(before)
        kept += after[:newest] == before[:newest]
    assert folded(requests[-1]) >= 10 and kept >= 20, kept


def test_a_message_larger_than_the_window_is_cut_the_same_at_the_turns_later_calls(project: Path):
    """A paste larger than the window (a 50k-token log at 8k, helper-139): the message is cut to what the room left
    beside the turn, and that cut moved with each call's newest output, so the prompt went out anew from the user's
    message, near its head, at 34 of 35 calls (a local server re-reads all of it each time). The cut holds for the
    turn while it fits, and moves an eighth of the limit at a time when it must."""
    (project / "pkg").mkdir()
    for i, path in enumerate(MODULES):
        (project / path).write_text("".join(f"def f{i}_{k}(x):\n    return x * {k} + {i}\n" for k in range(100)))
    calls = plan()[:30]
    answered: list[int] = []

    def model(body: dict[str, Any]) -> str:
        answered.append(1)
        if len(answered) > len(calls):
            return "Thought: done\nAction: Finish[read them all]"
        tool, args = calls[len(answered) - 1]
        return f"Thought: step {len(answered)}.\nAction: {tool}[{json.dumps(args)}]"

    pasted = "read the log:\n" + "\n".join(f"{i:05d} worker {i % 7} took {i * 37 % 1000} ms on job {i}"
                                           for i in range(2500))
    with FakeLLMServer(kind="openai", responder=model, max_context_tokens=PROMPT_LIMIT) as srv:
        result = contextual(["-p", pasted, "--permission-mode", "bypass", "--max-steps", "60",
                             "--base-url", srv.base_url, "--model", "fake", "--context-window", str(WINDOW)],
                            project, cli_env(home_of(project)), timeout=240)
    assert result.returncode == 0 and result.stdout == "read them all\n", result.stderr
    assert srv.violations == []
    sent = [next(m["content"] for m in r["messages"] if m["content"].startswith("read the log:"))
            for r in srv.requests]
    assert all("truncated]" in text for text in sent)
    moves = sum(before != after for before, after in zip(sent, sent[1:]))
    assert len(sent) == len(calls) + 1 and moves <= 4, moves
