"""Whether one of the app's worker groups has work pending or running: the one reading of Textual's worker states
(the turn, the tokenizer, the server, /undo's restore)."""

from __future__ import annotations

from textual.worker import WorkerState

from contextual.tui.textual_app import TextualApp

RUNNING = (WorkerState.PENDING, WorkerState.RUNNING)


def worker_running(app: TextualApp, group: str) -> bool:
    return any(w.group == group and w.state in RUNNING for w in app.workers)


TURN = "turn"        # the group a turn, a compaction or a `!command` runs in: one at a time (tui/turn_runner.py)


def turn_running(app: TextualApp) -> bool:
    return worker_running(app, TURN)
