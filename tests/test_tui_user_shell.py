"""`!command` in the app (issue 29.8): its output joins the user's NEXT message — not a round of its own — in a
Bash result's stored form (seed 002 A3) when that is smaller, whole in the message's `full`; through the real
app, engine and fake server, reading the request body the server received."""

from __future__ import annotations

from contextual.tui.app import ContextualApp
from contextual.tui.widgets.status_line import StatusLine

from tests.tui_helpers import SIZE, chat_text, finish, make_host, run_turn, server, type_and_send, wait_for


def user_texts(body: dict) -> list[str]:
    out = []
    for m in body["messages"]:
        if m["role"] == "user":
            content = m["content"]
            out.append(content if isinstance(content, str) else " ".join(p.get("text", "") for p in content))
    return out


async def shell(pilot, command: str) -> None:
    app = pilot.app
    said = chat_text(app).count("joins your next message")
    await type_and_send(pilot, "!" + command)
    await wait_for(pilot, lambda: chat_text(app).count("joins your next message") > said)
    await app.workers.wait_for_complete()


async def test_shell_output_rides_on_the_next_user_message(tmp_path):
    with server([finish("seen it"), finish("second")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await shell(pilot, "echo shell-said-this; echo on-stderr >&2")
            assert "shell-said-this" in chat_text(app)
            assert not srv.requests                      # nothing sent on its own
            assert app.engine.controls.shell                  # held for the next message, and counted already:
            await wait_for(pilot, lambda: app.readouts.shown is not None and any(
                "shell-said-this" in m.content for m in app.readouts.shown.messages if m.layer == "input"))
            assert app.readouts.shown.layers["input"] > 0              # the meter's input figure
            await run_turn(pilot, "what did it print?")
            assert len(srv.requests) == 1
            last_user = user_texts(srv.requests[0])[-1]
            assert "what did it print?" in last_user
            assert "shell-said-this" in last_user and "on-stderr" in last_user
            assert "`echo shell-said-this; echo on-stderr >&2`" in last_user
            users = [m for m in app.engine.history.messages if m.role == "user"]
            assert len(users) == 1 and "shell-said-this" in users[0].content
            assert users[0].meta["raw"] == "what did it print?"
            assert not [m for m in app.engine.history.messages if m.role == "tool"]    # no round of its own
            await run_turn(pilot, "and now?")                 # it went once
            assert user_texts(srv.requests[1])[-1].count("shell-said-this") == 0


async def test_long_shell_output_is_sent_stored_and_kept_whole(tmp_path):
    with server([finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await shell(pilot, "seq 1 5000")
            await run_turn(pilot, "count them")
            last_user = user_texts(srv.requests[0])[-1]
            assert "4999" in last_user and "5000" in last_user        # its last lines
            assert "2500" not in last_user                            # not the middle: the stored form
            message = next(m for m in app.engine.history.messages if m.role == "user")
            assert message.full is not None and "\n2500\n" in message.full
            assert len(message.content) < len(message.full) / 5


async def test_a_command_waits_for_the_turn(tmp_path):
    with server([]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await shell(pilot, "exit 3")
            assert "exit 3" in chat_text(app)
            assert app.engine.controls.shell and "[exit 3]" in app.engine.controls.shell[0][1]


async def test_esc_stops_a_command_and_nothing_of_it_joins_the_message(tmp_path):
    with server([]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "!echo started; sleep 60")
            await wait_for(pilot, lambda: app.turns.running and app.query_one(StatusLine).state == "tool")
            await pilot.press("escape")
            await wait_for(pilot, lambda: "stopped; nothing of it joins" in chat_text(app))
            # the shell's worker ends cancelled or done, whichever the stop reached first: over either way
            await wait_for(pilot, lambda: not app.turns.running)
            assert not app.engine.controls.shell and not app.turns.running


async def test_a_commands_output_waiting_for_the_next_message_outlives_a_quit_and_c_brings_it_back(tmp_path):
    """`!command` output waiting to join the next message was lost at a quit: it lived only in the app's memory.
    It is kept with the session (and the line at quit says so): `contextual -c` shows it waiting and sends it with
    the next message, the app's or `-p`'s, once."""
    from tests.cli_helpers import cli_env, contextual
    from tests.tui_helpers import resumed_app, until_shown
    with server([finish("seen it"), finish("again")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await shell(pilot, "echo kept-across-quit")
            session_id = app.engine.session_id
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: app.return_code is not None)
        assert session_id and not srv.requests
        hint = app.shown_engine.resume_hint or ""
        assert "`contextual -c`" in hint and "The output of your `!command` waits there for your next message." in hint, hint
        resumed = resumed_app(tmp_path, srv.base_url, None)         # `contextual -c`: the project's latest
        async with resumed.run_test(size=SIZE) as pilot:
            await until_shown(pilot, resumed)
            assert resumed.engine.session_id == session_id
            shown = chat_text(resumed)
            assert "$ echo kept-across-quit" in shown and "kept-across-quit" in shown.split("$ echo")[-1]
            assert "joins your next message" in shown
            await pilot.press("ctrl+q")                             # left again unsent: still waiting
            await wait_for(pilot, lambda: resumed.return_code is not None)
        project, home = tmp_path / "proj", tmp_path / "home"
        printed = contextual(["-c", "-p", "what did it print?"], project, cli_env(home, srv.base_url))
        assert printed.returncode == 0 and printed.stdout == "seen it\n", printed.stderr
        again = contextual(["-c", "-p", "and now?"], project, cli_env(home, srv.base_url))
        assert again.returncode == 0, again.stderr
    sent = user_texts(srv.requests[0])[-1]
    assert "what did it print?" in sent and "kept-across-quit" in sent and "`echo kept-across-quit`" in sent
    assert "kept-across-quit" not in user_texts(srv.requests[1])[-1]          # it went once
