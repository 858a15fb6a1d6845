"""What the environment does to a running app, driven through the real app: a home that cannot be written, the
session open in another terminal, the project folder deleted under it, the terminal closed (the real CLI in a
pseudo-terminal). Each loses nothing and says why."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import pty
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path
from typing import Iterator

import pytest
from textual import events

from contextual.core.session import SessionWriter, load_session
from contextual.tui.app import ContextualApp
from contextual.tui import hangup
from contextual.tui.hangup import HUNG_UP_EXIT
from contextual.tui.input_guard import IDLE_S, TYPE_AHEAD_S, GuardedParser, PasteGuard
from contextual.tui.remembered import Remembered
from tests.cli_helpers import cli_env, session_files
from tests.fakes.llm_server import FakeLLMServer
from tests.mounts import full_disk, read_only_dir
from tests.tui_helpers import (chat_text, finish, make_host, make_project, resumed_app, run_turn, type_and_send,
                               until_shown, wait_for)
from tests.waits import HANG_GUARD, alive, until

NARROW = (80, 24)
MCP_SERVER = str(Path(__file__).parent / "fakes" / "mcp_server.py")


@pytest.mark.parametrize("unwritable", [read_only_dir, full_disk], ids=["read-only", "full"])
async def test_an_unwritable_home_never_costs_the_input_nor_the_turn_nor_the_quit(tmp_path, unwritable):
    """Sending a message ended the app with a traceback: the input history (`.inputs.json`) was written at every
    input, and a read-only or full home raised out of the input handler before the turn started. On a full disk
    the session file is made but its lines are refused: the turn that had answered was marked failed, and the
    quit ended in a traceback."""
    with unwritable(tmp_path / "home"), \
            FakeLLMServer(kind="openai", script=[finish("first answer"), finish("second answer")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            await run_turn(pilot, "first question")
            await run_turn(pilot, "second question")
            assert "first answer" in chat_text(app) and "second answer" in chat_text(app)
            said = [str(n.message) for n in app._notifications if "not remembered" in str(n.message)]
            assert len(said) == 1 and str(tmp_path / "home") in said[0], said
            assert not [n for n in app._notifications if n.title == "turn failed"]
            assert app.query_one("#prompt").past[-2:] == ["first question", "second question"]   # ↑ still has them
            await pilot.press("ctrl+q")             # closes the session file (the mount is then let go)
            await wait_for(pilot, lambda: app.return_code is not None)
        assert app.return_code == 0
        if app.engine.session_id is not None:       # the full disk: made, but nothing written
            assert "the session's last lines were not saved" in (app.shown_engine.resume_hint or "")


async def test_a_session_open_in_another_app_is_forked_at_the_first_input_with_its_past(tmp_path):
    """A second `contextual -c` on a session another app holds showed its past and sent it to the model, but wrote
    the new turns to a new, empty session: the next `-c` resumed that one, and the model had forgotten the past."""
    with FakeLLMServer(kind="openai", script=[finish("first answer"), finish("second answer")]) as srv:
        host = make_host(tmp_path, srv.base_url)
        first = ContextualApp(host, animate=False)
        async with first.run_test(size=NARROW) as pilot:
            await run_turn(pilot, "first question")
            session_id = first.engine.session_id
            await pilot.press("ctrl+q")                   # closes the session: its lock is free again
            await wait_for(pilot, lambda: first.return_code is not None)
        [parent] = session_files(tmp_path / "home")
        holder = SessionWriter.reopen(parent)          # the other terminal's app
        try:
            before = parent.read_bytes()
            second = resumed_app(tmp_path, srv.base_url, session_id)
            async with second.run_test(size=NARROW) as pilot:
                await until_shown(pilot, second)
                assert "what you send here goes to a new session holding a copy of it" in chat_text(second)
                await run_turn(pilot, "second question")
                forked = second.engine.session_id
                assert forked not in (None, session_id)
                assert any(f"into {forked[:8]}" in str(n.message) for n in second._notifications)
            sent = srv.requests[-1]
        finally:
            holder.close_sync()
    assert parent.read_bytes() == before                        # never a second writer on the held file
    [child] = [p for p in session_files(tmp_path / "home") if p != parent]
    loaded = load_session(child)
    texts = [m.content for m in loaded.history]
    assert loaded.forked_from == session_id and not loaded.warnings
    assert texts[0] == "first question" and any(t.startswith("second question") for t in texts)
    assert "first question" in json.dumps(sent["messages"])


async def test_tools_say_the_project_folder_is_gone_when_it_was_deleted_under_the_app(tmp_path):
    """With the folder deleted, Bash said `cannot start /bin/bash`, LS `. is a file`, and the snapshot before the
    command `git is not installed`: none of them why."""
    script = [finish("one"), 'Thought: look\nAction: LS[{}]', 'Thought: run\nAction: Bash[{"command": "ls"}]',
              finish("two")]
    with FakeLLMServer(kind="openai", script=script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="bypass"), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            await run_turn(pilot, "hello")
            shutil.rmtree(tmp_path / "proj")
            await run_turn(pilot, "look around")
            await wait_for(pilot, lambda: len(srv.requests) == 4)
            assert "ghost snapshot failed" not in chat_text(app)
    said = [json.dumps(request["messages"][-1]) for request in srv.requests[2:]]
    assert all(f"the project folder {tmp_path / 'proj'} no longer exists" in text for text in said), said



class _Terminal:
    """The master side of a pseudo-terminal, read all the time (the app must be able to write) by a thread."""

    def __init__(self, fd: int) -> None:
        self.fd, self.shown, self.open = fd, b"", True
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while self.open:
            try:
                if select.select([self.fd], [], [], 0.05)[0]:
                    chunk = os.read(self.fd, 65536)
                    if not chunk:
                        return
                    self.shown += chunk
            except (OSError, ValueError):
                return

    def close(self) -> None:
        """The terminal window closed: the kernel hangs up the app's terminal (SIGHUP)."""
        if self.open:
            self.open = False
            self._reader.join()
            os.close(self.fd)


@contextlib.contextmanager
def _app_in_pty(project: Path, home: Path, base_url: str, *args: str,
                **env: str) -> Iterator[tuple[int, int, "_Terminal"]]:
    """The real app (`contextual ARGS`) in an 80x24 pseudo-terminal: its pid, the terminal's side and what it
    shows; killed if a test leaves it running."""
    pid, fd = pty.fork()
    if pid == 0:        # the child: the app, as a terminal emulator starts it
        os.chdir(project)
        os.execve(sys.executable, [sys.executable, "-m", "contextual", *args],
                  {**cli_env(home, base_url, **env), "TERM": "xterm-256color"})
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    terminal = _Terminal(fd)
    try:
        yield pid, fd, terminal
    finally:
        terminal.close()
        with contextlib.suppress(ProcessLookupError, ChildProcessError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _command_started(terminal: _Terminal, pidfile: Path) -> int:
    """Once the app shows, ask for the Bash step that writes its pid and sleeps; the pid of its process group."""
    until(lambda: b"estimate" in terminal.shown, "the first frame")
    os.write(terminal.fd, b"run it\r")
    until(lambda: pidfile.exists() and pidfile.read_text().strip(), "the command running")
    return int(pidfile.read_text())

@pytest.mark.parametrize("how", ["terminal closed", "kill"])
def test_closing_the_terminal_or_a_kill_stops_the_running_command_and_records_the_turn(tmp_path, how):
    """Closing the terminal (SIGHUP) ended the app at once and left the Bash command it ran alive (the command has
    its own session, out of the terminal's reach), the turn never recorded as stopped; and ending the app as a quit
    then hung in Textual's exit, restoring a terminal that was gone. `kill` (SIGTERM) is a quit as well."""
    project, home = make_project(tmp_path), tmp_path / "home"
    pidfile = tmp_path / "command.pid"
    run = f'Thought: run\nAction: Bash[{{"command": "echo $$ > {pidfile} && sleep 120"}}]'
    with FakeLLMServer(kind="openai", script=[run, finish("never")]) as srv:
        pid, fd = pty.fork()
        if pid == 0:        # the child: the app in an 80x24 pseudo-terminal, as a terminal emulator starts it
            signal.pthread_sigmask(signal.SIG_SETMASK, set())      # no signal blocked, whatever the worker blocks
            os.chdir(project)
            os.execve(sys.executable, [sys.executable, "-m", "contextual", "--permission-mode", "bypass"],
                      {**cli_env(home, srv.base_url), "TERM": "xterm-256color"})
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        terminal, command = _Terminal(fd), 0
        try:
            command = _command_started(terminal, pidfile)
            if how == "kill":
                os.kill(pid, signal.SIGTERM)
            else:
                terminal.close()
            until(lambda: os.waitpid(pid, os.WNOHANG)[0], "the app ending", 30)     # reaped: the app is gone
            until(lambda: not _group_alive(command), "the command ending", 30)     # it sleeps 120 s
        finally:
            terminal.close()
            for kill, target in ((os.kill, pid), (os.killpg, command)):   # a failed run leaves neither behind
                with contextlib.suppress(ProcessLookupError, ChildProcessError):
                    if target:
                        kill(target, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
    [session] = session_files(home)
    subtypes = [json.loads(line).get("subtype") for line in session.read_text().splitlines()]
    assert "interrupted" in subtypes


@pytest.mark.parametrize("then", ["nothing", "kill"])
def test_a_terminal_gone_without_a_hang_up_signal_ends_the_app_as_a_hang_up(tmp_path, then):
    """A parent that closes the terminal (the pty's master) of an app it started without a controlling terminal
    sends no SIGHUP, maybe a SIGTERM. The app ran on: Textual's input thread spun on the end of its input at a
    whole core, the first frame after the close killed its writer thread, and once the queue to it filled the loop
    blocked, so a later SIGTERM was never acted on; a SIGTERM soon after the close did quit, with a traceback
    (status 1) from the resume line printed to the terminal that was gone."""
    project, home = make_project(tmp_path), tmp_path / "home"
    pidfile = tmp_path / "command.pid"
    run = f'Thought: run\nAction: Bash[{{"command": "echo $$ > {pidfile} && sleep 120"}}]'
    with FakeLLMServer(kind="openai", script=[run, finish("never")]) as srv:
        fd, tty = pty.openpty()
        fcntl.ioctl(tty, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        app = subprocess.Popen(        # a new session, the terminal never opened in it: not its controlling one
            [sys.executable, "-m", "contextual", "--permission-mode", "bypass"], cwd=project,
            env={**cli_env(home, srv.base_url), "TERM": "xterm-256color"}, stdin=tty, stdout=tty, stderr=tty,
            start_new_session=True, preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_SETMASK, set()))
        os.close(tty)
        terminal, command = _Terminal(fd), 0
        try:
            command = _command_started(terminal, pidfile)
            terminal.close()
            if then == "kill":
                app.send_signal(signal.SIGTERM)
            until(lambda: app.poll() is not None, "the app ending", 30)
            until(lambda: not _group_alive(command), "the command ending", 30)     # it sleeps 120 s
        finally:
            terminal.close()
            if app.poll() is None:          # a failed run leaves neither behind
                app.kill()
            app.wait()
            with contextlib.suppress(ProcessLookupError):
                if command:
                    os.killpg(command, signal.SIGKILL)
    assert app.returncode == HUNG_UP_EXIT            # ended here as a hang-up, not by a traceback
    [session] = session_files(home)
    subtypes = [json.loads(line).get("subtype") for line in session.read_text().splitlines()]
    assert "interrupted" in subtypes


def test_a_byte_that_is_not_utf8_typed_into_the_app_is_read_as_a_replacement_not_a_crash(tmp_path):
    """`é` from a Latin-1 terminal (the one byte 0xE9) and any key after it ended the app with Textual's
    UnicodeDecodeError traceback, exit status 0, the draft lost (its input thread decoded strictly; tmux QA); a raw
    C1 byte in a paste did the same. Now each such byte reads as U+FFFD and the app goes on."""
    project, home = make_project(tmp_path), tmp_path / "home"
    with FakeLLMServer(kind="openai", script=[]) as srv:
        with _app_in_pty(project, home, srv.base_url) as (pid, fd, terminal):
            until(lambda: b"estimate" in terminal.shown, "the first frame")
            os.write(fd, b"caf\xe9 \x9b still here")
            until(lambda: b"still here" in terminal.shown or not alive(pid), "the text typed, or the app gone")
            assert b"still here" in terminal.shown and b"Traceback" not in terminal.shown, terminal.shown[-2000:]
            assert "caf\ufffd \ufffd still here".encode() in terminal.shown
            os.write(fd, b"\x11")                                   # ctrl+q
            until(lambda: not alive(pid), "the app quitting")
            _, status = os.waitpid(pid, 0)
            assert os.waitstatus_to_exitcode(status) == 0


def test_input_the_terminal_reader_dies_on_ends_the_app_with_status_1_one_line_and_the_draft_kept(tmp_path):
    """Bytes Textual's parser raises on (`ESC [ 9999999 u`, a kitty key past U+10FFFF: ValueError from chr in
    8.2.x) killed its input thread: the app ended with a traceback and exit status 0, which a script read as
    success, and the draft was lost. Now it closes as a quit does and says why in one line, with status 1."""
    project, home = make_project(tmp_path), tmp_path / "home"
    with FakeLLMServer(kind="openai", script=[]) as srv:
        with _app_in_pty(project, home, srv.base_url) as (pid, fd, terminal):
            until(lambda: b"estimate" in terminal.shown, "the first frame")
            os.write(fd, b"half a thought")
            until(lambda: b"half a thought" in terminal.shown, "the draft shown")
            os.write(fd, b"\x1b[9999999u")
            # Textual fixed? Then this input no longer ends the app: pick another that kills its input thread.
            until(lambda: not alive(pid), "the app ending on input its parser cannot read")
            _, status = os.waitpid(pid, 0)
            assert os.waitstatus_to_exitcode(status) == 1
            until(lambda: b"(CONTEXTUAL_DEBUG=1 shows where)" in terminal.shown, "the line on stderr")
    after = terminal.shown.rsplit(b"\x1b[?1049l", 1)[-1]        # what is left on the terminal once the app is gone
    assert b"Traceback" not in after, after
    assert (b"contextual: the app stopped reading the terminal: ValueError: chr() arg not in range(0x110000); "
            b"the draft and the session are kept") in after, after
    assert Remembered(home, project).inputs() == ["half a thought"]         # ↑ brings it back


async def test_a_close_stuck_past_the_hang_up_deadline_still_records_the_turn_and_ends_its_command(
        tmp_path, monkeypatch):
    """A frame written to a gone terminal before the hang-up's watch woke killed Textual's writer thread, and the
    loop blocked on its full queue: 30 s later the deadline ended the process as it was, the command still running
    (its own session: out of the terminal's reach) and the turn never recorded as stopped; then it also left the
    turn's snapshot without its after-state (undo could not tell later hand edits) and the MCP servers running
    (their own sessions: a server that ignores its standard input's end ran on). The loop is blocked here as it
    was there; what the process leaves is read when it would have ended."""
    project, home = make_project(tmp_path), tmp_path / "home"
    pidfile, server_pidfile = tmp_path / "command.pid", tmp_path / "server.pid"
    home.mkdir()
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"tracker": {
        "command": sys.executable, "args": [MCP_SERVER], "env": {"FAKE_MCP_PIDFILE": str(server_pidfile)}}}}))
    run = f'Thought: run\nAction: Bash[{{"command": "echo $$ > {pidfile} && sleep 120"}}]'
    left: list[tuple[int, bool, list[str | None], list[str], bool]] = []   # status, command, subtypes, inputs, server
    process_ended = threading.Event()
    command = server = 0

    def end_process(status: int) -> None:
        [path] = session_files(home)
        subtypes = [json.loads(line).get("subtype") for line in path.read_text().splitlines()]
        left.append((status, _group_alive(command), subtypes, Remembered(home, project).inputs(), alive(server)))
        process_ended.set()

    monkeypatch.setattr(hangup, "CLOSE_WITHIN_S", 0)                   # the deadline at once
    monkeypatch.setattr(hangup, "_detach_terminal", lambda: None)       # the test's own descriptors stay
    monkeypatch.setattr(hangup, "_end_process", end_process)
    with FakeLLMServer(kind="openai", script=[run, finish("never")]) as srv:
        host = make_host(tmp_path, srv.base_url, permission_mode="bypass")
        app = ContextualApp(host, animate=False)
        try:
            async with app.run_test(size=NARROW) as pilot:
                await wait_for(pilot, lambda: host.mcp is not None)
                await host.mcp.wait_started()
                server = int(server_pidfile.read_text())
                await type_and_send(pilot, "run it")
                await wait_for(pilot, lambda: pidfile.exists() and pidfile.read_text().strip())
                command = int(pidfile.read_text())
                await pilot.press(*"and then")                  # a draft, typed during the turn
                hangup._Ending(app, asyncio.get_running_loop()).hang_up()
                assert process_ended.wait(HANG_GUARD)           # the loop stuck until the process ends
        finally:
            for target in (command, server):
                with contextlib.suppress(ProcessLookupError):
                    if target:
                        os.killpg(target, signal.SIGKILL)
    status, command_alive, subtypes, inputs, server_alive = left[0]
    assert status == HUNG_UP_EXIT and not command_alive
    assert subtypes.count("interrupted") == 1, subtypes
    assert subtypes.count("ghost_snapshot") == subtypes.count("ghost_snapshot_after") == 1, subtypes
    assert inputs[-1] == "and then"
    assert not server_alive


def test_a_paste_holding_colour_codes_is_pasted_whole_without_them_and_sends_nothing(tmp_path):
    """Textual's parser read an ESC inside a bracketed paste as the start of a key: pasted colour codes came out as
    keys, the rest of the paste typed key by key. Its line end was an `enter` that sent `^[31mred^[0m text` to the
    model, and the text before the first ESC landed after the rest (tmux `paste-buffer -p`)."""
    project, home = make_project(tmp_path), tmp_path / "home"
    with FakeLLMServer(kind="openai", script=[]) as srv:
        with _app_in_pty(project, home, srv.base_url) as (pid, fd, terminal):
            until(lambda: b"estimate" in terminal.shown, "the first frame")
            os.write(fd, b"\x1b[200~plain \x1b[31mred\x1b[0m text\rsecond \x1b]0;title\x07line\x1b[201~")
            until(lambda: b"second line" in terminal.shown or srv.requests or not alive(pid), "the paste shown")
            assert srv.requests == []                               # nothing sent
            os.write(fd, b"\x11")                                   # ctrl+q: the draft is remembered
            until(lambda: not alive(pid), "the app quitting")
            _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert Remembered(home, project).inputs() == ["plain red text\nsecond line"]


@pytest.mark.parametrize("read", [1, 2, 5, 4096], ids=lambda n: f"{n}-char reads")
def test_the_paste_guard_finds_the_markers_however_the_terminal_reads_are_cut(read):
    typed = "a\x1b[200~one \x1b[1;31mtwo\x1b[m\x1b[200~\x1b\rthree\x1b[201~\x1bb\x1b[200~\x1b]8;;x\x1b\\four\x1b[201~c"
    guard = PasteGuard()
    out = "".join(guard.feed(typed[i:i + read]) for i in range(0, len(typed), read))
    assert out == "a\x1b[200~one two\rthree\x1b[201~\x1bb\x1b[200~four\x1b[201~c"     # keys outside: as typed


def test_a_paste_start_with_no_end_holds_the_keys_after_it_only_until_the_input_goes_quiet(tmp_path):
    """A stray `ESC [200~` (a terminal glitch, a broken tmux) with no end marker held every later key, ctrl+q
    included, in the guard and in Textual's parser beneath it, which reads a paste to its end with no bound: the app
    looked frozen. Once the input is quiet what was held is pasted (an `enter` in it sends nothing) and keys are
    keys again."""
    project, home = make_project(tmp_path), tmp_path / "home"
    with FakeLLMServer(kind="openai", script=[]) as srv:
        with _app_in_pty(project, home, srv.base_url) as (pid, fd, terminal):
            until(lambda: b"estimate" in terminal.shown, "the first frame")
            os.write(fd, b"x\x1b[200~typed\rthen")
            until(lambda: b"then" in terminal.shown or not alive(pid), "the held text pasted", 30)
            os.write(fd, b"\x11")                                   # ctrl+q
            until(lambda: not alive(pid), "the app quitting", 30)
            _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and srv.requests == []
    assert Remembered(home, project).inputs() == ["xtyped\nthen"]


def _parsed(reads: list[tuple[float, str]]) -> list[tuple[str, str]]:
    """What Textual's parser, guarded, makes of reads from the terminal at seconds on the test's clock, its timer
    ticking after each as the input thread ticks it."""
    now = 0.0
    parser = GuardedParser(clock=lambda: now)
    made: list[events.Event] = []
    for now, text in reads:
        made += [*parser.feed(text), *parser.tick()] if text else parser.tick()
    return [(type(e).__name__, e.text if isinstance(e, events.Paste) else e.key) for e in made]


def test_a_held_paste_ends_when_the_input_goes_quiet_and_its_rest_after_a_stall_is_pasted_too():
    stray = _parsed([(0, "\x1b[200~half\r"), (IDLE_S / 2, "more"), (IDLE_S, ""), (2 * IDLE_S, ""),
                     (3 * IDLE_S, "\x03"), (3 * IDLE_S, "\x11"), (3 * IDLE_S, "\x1b[A")])
    assert stray == [("Paste", "half\rmore"), ("Key", "ctrl+c"), ("Key", "ctrl+q"), ("Key", "up")]
    stalled = _parsed([(0, "\x1b[200~one\r"), (IDLE_S, ""), (2 * IDLE_S, "two\rthree"), (4 * IDLE_S, ""),
                       (5 * IDLE_S, "\rfour\x1b[201~"), (5 * IDLE_S, "\r")])
    assert stalled == [("Paste", "one\r"), ("Paste", "two\rthree"), ("Paste", "\rfour"), ("Key", "enter")]


def test_an_end_marker_inside_pasted_text_does_not_type_the_rest_as_keys():
    """A copied text holding `ESC [201~` ended the paste there and typed what followed, its line end an `enter`
    that sent a message nobody pressed enter for. In one read, a second end marker with no start between makes
    it one paste; a separate read after a paste is typed as before."""
    crafted = _parsed([(0, "\x1b[200~hello\x1b[201~ rm -rf ~\r\x1b[201~")])
    assert crafted == [("Paste", "hello rm -rf ~\r")]
    typed = _parsed([(0, "\x1b[200~hello\x1b[201~"), (1, "h"), (1, "\r")])
    assert typed == [("Paste", "hello"), ("Key", "h"), ("Key", "enter")]
    two = _parsed([(0, "\x1b[200~a\x1b[201~\x1b[200~b\x1b[201~")])
    assert two == [("Paste", "a"), ("Paste", "b")]


def test_enter_typed_before_the_app_took_the_terminal_sends_the_message(tmp_path):
    """`contextual`, enter, and the question typed at once: the terminal, still in its cooked mode, turned the
    question's enter into a line feed, which the app read as ctrl+j: a new line in the input, and nothing sent."""
    project, home = make_project(tmp_path), tmp_path / "home"
    with FakeLLMServer(kind="openai", script=[finish("typed ahead")]) as srv:
        with _app_in_pty(project, home, srv.base_url) as (pid, fd, terminal):
            os.write(fd, b"hello\r")                                # before the app has even started
            until(lambda: srv.requests or b"estimate" in terminal.shown or not alive(pid), "the first frame", 30)
            until(lambda: srv.requests or not alive(pid), "the message sent", 30)
            os.write(fd, b"\x11")                                   # ctrl+q
            until(lambda: not alive(pid), "the app quitting")
    assert srv.requests[0]["messages"][-1]["content"] == "hello"


def test_words_typed_before_the_first_frame_never_answer_the_projects_trust_question(tmp_path):
    """The trust question opens as the app starts: the `a` of `can you help`, typed ahead, approved the checkout's
    MCP server, which ran unread. Keys read before the question was on screen, or in its first moment, answer
    nothing, and the box says so."""
    project, home = make_project(tmp_path), tmp_path / "home"
    ran = project / "server-ran"
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"tracker": {
        "command": sys.executable, "args": ["-c", f"open({str(ran)!r}, 'w')"]}}}))
    with FakeLLMServer(kind="openai", script=[]) as srv:
        with _app_in_pty(project, home, srv.base_url, CONTEXTUAL_TRUST_PROJECT="") as (pid, fd, terminal):
            os.write(fd, b"can you help\r")                         # before the app has even started
            until(lambda: b"was ignored" in terminal.shown or ran.exists() or not alive(pid), "the keys read", 30)
            os.write(fd, b"\x11")                                   # ctrl+q
            until(lambda: not alive(pid), "the app quitting")
    assert not ran.exists() and not srv.requests


def test_a_prompt_on_the_command_line_opens_the_app_and_is_sent_as_its_first_message(tmp_path):
    """`contextual "explain the cart"`, as `claude "…"` and `codex "…"` take it, was refused with argparse's
    usage: the app opens and sends it."""
    project, home = make_project(tmp_path), tmp_path / "home"
    with FakeLLMServer(kind="openai", script=[finish("it adds up")]) as srv:
        with _app_in_pty(project, home, srv.base_url, "explain the cart") as (pid, fd, terminal):
            until(lambda: b"it adds up" in terminal.shown or not alive(pid), "the answer shown", 30)
            os.write(fd, b"\x11")                                   # ctrl+q
            until(lambda: not alive(pid), "the app quitting")
    assert [r["messages"][-1]["content"] for r in srv.requests] == ["explain the cart"]


def test_only_the_first_read_as_the_reader_starts_is_type_ahead():
    """Its line feeds are enters; a later ctrl+j, or a first one pressed once the app is up, starts a new line."""
    assert _parsed([(0, "hi\n"), (1, "\n")]) == [("Key", "h"), ("Key", "i"), ("Key", "enter"), ("Key", "ctrl+j")]
    assert _parsed([(TYPE_AHEAD_S, "\n")]) == [("Key", "ctrl+j")]


def _stopped(pid: int) -> bool:
    with open(f"/proc/{pid}/stat") as handle:
        return handle.read().rsplit(")", 1)[1].split()[0] == "T"


def test_a_stop_and_continue_from_outside_leaves_one_reader_so_a_long_paste_sends_nothing(tmp_path):
    """`kill -STOP` then `kill -CONT`: Textual's driver started application mode again on the SIGCONT, a second
    thread reading the terminal beside the first, each with its own parser. A long paste split between them came
    out partly as keys, each line end an `enter` that sent a message (tmux: 20 queued)."""
    project, home = make_project(tmp_path), tmp_path / "home"
    pasted = b"\r".join(b"pasted line %d" % i for i in range(3000))
    with FakeLLMServer(kind="openai", script=[]) as srv:
        with _app_in_pty(project, home, srv.base_url) as (pid, fd, terminal):
            until(lambda: b"estimate" in terminal.shown, "the first frame")
            os.kill(pid, signal.SIGSTOP)
            until(lambda: _stopped(pid), "the app stopped")
            os.kill(pid, signal.SIGCONT)
            os.write(fd, b"qz7")                    # read once the continue's handler has run
            until(lambda: b"qz7" in terminal.shown, "the app reading again")
            os.write(fd, b"\x1b[200~" + pasted + b"\x1b[201~")
            until(lambda: b"[pasted #1" in terminal.shown or srv.requests or not alive(pid), "the paste shown")
            os.write(fd, b"\x11")                                   # ctrl+q: the draft is remembered
            until(lambda: not alive(pid), "the app quitting")
            _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert srv.requests == [], len(srv.requests)
    assert Remembered(home, project).inputs() == ["qz7[pasted #1 · 3,000 lines]"]


def test_back_from_a_terminal_stop_the_whole_screen_is_drawn_again(tmp_path):
    """`kill -TSTP` then `fg` (SIGCONT): the app leaves the alternate screen, and coming back finds it cleared;
    Textual drew only what changed after, so the app stood blank but for its top bar and input until a resize."""
    project, home = make_project(tmp_path), tmp_path / "home"
    with FakeLLMServer(kind="openai", script=[]) as srv:
        with _app_in_pty(project, home, srv.base_url) as (pid, fd, terminal):
            until(lambda: b"L1 " in terminal.shown, "the counts shown: nothing left to draw")
            os.kill(pid, signal.SIGTSTP)
            until(lambda: _stopped(pid), "the app stopped")
            before = len(terminal.shown)
            os.kill(pid, signal.SIGCONT)
            # Textual's last word on starting application mode again (the terminal is raw: typing is not echoed)
            until(lambda: b"\x1b[?2026$p" in terminal.shown[before:] or not alive(pid), "application mode again")
            os.write(fd, b"qz7")                    # drawn after what the continue drew
            until(lambda: b"qz7" in terminal.shown[before:] or not alive(pid), "the app reading again")
            drawn = terminal.shown[before:]
            assert b"estimate" in drawn and b"Scratchpad" in drawn, drawn        # the meter, the tabs
            os.write(fd, b"\x11")
            until(lambda: not alive(pid), "the app quitting")
            _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
