"""A turn that ends without an answer keeps why in its session (an `interrupted` or `turn_failed` entry naming the
turn): `contextual export`, /export and a resumed chat say it where the live chat said it, instead of the generic
"no answer" line. The entry is not a message: the next prompt is the same with and without it, and a file written
before it existed loads as before."""

from __future__ import annotations

import json
from pathlib import Path

from contextual.core.messages import NO_ANSWER, Message
from contextual.core.session import SessionWriter, load_session
from contextual.core.session.schema import INTERRUPTED, TurnEnd
from contextual.tui.widgets.scratchpad import ScratchpadView
from tests.cli_helpers import cli_env, contextual, home_of, session_files, session_text
from tests.fakes.llm_server import Fault, FakeLLMServer

KEY = "sk-test-turnend-0123456789abcdef"
READ = 'Thought: look\nAction: Read[{"file_path": "notes.txt"}]'


def _entries(home: Path) -> list[dict]:
    (path,) = session_files(home)
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_turn_that_fails_every_retry_is_exported_with_its_reason_and_resumes(project: Path):
    # one retry (CONTEXTUAL_MAX_RETRIES): the turn gives up after two failed attempts without a long backoff
    failing = Fault("500", message=f"upstream refused {KEY}")
    with FakeLLMServer(kind="openai", script=[failing, failing, "Thought: ok\nAction: Finish[second answer]"]) as srv:
        env = cli_env(home_of(project), srv.base_url, CONTEXTUAL_API_KEY=KEY, CONTEXTUAL_MAX_RETRIES="1")
        failed = contextual(["-p", "first, it fails"], project, env)
        assert failed.returncode == 1 and "gave up after 2 attempts" in failed.stderr, failed.stderr
        assert len(srv.requests) == 2
        # -r after a failed turn (-c offers no session whose every turn failed before a reply)
        resumed = contextual(["-p", "second, answered", "-r", session_files(home_of(project))[0].stem], project, env)
    assert resumed.returncode == 0 and resumed.stdout == "second answer\n", resumed.stderr
    entries = _entries(home_of(project))
    (end,) = [e for e in entries if e.get("subtype") == "turn_failed"]
    first = next(e for e in entries if e["type"] == "user")
    assert end["turnId"] == first["meta"]["turn"] and end["kind"] == "provider"
    assert "HTTP 500" in end["reason"] and "[redacted]" in end["reason"]
    assert KEY not in session_text(home_of(project))                     # no key is ever written
    done = contextual(["export", "-c", "-o", "-"], project, env)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    line = f"_turn failed: {end['reason']}_"
    assert text.index("first, it fails") < text.index(line) < text.index("second, answered")
    assert NO_ANSWER not in text and KEY not in text


def test_the_step_limit_is_exported_as_the_reason(project: Path):
    (project / "notes.txt").write_text("alpha\n")
    with FakeLLMServer(kind="openai", script=[READ, READ]) as srv:       # a reply that never finishes
        env = cli_env(home_of(project), srv.base_url)
        failed = contextual(["-p", "look around", "--max-steps", "1"], project, env)
    assert failed.returncode == 1 and "step limit reached" in failed.stderr, failed.stderr
    (end,) = [e for e in _entries(home_of(project)) if e.get("subtype") == "turn_failed"]
    assert end["kind"] == "step_limit"
    done = contextual(["export", "-o", "-"], project, env)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert text.index("Result of `Read`") < text.index("_turn failed: step limit reached: 1 model calls in one turn")
    assert NO_ANSWER not in text


def test_the_next_input_tells_the_model_its_last_turn_failed_and_not_why(project: Path):
    """The reason is for the person: neither History nor the prompt sent holds it. That the turn failed is for the
    model too, as a stopped one is: two questions in a row read as unfinished business (the entry says it on
    resume, the live engine after the failure)."""
    with FakeLLMServer(kind="openai", script=[Fault("401")]) as srv:
        env = cli_env(home_of(project), srv.base_url)
        assert contextual(["-p", "it fails"], project, env).returncode == 1
    (path,) = session_files(home_of(project))
    # -r: -c offers no session whose every turn failed before a reply
    with_entry = contextual(["context", "-r", path.stem, "--json", "--input", "again"], project, env)
    lines = path.read_text().splitlines(keepends=True)
    kept = [line for line in lines if '"subtype":"turn_failed"' not in line]
    assert len(kept) == len(lines) - 1
    path.write_text("".join(kept))
    without = contextual(["context", "-r", path.stem, "--json", "--input", "again"], project, env)
    assert with_entry.returncode == without.returncode == 0, with_entry.stderr + without.stderr
    sent, plain = json.loads(with_entry.stdout), json.loads(without.stdout)
    told = "Your previous turn ended without an answer (the model server failed)"
    assert told in json.dumps(sent["request"]) and told not in json.dumps(plain["request"])
    assert "it fails" in json.dumps(sent["request"]) and "HTTP 401" not in json.dumps(sent["request"])
    with FakeLLMServer(kind="openai", script=[finish_reply("ok")]) as srv:      # what -c then sends: the same
        env = cli_env(home_of(project), srv.base_url)
        path.write_text("".join(lines))
        assert contextual(["-p", "again", "-r", path.stem], project, env).returncode == 0
        assert told in json.dumps(srv.requests[0]["messages"][-1])


def finish_reply(answer: str) -> str:
    return f"Thought: done\nAction: Finish[{answer}]"


def _turn(writer: SessionWriter, text: str, turn: str | None, answer: str | None = None) -> None:
    writer.append_message(Message("user", text, meta={"raw": text, **({"turn": turn} if turn else {})}))
    if answer is not None:
        writer.append_message(Message("assistant", "Finish", meta={"final": True, "step": 1, "answer": answer,
                                                                   **({"turn": turn} if turn else {})}))


def test_a_file_without_the_entry_loads_as_before_and_an_older_interrupted_entry_finds_its_turn(tmp_path: Path):
    (tmp_path / "p").mkdir()
    writer = SessionWriter.create(tmp_path / "home", tmp_path / "p")
    _turn(writer, "one", "t1")
    _turn(writer, "two", "t2", "Done.")
    writer.close_sync()
    old = load_session(writer.path)
    assert old.turn_ends == {} and not old.stopped and not old.warnings
    assert [m.content for m in old.history] == ["one", "two", "Finish"]
    from contextual.core.export import transcript
    assert transcript(old).count(NO_ANSWER) == 1            # as before: the record says only that it had none

    writer = SessionWriter.reopen(writer.path)
    writer.append_entry({"type": "system", "subtype": "some_later_kind", "whatever": [1]})   # unknown: ignored
    _turn(writer, "three", "t3")
    writer.append_entry({"type": "system", "subtype": "interrupted", "reason": "cancelled by the user"})  # no turnId
    writer.append_turn_end(TurnEnd("t1", "provider", "openai: HTTP 500 (gave up after 2 attempts)"))
    writer.close_sync()
    loaded = load_session(writer.path)
    assert [m.content for m in loaded.history] == ["one", "two", "Finish", "three"] and not loaded.warnings
    assert loaded.turn_ends["t3"] == TurnEnd("t3", INTERRUPTED, "interrupted by the user") and loaded.stopped
    assert loaded.turn_ends["t1"].describe() == "turn failed: openai: HTTP 500 (gave up after 2 attempts)"
    from contextual.core.session import read_tail
    assert read_tail(writer.path, 10).turn_ends == loaded.turn_ends     # the first frame reads the same


async def test_a_resumed_app_shows_why_its_turns_failed_at_80x24(tmp_path: Path):
    """Live the chat said "error (provider): …"; resumed, it said "no answer: this turn was stopped or failed"."""
    from textual.widgets import Static

    from contextual.tui.app import ContextualApp
    from contextual.tui.widgets.chat_log import ChatLog
    from tests.tui_helpers import make_host, make_project, wait_for
    make_project(tmp_path, lines=3)
    host = make_host(tmp_path, "http://127.0.0.1:9/v1")
    writer = SessionWriter.create(tmp_path / "home", host.config.project_root)
    _turn(writer, "first question", "t1", "First answer.")
    _turn(writer, "second question", "t2")
    writer.append_turn_end(TurnEnd("t2", "provider", "openai: HTTP 503: overloaded (gave up after 5 attempts)"))
    _turn(writer, "third question", "t3")
    writer.append_turn_end(TurnEnd("t3", INTERRUPTED, "interrupted by the user"))
    writer.close_sync()
    session_id = writer.session_id
    for opened in ("eager", "first frame"):
        host = make_host(tmp_path, "http://127.0.0.1:9/v1")
        app = (ContextualApp(host, host.resume(session_id), animate=False) if opened == "eager" else
               ContextualApp(host, animate=False, resume=host.session_path(session_id)))
        async with app.run_test(size=(80, 24)) as pilot:
            if opened == "first frame":
                await app.startup.started()
            await pilot.pause()
            notes = {str(w.render()): w for w in app.query_one(ChatLog).query(Static) if w.has_class("notice")}
            failed = "turn failed: openai: HTTP 503: overloaded (gave up after 5 attempts)"
            assert failed in notes and "turn interrupted" in notes and NO_ANSWER not in notes, (opened, notes)
            assert notes[failed].has_class("-error") and notes["turn interrupted"].has_class("-warning")
            screen = app.export_screenshot().replace("&#160;", " ")       # on screen at 80 columns, wrapped or not
            assert "turn failed: openai: HTTP" in screen and "turn interrupted" in screen
            # the Scratchpad names them as the live pane did ("failed", "interrupted"), not "not finished"
            await wait_for(pilot, lambda: len(app.query_one(ScratchpadView).turns) == 3)
            pad = app.query_one(ScratchpadView)
            assert [t.outcome for t in pad.turns] == ["finished", "failed", "interrupted"], opened
            await app.host.close(app.engine)


async def test_the_session_picker_marks_a_session_whose_last_turn_failed_within_80_columns(tmp_path: Path):
    from textual.app import App
    from textual.widgets import DataTable

    from contextual.core.session.index import list_sessions
    from contextual.tui.screens.session_picker import SessionPicker
    (tmp_path / "p").mkdir()
    ids = []
    for failed_last in (True, False, None):
        writer = SessionWriter.create(tmp_path / "home", tmp_path / "p")
        if failed_last is not None:         # None: every turn failed before any reply, a session not offered
            _turn(writer, "hello", "t0", "Hi.")
        _turn(writer, "refactor the cart module " * 4, "t1")
        writer.append_turn_end(TurnEnd("t1", "provider", "openai: HTTP 500"))
        if failed_last is False:         # a turn after the failed one: the session's last turn is fine
            _turn(writer, "again", "t2", "Done.")
        writer.close_sync()
        ids.append(writer.session_id)
    infos = {info.id: info for info in list_sessions(tmp_path / "home", tmp_path / "p")}
    assert infos[ids[0]].last_failed and not infos[ids[1]].last_failed and ids[2] not in infos
    for session_id in (ids[0], ids[2]):       # read from the session file, no sidecar
        writer.path.with_name(f"{session_id}.jsonl.index.json").unlink()
    assert {i.id: i.last_failed for i in list_sessions(tmp_path / "home", tmp_path / "p")} == {ids[0]: True,
                                                                                             ids[1]: False}
    app = App()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(SessionPicker(list(infos.values())))
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        rounds = {str(table.get_row_at(row)[-1]): str(table.get_row_at(row)[2]) for row in range(table.row_count)}
        assert rounds == {ids[0][:8]: "2 ✗", ids[1][:8]: "3"}
        assert sum(column.get_render_width(table) for column in table.columns.values()) <= \
            table.scrollable_content_region.width
        assert app.screen.query_one("#picker-legend").display


async def test_in_one_run_the_message_after_a_failed_turn_tells_the_model_once(tmp_path: Path):
    from tests.engine_helpers import engine_with, run
    async with engine_with(tmp_path, [Fault("401"), finish_reply("a"), finish_reply("b")],
                           max_retries=0) as (engine, srv):
        await run(engine, "first")
        await run(engine, "second")
        await run(engine, "third")
    told = "Your previous turn ended without an answer (the model server failed)"
    assert told in json.dumps(srv.requests[1]["messages"][-1]) and told not in json.dumps(srv.requests[2]["messages"][-1])


async def test_a_crash_mid_turn_is_recorded_as_an_internal_error_not_as_the_users_stop(tmp_path: Path, monkeypatch):
    """A bug of ours that ended a turn was recorded as "interrupted by the user", and the next input told the model
    the user had stopped it (helper-80 noticed)."""
    import pytest

    from contextual.core.engine.tool_step import ToolStep
    from tests.engine_helpers import engine_with, run

    def broken(self, *args, **kwargs):
        raise RuntimeError("a bug in the step")
    async with engine_with(tmp_path, [READ, finish_reply("b")]) as (engine, srv):
        with monkeypatch.context() as patched:
            patched.setattr(ToolStep, "act", broken)
            with pytest.raises(RuntimeError):
                await run(engine, "first")
        (end,) = engine.turn_ends.values()
        assert (end.kind, end.reason) == ("internal", "internal error: RuntimeError: a bug in the step")
        await run(engine, "second")
    told = json.dumps(srv.requests[-1]["messages"][-1])
    assert "an internal error of the agent stopped it" in told and "stopped your previous turn" not in told


async def test_a_crash_whose_message_holds_a_key_across_the_reasons_cut_records_no_piece_of_it(tmp_path: Path,
                                                                                               monkeypatch):
    """The reason was cut at MAX_REASON_CHARS, then redacted: a key across the cut kept its start, which redaction
    no longer knew, in the session and the export (helper83)."""
    import pytest

    from contextual.core import secrets
    from contextual.core.engine.tool_step import ToolStep
    from contextual.core.engine.turn_ends import MAX_REASON_CHARS
    from tests.engine_helpers import engine_with, run
    key = "sk-crash-Key-Hj3Kl5Mn7Pq9Rs"
    secrets.remember(key)
    said = "internal error: RuntimeError: "

    def broken(self, *args, **kwargs):
        raise RuntimeError("x" * (MAX_REASON_CHARS - len(said) - 8) + key)      # the key starts 8 before the cut
    async with engine_with(tmp_path, [READ]) as (engine, _srv):
        with monkeypatch.context() as patched:
            patched.setattr(ToolStep, "act", broken)
            with pytest.raises(RuntimeError):
                await run(engine, "first")
        (end,) = engine.turn_ends.values()
    assert end.reason.startswith(said + "xxx") and key[:5] not in end.reason, end.reason[-40:]


def test_a_reply_cut_off_mid_stream_is_kept_as_said_without_a_made_up_observation_or_a_keys_start():
    """What a stopped reply keeps in history is what the chat could show: no observation the model invented after
    its action (the parser ignores it), no thinking, and not the first characters of a key the stream was still
    holding back when the user stopped it."""
    from contextual.core import secrets
    from contextual.core.engine.model_call import Reply
    from contextual.core.engine.turn_ends import Said, TurnEnds

    class Recorded(list):
        def append(self, message):
            super().append(message)
            return message

    secrets.remember("sk-live-0123456789abcdef0123")
    ends = TurnEnds.__new__(TurnEnds)
    ends._recorder = recorded = Recorded()
    reply = Reply(text=["<think>private</think>Thought: run it\nAction: Bash[{\"command\": \"ls\"}]",
                        "\nObservation: made up by the model\nThought: and the key is sk-live-0123"])
    ends._cut_off(Said(reply, 3), "t1")
    (message,) = recorded
    assert message.content == 'Thought: run it\nAction: Bash[{"command": "ls"}]'
    assert message.meta == {"step": 3, "turn": "t1", "interrupted": True}
    reply = Reply(text=["Thought: the key starts sk-live-01"])
    ends._cut_off(Said(reply, 4), "t1")
    assert recorded[-1].content == "Thought: the key starts"
