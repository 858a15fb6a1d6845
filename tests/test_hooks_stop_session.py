"""Claude Code's Stop hook that blocks (the turn goes on with its reason, bounded) and its SessionStart hook (context
for the model, matched on the source), through the real CLI and a fake model server, the engine and the app."""

from __future__ import annotations

import json
import shlex
from contextlib import asynccontextmanager
import sys
from pathlib import Path

from contextual.core.context.continuation import MAX_CONTINUATIONS
from tests.cli_helpers import cli_env, contextual, home_of, session_files
from tests.fakes.llm_server import FakeLLMServer
from tests.test_hooks import FINISH, READ, _answer, _hooks_file, _run

# A Stop hook as Claude Code's docs write one: it keeps what it was given (its stdin), and blocks with exit 2 and a
# reason on stderr unless the turn already goes on because of a Stop hook (`stop_hook_active`).
STOP_SCRIPT = """import json, sys
given = json.load(sys.stdin)
with open("stops.jsonl", "a") as out:
    out.write(json.dumps(given) + "\\n")
if not given["stop_hook_active"]:
    print("the tests fail: run them", file=sys.stderr)
    sys.exit(2)
"""


def _finish(answer: str) -> str:
    return f"Thought: done\nAction: Finish[{answer}]"


def _stop_script(project: Path) -> str:
    (project / "stop_hook.py").write_text(STOP_SCRIPT)
    return f"{shlex.quote(sys.executable)} stop_hook.py"


def _entries(project: Path) -> list[dict]:
    [path] = session_files(home_of(project))
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_stop_hook_that_blocks_makes_the_turn_go_on_with_its_reason(project: Path):
    _hooks_file(home_of(project) / "config.toml", "Stop", _stop_script(project))
    result, srv = _run(project, [_finish("first try"), READ, _finish("second try")])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "second try"                   # the answer is the turn's last
    assert "Stop hook: the tests fail: run them — continuing" in result.stderr.splitlines()
    assert len(srv.requests) == 3
    went_on = srv.requests[1]["messages"]
    assert went_on[-2] == {"role": "assistant", "content": _finish("first try")}
    assert went_on[-1]["role"] == "user" and "Stop hook feedback: the tests fail: run them" in went_on[-1]["content"]
    # `stop_hook_active`: false at the first answer, true at the one the hook's block led to
    stops = [json.loads(line) for line in (project / "stops.jsonl").read_text().splitlines()]
    assert [(s["stop_hook_active"], s["last_assistant_message"]) for s in stops] == [
        (False, "first try"), (True, "second try")]
    # in the session: one turn, the hook's reason a user-role message of it
    users = [e for e in _entries(project) if e["type"] == "user"]
    assert [e["meta"].get("stop_hook") for e in users] == [None, "the tests fail: run them"]
    assert users[0]["meta"]["turn"] == users[1]["meta"]["turn"]


def test_the_next_turn_and_the_rebuilt_requests_keep_the_continuation_in_its_round(project: Path, tmp_path: Path):
    from contextual.core.context.history import rounds
    from contextual.core.session import load_session
    _hooks_file(home_of(project) / "config.toml", "Stop", _stop_script(project))
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    with FakeLLMServer("openai", [_finish("first try"), _finish("second try"), _finish("later")]) as srv:
        env = cli_env(home_of(project), srv.base_url)
        assert contextual(["-p", "go"], project, env).returncode == 0
        (project / "stops.jsonl").write_text("")
        (project / "stop_hook.py").write_text("")           # the next turn's Stop hook lets it end
        assert contextual(["-p", "and then", "-c"], project, env).returncode == 0
        sent = list(srv.requests)
    later = sent[2]["messages"]
    assert [m["role"] for m in later[-5:]] == ["user", "assistant", "user", "assistant", "user"]
    assert "Stop hook feedback" in later[-3]["content"] and later[-1]["content"].startswith("and then")
    history = load_session(session_files(home_of(project))[0]).history
    assert len(rounds(history)) == 2                      # the hook's message started no round of its own
    out = tmp_path / "sent.jsonl"
    assert contextual(["export", "-c", "--as-sent", "-o", str(out)], project, env).returncode == 0
    calls = [json.loads(line) for line in out.read_text().splitlines()][1:]
    assert [c["body"]["messages"] for c in calls] == [r["messages"] for r in sent]
    done = contextual(["export", "-c"], project, env)
    text = Path(done.stdout.strip()).read_text()
    assert text.index("first try") < text.index("Stop hook: the tests fail") < text.index("second try")


def test_a_stop_hook_that_always_blocks_goes_on_at_most_the_cap_then_the_turn_ends(project: Path):
    _hooks_file(home_of(project) / "config.toml", "Stop", _answer({"decision": "block", "reason": "not yet"}))
    script = [_finish(f"answer {n}") for n in range(MAX_CONTINUATIONS + 3)]
    result, srv = _run(project, script)
    assert result.returncode == 0, result.stderr
    assert len(srv.requests) == MAX_CONTINUATIONS + 1
    assert result.stdout.strip() == f"answer {MAX_CONTINUATIONS}"
    lines = result.stderr.splitlines()
    assert sum(line == "Stop hook: not yet — continuing" for line in lines) == MAX_CONTINUATIONS
    assert sum(f"it went on {MAX_CONTINUATIONS} times already" in line for line in lines) == 1


def test_the_step_limit_holds_across_continuations(project: Path):
    _hooks_file(home_of(project) / "config.toml", "Stop", _answer({"decision": "block", "reason": "not yet"}))
    result, srv = _run(project, [READ, _finish("one"), _finish("two")], "--max-steps", "2")
    assert result.returncode == 0, result.stderr
    assert len(srv.requests) == 2 and result.stdout.strip() == "one"
    assert "its 2 model calls are spent" in result.stderr


def test_continue_false_from_a_stop_hook_ends_the_turn_whatever_it_blocks(project: Path):
    _hooks_file(home_of(project) / "config.toml", "Stop", _answer(
        {"decision": "block", "reason": "not yet", "continue": False, "stopReason": "out of budget"}))
    result, srv = _run(project, [_finish("one"), _finish("two")])
    assert result.returncode == 0, result.stderr
    assert len(srv.requests) == 1 and result.stdout.strip() == "one"
    assert "out of budget" in result.stderr and "continuing" not in result.stderr


async def test_the_app_shows_the_stop_hooks_continuation_live_and_resumed(tmp_path: Path):
    from contextual.tui.app import ContextualApp
    from contextual.tui.widgets.history_view import HistoryView
    from contextual.tui.widgets.scratchpad import ScratchpadView
    from tests.test_resumed_chat import _chat_items, _steps
    from tests.tui_helpers import SIZE, make_host, resumed_app, run_turn, server, until_shown

    # blocks once (a file marks that it did), then lets the turn end
    _hooks_file(tmp_path / "home" / "config.toml", "Stop",
                "cat > /dev/null; test -e blocked && exit 0; touch blocked; echo 'lint first' >&2; exit 2")
    read = 'Thought: look\nAction: Read[{"file_path": "cart.py", "limit": 2}]'
    with server([_finish("first try"), read, _finish("second try")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "fix it")
            live, pad = _chat_items(app), app.query_one(ScratchpadView)
            steps = _steps(pad)
            history = app.query_one(HistoryView)
            rows = [history.get_option_at_index(i).prompt.plain for i in range(history.option_count)]
            session_id = app.engine.session_id
            await app.host.close(app.engine)
        assert live == ["you  fix it", "first try", "Stop hook: lint first — continuing", "trail: Read cart.py · Read 2 lines (1–2 of 300)",
                        "✓ Read cart.py\n  ⎿ Read 2 lines (1–2 of 300)", "second try"]
        first = pad.turns[-1].step(1)
        assert first.tool == "Finish" and "Stop hook feedback: lint first" in (first.observation or "")
        assert pad.turns[-1].outcome == "finished" and len(srv.requests) == 3
        assert sum(row.startswith("● stop hook") and "Stop hook feedback: lint first" in row for row in rows) == 1

        resumed = resumed_app(tmp_path, srv.base_url, session_id)
        async with resumed.run_test(size=SIZE) as pilot:
            await until_shown(pilot, resumed)
            await pilot.pause()
            assert _chat_items(resumed)[:len(live)] == live
            assert _steps(resumed.query_one(ScratchpadView)) == steps


@asynccontextmanager
async def _stopped_in_a_hook(tmp_path: Path, event: str, command: str, script: list[str], text: str):
    """The app with an `event` hook running `command` (it touches `started` first), `text` sent, esc pressed once the
    hook started and the turn over: (app, server, project), the app still running."""
    from contextual.tui.app import ContextualApp
    from tests.tui_helpers import SIZE, make_host, server, type_and_send, wait_for

    _hooks_file(tmp_path / "home" / "config.toml", event, command)
    with server(script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        root = app.config.project_root
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, text)
            await wait_for(pilot, lambda: (root / "started").exists())
            await pilot.press("escape")
            await wait_for(pilot, lambda: not app.turns.running, timeout=10)     # not the hook's 30 s
            yield app, srv, root


async def test_esc_stops_a_turn_that_a_stop_hook_holds_at_once_and_the_hook_with_it(tmp_path: Path):
    from contextual.tui.widgets.scratchpad import ScratchpadView

    async with _stopped_in_a_hook(tmp_path, "Stop", "touch started; sleep 30; touch finished",
                                  [_finish("one"), _finish("two")], "go") as (app, srv, root):
        assert app.query_one(ScratchpadView).turns[-1].outcome == "interrupted"
    assert not (root / "finished").exists() and len(srv.requests) == 1


async def test_esc_during_a_user_prompt_submit_hook_keeps_the_message_as_a_stopped_turn(tmp_path: Path):
    """The message was shown as sent; stopped while its UserPromptSubmit hook ran, the session lost it (helper-79).
    It is kept, as a turn stopped before its first call."""
    async with _stopped_in_a_hook(tmp_path, "UserPromptSubmit", "touch started; sleep 30", [_finish("two")],
                                  "keep KEPTMSG") as (app, srv, root):
        assert not srv.requests
        session = app.engine.session.path
    lines = session.read_text().splitlines()
    assert any("KEPTMSG" in line and '"user"' in line for line in lines)
    assert '"interrupted"' in lines[-1]


# ---- SessionStart ----------------------------------------------------------------------------------------------

CONTEXT = "SessionStart hook additional context: "


def _first_user(request: dict) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == "user")


def test_session_start_adds_its_stdout_to_the_sessions_first_message_and_hears_its_source(project: Path):
    config = home_of(project) / "config.toml"
    _hooks_file(config, "SessionStart", "cat >> starts.jsonl; echo >> starts.jsonl; echo 'branch: feature-x'")
    _hooks_file(config, "SessionStart", "touch resumed.txt", matcher="resume")      # matched on the source
    with FakeLLMServer("openai", [FINISH, FINISH]) as srv:
        env = cli_env(home_of(project), srv.base_url)
        assert contextual(["-p", "go"], project, env).returncode == 0
        assert not (project / "resumed.txt").exists()
        assert contextual(["-p", "again", "-c"], project, env).returncode == 0
        sent = list(srv.requests)
    starts = [json.loads(line) for line in (project / "starts.jsonl").read_text().splitlines() if line.strip()]
    assert [(s["hook_event_name"], s["source"], s["model"]) for s in starts] == [
        ("SessionStart", "startup", "fake-model"), ("SessionStart", "resume", "fake-model")]
    assert (project / "resumed.txt").exists()
    first = _first_user(sent[0])
    assert first.startswith("go") and CONTEXT + "branch: feature-x" in first
    again = sent[1]["messages"][-1]["content"]
    assert again.startswith("again") and CONTEXT + "branch: feature-x" in again
    # `contextual context` runs no hook: it says that the next message gets their output, which it cannot show
    shown = contextual(["context", "-c", "--input", "next"], project, env)
    assert shown.returncode == 0 and shown.stdout.count("branch: feature-x") == 2, "the two messages sent, not 'next'"
    assert "SessionStart hooks are not run here: what they print is added to the next message" in shown.stderr


def test_session_start_json_context_is_bounded_and_a_projects_hook_waits_for_trust(project: Path):
    big = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "x" * 12_000}}
    _hooks_file(home_of(project) / "config.toml", "SessionStart", _answer(big))
    _hooks_file(project / ".contextual" / "config.toml", "SessionStart", "touch ran.txt; echo 'from the checkout'")
    result, srv = _run(project, [FINISH], CONTEXTUAL_TRUST_PROJECT="")
    assert result.returncode == 0, result.stderr
    first = _first_user(srv.requests[0])
    assert CONTEXT + "x" * 10_000 + "\n[hook output cut: 2,000 more characters" in first and "x" * 10_001 not in first
    assert not (project / "ran.txt").exists() and "from the checkout" not in first
    assert "not approved, so not used: hooks in" in result.stderr


async def test_session_start_runs_once_per_session_and_again_after_a_compaction(tmp_path: Path):
    from contextual.core.hooks import parse_hooks
    from tests.engine_helpers import engine_with, finish, read_action, run
    from tests.fakes.scripted_model import Model

    root = tmp_path / "proj"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    hooks = parse_hooks({"SessionStart": [{"hooks": [{"command": "cat >> starts.jsonl; echo >> starts.jsonl; echo 'ctx-7'"}]}]},
                        "test")
    model = Model([read_action("calc.py"), finish("one"), finish("two"), finish("three")])
    async with engine_with(root, [model] * 5, hooks=hooks) as (engine, srv):
        await run(engine, "first")
        await run(engine, "second")
        [ev async for ev in engine.compact(keep_rounds=1)]
        await run(engine, "third")
    sources = [json.loads(line)["source"] for line in (root / "starts.jsonl").read_text().splitlines() if line]
    assert sources == ["startup", "compact"]
    def sent(request: dict) -> list[str]:
        return [m["content"] for m in request["messages"] if m["role"] == "user"]
    # the second turn's request carries it once, in the first turn's message; the third, after the compaction
    # archived that message, in its own input
    assert [CONTEXT + "ctx-7" in text for text in sent(model.turn_requests[2])] == [True, False, False]
    third = sent(model.turn_requests[3])
    assert third[-1].startswith("third") and CONTEXT + "ctx-7" in third[-1]
    assert sum(CONTEXT + "ctx-7" in text for text in third) == 1


async def test_a_compaction_before_an_input_runs_session_start_compact_whose_context_rides_on_that_input(
        tmp_path: Path):
    from contextual.core.events import CompactionFinished
    from contextual.core.hooks import parse_hooks
    from tests.engine_helpers import engine_with, finish, run
    from tests.fakes.scripted_model import Model

    root = tmp_path / "proj"
    root.mkdir()
    said = ("import json, sys; s = json.load(sys.stdin)['source']; open('starts.txt', 'a').write(s + ' '); "
            "print('ctx-' + s)")
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(said)}"
    hooks = parse_hooks({"SessionStart": [{"hooks": [{"command": command}]}]}, "test")
    big = "x " * 2_500                     # ~2.5k tokens an answer: a few fill an 8k window
    model = Model([finish(f"answer {i} {big}") for i in range(6)])
    async with engine_with(root, [model] * 8, hooks=hooks, context_window=8192) as (engine, srv):
        for i in range(6):
            events = await run(engine, f"question {i}")
            if any(isinstance(e, CompactionFinished) for e in events):
                break
        else:
            raise AssertionError("no compaction before an input")
    assert (root / "starts.txt").read_text().split() == ["startup", "compact"]
    sent = model.turn_requests[-1]["messages"][-1]["content"]
    assert sent.startswith(f"question {i}") and CONTEXT + "ctx-compact" in sent


async def test_clear_in_the_app_starts_a_session_whose_hooks_hear_clear(tmp_path: Path):
    from contextual.tui.app import ContextualApp
    from tests.tui_helpers import SIZE, make_host, run_turn, server, type_and_send, wait_for

    _hooks_file(tmp_path / "home" / "config.toml", "SessionStart", "cat >> ../starts.jsonl; echo >> ../starts.jsonl")
    with server([_finish("one"), _finish("two")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "one")
            await type_and_send(pilot, "/clear")
            await wait_for(pilot, lambda: app.engine.session_id is None)
            await run_turn(pilot, "two")
    sources = [json.loads(line)["source"] for line in (tmp_path / "starts.jsonl").read_text().splitlines() if line]
    assert sources == ["startup", "clear"]


async def test_replaying_a_session_under_the_policies_runs_none_of_its_hooks_again(tmp_path: Path):
    # /policies replays the record: a Stop hook that blocked live would block again (and any hook's command run
    # a second time) if the replay kept the session's hooks
    from contextual.core.hooks import parse_hooks
    from contextual.core.replay.session_policies import recorded_turns, replay_session
    from contextual.core.session import SessionWriter, load_session
    from tests.engine_helpers import engine_with, finished, run

    root = tmp_path / "proj"
    root.mkdir()
    hooks = parse_hooks({"Stop": [{"hooks": [{"command": "echo >> ran.txt; echo '{\"decision\": \"block\", "
                                                         "\"reason\": \"again\"}'"}]}]}, "test")
    writer = SessionWriter.create(tmp_path / "home", root, session_id="stop1")
    async with engine_with(root, [_finish("one"), _finish("two")], session=writer, hooks=hooks,
                           max_steps=2) as (engine, srv):
        assert finished(await run(engine, "go")).answer == "two"
        await writer.close()
    ran = (root / "ran.txt").read_text()
    replayed = await replay_session(recorded_turns(load_session(writer.path).full_record), "ours", engine.config)
    assert len(replayed.calls) == len(srv.requests) == 2
    assert (root / "ran.txt").read_text() == ran
