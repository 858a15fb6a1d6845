"""The model's note of rounds cut without a summary (core/engine/compactor.py: truncation_note), told once, on the
next message. /rewind to before that message took the note back with it: the compaction stood, the round stayed
gone, and the message sent instead said nothing of it (helper-139, a user at 8k whose summary failed); the note is
owed again, live and after a resume. And below an earlier summary the note named the cut rounds "the oldest of this
conversation". Real CLI for the session, the real app to rewind, fake server."""

from __future__ import annotations

import json

import pytest

from contextual.tui.app import ContextualApp
from contextual.tui.screens.rewind_picker import RewindPicker

from tests.cli_helpers import cli_env, contextual, home_of, session_files
from tests.fakes.llm_server import Fault, FakeLLMServer
from tests.fakes.scripted_model import is_summary_request
from tests.tui_helpers import (SIZE, chat_text, finish, make_host, make_project, resumed_app, run_turn,
                               type_and_send, wait_for)

CUT = "removed without a summary"


def model(body: dict):
    """Every summary request fails (the compaction falls back to truncation); every turn answers at once."""
    return Fault("400") if is_summary_request(body) else finish("done")


def last_input(srv: FakeLLMServer) -> str:
    """The user message of the server's latest agent request."""
    agent = [r for r in srv.requests if not is_summary_request(r)]
    return str(agent[-1]["messages"][-1]["content"])


async def test_rewind_to_the_message_that_carried_a_cut_note_owes_the_note_to_the_next_one(tmp_path):
    project = make_project(tmp_path)
    with FakeLLMServer(kind="openai", responder=model) as srv:
        env = cli_env(home_of(project), srv.base_url)
        for args in (["-p", "first"], ["-c", "-p", "second"], ["-c", "-p", "/compact 1"], ["-c", "-p", "third"]):
            result = contextual(args, project, env)
            assert result.returncode == 0, result.stderr
        assert CUT in last_input(srv)                  # "first" was cut: "third" told the model so
        [path] = session_files(home_of(project))
        session_id = path.stem

        app: ContextualApp = resumed_app(tmp_path, srv.base_url, session_id)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.engine.session_id == session_id)
            await type_and_send(pilot, "/rewind")
            await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker))
            await pilot.press("enter")                 # the newest: back to before "third"
            await wait_for(pilot, lambda: "rewound to before: third" in chat_text(app))
            await run_turn(pilot, "third, again")
            sent = last_input(srv)
            assert sent.startswith("third, again") and CUT in sent

            await type_and_send(pilot, "/rewind")      # again, and leave: the resumed session owes it too
            await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker))
            await pilot.press("enter")
            await wait_for(pilot, lambda: "rewound to before: third, again" in chat_text(app))
            await pilot.press("ctrl+q")

        shown = contextual(["context", "-c", "--input", "fourth", "--json"], project, env)
        assert shown.returncode == 0, shown.stderr
        messages = json.loads(shown.stdout)["request"]["messages"]
        assert messages[-1]["content"].startswith("fourth") and CUT in messages[-1]["content"]


def test_a_round_cut_below_a_summary_is_said_to_be_the_one_after_it_live_and_resumed(tmp_path):
    """The first compaction summarised, the second's summary failed: the note called the round it cut "the oldest
    round of this conversation", right under the summary of older ones (helper-139). Live: an automatic compaction
    at 4k before the message it rides on; resumed: a `-c -p "/compact 1"` whose note `context -c` owes."""
    project = make_project(tmp_path)
    failing = {"on": False}

    def model(body: dict):
        if is_summary_request(body):
            return Fault("400") if failing["on"] else "## Summary\nThe user asked twice."
        return finish("done")

    pasted = "\n".join(f"line {i}: the worker {i % 7} took {i * 37 % 1000} ms" for i in range(110))
    with FakeLLMServer(kind="openai", responder=model) as srv:
        env = cli_env(home_of(project), srv.base_url)

        def run(*args: str) -> None:
            result = contextual([*args, "--context-window", "4096"], project, env)
            assert result.returncode == 0, result.stderr

        run("-p", "first")
        run("-c", "-p", "second")
        run("-c", "-p", "/compact 1")                   # summarised
        failing["on"] = True
        run("-c", "-p", "third " + pasted)
        run("-c", "-p", "fourth " + pasted)              # compacts first at 4k: "third" cut, no summary
        sent = last_input(srv)
        assert sent.startswith("fourth") and "The 2 rounds after the last summary above were removed" in sent, sent
        run("-c", "-p", "fifth")
        run("-c", "-p", "/compact 1")                   # "fourth" cut: said at the next input, read back
        shown = contextual(["context", "-c", "--input", "sixth", "--json"], project, env)
        assert shown.returncode == 0, shown.stderr
        said = json.loads(shown.stdout)["request"]["messages"][-1]["content"]
        # with the two before it, whose note rode on "fourth" (helper-144: the note counts every round gone since)
        assert said.startswith("sixth") and "The 3 rounds after the last summary above were removed" in said, said


@pytest.mark.parametrize("then", ["in the app", "after -c"])
async def test_two_fallbacks_before_an_input_send_one_note_that_counts_both(tmp_path, then: str):
    """Two /compact in the app whose summaries fail, before any input: the next message carried two notes, "The 2
    oldest rounds … were removed" beside "The 3 oldest rounds …" (the first still waited for an input when the
    second was made; helper-139's review). One note now, counting every round gone, in the app as after -c."""
    project = make_project(tmp_path)
    with FakeLLMServer(kind="openai", responder=model) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, auto_compact=False, keep_rounds=1), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            for word in ("one", "two", "three", "four"):
                await run_turn(pilot, word)
            for made, command in enumerate(("/compact 2", "/compact 1"), 1):   # "one", "two", then "three": no summary
                await type_and_send(pilot, command)
                await wait_for(pilot, lambda: len(app.engine.compactions) == made and not app.turns.running
                               and app.screen is app.screen_stack[0])     # its card went as it ended
            if then == "in the app":
                await run_turn(pilot, "five")
            await app.host.close(app.engine)
        if then == "after -c":
            result = contextual(["-c", "-p", "five"], project, cli_env(home_of(project), srv.base_url))
            assert result.returncode == 0, result.stderr
        sent = last_input(srv)
    assert sent.startswith("five") and sent.count(CUT) == 1, sent
    assert "The 3 oldest rounds of this conversation were removed without a summary" in sent, sent
