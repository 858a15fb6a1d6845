""""Never over the window", checked from outside (issue 4 build item 4).

The fake server counts every request's tokens itself (cl100k, the same per-message overhead) and records a
violation for any request over the configured window minus the output reserve. Sessions whose tool results
are huge (a 20,000-line file, 300 KB of Bash output, many steps in one turn, several turns with --continue)
must finish with no violation, and stderr must announce each adjustment ("context: ...").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contextual.core.tokens import count
from tests.cli_helpers import cli_env, contextual, home_of
from tests.fakes.llm_server import FakeLLMServer, Reply

WINDOW = 6_000
OUTPUT_RESERVE = 1_000
PROMPT_LIMIT = WINDOW - OUTPUT_RESERVE          # what the server accepts: any request above it is a violation
SUMMARY = "## 📌 Archived Session Summary\n*(Contains context from a to b)*\n\n### 🎯 Objectives & Status\n* none"

DUMP_COMMAND = "python3 -c \"for i in range(5000): print('row %06d ' % i + 'x' * 50)\""     # ~305 KB


def action(thought: str, tool: str, args: dict[str, Any]) -> str:
    return f"Thought: {thought}\nAction: {tool}[{json.dumps(args)}]"


READ_ALL = action("read the whole log", "Read", {"file_path": "big.log", "limit": 20_000})
BASH_300K = action("dump the output", "Bash", {"command": DUMP_COMMAND})
GREP = action("find errors", "Grep", {"pattern": "ERROR", "path": "."})


def finish(text: str) -> str:
    return f"Thought: done\nAction: Finish[{text}]"


def is_summary_request(body: dict[str, Any]) -> bool:
    system = body.get("system")
    text = (system[0].get("text", "") if isinstance(system, list) and system else
            (body.get("messages") or [{}])[0].get("content", ""))
    return isinstance(text, str) and text.startswith("You are archiving the OLD part")


class Model:
    """Summary requests get an A5 summary; the others get the next scripted reply (usage: the server's count)."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.summaries = 0

    def __call__(self, body: dict[str, Any]) -> str | Reply:
        if is_summary_request(body):
            self.summaries += 1
            return SUMMARY
        return self.replies.pop(0) if self.replies else finish("script exhausted")


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".contextual").mkdir(parents=True)
    (root / ".contextual" / "config.toml").write_text(f"output_reserve = {OUTPUT_RESERVE}\n")
    lines = [f"{i:05d} {'ERROR' if i % 97 == 0 else 'INFO '} request handled by worker-{i % 13} in {i % 250} ms"
             for i in range(20_000)]
    (root / "big.log").write_text("\n".join(lines) + "\n")
    return root


def session(project: Path, srv: FakeLLMServer, turns: list[str], kind: str = "openai", max_steps: int = 50,
            keep_rounds: int = 2):
    env = cli_env(home_of(project), srv.base_url, kind, CONTEXTUAL_CONTEXT_WINDOW=str(WINDOW))
    results = []
    for index, prompt in enumerate(turns):
        args = ["-p", prompt, "--permission-mode", "bypass", "--max-steps", str(max_steps),
                "--keep-rounds", str(keep_rounds)]
        results.append(contextual(args + (["--continue"] if index else []), project, env, timeout=60))
        assert results[-1].returncode == 0, results[-1].stderr
    return results


def context_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("context:")]


def assert_within_window(srv: FakeLLMServer) -> None:
    assert srv.violations == [], srv.violations
    assert srv.token_counts and max(srv.token_counts) <= PROMPT_LIMIT


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_20000_line_read_is_cut_to_fit_and_announced(project: Path, kind: str):
    with FakeLLMServer(kind=kind, responder=Model([READ_ALL, finish("read it")]),
                       max_context_tokens=PROMPT_LIMIT) as srv:
        [result] = session(project, srv, ["read big.log"], kind)
    assert_within_window(srv)
    assert result.stdout == "read it\n"
    assert context_lines(result.stderr), result.stderr
    observation = json.dumps(srv.requests[-1]["messages"][-1], ensure_ascii=False)
    assert "00000 ERROR" in observation and "truncated" in observation      # head kept, the middle cut, said so


def test_300_kb_of_bash_output_fits(project: Path):
    with FakeLLMServer(kind="openai", responder=Model([BASH_300K, finish("dumped")]),
                       max_context_tokens=PROMPT_LIMIT) as srv:
        [result] = session(project, srv, ["print a lot"])
    assert_within_window(srv)
    assert result.stdout == "dumped\n" and context_lines(result.stderr)
    assert "row 000000" in srv.requests[-1]["messages"][-1]["content"]


def test_many_huge_steps_in_one_turn_never_go_over(project: Path):
    steps = [READ_ALL, BASH_300K, GREP, READ_ALL, BASH_300K, GREP, READ_ALL, BASH_300K, GREP, READ_ALL]
    with FakeLLMServer(kind="openai", responder=Model(steps + [finish("all done")]),
                       max_context_tokens=PROMPT_LIMIT) as srv:
        [result] = session(project, srv, ["investigate the log"])
    assert_within_window(srv)
    assert result.stdout == "all done\n"
    assert len(srv.requests) == len(steps) + 1
    assert len(context_lines(result.stderr)) == 1          # one summary line per turn, not one per step


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_several_turns_with_continue_compact_and_never_go_over(project: Path, kind: str):
    turns = ["read the log", "run the dump", "read it again"]
    model = Model([READ_ALL, finish("one"), BASH_300K, finish("two"), READ_ALL, finish("three")])
    with FakeLLMServer(kind=kind, responder=model, max_context_tokens=PROMPT_LIMIT) as srv:
        results = session(project, srv, turns, kind, keep_rounds=1)
    assert_within_window(srv)
    assert [r.stdout for r in results] == ["one\n", "two\n", "three\n"]
    assert model.summaries >= 1                       # the reported usage crossed 80% of the window
    assert any("compacted:" in r.stderr for r in results)
    assert all(context_lines(r.stderr) for r in results)


def test_a_long_turn_of_many_small_steps_never_goes_over(project: Path):
    """Past the window, every step of the turn still goes (stored or cut); only L1 and the markers must fit."""
    steps = [action(f"look around, pass {i}", "Grep", {"pattern": f"worker-{i % 13} in {i}", "path": "."})
             for i in range(45)]
    with FakeLLMServer(kind="openai", responder=Model(steps + [finish("looked")]),
                       max_context_tokens=PROMPT_LIMIT) as srv:
        [result] = session(project, srv, ["look around"])
    assert_within_window(srv)
    assert result.stdout == "looked\n" and len(srv.requests) == len(steps) + 1
    assert context_lines(result.stderr)


RULES = "\n".join(f"Rule {i}: never do thing number {i}." for i in range(3_000))                # ~30k tokens
PASTED = "please look at this trace:\n" + "\n".join(f"  at frame_{i} (file_{i}.py:{i})" for i in range(2_500))


def first_request_with_rules_and_paste(project: Path) -> tuple[FakeLLMServer, Any]:
    """A ~90 KB pasted prompt (under the one-argument limit) in a project with a ~30k-token CODE_LAW.md."""
    (project / "CODE_LAW.md").write_text(RULES)
    with FakeLLMServer(kind="openai", responder=Model([READ_ALL, finish("seen")]),
                       max_context_tokens=PROMPT_LIMIT) as srv:
        [result] = session(project, srv, [PASTED])
    return srv, result


def test_a_huge_pasted_prompt_and_a_huge_code_law_fit(project: Path):
    srv, result = first_request_with_rules_and_paste(project)
    assert_within_window(srv)
    assert result.stdout == "seen\n" and context_lines(result.stderr)
    first = srv.requests[0]["messages"]
    assert first[0]["content"].startswith("You are Contextual")            # L1 is never the one cut
    assert first[1]["role"] == "system" and first[1]["content"].startswith("Project")   # L2 (cut) in its place
    assert "please look at this trace" in json.dumps(first)
    # the user hears that their own message was cut, not only "fitted … (cut_observation)" (helper-58)
    assert "your message is larger than this window allows (6,000 tokens)" in result.stderr


def test_the_rules_file_keeps_its_share_and_the_pasted_input_gets_the_rest(project: Path):
    """CONTRACT Additions: a rules file over its share of the window (10 %) is cut head and tail, named; the
    room left is shared by the last-resort cut, so the pasted input keeps most of it."""
    srv, _ = first_request_with_rules_and_paste(project)
    first = srv.requests[0]["messages"]
    rules_tokens, input_tokens = count(first[1]["content"]), count(first[2]["content"])
    room = PROMPT_LIMIT - count(first[0]["content"])
    assert rules_tokens <= WINDOW // 10 and "CODE_LAW.md is larger than its share" in first[1]["content"]
    assert input_tokens >= room // 2, (rules_tokens, input_tokens, room)


def test_a_prompt_filled_to_the_limit_fits_on_the_anthropic_wire_too(tmp_path: Path):
    from contextual.core.context.builder import ContextBuilder
    from contextual.core.messages import Message
    from contextual.core.providers.anthropic import render_messages, render_system
    from tests.fakes.llm_server import request_tokens

    history = [Message("summary", "first summary"), Message("summary", "second summary"),
               Message("user", "an earlier question"), Message("assistant", "its answer", meta={"final": True})]
    exact = ContextBuilder("You are Contextual.", tmp_path).build(history, [], "the question", limit=100_000).total
    built = ContextBuilder("You are Contextual.", tmp_path).build(history, [], "the question", limit=exact)
    assert built.total == exact and not built.adjustments                      # filled exactly to the limit
    wire = {"system": render_system(built.messages), "messages": render_messages(built.messages)}
    assert request_tokens(wire) <= exact


@pytest.mark.parametrize("flavor", ["openai", "llamacpp", "anthropic", "anthropic-max-tokens"])
def test_a_window_set_larger_than_the_servers_is_corrected_by_what_its_error_says(project: Path, flavor: str):
    """`--context-window 32768` against a server started with 4,096 (llama.cpp `-c 4096`): its rejection states
    its window, the run takes it (and says how to make it the setting), compacts and goes on — every call of
    every turn used to fail with "still too long for the model after compaction". anthropic-max-tokens: the
    API of Claude 3.7 and later refuses a prompt that fits when its max_tokens does not ("input length and
    `max_tokens` exceed context limit: 600 + 8000 > 4096"), which was not read as a context error at all: every
    turn ended on it (helper-65)."""
    from tests.fakes.server_flavors import Flavor
    for n in range(8):
        (project / f"part{n}.py").write_text("".join(f"def handler_{n}_{i}(request):  # part {n} line {i}\n"
                                                     for i in range(120)))
    reads = [action(f"read part {n}", "Read", {"file_path": f"part{n}.py"}) for n in range(8)]
    kind = "anthropic" if flavor.startswith("anthropic") else "openai"
    if flavor == "anthropic-max-tokens":
        (project / ".contextual" / "config.toml").unlink()    # max_tokens 8,000 at 32,768: every prompt refused
    model = Model(reads[:4] + [finish("first half read")] + reads[4:] + [finish("second half read")])
    with FakeLLMServer(kind=kind, responder=model, max_context_tokens=4096,
                       flavor=Flavor("llamacpp", n_ctx=4096) if flavor == "llamacpp" else None,
                       answer_in_window=flavor == "anthropic-max-tokens") as srv:
        env = cli_env(home_of(project), srv.base_url, kind, CONTEXTUAL_CONTEXT_WINDOW="32768")
        results = [contextual(["-p", prompt, "--permission-mode", "bypass"] + (["-c"] if i else []), project, env,
                              timeout=60) for i, prompt in enumerate(["read the first half", "read the rest"])]
    assert [r.returncode for r in results] == [0, 0], [r.stderr for r in results]
    assert [r.stdout for r in results] == ["first half read\n", "second half read\n"]
    assert "the server's window is 4,096 tokens, not the 32,768 set (env)" in results[0].stderr
    # the first turn has no older round to archive: said as a retry, not as a compaction that did nothing
    assert "retrying once with this turn fitted lower" in results[0].stderr
    assert "nothing compacted" not in results[0].stderr


def test_a_rejection_the_servers_window_explains_compacts_only_when_that_windows_trigger_says_so(project: Path):
    """`--context-window 32768` against an Anthropic model of 8,192: each run's first request (~2k tokens +
    max_tokens 8,000) is refused although the prompt is a quarter of the window. The run takes 8,192 and retries;
    it used to compact too, whatever that window's trigger said (a round archived at every turn, as no 8,192
    session would), and to aim 20 % lower for the rest of the turn, so the builder cut below the trigger
    (helper-65)."""
    (project / ".contextual" / "config.toml").unlink()          # the answer's reserve at 32,768: 8,000
    for n in range(3):
        (project / f"part{n}.py").write_text("".join(f"def handler_{n}_{i}(request):  # part {n} line {i}\n"
                                                     for i in range(60)))
    model = Model([item for n in range(3) for item in
                   (action(f"read part {n}", "Read", {"file_path": f"part{n}.py"}), finish(f"read {n}"))])
    with FakeLLMServer(kind="anthropic", responder=model, max_context_tokens=8192, answer_in_window=True) as srv:
        env = cli_env(home_of(project), srv.base_url, "anthropic", CONTEXTUAL_CONTEXT_WINDOW="32768")
        results = []
        for n in range(3):
            # each run learns the window again, as one whose home cannot keep it (tests/test_server_windows.py
            # tests the keeping): a rejection after earlier rounds must not compact them
            (home_of(project) / "server-windows.json").unlink(missing_ok=True)
            results.append(contextual(["-p", f"read part {n}", "--permission-mode", "bypass", "--keep-rounds", "1"]
                                      + (["-c"] if n else []), project, env, timeout=60))
    assert [r.stdout for r in results] == ["read 0\n", "read 1\n", "read 2\n"], [r.stderr for r in results]
    last = results[2].stderr
    assert "the server's window is 8,192 tokens" in last and "retrying once" in last
    assert model.summaries == 0 and "compacting" not in last, last     # 8,192's trigger is ~6k: nothing due
    assert not context_lines(last)                                     # and nothing fitted
    accepted = [r for i, r in enumerate(srv.requests) if i not in {v["request"] for v in srv.violations}]
    assert len(accepted) == 6 and all(r.tokens + r["max_tokens"] <= 8192 for r in accepted)


def test_a_fitted_anthropic_prompt_keeps_its_cache_breakpoints(project: Path):
    """A turn outgrowing the window is fitted at every later step; its requests carried the system breakpoint
    alone, so on Anthropic every step re-billed the history and the turn's steps uncached (helper-65). Fitted or
    not, a request marks the end of history and the newest step."""
    model = Model([finish("hello back"), READ_ALL, GREP, finish("read it")])
    with FakeLLMServer(kind="anthropic", responder=model, max_context_tokens=PROMPT_LIMIT) as srv:
        results = session(project, srv, ["hello", "read big.log"], "anthropic")
    assert_within_window(srv)
    assert [r.stdout for r in results] == ["hello back\n", "read it\n"] and context_lines(results[1].stderr)
    last = srv.requests[-1]
    marked = [block["text"] for m in last["messages"] if isinstance(m["content"], list)
              for block in m["content"] if "cache_control" in block]
    assert "cache_control" in last["system"][-1] and len(marked) == 2, marked
    assert marked[0].endswith("Finish[hello back]")            # the end of history
    assert marked[1].startswith("Observation: ")               # the newest step


def test_a_window_too_small_for_the_system_prompt_and_the_message_fails_at_once_naming_the_least_that_works(
        tmp_path: Path):
    """`--context-window 100` warned, then sent a 602-token prompt: the builder cuts history, rules and the message,
    never L1. A window that cannot hold L1 and the message beside the answer's room is a one-line error before
    anything is sent or a session opened, naming the least window that works; that one works, one less does not."""
    import re
    root = tmp_path / "proj"
    root.mkdir()
    with FakeLLMServer(kind="openai", script=[finish("fits")]) as srv:
        env = cli_env(home_of(root), srv.base_url)
        small = contextual(["-p", "hello there", "--context-window", "100"], root, env)
        assert small.returncode == 1 and small.stdout == "" and len(small.stderr.splitlines()) == 1, small.stderr
        assert small.stderr.startswith("contextual: a 100-token window is too small: the system prompt and tools (")
        least = int(re.search(r"need a window of at least ([\d,]+) tokens \(--context-window\)$",
                              small.stderr.strip()).group(1).replace(",", ""))
        assert not srv.requests and not list(home_of(root).rglob("*.jsonl"))     # nothing sent, no session
        short = contextual(["-p", "hello there", "--context-window", str(least - 1)], root, env)
        assert short.returncode == 1 and f"at least {least:,} tokens" in short.stderr and not srv.requests
        fits = contextual(["-p", "hello there", "--context-window", str(least)], root, env)
    assert fits.returncode == 0 and fits.stdout == "fits\n", fits.stderr
    assert len(srv.token_counts) == 1 and srv.token_counts[0] < least
