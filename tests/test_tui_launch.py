"""The launch path (issue 29): the first frame waits for nothing it does not show, and what is put off until after
it still arrives. Behaviour only; the timings are benchmarks/bench_launch.py's."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from contextual.tui.app import ContextualApp
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.history_view import HistoryView
from contextual.tui.widgets.token_meter import TokenMeter
from contextual.tui.widgets.top_bar import TopBar
from contextual.tui.workers import worker_running
from tests.tui_helpers import SIZE, chat_text, finish, make_host, run_turn, server, wait_for

REPO = Path(__file__).resolve().parents[1]


def test_a_new_sessions_first_frame_is_drawn_before_the_engine_is_imported(tmp_path):
    """In a fresh process, as `contextual` starts it: at the app's mount (the first frame follows it) neither the
    engine, the tools, the MCP manager or SDK (no server configured), httpx nor the tokenizer are imported; after
    the frame the engine opens."""
    code = textwrap.dedent(f"""
        import json, sys
        from pathlib import Path
        sys.path.insert(0, {str(REPO)!r})
        from contextual.core.config import load_config
        from contextual.tui.app import ContextualApp
        from contextual.tui.host import RealHost

        HEAVY = ("contextual.core.agent", "contextual.core.tools.registry", "contextual.core.context.builder",
                 "contextual.core.mcp.manager", "mcp", "httpx", "tiktoken")
        seen = {{}}

        mount = ContextualApp.on_mount       # wrapped, not subclassed: the app's CSS path is its module's

        async def on_mount(self):
            seen["mount"] = [m for m in HEAVY if m in sys.modules]
            await mount(self)

        ContextualApp.on_mount = on_mount

        root = Path({str(tmp_path)!r})
        config = load_config(root, {{"model": "m", "base_url": "http://127.0.0.1:9/v1", "api_key": "k"}},
                             env={{"CONTEXTUAL_HOME": str(root / "home")}})
        import asyncio
        async def main():
            app = ContextualApp(RealHost(config), animate=False, open_after_first_frame=True)
            async with app.run_test(size=(100, 30)) as pilot:
                await app.startup.started()
                seen["ready"] = [m for m in HEAVY if m in sys.modules]
                seen["engine"] = app.shown_engine.opened is not None
        asyncio.run(main())
        print(json.dumps(seen))
    """)
    script = tmp_path / "watched.py"          # a file: Textual reads the app's CSS path from its class's module
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script)], cwd=REPO, capture_output=True, text=True, check=True,
                         timeout=120)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["mount"] == []
    assert seen["engine"] is True and "contextual.core.agent" in seen["ready"]


async def test_a_new_session_opened_after_its_first_frame_runs_a_turn_and_shows_its_counts(tmp_path):
    with server([finish("done: **42**")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False, open_after_first_frame=True)
        async with app.run_test(size=SIZE) as pilot:
            await app.startup.started()
            await wait_for(pilot, lambda: app.query_one(TokenMeter).shown is not None)
            assert "session new" in str(app.query_one(TopBar).render())
            await run_turn(pilot, "what is the answer?")
            assert "42" in app.query_one(ChatLog).children[-1].source
            history = app.query_one(HistoryView)
            assert history.messages == app.engine.history.messages and len(history.messages) == 2
            assert app.engine.session_id and app.engine.session_id[:8] in str(app.query_one(TopBar).render())


async def test_an_engine_asked_for_before_the_first_frame_is_opened_once_and_shown(tmp_path):
    """A key pressed before the frame (or anything else) that needs the engine opens it then; Ready does not open
    a second one, and still shows its prompt."""
    with server([finish("ok")]) as srv:
        host = make_host(tmp_path, srv.base_url)
        opened = []
        new_engine = host.new_engine
        host.new_engine = lambda: opened.append(1) or new_engine()        # type: ignore[method-assign]
        app = ContextualApp(host, animate=False, open_after_first_frame=True)
        engine = app.engine
        async with app.run_test(size=SIZE) as pilot:
            await app.startup.started()
            await wait_for(pilot, lambda: app.query_one(TokenMeter).shown is not None)
            assert app.engine is engine and opened == [1]
            await run_turn(pilot, "hello")
            assert app.query_one(HistoryView).messages == engine.history.messages


def _write_session(home: Path, root: Path, turns: int, rewind_at: int | None = None) -> Path:
    """A session of ``turns`` turns (a tool call each, an answer), a rewind to the start of turn ``rewind_at``
    after them when given, then two more turns."""
    from contextual.core.messages import Message
    from contextual.core.session import SessionWriter
    writer = SessionWriter.create(home, root)
    firsts: list[Message] = []

    def turn(n: int) -> None:
        user = Message("user", f"question {n}")
        firsts.append(user)
        writer.append_message(user)
        step = Message("assistant", f'Thought: look\nAction: Read[{{"file_path": "f{n}.py"}}]',
                       meta={"step": 1, "call_id": f"c{n}", "tool_name": "Read", "args": {"file_path": f"f{n}.py"}})
        writer.append_message(step)
        writer.append_tool_use(f"c{n}", "Read", {"file_path": f"f{n}.py"}, step)
        writer.append_message(Message("tool", f"{n}: body", full=f"{n}: body " * 50,
                                      meta={"tool_name": "Read", "call_id": f"c{n}", "step": 1}))
        writer.append_message(Message("assistant", f"Thought: done\nAction: Finish[answer **{n}**]",
                                      meta={"step": 2, "final": True}))

    for n in range(turns):
        turn(n)
    if rewind_at is not None:
        writer.append_entry({"type": "system", "subtype": "rewind", "toUuid": firsts[rewind_at].id})
        for n in range(turns, turns + 2):
            turn(n)
    writer.close_sync()
    return writer.path


def test_the_end_of_a_record_read_alone_is_the_end_of_the_whole_record(tmp_path):
    from contextual.core.session import load_session, read_tail
    from contextual.tui.widgets.resumed_turns import resumed_turns
    root = tmp_path / "proj"
    root.mkdir()
    for rewind_at in (None, 38, 20):          # none; one inside the last turns read; one before them
        path = _write_session(tmp_path / f"home-{rewind_at}", root, 40, rewind_at)
        whole = resumed_turns(load_session(path).full_record)
        for turns in (1, 8, 100):
            tail = read_tail(path, turns)
            assert resumed_turns(tail.messages) == whole[-turns:], (rewind_at, turns)
            assert tail.compactions == 0


async def test_a_resumed_session_opened_after_its_first_frame_shows_what_an_eager_resume_shows(tmp_path):
    """-c: the first frame shows the end of the record; once the whole of it is read the app shows exactly what
    opening it before the app did (chat, History, top bar), and a turn continues the same session."""
    with server([finish("more: **7**")]) as srv:
        host = make_host(tmp_path, srv.base_url)
        _write_session(host.config.home, host.config.project_root, 40)
        eager = ContextualApp(host, host.resume(None), animate=False)
        async with eager.run_test(size=SIZE) as pilot:
            await eager.startup.started()
            await wait_for(pilot, lambda: eager.query_one(TokenMeter).shown is not None)
            await pilot.pause()
            shown = (chat_text(eager), eager.query_one(HistoryView).messages, str(eager.query_one(TopBar).render()))
            await eager.host.close(eager.engine)
        host = make_host(tmp_path, srv.base_url)
        app = ContextualApp(host, animate=False, resume=host.session_path(None))
        async with app.run_test(size=SIZE) as pilot:
            await app.startup.started()
            await wait_for(pilot, lambda: app.query_one(TokenMeter).shown is not None)
            await pilot.pause()
            assert (chat_text(app), app.query_one(HistoryView).messages, str(app.query_one(TopBar).render())) == shown
            assert "earlier turns" in chat_text(app) and "answer 39" in chat_text(app)
            session_id = app.engine.session_id
            await run_turn(pilot, "one more")
            assert app.engine.session_id == session_id and "7" in chat_text(app)


async def test_a_session_that_cannot_be_read_after_the_first_frame_ends_the_app_with_the_reason(tmp_path):
    with server([]) as srv:
        host = make_host(tmp_path, srv.base_url)
        path = _write_session(host.config.home, host.config.project_root, 2)
        app = ContextualApp(host, animate=False, resume=path)

        def unreadable(**_):
            raise OSError("the disk went away")
        host.resume = unreadable                    # type: ignore[method-assign]
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.startup.error is not None)
        assert app.startup.error == "the disk went away" and app.return_code == 1


def test_counts_kept_on_disk_answer_before_the_tokenizer_and_only_for_the_same_tokenizer(tmp_path, monkeypatch):
    from contextual.core import tokens
    from contextual.core.count_store import CountStore
    monkeypatch.setattr(tokens, "_store", None)
    store = CountStore(tmp_path / "counts.json", "tok-a")
    store.put("hello world", 2)
    store.put("again", 1)
    store.save()
    assert CountStore(tmp_path / "counts.json", "tok-a").get("hello world") == 2
    assert CountStore(tmp_path / "counts.json", "tok-b").get("hello world") is None      # another tokenizer
    (tmp_path / "bad.json").write_text("{not json")
    assert CountStore(tmp_path / "bad.json", "tok-a").get("again") is None               # a cache: unreadable = empty
    assert "hello" not in (tmp_path / "counts.json").read_text()                         # hashes, never the text

    tokens.remember_counts(tmp_path / "home")
    counted = tokens.count("a text counted once")                # by the tokenizer, and remembered
    tokens.save_counts()
    loaded = tokens.encoding()
    monkeypatch.setattr(tokens, "_encoding", None)               # a later run: the tokenizer not loaded yet
    monkeypatch.setattr(tokens, "_load_cl100k", lambda: loaded)
    tokens.remember_counts(tmp_path / "home")
    with tokens.known_counts_only():
        assert tokens.count("a text counted once") == counted
        with pytest.raises(tokens.NotCounted):
            tokens.count("a text never counted")
    assert not tokens.ready()
    assert tokens.count("a text never counted") == len(loaded.encode("a text never counted"))    # loads then


async def test_a_later_launch_shows_its_counts_while_the_tokenizer_is_still_loading(tmp_path, monkeypatch):
    """The meter of a second launch is filled from the first launch's counts; the tokenizer is held back until
    it is."""
    from collections import OrderedDict

    from contextual.core import tokens
    monkeypatch.setattr(tokens, "_store", None)
    monkeypatch.setattr(tokens.shared_cache, "data", OrderedDict())     # as in a new process: nothing counted yet
    with server([finish("ok")]) as srv:
        host = make_host(tmp_path, srv.base_url)
        tokens.remember_counts(host.config.home)
        first = ContextualApp(host, animate=False, open_after_first_frame=True)
        async with first.run_test(size=SIZE) as pilot:
            await first.startup.started()
            await wait_for(pilot, lambda: first.query_one(TokenMeter).shown is not None)
            total = first.query_one(TokenMeter).shown.total
        tokens.save_counts()

        loaded = tokens.encoding()
        release = threading.Event()

        def held_back():
            release.wait(30)
            return loaded
        monkeypatch.setattr(tokens, "_encoding", None)
        monkeypatch.setattr(tokens, "_load_cl100k", held_back)
        tokens.shared_cache.data.clear()                                    # a new process again
        tokens.remember_counts(host.config.home)
        second = ContextualApp(make_host(tmp_path, srv.base_url), animate=False, open_after_first_frame=True)
        try:
            async with second.run_test(size=SIZE) as pilot:
                await wait_for(pilot, lambda: second.query_one(TokenMeter).shown is not None)
                assert not tokens.ready() and second.query_one(TokenMeter).shown.total == total
                release.set()
                await second.startup.started()
                await run_turn(pilot, "hello")
                assert "ok" in chat_text(second)
        finally:
            release.set()


async def test_a_quit_at_launch_ends_the_app_without_waiting_for_the_launchs_own_work(tmp_path, monkeypatch):
    """A quit (ctrl+q; a closed terminal and a kill close the same way) while the tokenizer still loads waited
    for it, then for the counts and the server's answer that follow it, none of which a quitting app keeps:
    killed at its first frame, a launch lived on ~0.3 s at full CPU (~1 s on a 2,000-entry session), beside
    bench_launch.py's next launch. The launch's own work is dropped: the app ends with the tokenizer still held."""
    from contextual.core import tokens
    loaded = tokens.encoding()
    release = threading.Event()

    def held_back():
        release.wait(60)             # past wait_for's bound: a quit that waits for it fails
        return loaded
    monkeypatch.setattr(tokens, "_store", None)
    monkeypatch.setattr(tokens, "_encoding", None)
    monkeypatch.setattr(tokens, "_load_cl100k", held_back)
    with server([]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False, open_after_first_frame=True)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await wait_for(pilot, lambda: worker_running(app, "tokenizer"))
                await pilot.press("ctrl+q")
                await wait_for(pilot, lambda: app.return_code is not None)
                assert not tokens.ready() and not worker_running(app, "connect")
        finally:
            release.set()
    assert app.return_code == 0


def test_the_count_store_keeps_the_newest_counts_within_its_bound(tmp_path, monkeypatch):
    from contextual.core import count_store
    monkeypatch.setattr(count_store, "MAX_ENTRIES", 10)
    store = count_store.CountStore(tmp_path / "counts.json", "tok")
    for n in range(25):                       # past twice the bound between saves
        store.put(f"text {n}", n)
    store.save()
    kept = count_store.CountStore(tmp_path / "counts.json", "tok")
    assert [kept.get(f"text {n}") for n in range(25)] == [None] * 15 + list(range(15, 25))


def test_the_methods_the_launch_benchmark_wraps_exist():
    # benchmarks/bench_launch.py times the phases by wrapping these; a rename broke its phase report once.
    import importlib.util

    from contextual.tui.readouts import Readouts
    from contextual.tui.startup import Startup
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_launch.py"
    spec = importlib.util.spec_from_file_location("bench_launch", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert callable(getattr(Startup, bench.COUNTED_HOOK))
    for owner, name in ((ContextualApp, "on_mount"), (ContextualApp, "on_ready"), (Readouts, "show_prompt")):
        assert name in bench.PHASES_RUNNER and callable(getattr(owner, name))


def test_continue_in_a_project_without_a_session_says_so_in_plain_words(tmp_path):
    """`contextual -c` where no session was ever held said "no a previous session found for …" (key sweep)."""
    host = make_host(tmp_path, "http://127.0.0.1:9/v1")
    with pytest.raises(LookupError, match=r"^no previous session found for /"):
        host.session_path(None)
