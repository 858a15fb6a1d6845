"""Cursor keys typed with a list's enter in one burst (a fast typist, tmux send-keys, keys piled up while the app was
busy) move the cursor before the enter picks the row. The enter is a priority binding, read as the app takes it; a
cursor key is a plain one, read once it has bubbled back up from the list to the app: `down down enter` picked the
row the cursor was on before the downs, in /resume, /model, /rewind, /compactions and /ledger. Each burst is posted
at once, as a terminal delivers it (Pilot's press waits for the app between keys); it is typed both once the list
is there and as it opens."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from contextual.core.context.ledger import loss_ledger
from contextual.core.messages import Message
from contextual.core.providers.base import ListedModel
from contextual.core.session.index import SessionInfo
from contextual.core.session.schema import CompactionRecord
from contextual.tui.app import ContextualApp
from contextual.tui.screens.compaction import CompactionModal
from contextual.tui.screens.compaction_history import CompactionHistoryScreen
from contextual.tui.screens.loss_ledger import LossLedgerScreen
from contextual.tui.screens.model_picker import ModelPicker
from contextual.tui.screens.rewind_picker import RewindPicker
from contextual.tui.screens.session_picker import SessionPicker
from tests.history_helpers import ledger_session
from tests.tui_helpers import SIZE, make_host, server, wait_for

ROWS = 4


def sessions(app) -> SessionPicker:
    listed = [SessionInfo(f"{n:02d}5f5b5dc", Path(f"s{n}.jsonl"), first_prompt=f"task {n}",
                          updated="2025-11-27T07:36:00.000Z", rounds=1, compactions=0, last_tokens=10)
              for n in range(ROWS)]
    return SessionPicker(listed, app.remembered)


def models(app) -> ModelPicker:
    return ModelPicker(app.config, [ListedModel(f"model-{n}", 32_000) for n in range(ROWS)])


def rewind(app) -> RewindPicker:
    return RewindPicker([Message("user", f"message {n}", id=f"m{n}") for n in range(ROWS)], set())


def compactions(app) -> CompactionHistoryScreen:
    return CompactionHistoryScreen([CompactionRecord("manual", 5000 + n, 800, (), None, 2) for n in range(ROWS)])


def ledger(app) -> LossLedgerScreen:
    archive, kept = ledger_session()
    return LossLedgerScreen(loss_ledger(archive, "", kept))


# (the list, the keys, what they picked: the list's result, or the screen it opened). /rewind's starts on the newest.
CASES = {
    "resume": (sessions, ["down", "down", "enter"], lambda app, screen, got: got == ["025f5b5dc"]),
    "model": (models, ["down", "down", "enter"], lambda app, screen, got: got == ["model-2"]),
    "rewind": (rewind, ["up", "up", "enter"], lambda app, screen, got: got == [("m1", False)]),
    "compactions": (compactions, ["down", "down", "enter"], lambda app, screen, got:
                    isinstance(app.screen, CompactionModal) and app.screen.trigger == "#3 manual"),
    "ledger": (ledger, ["down", "down", "enter"], lambda app, screen, got: got == [screen.ledger.facts[2]]),
}


@pytest.mark.parametrize("opening", [False, True], ids=["open", "opening"])
@pytest.mark.parametrize("case", CASES)
async def test_cursor_keys_typed_with_a_lists_enter_move_before_it_picks(tmp_path, case, opening):
    make, keys, picked = CASES[case]
    with server([]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            got: list = []
            screen = make(app)
            app.push_screen(screen, got.append)
            if not opening:
                await wait_for(pilot, lambda: screen.is_mounted and screen.focused is not None)
            for key in keys:
                app.post_message(events.Key(key, None))
            await wait_for(pilot, lambda: got or isinstance(app.screen, CompactionModal) or app._exception,
                           timeout=10)
            await pilot.pause()
            assert app._exception is None and picked(app, screen, got), (got, app.screen)
