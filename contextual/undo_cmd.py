"""`contextual undo [-r ID]`: undo the latest turn's file changes of a session that no app holds."""

from __future__ import annotations

import argparse
import asyncio
import os
import select
import signal
import sys
from pathlib import Path
from typing import Mapping, TextIO

from contextual.output import safe_text
from contextual.core.config import default_home
from contextual.core.snapshot import git as gitops
from contextual.core.snapshot.undo import UndoError, record_undo, render_result, undo_last


def undo_main(argv: list[str], env: Mapping[str, str] | None = None) -> int:
    from contextual.core.session import SessionError, SessionLocked, SessionWriter, find_session, latest_session, load_session

    env = os.environ if env is None else env
    parser = argparse.ArgumentParser(prog="contextual undo",
                                     description="Undo the file changes of the most recent turn that made any.")
    parser.add_argument("-r", "--resume", metavar="ID", help="the session (default: this project's latest)")
    args = parser.parse_args(argv)
    root = Path.cwd().resolve()
    home = default_home(env)
    path = find_session(home, root, args.resume) if args.resume else latest_session(home, root)
    if path is None:
        which = f"session {args.resume}" if args.resume else "a session"
        _say(f"contextual undo: no {which} found for {root}", sys.stderr)
        return 1
    try:
        writer = SessionWriter.reopen(path)      # the lock first: nobody appends while we undo
    except SessionLocked as exc:
        holder = exc.holder or {}
        who = f"process {holder['pid']}" if holder.get("pid") else "another contextual"
        _say(f"contextual undo: session {path.stem} is open in {who}; use /undo in that app", sys.stderr)
        return 1
    except SessionError as exc:
        _say(f"contextual undo: {exc}", sys.stderr)
        return 1
    try:
        loaded = load_session(path)
        project = Path(loaded.cwd) if loaded.cwd and Path(loaded.cwd).is_dir() else root
        try:
            result = asyncio.run(undo_last(project, loaded.entries, confirm_overwrite=_ask_on_terminal,
                                             record=loaded.full_record))
        except (UndoError, gitops.GitError, OSError) as exc:
            _say(f"contextual undo: {exc}", sys.stderr)
            return 1
        record_undo(writer, result)
    finally:
        writer.close_sync()
    _say(render_result(result, loaded.full_record))     # the turn named as /undo names it: its prompt, its time
    return 0 if result.changed_files else 1


async def _ask_on_terminal(paths: list[str]) -> bool:
    if not sys.stdin.isatty():
        return False
    _say("These files were edited by hand after the turn:\n" + "\n".join(f"  {p}" for p in paths))
    # Read on the main thread, under Python's own Ctrl-C (the loop has nothing else to do): in a worker thread,
    # or under asyncio.run's handler, Ctrl-C waited for an Enter. Nothing is changed before the answer.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        print("Overwrite them with their state from before the turn? [y/N] ", end="", flush=True)
        # Waited for in short steps: the kernel may hand Ctrl-C's SIGINT to another thread of the process, and then
        # a read on this one is not interrupted; Python acts on it here, between two waits
        while not select.select([sys.stdin], [], [], 0.2)[0]:
            pass
        answer = sys.stdin.readline()
        if not answer:              # Ctrl-D: no, and the next line on its own
            print()
    except KeyboardInterrupt:
        print(file=sys.stderr)      # the shell's ^C stays on the question's line, the next line on its own
        raise
    finally:
        signal.signal(signal.SIGINT, previous)
    return answer.strip().lower() in ("y", "yes")


def _say(text: str, stream: TextIO | None = None) -> None:
    """File names come from the project: a hostile one must not drive the terminal."""
    print(safe_text(text), file=stream or sys.stdout)
