"""What the environment does to a running app, driven through the real app: a home that cannot be written, the
session open in another terminal, the project folder deleted under it, the terminal closed (the real CLI in a
pseudo-terminal). Each loses nothing and says why."""

from __future__ import annotations

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

import pytest

from contextual.core.session import SessionWriter, load_session
from contextual.tui.app import ContextualApp
from contextual.tui.hangup import HUNG_UP_EXIT
from tests.cli_helpers import cli_env, session_files
from tests.fakes.llm_server import FakeLLMServer
from tests.mounts import full_disk, read_only_dir
from tests.tui_helpers import chat_text, finish, make_host, make_project, resumed_app, run_turn, until_shown, wait_for
from tests.waits import alive, until

NARROW = (80, 24)


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
            assert "the session's last lines were not saved" in (app.resume_hint or "")


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
        pid, fd = pty.fork()
        if pid == 0:        # the child: the app in an 80x24 pseudo-terminal
            os.chdir(project)
            os.execve(sys.executable, [sys.executable, "-m", "contextual"],
                      {**cli_env(home, srv.base_url), "TERM": "xterm-256color"})
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        terminal = _Terminal(fd)
        try:
            until(lambda: b"estimate" in terminal.shown, "the first frame")
            os.write(fd, b"caf\xe9 \x9b still here")
            until(lambda: b"still here" in terminal.shown or not alive(pid), "the text typed, or the app gone")
            assert b"still here" in terminal.shown and b"Traceback" not in terminal.shown, terminal.shown[-2000:]
            assert "caf\ufffd \ufffd still here".encode() in terminal.shown
            os.write(fd, b"\x11")                                   # ctrl+q
            until(lambda: not alive(pid), "the app quitting")
            _, status = os.waitpid(pid, 0)
            assert os.waitstatus_to_exitcode(status) == 0
        finally:
            terminal.close()
            with contextlib.suppress(ProcessLookupError, ChildProcessError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
