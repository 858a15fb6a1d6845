"""The window a server states when it rejects a prompt is learned once and kept (core/server_windows.py), the summary
request learns it as a turn does, and Ollama without num_ctx is taken at its default num_ctx, not at the model's own
length (helper-133, from a user's review: r130 findings 3 and 4).

Before: every `-p -c` run and every restart learned the window again through a rejected call, its first compaction
ran at the old sizes (max_tokens 2,048 on a 4,096 server), and a summary request a vLLM-style server rejected (it
counts max_tokens in) fell back to truncation, dropping a round at every turn; Ollama was taken at 131k."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli_helpers import cli_env, contextual, home_of
from tests.fakes.llm_server import FakeLLMServer, RecordedRequest
from tests.fakes.server_flavors import Flavor

KEPT = ("using a window of 4,096 tokens, which the server stated when it rejected a prompt in an earlier run, not "
        "the 8,192 set")
SUMMARY = "## 📌 Archived Session Summary\n*(Contains context from a to b)*\n\n### 🎯 Objectives & Status\n* none"


def _action(tool: str, args: dict[str, Any]) -> str:
    return f"Thought: next\nAction: {tool}[{json.dumps(args)}]"


def _finish(text: str) -> str:
    return f"Thought: done\nAction: Finish[{text}]"


def _is_summary(body: dict[str, Any]) -> bool:
    first = (body.get("messages") or [{}])[0].get("content", "")
    return isinstance(first, str) and first.startswith("You are archiving")


class Model:
    """Summary requests get an A5 summary; a turn reads its file once, then finishes."""

    def __init__(self) -> None:
        self.summaries = 0

    def __call__(self, body: dict[str, Any]) -> str:
        if _is_summary(body):
            self.summaries += 1
            return SUMMARY
        last = body["messages"][-1]["content"]
        if isinstance(last, str) and last.startswith("Observation"):
            return _finish("done")
        return _action("Read", {"file_path": "notes.md"})


def _accepted(srv: FakeLLMServer) -> list[RecordedRequest]:
    refused = {v["request"] for v in srv.violations}
    return [r for i, r in enumerate(srv.requests) if i not in refused]


def _write_notes(project: Path, lines: int = 150) -> None:
    (project / "notes.md").write_text("".join(f"- note {i}: the parser keeps line {i} of the input as written\n"
                                              for i in range(lines)))


def test_a_window_learned_from_a_rejection_is_kept_for_resumed_and_new_sessions_until_the_setting_changes(
        project: Path):
    """--context-window 8192 against a server of 4,096 that counts max_tokens in (vLLM): the first run learns it
    through one rejected call; a `-c` run and a new session start with it (no second rejection, max_tokens 1,024);
    another setting forgets it. The file holds the server and model, no key or password."""
    _write_notes(project)
    with FakeLLMServer("openai", responder=Model(), max_context_tokens=4096, answer_in_window=True) as srv:
        base = srv.base_url.replace("http://", "http://ann:pa55word-x1@")
        env = cli_env(home_of(project), base, CONTEXTUAL_CONTEXT_WINDOW="8192",
                      CONTEXTUAL_API_KEY="sk-test-kept-9f8e7d6c")
        runs = [contextual(["-p", f"read the notes {n}", "--permission-mode", "bypass"] + extra, project, env)
                for n, extra in enumerate([[], ["-c"], []])]
        assert [r.stdout for r in runs] == ["done\n"] * 3, [r.stderr for r in runs]
        assert len(srv.violations) == 1                       # the first run's first call, and no other
        assert "the server's window is 4,096 tokens, not the 8,192 set (env)" in runs[0].stderr
        for later in runs[1:]:
            assert f"warning: {KEPT} (env)" in later.stderr and "the server's window is" not in later.stderr
        assert all(r.tokens + r["max_tokens"] <= 4096 for r in _accepted(srv))
        assert {r["max_tokens"] for r in srv.requests[len(srv.requests) - 4:]} == {1024}
        kept = (home_of(project) / "server-windows.json").read_text()
        assert "4096" in kept and "pa55word" not in kept and "sk-test-kept" not in kept and "ann" not in kept

        other = cli_env(home_of(project), base, CONTEXTUAL_CONTEXT_WINDOW="16384")
        changed = contextual(["-p", "read them again", "--permission-mode", "bypass", "-c"], project, other)
    assert changed.stdout == "done\n" and KEPT not in changed.stderr
    assert "the server's window is 4,096 tokens, not the 16,384 set (env)" in changed.stderr


def test_a_summary_request_rejected_for_its_size_learns_the_window_and_the_summary_is_made(project: Path):
    """A turn at 8,192 against a server that ran at 8,192, then the next (-c, a message as long) against it
    restarted at 4,096 with vLLM's check: the compaction before that turn's first call asked max_tokens 2,048 and
    was rejected. It used to fall back to truncation ("Summary generation failed … keeping recent history only");
    now the summary request reads the window in the error, asks again within it, and the turn and the next runs
    use it."""
    model = Model()

    def long_message(n: int) -> str:
        return " ".join(f"requirement {n}.{i}: keep the parser's output stable" for i in range(260)) + ". Go on."
    with FakeLLMServer("openai", responder=model) as srv:
        env = cli_env(home_of(project), srv.base_url, CONTEXTUAL_CONTEXT_WINDOW="8192")
        first = contextual(["-p", long_message(0), "--permission-mode", "bypass", "--keep-rounds", "1"], project, env)
        assert first.returncode == 0 and model.summaries == 0, first.stderr
        srv.max_context_tokens, srv.answer_in_window = 4096, True       # the server restarted with -c 4096
        before = len(srv.requests)
        resumed = contextual(["-p", long_message(1), "--permission-mode", "bypass", "--keep-rounds", "1", "-c"],
                             project, env)
    assert resumed.stdout == "done\n", resumed.stderr
    [refused] = [srv.requests[v["request"]] for v in srv.violations]
    assert _is_summary(refused) and refused["max_tokens"] == 2048
    assert "the server's window is 4,096 tokens, not the 8,192 set (env)" in resumed.stderr
    assert "compacted:" in resumed.stderr and "Summary generation failed" not in resumed.stderr, resumed.stderr
    after = [r for r in _accepted(srv)[before:]]
    assert any(_is_summary(r) for r in after) and model.summaries >= 2
    assert all(r.tokens + r["max_tokens"] <= 4096 for r in after)
    assert json.loads((home_of(project) / "server-windows.json").read_text())      # the next run starts with it


def test_ollama_without_num_ctx_runs_at_its_default_num_ctx_and_says_so(project: Path):
    """Ollama states the model's own length (131,072) and no num_ctx: it serves 4,096 (its default below 24 GiB of
    VRAM) and drops the oldest messages past it without an error. The run uses 4,096, says why and how to use more,
    and every request fits it with its max_tokens."""
    _write_notes(project)
    with FakeLLMServer("openai", responder=Model(), flavor=Flavor("ollama"), max_context_tokens=4096,
                       answer_in_window=True) as srv:
        run = contextual(["-p", "read the notes", "--permission-mode", "bypass"], project,
                         cli_env(home_of(project), srv.base_url))
    assert run.stdout == "done\n", run.stderr
    assert ("warning: Ollama serves num_ctx 4,096 unless it is set (not the model's own 131,072) and past it drops "
            "the oldest messages without an error: using 4,096 until the loaded model states its window; set "
            "OLLAMA_CONTEXT_LENGTH or num_ctx (and --context-window) to use more") in run.stderr
    assert srv.violations == [] and all(r.tokens + r["max_tokens"] <= 4096 for r in srv.requests)
    assert "has loaded the model" not in run.stderr            # /api/ps states the same 4,096 once it is loaded


def test_ollama_states_the_window_it_loaded_the_model_with_after_the_first_call(project: Path):
    """Ollama started with OLLAMA_CONTEXT_LENGTH=32768, which /api/show does not state: the run starts at the
    default 4,096 and, once the first call has loaded the model, takes the 32,768 /api/ps states."""
    _write_notes(project)
    with FakeLLMServer("openai", responder=Model(), flavor=Flavor("ollama", n_ctx=32768),
                       max_context_tokens=32768) as srv:
        run = contextual(["-p", "read the notes", "--permission-mode", "bypass"], project,
                         cli_env(home_of(project), srv.base_url))
    assert run.stdout == "done\n", run.stderr
    assert ("the server has loaded the model and states a window of 32,768 tokens (ollama /api/ps context_length), "
            "not the 4,096 used so far: using 32,768 from now on") in run.stderr
    assert [r["max_tokens"] for r in srv.requests] == [1024, 8000]


async def test_the_app_starts_with_the_window_an_earlier_run_learned(tmp_path: Path):
    """The app (a restart, `-c`) starts with the kept window: said in the chat, shown by the meter, and its first
    call asks max_tokens for 4,096, so the server rejects nothing."""
    from contextual.core import server_windows
    from contextual.tui.app import ContextualApp
    from contextual.tui.widgets.token_meter import TokenMeter
    from tests.tui_helpers import SIZE, chat_text, finish, make_host, run_turn, wait_for
    with FakeLLMServer("openai", [finish("one")], max_context_tokens=4096, answer_in_window=True) as srv:
        host = make_host(tmp_path, srv.base_url, context_window=8192)
        server_windows.remember(host.config, 4096)            # as an earlier run's rejection did
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await app.startup.started()
            await wait_for(pilot, lambda: f"{KEPT} (flag)" in chat_text(app))
            await wait_for(pilot, lambda: "of 4.1k window" in str(app.query_one(TokenMeter).render()))
            await run_turn(pilot, "hello")
            assert "one" in chat_text(app)
    assert srv.violations == [] and [r["max_tokens"] for r in srv.requests] == [1024]
