"""A key read while the dialog on top is still opening waits for it, and is read then, in the order typed.

A priority binding is read as the app takes the key: one typed in the burst that opened a dialog (a fast typist,
tmux send-keys, keys piled up while the app was busy), or just after the app pushed one (a summary ready for
review), came before the dialog's widgets, and its action's query ended the app (the preview's ctrl+s, a list's
enter, the diff's arrows; an esc dismissed the preview before its mount, which then found nothing). Each burst here
is posted at once, as a terminal delivers it: Pilot's press waits for the app between keys, so it sends no burst."""

from __future__ import annotations

import asyncio
import random
import string
from pathlib import Path

import pytest
from textual import events
from textual.keys import _character_to_key
from textual.widgets import TextArea

from contextual.core.context.compaction_review import CompactionReview, ReviewDecision
from contextual.core.context.ledger import loss_ledger
from contextual.core.context.sent_log import SentLog
from contextual.core.messages import Message
from contextual.core.prompt import PromptMessage
from contextual.core.providers.base import ListedModel
from contextual.core.session.index import SessionInfo
from contextual.core.session.schema import CompactionRecord
from contextual.tui.app import ContextualApp
from contextual.tui.screens.compaction import CompactionModal
from contextual.tui.screens.compaction_history import CompactionHistoryScreen
from contextual.tui.screens.compaction_preview import CompactionPreviewScreen
from contextual.tui.screens.loss_ledger import LossLedgerScreen
from contextual.tui.screens.model_picker import ModelPicker
from contextual.tui.screens.policies import PoliciesScreen
from contextual.tui.screens.prompt_diff import PromptDiffScreen
from contextual.tui.screens.rewind_picker import RewindPicker
from contextual.tui.screens.session_picker import SessionPicker
from contextual.tui.widgets.prompt_input import PromptInput
from tests.fakes.llm_server import FakeLLMServer
from tests.history_helpers import ledger_session
from tests.tui_helpers import make_host, run_turn, server, wait_for

SIZE = (80, 24)


def burst(app, *keys: str) -> None:
    """Every key queued before the app reads the first, as a terminal delivers them."""
    for key in keys:
        app.post_message(events.Key(_character_to_key(key), key) if len(key) == 1 else events.Key(key, None))


def preview(app) -> CompactionPreviewScreen:
    archive, kept = ledger_session()
    future = asyncio.get_running_loop().create_future()
    return CompactionPreviewScreen(CompactionReview("manual", tuple(archive), tuple(kept), "Summary.", future))


def diff(app) -> PromptDiffScreen:
    log = SentLog()
    for n in range(3):
        log.add([PromptMessage("system", "L1", "L1"), PromptMessage("user", f"question {n}", "L3")], "m")
    return PromptDiffScreen(log=log)


def ledger(app) -> LossLedgerScreen:
    archive, kept = ledger_session()
    return LossLedgerScreen(loss_ledger(archive, "", kept))


def history(app) -> CompactionHistoryScreen:
    return CompactionHistoryScreen([CompactionRecord("manual", 5000, 800, (), None, 2)])


def rewind(app) -> RewindPicker:
    return RewindPicker([Message("user", "first", id="m1"), Message("user", "second", id="m2")], set())


def models(app) -> ModelPicker:
    return ModelPicker(app.config, [ListedModel("fake-model", 32_000), ListedModel("other", 8_000)])


def sessions(app) -> SessionPicker:
    listed = [SessionInfo(f"{n:02d}5f5b5dc", Path(f"s{n}.jsonl"), first_prompt=f"task {n}",
                          updated="2025-11-27T07:36:00.000Z", rounds=1, compactions=0, last_tokens=10)
              for n in range(3)]
    return SessionPicker(listed, app.remembered)


def policies(app) -> PoliciesScreen:
    return PoliciesScreen([], app.config, "ours")


def summary(app) -> str:
    return app.screen.query_one(TextArea).text


# (the dialog, the keys typed as it opens, what they did: the dialog's result, or the app as it is after them)
CASES = {
    "preview ctrl+s": (preview, ["ctrl+s"], lambda app, got: got == [ReviewDecision.accept("Summary.")]),
    "preview ctrl+r": (preview, ["ctrl+r"], lambda app, got: got == [ReviewDecision.retry("")]),
    "preview esc": (preview, ["escape"], lambda app, got: got == [ReviewDecision.cancel()]),
    "preview ctrl+c": (preview, ["ctrl+c"], lambda app, got: got == [ReviewDecision.cancel()]),
    "preview ctrl+t": (preview, ["ctrl+t"], lambda app, got: summary(app).startswith("Summary.\n")),
    # ctrl+l opens the ledger over the preview; enter, held again until the ledger is there, adds its first item
    "preview ctrl+l enter": (preview, ["ctrl+l", "enter"],
                             lambda app, got: isinstance(app.screen, CompactionPreviewScreen)
                             and summary(app) != "Summary."),
    "diff left": (diff, ["left"], lambda app, got: app.screen.position == 1),
    "ledger r": (ledger, ["r"], lambda app, got: len(got) == 1 and got[0] is not None),
    "compactions enter": (history, ["enter"], lambda app, got: isinstance(app.screen, CompactionModal)),
    "rewind enter": (rewind, ["enter"], lambda app, got: got == [("m2", False)]),
    "model enter": (models, ["enter"], lambda app, got: got == ["fake-model"]),
    "resume enter": (sessions, ["enter"], lambda app, got: got == ["005f5b5dc"]),
    "policies enter": (policies, ["enter"], lambda app, got: isinstance(app.screen, PoliciesScreen)),
}


@pytest.mark.parametrize("case", CASES)
async def test_a_dialogs_key_read_as_it_opens_is_read_once_it_is_there(tmp_path, case):
    make, keys, done = CASES[case]
    with server([]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            got: list = []
            app.push_screen(make(app), got.append)
            burst(app, *keys)
            await wait_for(pilot, lambda: app.screen.is_mounted and done(app, got) or app._exception)
            assert app._exception is None and app.is_running


# ----- a fuzz: each screen a key or a command opens, a random burst typed with the key that opens it

KEYS = [*string.ascii_lowercase, "space", "backspace", "enter", "escape", "tab", "shift+tab", "up", "down", "left",
        "right", "home", "end", "pageup", "pagedown", "f1", "f2", "f3", "f4", "f6",
        # not ctrl+c nor ctrl+q: they quit (a run the palette's enter ended anyway goes on in a new app)
        *(f"ctrl+{c}" for c in "abdefhklnoprstuwxyz")]
# what is in the input before the burst, and the keys that open the screen, first in the burst
OPENERS = [("", ["ctrl+r"]), ("", ["ctrl+l"]), ("", ["ctrl+k"]), ("", ["ctrl+o"]), ("", ["ctrl+p"]),
           ("", ["escape", "escape"]), ("run bash", ["enter"]), ("/memory keep the tests fast", ["enter"]),
           *((command, ["enter"]) for command in (
               "/compact", "/context", "/rewind", "/undo", "/resume", "/model", "/compactions", "/ledger", "/diff",
               "/policies", "/mcp", "/permissions", "/hooks", "/memory", "/help", "/theme", "/title"))]


def reply(body: dict) -> str:
    """A Bash call (a permission dialog) for "run bash", a final answer otherwise."""
    last = body["messages"][-1]
    if last["role"] == "user" and "run bash" in str(last["content"]) and "Observation" not in str(last["content"]):
        return 'Thought: run it\nAction: Bash[{"command": "echo fuzzed"}]'
    return "Thought: done\nAction: Finish[ok]"


async def back_to_main(pilot) -> PromptInput:
    """The main screen, the input focused (an f-key in the last burst may have focused another region)."""
    app = pilot.app
    for _ in range(8):
        if len(app.screen_stack) == 1:
            break
        await pilot.press("escape")
    prompt = app.query_one(PromptInput)
    app.screen.set_focus(prompt)
    return prompt


async def fuzz(tmp_path: Path, bursts: int, seed: int) -> None:
    """``bursts`` random bursts of 20 keys, each typed with the keys that open a screen; the app never raises."""
    rng = random.Random(seed)
    plan = [(rng.choice(OPENERS), [rng.choice(KEYS) for _ in range(20)]) for _ in range(bursts)]
    done = 0
    with FakeLLMServer(kind="openai", responder=reply) as srv:
        host = make_host(tmp_path, srv.base_url)
        while done < bursts:         # a burst that quit (the palette's quit, chosen) goes on in a new app
            app = ContextualApp(host, animate=False)
            try:
                async with app.run_test(size=SIZE) as pilot:
                    await run_turn(pilot, "read the cart")
                    while done < bursts and app.is_running:
                        (text, opening), keys = plan[done]
                        (await back_to_main(pilot)).load_text(text)
                        burst(app, *opening, *keys)
                        done += 1
                        await pilot.pause()
                        assert app._exception is None
                    if app.is_running:
                        await back_to_main(pilot)   # nothing in flight as the test's harness closes the app
            except Exception as exc:
                raise AssertionError(f"burst {done}: {text!r} {opening + keys}") from exc


async def test_random_bursts_typed_as_each_screen_opens_never_end_the_app(tmp_path):
    await fuzz(tmp_path, bursts=12, seed=178)


@pytest.mark.slow
async def test_many_random_bursts_typed_as_each_screen_opens_never_end_the_app(tmp_path):
    await fuzz(tmp_path, bursts=400, seed=1)

