"""Pilot tests of the real app, the real engine and a scripted fake LLM server on 127.0.0.1."""

from __future__ import annotations

from contextlib import asynccontextmanager


import threading

import pytest
from textual.content import Content

from contextual.core.config import load_config
from contextual.core.model_facts import cost
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.fakes.server_flavors import Flavor
from contextual.tui.app import ContextualApp
from contextual.tui.host import RealHost
from contextual.tui.screens.compaction import CompactionModal, result_card
from contextual.tui.screens.compaction_preview import CompactionPreviewScreen
from contextual.tui.screens.permission import PermissionModal
from contextual.tui.screens.stored_full import StoredFullScreen
from contextual.tui.widgets.aligned_pane import AlignedPane
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.history_view import HistoryView
from contextual.tui.format import tokens
from contextual.tui.prompt_view import next_prompt
from contextual.tui.widgets.scratchpad import ScratchpadView
from contextual.tui.widgets.token_meter import TokenMeter
from contextual.tui.widgets.tool_trail import ToolTrail

from tests.tui_helpers import (READ_CART, SIZE, chat_text, finish, make_host, make_project, open_history_row,
                               resumed_app, run_turn, server, slow_answer, type_and_send, until_shown, wait_for, shown_screen)


async def test_turn_streams_into_chat_and_scratchpad(tmp_path):
    with server([READ_CART, finish("The cart defines **300** totals.")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "how many totals?")
            chat = app.query_one(ChatLog)
            assert "you" in str(chat.children[0].render()) and "how many totals?" in str(chat.children[0].render())
            answer = chat.children[-1]
            assert "300" in answer.source
            pad = app.query_one(ScratchpadView)
            turn = pad.turns[-1]
            assert turn.outcome == "finished"
            read_step = turn.steps[0]
            assert read_step.tool == "Read" and read_step.thought == "the cart first"
            assert "total_299" in read_step.observation          # the full observation, not the stored one
            assert pad.shown_turn is None                         # cleared when the turn ended ...
            await pilot.press("ctrl+p", "escape")
            pad.focus()
            await pilot.press("[")                                # ... but browsable
            assert pad.shown_turn == 0
            history = app.query_one(HistoryView)
            assert [m.role for m in history.messages] == ["user", "assistant", "tool", "assistant"]
            assert history.messages == app.engine.history.messages
            # The chat keeps a trail of the turn's tool calls after the scratchpad cleared.
            trail = app.query_one(ToolTrail)
            assert [c[:3] for c in trail.calls] == [("Read", "cart.py", "success")]
            assert trail.title == "Read cart.py · Read 300 lines"     # one call: what it was and gave
            # The meter's "next prompt" is exactly what the server receives next (its own count of the request).
            meter = app.query_one(TokenMeter)
            history_rows = {m.id: history.get_option_at_index(i).prompt.plain for i, m in enumerate(history.messages)}
            srv.add(finish("again"))
            app.query_one("#prompt").load_text("and again?")
            app.query_one("#prompt").focus()
            shown_for_input = next_prompt(app.engine, "and again?")
            assert meter.shown.layers["L3"] == shown_for_input.layers["L3"] > 0
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(srv.requests) == 3)
            assert srv.requests[2].tokens == shown_for_input.total
            assert all(tokens(m.tokens) in history_rows.get(m.source, tokens(m.tokens))
                       for m in shown_for_input.messages)


async def test_tool_result_opens_side_by_side_with_keyboard_and_mouse(tmp_path):
    with server([READ_CART, finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "read it")
            history = app.query_one(HistoryView)
            screen = await open_history_row(pilot, 2)
            assert isinstance(screen, StoredFullScreen)
            stored, full = screen.query_one("#stored", AlignedPane), screen.query_one("#full", AlignedPane)
            assert len(stored.rows) == len(full.rows)
            assert stored.virtual_size == full.virtual_size           # same scrollbars: same rows visible
            assert "tok" in stored.border_title and "lines" in full.border_title
            full.scroll_to(y=20, animate=False, immediate=True)
            await pilot.pause()
            assert stored.scroll_y == full.scroll_y == 20       # the panes scroll together
            await pilot.press("escape")
            assert not isinstance(app.screen, StoredFullScreen)
            history.highlighted = 3                               # ctrl+o from a later row finds the tool above
            await pilot.press("ctrl+o")
            assert isinstance(app.screen, StoredFullScreen)
            await pilot.press("escape")
            await pilot.click(HistoryView, offset=(4, 3))         # a click on the tool row (row 2, below the border)
            await pilot.pause()
            assert isinstance(app.screen, StoredFullScreen)


async def test_a_result_sent_harder_lines_up_with_its_full_form_from_the_status_line(tmp_path):
    """At a window the kept round does not fit, History's Read row is sent as A3's hard form; stored vs full
    shows that text from its status line down, beside the full form's (no "Observation: " in front)."""
    with server([READ_CART, finish("ok"), finish("again")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=4000, auto_compact=False),
                            animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "read it")
            await run_turn(pilot, "and again?")
            screen = await open_history_row(pilot, 2)
            assert isinstance(screen, StoredFullScreen) and screen.form == "hard"
            stored, full = screen.query_one("#stored", AlignedPane), screen.query_one("#full", AlignedPane)
            assert stored.rows[0].text == full.rows[0].text == "[ok]"
            assert any(row.text == "content:" for row in stored.rows)


@pytest.mark.parametrize("key,decision,expect", [("y", "allow_once", "hi-from-bash"),
                                                 ("a", "allow_always", "hi-from-bash"),
                                                 ("n", "deny", "denied")])
async def test_permission_answered_each_way(tmp_path, key, decision, expect):
    bash = 'Thought: run it\nAction: Bash[{"command": "echo hi-from-bash"}]'
    with server([bash, finish("done")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "run echo")
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            assert "echo hi-from-bash" in str(app.screen.preview)
            await pilot.press(key)
            await app.workers.wait_for_complete()
            await pilot.pause()
            tool = [m for m in app.engine.history.messages if m.role == "tool"][-1]
            assert expect in tool.full.lower()
            rules = app.config.project_root / ".contextual" / "config.local.toml"
            rule = "Bash(echo:*)"
            assert (rule in app.engine.allowed_for_session) == (decision == "allow_always")
            assert (rules.exists() and rule in rules.read_text()) == (decision == "allow_always")
            assert not (app.config.project_root / ".contextual" / "config.toml").exists()


async def test_allow_always_for_a_pipeline_writes_one_rule_per_command_and_never_claims_a_rule_that_cannot_match(
        tmp_path):
    pipe = 'Thought: run it\nAction: Bash[{"command": "echo a-b | tail -1"}]'
    redirect = 'Thought: run it\nAction: Bash[{"command": "echo hi > out.txt"}]'
    with server([pipe, redirect, finish("done")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "run both")
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            shown = str(app.screen.query_one("#permission-rule").render())
            assert "Bash(echo:*), Bash(tail -1)" in shown                     # shown before it is written
            await pilot.press("a")
            await wait_for(pilot, lambda: isinstance(app.screen, PermissionModal) and app.screen.args["command"]
                           .startswith("echo hi >"))
            modal = app.screen
            assert "“always” is not offered" in str(modal.query_one("#permission-rule").render())
            assert not modal.query("#allow_always")                   # no "Always [a]" that would allow once
            await pilot.press("a")                                    # nothing: there is no always here
            assert app.screen is modal
            await pilot.press("y")
            await app.workers.wait_for_complete()
            await pilot.pause()
            notes = "\n".join(str(w.render()) for w in app.query_one(ChatLog).children)
            local = (app.config.project_root / ".contextual" / "config.local.toml").read_text()
            assert "Bash(echo:*)" in local and "Bash(tail -1)" in local and "echo hi" not in local
            assert "allowed from now on (Bash(echo:*), Bash(tail -1)" in notes
            assert (app.config.project_root / "out.txt").exists()


async def test_a_rules_file_linking_outside_the_project_is_named_in_the_chat_and_not_sent(tmp_path):
    root = make_project(tmp_path)
    (tmp_path / "elsewhere.md").write_text("OUTSIDE-RULES\n")
    (root / "AGENTS.md").symlink_to(tmp_path / "elsewhere.md")
    with server([finish("done")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "hello")
            notes = "\n".join(str(w.render()) for w in app.query_one(ChatLog).children)
    assert "AGENTS.md is a link to a file outside the project" in notes
    assert "OUTSIDE-RULES" not in str(srv.requests[0]["messages"])


async def test_cancel_mid_turn_records_interrupted(tmp_path):
    slow = slow_answer()
    with server([slow, finish("first"), finish("second")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "take your time")
            pad = app.query_one(ScratchpadView)
            await wait_for(pilot, lambda: pad.current is not None and pad.current.steps and pad.current.steps[0].streamed)
            await pilot.press("escape")
            # the turn's worker is cancelled: waiting on it raises WorkerCancelled when the wait starts first
            await wait_for(pilot, lambda: not app.turns.running)
            await pilot.pause()
            assert pad.turns[-1].outcome == "interrupted"
            assert not app.turns.running
            notes = [str(w.render()) for w in app.query_one(ChatLog).children]
            assert any(n == "turn interrupted" for n in notes)      # as a resumed chat says it (helper-121)
            assert app.engine.history.messages[0].content == "take your time"
            # the next question carries a note that the one before it was stopped; the one after does not
            await run_turn(pilot, "something else")
            await run_turn(pilot, "and more")
            last_user = [[m["content"] for m in r["messages"] if m["role"] == "user"][-1] for r in srv.requests[-2:]]
            assert "stopped your previous turn" in last_user[0] and "something else" in last_user[0]
            assert "stopped your previous turn" not in last_user[1]



async def test_an_answer_stopped_mid_stream_is_what_the_model_and_a_resumed_chat_see_next(tmp_path):
    """The chat showed the answer as far as it streamed; the model's next prompt holds it too (before the note that
    the user stopped it), History lists it, and a resumed chat shows it again. Its thinking stays out."""
    begun = "The answer begins with the first point"
    streaming = Reply("Thought: short.\nAction: Finish[" + begun + ", " + "and goes on at length " * 60 + "]",
                      chunk_delay=0.02, reasoning="private notes")
    with server([streaming, finish("shorter now")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "explain it")
            await wait_for(pilot, lambda: begun in chat_text(app))
            await pilot.press("escape")
            await wait_for(pilot, lambda: not app.turns.running)
            cut = [m for m in app.engine.history.messages if m.role == "assistant"]
            assert len(cut) == 1 and cut[0].meta.get("interrupted") and begun in cut[0].content
            assert "private notes" not in cut[0].content and not cut[0].meta.get("final")
            await run_turn(pilot, "go on, but shorter")
            session_id = app.engine.session_id
        sent = srv.requests[-1]["messages"]
        said = [i for i, m in enumerate(sent) if m["role"] == "assistant" and begun in str(m["content"])]
        assert said, sent
        after = sent[said[0] + 1]
        assert after["role"] == "user" and "stopped your previous turn" in str(after["content"])
        assert "go on, but shorter" in str(after["content"])
        assert "private notes" not in str(sent)
        app = resumed_app(tmp_path, srv.base_url, session_id)
        async with app.run_test(size=SIZE) as pilot:
            await until_shown(pilot, app)
            shown = chat_text(app)
            assert begun in shown and "shorter now" in shown

def gated(answer: str, gate: threading.Event):
    """A script item the server answers only once the test opens the gate: the turn runs until then."""
    return lambda body: finish(answer) if gate.wait(30) else "Thought: gate never opened"


async def queue_two_on_a_running_turn(pilot, first: str, second: str) -> ScratchpadView:
    """A turn held open by its gated answer, and two messages typed while it runs; its scratchpad."""
    app = pilot.app
    await type_and_send(pilot, "first question")
    pad = app.query_one(ScratchpadView)
    await wait_for(pilot, lambda: app.turns.running and pad.current is not None)
    await type_and_send(pilot, first)
    await type_and_send(pilot, second)
    return pad


async def test_messages_sent_while_a_turn_runs_are_queued_and_sent_together_when_it_ends(tmp_path):
    """As Claude Code does: what was typed ahead is one message (one call, one round), not a turn each."""
    gate = threading.Event()
    with server([gated("first answer", gate), finish("second answer"), finish("never asked")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            pad = await queue_two_on_a_running_turn(pilot, "second question, typed early", "third question")
            prompt = app.query_one("#prompt")
            assert prompt.text == "" and prompt.border_title == \
                "queued: second question, typed early +1 · sent when the turn ends · ↑ edits"
            assert len(srv.requests) == 1                       # nothing sent while the first turn runs
            gate.set()
            await wait_for(pilot, lambda: len(pad.turns) == 2 and pad.turns[-1].outcome == "finished")
            users = [m.content for m in app.engine.history.messages if m.role == "user"]
            assert users == ["first question", "second question, typed early\n\nthird question"]
            assert [r["messages"][-1]["content"] for r in srv.requests[1:]] == users[1:]
            assert len(srv.requests) == 2 and prompt.border_title == ""
            assert "second answer" in chat_text(app) and "third question" in chat_text(app)


async def test_a_queued_message_is_shown_as_typed_whatever_its_brackets(tmp_path):
    gate = threading.Event()
    with server([gated("first answer", gate), finish("second answer")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "first question")
            await wait_for(pilot, lambda: app.turns.running)
            await type_and_send(pilot, "fix [/] this [x]")   # `[/]` in the border title ended the app
            await pilot.pause()
            title = app.query_one("#prompt").border_title
            assert app.is_running and "queued: fix [/] this [x]" in Content.from_markup(title).plain
            gate.set()
            await wait_for(pilot, lambda: len(srv.requests) == 2 and not app.turns.running)


async def test_the_queued_label_is_fitted_again_when_the_terminal_is_resized(tmp_path):
    """The label was fitted once, at the width the message was queued at: widened to 200 columns it still read
    `queued: also check the READ…`, narrowed to 80 it ran past the border and lost `↑ edits`."""
    gate = threading.Event()
    with server([gated("first answer", gate), finish("second answer")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            try:
                await type_and_send(pilot, "first question")
                await wait_for(pilot, lambda: app.turns.running)
                typed = "also check the README and the changelog for the release notes"
                await type_and_send(pilot, typed)
                prompt = app.query_one("#prompt")
                assert "…" in prompt.border_title
                await pilot.resize_terminal(200, 50)
                await wait_for(pilot, lambda: f"queued: {typed} · sent" in prompt.border_title)
                await pilot.resize_terminal(80, 24)
                await wait_for(pilot, lambda: "…" in prompt.border_title)
                assert len(prompt.border_title) <= 80 - 4 and prompt.border_title.endswith("↑ edits")
            finally:
                gate.set()
            await wait_for(pilot, lambda: len(srv.requests) == 2 and not app.turns.running)


async def test_queued_messages_go_back_to_the_input_when_the_turn_is_interrupted(tmp_path):
    gate = threading.Event()
    with server([gated("never", gate), finish("unused")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            pad = await queue_two_on_a_running_turn(pilot, "queued one", "queued two, with a typo")
            prompt = app.query_one("#prompt")
            await pilot.press("up")                         # the newest comes back to be edited
            assert prompt.text == "queued two, with a typo" and app.turns.queued.texts == ["queued one"]
            await pilot.press("!")                          # the cursor is at its end, where typing goes on
            assert prompt.text == "queued two, with a typo!"
            prompt.load_text("queued two")
            await pilot.press("enter")                      # queued again, edited
            assert app.turns.queued.texts == ["queued one", "queued two"]
            prompt.load_text("being typed")
            await pilot.press("escape")
            await wait_for(pilot, lambda: not app.turns.running and pad.turns[-1].outcome == "interrupted")
            await pilot.pause()
            assert prompt.text == "queued one\n\nqueued two\n\nbeing typed"      # nothing lost, nothing sent
            assert prompt.cursor_location == prompt.document.end
            assert len(srv.requests) == 1 and prompt.border_title == ""
            users = [m.content for m in app.engine.history.messages if m.role == "user"]
            assert users == ["first question"]
        gate.set()


def compaction_script(rounds: int) -> list:
    script: list = []
    for i in range(rounds):
        script += [READ_CART, finish(f"answer {i}")]
    return script


async def test_manual_compaction_modal_result_card_and_resume(tmp_path):
    """The progress modal, the preview over it, then the result: the modal goes as the compaction ends (it waited
    for enter), the chat's line holds its card's figures, and /compactions opens the card."""
    summary = "## Summary\nThe user asked about the cart; cart.py defines 300 totals."
    with server(compaction_script(3) + [Reply(summary, chunk_delay=0.01)]) as srv:
        host = make_host(tmp_path, srv.base_url, keep_rounds=1)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            for i in range(3):
                await run_turn(pilot, f"question {i}")
            before = app.query_one(TokenMeter).shown.total
            await type_and_send(pilot, "/compact keep the totals")
            # A manual compaction shows its summary first, over the progress modal (issue 19.1): accepted as is.
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionPreviewScreen))
            modal = app.screen_stack[-2]
            assert isinstance(modal, CompactionModal)
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: modal.result is not None)
            assert modal.result.rounds_archived == 2
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0])       # no key: it went as it ended
            line = next(line for line in chat_text(app).split("\n") if line.startswith("compacted (manual)"))
            assert f"trigger estimate {tokens(modal.result.pre_tokens)} → " in line and "2 rounds archived" in line
            history = app.query_one(HistoryView)
            assert history.messages[0].role == "summary"
            assert app.query_one(TokenMeter).shown.total < before     # the meter shows the new prompt at once
            await type_and_send(pilot, "/compactions")
            await pilot.pause()
            assert len(app.screen.compactions) == 1
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal) and app.screen.is_mounted)
            await pilot.pause()
            card = str(app.screen.query_one("#compaction-stage").render())
            assert card.startswith("Done\n") and "2 rounds archived" in card and "→" in card
            # plain words, each said once: the title names the compaction; no "trigger: manual", no meter jargon; the
            # figures by the meter's name for them (it said "next prompt", the meter's name for another)
            assert str(app.screen.query_one("#compaction-title").render()) == "#1 manual compaction"
            assert card.count("trigger") == card.count("trigger estimate ") == 1, card
            assert "manual" not in card and "meter" not in card, card
            await pilot.press("escape", "escape")
            session_id = app.engine.session_id
            await pilot.press("ctrl+q")
        # A new app resumes the session with its compaction in it.
        app2 = ContextualApp(host, host.resume(session_id), animate=False)
        async with app2.run_test(size=SIZE) as pilot:
            history = app2.query_one(HistoryView)
            assert history.messages[0].role == "summary"
            assert len(app2.engine.compactions) == 1
            assert "1 compaction" in str(app2.query_one("#topbar").render())
            tool_index = next(i for i, m in enumerate(history.messages) if m.role == "tool")
            history.focus()
            history.highlighted = tool_index
            await pilot.press("enter")
            assert isinstance(app2.screen, StoredFullScreen)


async def test_compaction_cancel_falls_back_to_truncation(tmp_path):
    """UI.md: esc during a compaction falls back to truncation (the preview's cancel is the way out that changes
    nothing)."""
    stalled = Reply("## Summary\n" + "slow " * 400, chunk_delay=0.05)
    with server(compaction_script(2) + [stalled, finish("after")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, keep_rounds=1), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            for i in range(2):
                await run_turn(pilot, f"question {i}")
            await pilot.press("ctrl+k")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal))
            modal = app.screen
            await wait_for(pilot, lambda: modal.stage == "summarising")
            await pilot.press("escape")
            await wait_for(pilot, lambda: modal.result is not None)
            assert modal.result.fallback
            card = str(result_card(modal.result))               # its words, as /compactions opens it
            assert card.startswith("Fell back to truncation") and "Done" not in card
            await wait_for(pilot, lambda: not isinstance(app.screen, CompactionModal))    # it went as it ended
            assert f"fallback: {modal.result.fallback}" in chat_text(app)
            # the model is told, once, that older rounds left without a summary
            await run_turn(pilot, "what now")
            sent = [m["content"] for m in srv.requests[-1]["messages"] if m["role"] == "user"][-1]
            assert "removed without a summary" in sent and "what now" in sent


async def test_without_a_model_the_app_opens_and_explains(tmp_path):
    root = make_project(tmp_path)
    config = load_config(root, {}, env={"CONTEXTUAL_HOME": str(tmp_path / "home")})
    app = ContextualApp(RealHost(config), animate=False)
    async with app.run_test(size=(100, 30)) as pilot:
        text = " ".join(str(w.render()) for w in app.query_one(ChatLog).children)
        assert "CONTEXTUAL_MODEL" in text and "11434" in text and "8080" in text
        await type_and_send(pilot, "hello")
        assert not app.turns.running
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert app.screen.__class__.__name__ == "SessionPicker"


async def test_model_command_switches_the_model_for_the_next_turn(tmp_path):
    with server([finish("one"), finish("two")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "first")
            await type_and_send(pilot, "/model bigger-model")       # it asks the server for the model's window
            await wait_for(pilot, lambda: "bigger-model" in str(app.query_one("#topbar").render()))
            await run_turn(pilot, "second")
    assert [r["model"] for r in srv.requests] == ["fake-model", "bigger-model"]


async def test_model_command_takes_the_new_models_window_and_new_sessions_keep_it(tmp_path):
    with server([finish("one")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await app.startup.started()
            before = app.engine.config.context_window
            await type_and_send(pilot, "/model gpt-4o-mini")        # 128,000 tokens in the model table
            await wait_for(pilot, lambda: app.engine.config.model == "gpt-4o-mini")
            assert before != 128_000 and app.engine.config.context_window == 128_000
            assert app.engine.next_prompt().window == 128_000       # the meter's figure
            old = app.engine
            await type_and_send(pilot, "/clear")
            await wait_for(pilot, lambda: app.engine is not old)
            assert (app.engine.config.model, app.engine.config.context_window) == ("gpt-4o-mini", 128_000)
            assert app.config is app.engine.config                  # one config, not copies kept in sync


async def test_model_command_asks_the_server_for_the_new_models_window_and_prices_follow(tmp_path):
    """A vLLM-like server lists two models with their own windows: /model takes the new one's window from the
    server (not the old model's, not the table's 128,000) and the next call is priced as the new model."""
    flavor = Flavor("vllm", n_ctx=32_768, others=(("gpt-4o-mini", 65_536),))
    with FakeLLMServer(kind="openai", script=[finish("one"), finish("two")], flavor=flavor) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await app.startup.started()
            assert app.engine.config.context_window == 32_768
            await run_turn(pilot, "first")
            assert app.engine.prompt.usage.last_call is not None and app.engine.prompt.usage.last_call.cost is None
            await type_and_send(pilot, "/model gpt-4o-mini")
            await wait_for(pilot, lambda: app.engine.config.model == "gpt-4o-mini")
            assert app.engine.config.context_window == 65_536
            assert app.engine.config.window_source.startswith("server")
            assert app.engine.next_prompt().window == 65_536
            # the chat keeps a line of the switch, not only a toast that goes
            notices = [str(n.render()) for n in app.query(".notice")]
            assert "model: gpt-4o-mini (window 65.5k, from the server) — for the next turns" in notices
            await run_turn(pilot, "second")
            call = app.engine.prompt.usage.last_call
            assert call is not None and call.cost is not None and call.cost > 0
            assert call.cost == cost(call, "gpt-4o-mini")


async def test_quitting_with_a_queued_message_exits_cleanly(tmp_path):
    gate = threading.Event()
    with server([gated("never", gate)]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "first question")
            await wait_for(pilot, lambda: app.turns.running)
            await type_and_send(pilot, "queued one")
            assert app.turns.queued.texts == ["queued one"]
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: app.return_code is not None)
        gate.set()
        assert app.return_code == 0 and app._exception is None and len(srv.requests) == 1


async def test_a_draft_left_in_the_input_at_quit_is_kept_in_the_input_history(tmp_path):
    """ctrl+c twice (or ctrl+q) with a half-written message quit and lost it; ↑ brings it back next time."""
    with server([finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            app.query_one("#prompt").load_text("refactor the cart so that")
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: app.return_code is not None)
        assert app.return_code == 0 and app.remembered.inputs()[-1] == "refactor the cart so that"


@asynccontextmanager
async def asked_to_run(tmp_path, command: str):
    """The app at 80x24, its permission dialog open on a Bash call of `command`."""
    import json
    bash = "Thought: w\nAction: Bash[" + json.dumps({"command": command}) + "]"
    with server([bash, finish("done")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await type_and_send(pilot, "run it")
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            yield app, pilot


def fitted(app) -> bool:
    """The dialog is done fitting itself: its runs line and every button stand inside its box. The runs line is
    shown once the preview turns out too short, and the preview then gives up rows to it: on a busy machine a test
    that went on at the runs line's display pressed `end` on a preview about to shrink (it stopped short of the
    end), or found the runs line not yet laid out."""
    from textual.widgets import Button
    box = app.screen.query_one("#permission-box")
    parts = [app.screen.query_one("#permission-runs"), *app.screen.query(Button)]
    return all(part.display and part.region.height and box.content_region.contains_region(part.region)
               for part in parts)


async def test_a_long_command_names_what_it_runs_and_its_preview_scrolls_from_the_buttons(tmp_path):
    """A 30-line heredoc hid `rm -rf ./important_dir` below the preview's fold, and the arrows, with the focus on
    the buttons, did not scroll to it (tmux QA at 80x24)."""
    command = "cat > gen2.txt <<'EOF'\n" + "\n".join(f"line {i} harmless" for i in range(30)) + "\nEOF\nrm -rf ./important_dir"
    async with asked_to_run(tmp_path, command) as (app, pilot):
        await wait_for(pilot, lambda: fitted(app))
        runs = str(app.screen.query_one("#permission-runs").render())
        assert "rm -rf ./important_dir" in runs and "line 3" not in runs, runs
        preview = app.screen.query_one("#permission-preview")
        assert preview.border_subtitle.startswith("lines 1–") and "of 33" in preview.border_subtitle
        await pilot.press("end")
        await wait_for(pilot, lambda: preview.scroll_y == preview.max_scroll_y > 0)
        await wait_for(pilot, lambda: preview.border_subtitle.endswith("33 of 33 · ↑↓ pgup pgdn end"))
        await pilot.press("home")
        await wait_for(pilot, lambda: preview.scroll_y == 0)
        assert isinstance(app.screen, PermissionModal)          # scrolling answered nothing
        await pilot.press("n")
        await app.workers.wait_for_complete()


async def test_a_long_chain_of_commands_names_its_last_ones(tmp_path):
    """Fifteen commands: the runs line named the first eight and counted the rest, `rm -rf build` at the end
    among them ("and 7 more"). It names the first and the last ones, and counts those between. (One a line: the
    preview cannot show them all, so the runs line is there.)"""
    command = " &&\n".join(f"python -c 'print({i})'" for i in range(13)) + " &&\ngit status && rm -rf build"
    async with asked_to_run(tmp_path, command) as (app, pilot):
        await wait_for(pilot, lambda: app.screen.query_one("#permission-runs").display)
        runs = str(app.screen.query_one("#permission-runs").render())
        assert "print(0)" in runs and "7 more" in runs and runs.endswith("git status  ·  rm -rf build"), runs
        await pilot.press("n")
        await app.workers.wait_for_complete()


async def test_a_one_line_pipeline_is_shown_once_and_no_always_is_offered_that_would_allow_once(tmp_path):
    """At 80x24 `find . -name '*.py' | xargs grep -n def` stood three times (the title, a runs line listing
    `xargs grep -n def` and `grep -n def` with the quotes dropped, the preview), and "Always [a]" was offered beside
    "always would allow this once only" (user review). The preview shows it whole, so it is shown there only; with
    no rule that could match it again there is no always, button or key."""
    from textual.widgets import Button
    from textual.widgets._footer import FooterKey
    command = "find . -name '*.py' | xargs grep -n def"
    async with asked_to_run(tmp_path, command) as (app, pilot):
        modal = app.screen
        preview = modal.query_one("#permission-preview")
        await wait_for(pilot, lambda: preview.region.height > 0)
        await pilot.pause()
        assert str(modal.query_one("#permission-what").render()).strip() == "Bash wants to run:"
        assert not modal.query_one("#permission-runs").display and modal.preview == command
        assert preview.virtual_size.height <= preview.scrollable_content_region.height
        assert [str(b.label) for b in modal.query(Button)] == ["Allow once [y]", "Deny [n]", "Deny + tell [t]"]
        assert "not offered" in str(modal.query_one("#permission-rule").render())
        assert "always" not in {str(k.description) for k in modal.query(FooterKey) if k.region.width}
        await pilot.press("a", "2")                                  # no always: nothing happens
        assert app.screen is modal
        await pilot.press("n")
        await app.workers.wait_for_complete()


async def test_an_edit_of_eleven_diff_rows_is_shown_whole_at_80x24(tmp_path):
    """The preview was held to 40 % of the screen: at 80x24 seven rows, and a diff of ten or more scrolled while the
    rest of the dialog left room for it (user review). It takes what the rest leaves."""
    import json
    root = make_project(tmp_path)
    (root / "ops.py").write_text("".join(f"line {n}\n" for n in range(1, 21)))
    edit = {"file_path": "ops.py", "old_string": "line 10\nline 11\n", "new_string": "line ten\nline eleven\n"}
    with server([f"Thought: fix\nAction: Edit[{json.dumps(edit)}]", finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await type_and_send(pilot, "fix it")
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            preview = app.screen.query_one("#permission-preview")
            await wait_for(pilot, lambda: preview.virtual_size.height >= 11)      # @@, 3 + 2 + 2 + 3 lines
            await pilot.pause()
            assert preview.virtual_size.height <= preview.scrollable_content_region.height
            assert not preview.border_subtitle                                   # no "lines 1–7 of 11"
            box = app.screen.query_one("#permission-box")
            assert all(box.content_region.contains_region(b.region) for b in app.screen.query("Button"))
            await pilot.press("n")
            await app.workers.wait_for_complete()


async def test_the_buttons_and_the_note_stay_on_an_80x24_screen_whatever_the_command(tmp_path):
    """A heredoc and five commands: the `what`, `runs` and rule lines took the rows the preview's 40 % cap left,
    and the buttons fell under the box's border; after t the note was typed blind (helper-46, tmux)."""
    from textual.widgets import Input
    command = ("cd /work/project && cat > gen.txt <<'EOF'\n" + "\n".join(f"line {i} harmless" for i in range(30))
               + "\nEOF\nrm -rf ./build && python -m pip install -e . && python -m pytest -q tests/ && git status"
               " && git diff --stat")
    async with asked_to_run(tmp_path, command) as (app, pilot):
        await wait_for(pilot, lambda: fitted(app))                 # the runs line and the buttons, in the box
        await pilot.press("t")
        note = app.screen.query_one("#permission-note", Input)
        box = app.screen.query_one("#permission-box")
        await wait_for(pilot, lambda: note.display and note.region.height
                       and box.content_region.contains_region(note.region))
        await pilot.press(*"use make", "enter")
        await app.workers.wait_for_complete()


async def test_a_denied_calls_trail_shows_its_whole_title_at_80x24(tmp_path, monkeypatch):
    """A denied call ends as it starts. When the chat was laid out between the two, before the title's own
    refresh (an order a busy machine sometimes gave), the title kept the width of `Bash rm -rf build` and showed
    it cut short until the chat's next layout (seen once in tmux at 80x24)."""
    from textual.widgets._collapsible import CollapsibleTitle
    started = ChatLog.tool_started

    async def laid_out_at_once(chat: ChatLog, tool: str, args: object) -> None:
        await started(chat, tool, args)
        assert chat.trail is not None
        chat.trail.query_one(CollapsibleTitle).refresh(layout=True)     # its refresh still to come ...
        chat.screen._refresh_layout()                                   # ... when the screen lays it out
    monkeypatch.setattr(ChatLog, "tool_started", laid_out_at_once)
    async with asked_to_run(tmp_path, "rm -rf build") as (app, pilot):
        await pilot.press("n")
        await app.workers.wait_for_complete()
        await pilot.pause()
        trail = app.query_one(ToolTrail)
        assert [c[:3] for c in trail.calls] == [("Bash", "rm -rf build", "denied")]
        title = trail.query_one(CollapsibleTitle)
        assert title.render_line(0).text.strip() == "▶ ✗ Bash rm -rf build · The user denied this Bash call."


async def test_a_pasted_log_shows_its_head_in_the_chat_the_rest_folded_and_whole_from_history(tmp_path):
    """A 1 MB log pasted and sent: the chat wrapped all of it again at every layout, 9 s to send and 8 s each
    resize after (a monkey's paste at 80x24); then it showed its first 200 lines, a whole screenful of scrolling.
    The chat shows its first lines and the rest folded (enter or a click opens it, 200 lines at most), resumed
    alike."""
    from textual import events
    from textual.widgets import Collapsible, Static
    from contextual.tui.screens.info import InfoScreen
    log = "".join(f"line {i} of the build log\n" for i in range(1000)) + "a last line without its newline"
    with server([finish("ok")]) as srv:
        host = make_host(tmp_path, srv.base_url)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            app.post_message(events.Paste(log))        # as the terminal's bracketed paste arrives
            await wait_for(pilot, lambda: app.query_one("#prompt").text == "[pasted #1 · 1,001 lines]")
            await pilot.press("enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert srv.requests[0]["messages"][-1]["content"] == log        # the model has it whole
            message = app.query_one(ChatLog).query_one(".user")
            head = str(message.query_one(".user-head", Static).render())
            assert head == "you  line 0 of the build log\nline 1 of the build log\nline 2 of the build log"
            fold = message.query_one(Collapsible)
            assert fold.collapsed and fold.title == "… 998 more lines · enter/click expands"
            assert message.region.height == 3 + 1           # three lines and the fold's title: not 200 lines
            fold.query_one("CollapsibleTitle").focus()
            await pilot.press("enter")
            rest = str(message.query_one(".user-rest", Static).render())
            assert not fold.collapsed and rest.startswith("line 3 of the build log\n") and "line 202 of" in rest
            assert rest.endswith("line 202 of the build log\n… 798 more lines: History opens the whole message")
            screen = await open_history_row(pilot, 0)
            assert isinstance(screen, InfoScreen) and str(screen.query_one(Static).render()) == log
            session_id = app.engine.session_id
        app = ContextualApp(host, host.resume(session_id), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:          # resumed: the same head, the same fold
            await wait_for(pilot, lambda: bool(app.query(".user-head")))
            message = app.query_one(ChatLog).query_one(".user")
            assert str(message.query_one(".user-head", Static).render()) == head
            assert message.query_one(Collapsible).title == "… 998 more lines · enter/click expands"


async def test_a_long_paste_stands_as_a_tag_in_the_input_and_goes_out_whole(tmp_path):
    """A megabyte on one line pasted into the input: Textual's TextArea re-wrapped it on every key (a monkey's
    paste). It stands as one tag, typing goes on around it, it is sent whole, and up brings the message back as a
    tag; a short paste goes in as it is, and a tag deleted takes its paste with it."""
    from textual import events
    from contextual.tui.widgets.prompt_input import PromptInput
    blob = "x" * 1_048_576
    with server([finish("one"), finish("two")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            prompt = app.query_one(PromptInput)
            prompt.focus()
            await pilot.press(*"look at ")
            app.post_message(events.Paste(blob))
            await wait_for(pilot, lambda: "[pasted" in prompt.text)
            assert prompt.text == "look at [pasted #1 · 1,048,576 characters]"
            app.post_message(events.Paste("short\nlines"))
            await pilot.press(*" and")
            await wait_for(pilot, lambda: prompt.text.endswith("short\nlines and"))
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(srv.requests) == 1)
            await app.workers.wait_for_complete()
            assert srv.requests[0]["messages"][-1]["content"] == f"look at {blob}short\nlines and"
            await pilot.press("up")                         # the message back to edit: the long part a tag again
            await wait_for(pilot, lambda: prompt.text.startswith("[pasted #1 · "))
            # what /context shows as the next input
            assert app.query_one(PromptInput).pending().startswith(f"look at {blob}")
            await wait_for(pilot, lambda: prompt.text.startswith("[pasted #1 · "))
            assert len(prompt.text) < 80
            prompt.clear()
            app.post_message(events.Paste(blob))
            await wait_for(pilot, lambda: prompt.text.startswith("[pasted"))
            prompt.clear()                                  # the tag deleted: the paste is not sent
            await pilot.press(*"plain")
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(srv.requests) == 2)
            await app.workers.wait_for_complete()
            assert srv.requests[1]["messages"][-1]["content"] == "plain"


async def test_the_task_list_shows_in_the_chat_and_is_redrawn_in_place(tmp_path):
    """TodoWrite's list was only raw JSON in History and Scratchpad (tmux QA); Claude Code and Codex show theirs."""
    import json
    from contextual.tui.widgets.todo_list import TodoList

    def todo_write(statuses: list[str]) -> str:
        todos = [{"content": f"step {i}", "status": status} for i, status in enumerate(statuses)]
        return "Thought: plan\nAction: TodoWrite[" + json.dumps({"todos": todos}) + "]"
    script = [todo_write(["in_progress", "pending", "pending"]), todo_write(["completed", "in_progress", "pending"]),
              finish("done")]
    with server(script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="bypass"), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "do three steps")
            lists = list(app.query_one(ChatLog).query(TodoList))
            assert len(lists) == 1
            shown = str(lists[0].render())
            assert "1 of 3 done" in shown and "✓ step 0" in shown and "▸ step 1" in shown and "○ step 2" in shown


async def test_the_task_list_live_and_resumed_is_the_list_the_tool_kept_not_the_arguments_sent(tmp_path):
    """TodoWrite trims each item and refuses an empty one (the model is told, the list stays): the chat showed the
    arguments as sent, padded, and a resumed chat the refused list too."""
    import json
    from contextual.tui.widgets.todo_list import TodoList

    def todo_write(content: str) -> str:
        todos = [{"content": content, "status": "in_progress"}]
        return "Thought: plan\nAction: TodoWrite[" + json.dumps({"todos": todos}) + "]"
    with server([todo_write("   write the test   "), todo_write("   "), finish("done")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "plan it")
            [live] = app.query_one(ChatLog).query(TodoList)
            assert str(live.render()) == "tasks · 0 of 1 done\n▸ write the test"
            session_id = app.engine.session_id
        app = resumed_app(tmp_path, srv.base_url, session_id)
        async with app.run_test(size=(80, 24)) as pilot:
            await until_shown(pilot, app)
            [resumed] = app.query_one(ChatLog).query(TodoList)
            assert str(resumed.render()) == "tasks · 0 of 1 done\n▸ write the test"
