"""At a small window, when the automatic compaction does not run: switched off, or declined in the preview.

A reviewer's 4k session with `--no-auto-compact`: after one turn of 80 Reads, each kept message of it cut to a
marker still left the history at 4,942 tokens, and the next turn sent it, though our own count said it was over what
the window allows (2,994): the server refused it, and only then was it compacted ("the server says the prompt is over
the model's window: compacting and retrying once"). At 8k the same came at the fourth turn of 60 calls (7,212 of
8,192, no room left for the answer). And with `compaction_preview = true`, an automatic compaction cancelled in the
preview was made again, every part of its summary requested again, at each later step of the turn: the preview came
back at every call.
"""

from __future__ import annotations

import json
from pathlib import Path

from contextual.core.messages import Message
from contextual.tui.app import ContextualApp
from contextual.tui.format import tokens
from contextual.tui.screens.compaction import CompactionModal, result_card
from contextual.tui.screens.compaction_preview import CompactionPreviewScreen
from contextual.tui.widgets.scratchpad import ScratchpadView
from contextual.tui.widgets.token_meter import TokenMeter
from tests.cli_helpers import cli_env, contextual, home_of
from tests.engine_helpers import read_action
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.scripted_model import Model, answer
from tests.tui_helpers import SIZE, chat_text, long_session, make_host, type_and_send, wait_for

WINDOW = 4_096
RESERVE = 1_024              # the answer's reserve at 4k: 25 % of the window
READS = 80
ROUNDS_KEPT = "in this window with room left for the next turns"      # the chat's line on the rounds kept whole


def test_a_history_over_the_window_even_fitted_is_compacted_before_it_is_sent_with_auto_compaction_off(project: Path):
    for i in range(READS):
        (project / f"part_{i:02d}.txt").write_text("".join(f"line {n} of part {i}: the worker handled request "
                                                          f"{n * 7 + i} in {n % 50} ms\n" for n in range(200)))
    model = Model([read_action(f"part_{i:02d}.txt") for i in range(READS)] + [answer("all read"),
                  read_action("part_00.txt"), answer("read again")])
    # answer_in_window: the server refuses a prompt that leaves less than max_tokens for the answer, as vLLM does
    with FakeLLMServer("openai", responder=model, max_context_tokens=WINDOW, answer_in_window=True) as srv:
        env = cli_env(home_of(project), srv.base_url, CONTEXTUAL_CONTEXT_WINDOW=str(WINDOW))
        flags = ["--no-auto-compact", "--permission-mode", "bypass", "--max-steps", str(READS + 5)]
        first = contextual(["-p", "read every part", *flags], project, env, timeout=180)
        assert first.returncode == 0, first.stderr[-2000:]
        second = contextual(["-p", "read the first part again", "-c", *flags], project, env, timeout=180)
        counts = [srv.token_counts[i] for i, body in enumerate(srv.requests) if body in model.turn_requests]
    assert second.returncode == 0 and second.stdout == "read again\n", second.stderr[-2000:]
    assert srv.violations == [], srv.violations
    assert max(counts) <= WINDOW - RESERVE
    notice = next(line for line in second.stderr.splitlines() if "even fitted" in line)
    assert "compacting before it is sent" in notice and "auto-compaction is off" in notice, notice
    assert model.summary_requests and "compacted" in second.stderr
    assert "over the model's window" not in second.stderr          # no refusal to recover from


def _long_history(rounds: int) -> list[Message]:
    """``rounds`` closed rounds, each a question of ~1,100 tokens and its answer: at 4k the history is past the
    trigger however the turn goes, and the builder fits it by cutting the questions."""
    words = " ".join(f"detail{n}" for n in range(600))
    out: list[Message] = []
    for i in range(rounds):
        out += [Message("user", f"question {i}: {words}"),
                Message("assistant", answer(f"answer {i}"), meta={"step": 1, "final": True, "answer": f"answer {i}"})]
    return out


async def test_an_automatic_compaction_declined_in_the_preview_is_not_made_again_at_each_step(tmp_path: Path):
    (tmp_path / "proj").mkdir()
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / "proj" / name).write_text(f"VALUE_{name[0].upper()} = 1\n")
    model = Model([read_action("a.py"), read_action("b.py"), read_action("c.py"), answer("three read")])
    with FakeLLMServer("openai", responder=model, max_context_tokens=WINDOW) as srv:
        host = make_host(tmp_path, srv.base_url, context_window=WINDOW, compaction_preview=True, keep_rounds=1)
        opened = host.new_engine()
        opened.engine.restore(_long_history(3), None, [], [])
        app = ContextualApp(host, opened, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            pad = app.query_one(ScratchpadView)
            await type_and_send(pilot, "read the three files")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionPreviewScreen), timeout=20)
            asked, first = len(model.summary_requests), app.screen
            await pilot.press("escape")                    # cancel: history unchanged, the turn goes on
            await wait_for(pilot, lambda: app.screen is not first)
            # a second preview would hold the turn: it ends, or the preview is back
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionPreviewScreen)
                           or (bool(pad.turns) and pad.turns[-1].outcome != "running"), timeout=30)
            assert not isinstance(app.screen, CompactionPreviewScreen), "the declined compaction was made again"
            assert pad.turns[-1].outcome == "finished"
            await app.workers.wait_for_complete()
    assert len(model.summary_requests) == asked           # no summary asked for again in that turn
    assert len(model.turn_requests) == 4 and srv.violations == []
    assert app.engine.compactions == []
    sent = json.dumps(model.turn_requests[-1])
    assert "question 0" in sent and "VALUE_C" in sent          # the history fitted, not dropped


async def test_a_cancelled_preview_is_said_in_the_chat_and_the_rounds_kept_line_comes_only_with_a_compaction(
        tmp_path: Path):
    """A reviewer at 4k cancelled the preview; the chat still said "compaction: no round kept whole…" (said before
    the preview), nothing said it was cancelled, and the compaction made later never said it (said once).
    The card's and the chat's "before → after" named it "next prompt", the meter's name for its second figure, where
    it is the meter's first: the trigger estimate."""
    (tmp_path / "proj").mkdir()
    model = Model([answer("first"), answer("second")])
    with FakeLLMServer("openai", responder=model, max_context_tokens=WINDOW) as srv:
        host = make_host(tmp_path, srv.base_url, context_window=WINDOW, compaction_preview=True)
        opened = host.new_engine()
        opened.engine.restore(_long_history(3), None, [], [])
        app = ContextualApp(host, opened, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            pad = app.query_one(ScratchpadView)
            await type_and_send(pilot, "go on")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionPreviewScreen), timeout=20)
            await pilot.press("escape")                    # cancel: history unchanged, the turn goes on
            await wait_for(pilot, lambda: bool(pad.turns) and pad.turns[-1].outcome == "finished", timeout=30)
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0], timeout=10)     # the card went by
            said = chat_text(app)
            assert "nothing compacted: cancelled in the preview; history is unchanged" in said, said[-1500:]
            assert ROUNDS_KEPT not in said, said[-1500:]
            estimate = app.query_one(TokenMeter).shown.estimate
            await type_and_send(pilot, "and now")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionPreviewScreen), timeout=20)
            await pilot.press("ctrl+s")                    # accepted: now the rounds kept are said, then its line
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal) and app.screen.result is not None)
            card = str(result_card(app.screen.result))
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(pad.turns) == 2 and pad.turns[-1].outcome == "finished", timeout=30)
            await app.workers.wait_for_complete()
            said = chat_text(app)
    assert card.startswith("Done") and f"trigger estimate {tokens(estimate)} → " in card, card
    kept = said.index(ROUNDS_KEPT)                # "compaction: kept the last round whole: more do not fit …"
    line = said.index("compacted (auto): trigger estimate ")
    assert kept < line and said.count(ROUNDS_KEPT) == 1 and "next prompt" not in said[line:], said[-1500:]
    assert srv.violations == []


async def test_a_prompt_that_cannot_fit_is_not_sent_once_its_compaction_is_cancelled_again(tmp_path: Path):
    """At 4k, a history of many small rounds is over what a prompt may use even fitted. The compaction before the
    turn was cancelled in the preview, then the one the turn needs to send it (``_outgrown``): the prompt was sent,
    refused by the server, and a third preview came; and the second compaction's modal, forgotten as the first's
    card closed under it, stayed on screen "summarising" once the turn ended. Now the second cancel
    ends the turn, saying why and what to do."""
    model = Model([answer("never asked")])
    with FakeLLMServer("openai", responder=model, max_context_tokens=WINDOW, answer_in_window=True) as srv:
        host = make_host(tmp_path, srv.base_url, context_window=WINDOW, compaction_preview=True)
        opened = host.new_engine()
        opened.engine.restore(long_session(60), None, [], [])
        app = ContextualApp(host, opened, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            pad = app.query_one(ScratchpadView)
            previews: list[object] = []
            await type_and_send(pilot, "what next?")
            while True:
                await wait_for(pilot, lambda: (isinstance(app.screen, CompactionPreviewScreen)
                                               and app.screen not in previews)
                               or (bool(pad.turns) and pad.turns[-1].outcome != "running"), timeout=30)
                if not isinstance(app.screen, CompactionPreviewScreen) or len(previews) == 3:
                    break
                previews.append(app.screen)
                await pilot.press("escape")
            await app.workers.wait_for_complete()
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0], timeout=10)    # no modal left over
            said = chat_text(app)
    assert len(previews) == 2
    assert model.turn_requests == [] and srv.violations == []                # not sent, so not refused
    assert pad.turns[-1].outcome != "finished" and app.engine.compactions == []
    assert said.count("nothing compacted: cancelled in the preview; history is unchanged") == 2, said[-1500:]
    error = said[said.index("not sent: the next prompt is "):]
    assert "its compaction was cancelled in the preview" in error and "/compact" in error, error
    assert "--context-window" in error and "still too long" not in said
