"""Forking a session (issue 30.2) through the real CLI: `contextual -r ID --fork` continues in a new session file
that holds a copy of the parent's past and its id, and the parent stays byte for byte as it was."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_helpers import cli_env, contextual, home_of, no_traceback, session_files
from tests.fakes.llm_server import FakeLLMServer


def test_fork_continues_in_a_new_session_and_leaves_the_parent_untouched(project: Path):
    from contextual.core.session import load_session
    home = home_of(project)
    with FakeLLMServer(kind="openai", script=["Thought: ok\nAction: Finish[first-answer]",
                                              "Thought: ok\nAction: Finish[forked-answer]"]) as srv:
        env = cli_env(home, srv.base_url)
        assert contextual(["-p", "first question"], project, env).returncode == 0
        [parent] = session_files(home)
        before = parent.read_bytes()
        parent_id = parent.name.removesuffix(".jsonl")
        forked = contextual(["-p", "second question", "-r", parent_id, "--fork"], project, env)
        sent = srv.requests[-1]
    assert forked.returncode == 0 and forked.stdout == "forked-answer\n", forked.stderr
    assert f"forked session {parent_id} into " in forked.stderr
    assert parent.read_bytes() == before                                   # the original untouched
    [child] = [p for p in session_files(home) if p != parent]
    loaded = load_session(child)
    assert loaded.forked_from == parent_id and not loaded.warnings
    texts = [m.content for m in loaded.history]
    assert texts[0] == "first question" and "second question" in texts     # the copied past, then the new turn
    assert "first question" in json.dumps(sent["messages"])                 # the model saw the past
    assert all(e.get("sessionId") == loaded.session_id for e in loaded.entries)


def test_fork_without_a_session_to_copy_is_one_line_error(project: Path):
    env = cli_env(home_of(project), "http://127.0.0.1:9/v1")
    done = contextual(["-p", "x", "--fork"], project, env)
    assert done.returncode == 1 and "--fork needs the session to copy" in done.stderr
    missing = contextual(["-p", "x", "-r", "nope", "--fork"], project, env)
    assert missing.returncode == 1 and "no session nope" in missing.stderr
    no_traceback(missing)


def test_continue_after_a_fork_goes_on_in_the_fork(project: Path):
    # /fork (or /rewind then k), quit, `contextual -c`: the fork is the latest session, not its parent
    from contextual.core.session.fork import fork_session
    home = home_of(project)
    with FakeLLMServer(kind="openai", script=["Thought: ok\nAction: Finish[one]", "Thought: ok\nAction: Finish[two]",
                                              "Thought: ok\nAction: Finish[three]"]) as srv:
        env = cli_env(home, srv.base_url)
        assert contextual(["-p", "first question"], project, env).returncode == 0
        [first] = session_files(home)
        assert contextual(["-p", "second question"], project, env).returncode == 0
        fork = fork_session(home, project, first)
        fork.close_sync()
        went_on = contextual(["-p", "third question", "-c", "--output-format", "json"], project, env)
    assert went_on.returncode == 0, went_on.stderr
    assert json.loads(went_on.stdout)["session_id"] == fork.path.name.removesuffix(".jsonl")
