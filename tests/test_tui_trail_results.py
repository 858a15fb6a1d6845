"""The chat's tool trail says under each call what it returned (Read's lines, a command's exit and last output lines,
an edit's +N −M), the same live and resumed, in a narrow and a wide chat; a long turn stays one collapsed line."""

from __future__ import annotations

import json
from typing import Any

from tests.tui_helpers import finish, make_host, run_turn, server, type_and_send, wait_for


def _call(tool: str, **args: Any) -> str:
    return f"Thought: go\nAction: {tool}[{json.dumps(args)}]"


def _rows(app: Any) -> list[str]:
    from textual.widgets import Static

    from contextual.tui.widgets.tool_trail import ToolTrail
    return [str(trail.query_one(".trail-lines", Static).render()) for trail in app.query(ToolTrail)]


async def test_each_call_shows_what_it_returned_live_and_resumed_narrow_and_wide(tmp_path):
    from contextual.tui.app import ContextualApp
    from contextual.tui.widgets.tool_trail import ToolTrail
    script = [_call("Read", file_path="cart.py", offset=3, limit=4),
              _call("Bash", command="echo first; echo; echo second; echo oops >&2; exit 3"),
              _call("Bash", command="printf 'a\\nb\\nc\\nd\\n'"),
              _call("Edit", file_path="cart.py", old_string="def total_5(): return 5\n",
                    new_string="def total_5():\n    return 5\n"),
              finish("done")]
    with server(script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="bypass"), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "do the things")
            [live] = _rows(app)
            trail = app.query_one(ToolTrail)
            assert trail.collapsed and trail.title == "4 tool calls · Read, Bash ×2, Edit · 1 failed"
            session_id = app.engine.session_id
            await app.host.close(app.engine)
        assert live.split("\n") == [
            "✓ Read cart.py", "  ⎿ Read 4 lines (3–6 of 300)",
            "✗ Bash echo first; echo; echo second; echo oops >&2; exit 3", "  ⎿ exit 3",
            "    first", "    second", "    oops",                      # the last non-blank lines, stderr's last
            "✓ Bash printf 'a\\nb\\nc\\nd\\n'", "  ⎿ exit 0", "    b", "    c", "    d",
            "✓ Edit cart.py", "  ⎿ +2 −1 lines"]
        for size in ((80, 24), (200, 50)):
            host = make_host(tmp_path, srv.base_url)
            resumed = ContextualApp(host, host.resume(session_id), animate=False)
            async with resumed.run_test(size=size) as pilot:
                await pilot.pause()
                assert _rows(resumed) == [live], size
                await resumed.host.close(resumed.engine)


async def test_a_forty_call_turn_stays_one_line_until_the_focused_title_says_enter_and_opens_it(tmp_path):
    from textual.widgets import Footer

    from contextual.tui.app import ContextualApp
    from contextual.tui.widgets.tool_trail import ToolTrail, TrailTitle
    script = [_call("Read", file_path="cart.py", offset=n + 1, limit=1) for n in range(40)] + [finish("read")]
    with server(script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="bypass", max_steps=60),
                            animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "read it line by line")
            trail = app.query_one(ToolTrail)
            assert trail.collapsed and trail.outer_size.height == 1 and trail.title == "40 tool calls · Read ×40"
            await pilot.press("tab")             # one tab from the input reaches the trail's title
            assert isinstance(app.focused, TrailTitle)
            await pilot.pause()
            footer = app.query_one(Footer)
            assert any("show/hide calls" in str(key.render()) for key in footer.children)
            await pilot.press("enter")
            await wait_for(pilot, lambda: not trail.collapsed)
            rows = _rows(app)[0].split("\n")
            assert len(rows) == 80 and rows[-1] == "  ⎿ Read 1 line (40–40 of 300)"
            await app.host.close(app.engine)


async def test_one_calls_title_wider_than_the_chat_cuts_its_arguments_and_keeps_its_result(tmp_path):
    """Cut at its end, a long command's title lost the exit it ran to ("… | tail -5; ls -la s…", tmux at 80x24);
    its arguments give way instead, once, with one "…", as History's rows do."""
    from contextual.tui.app import ContextualApp
    from contextual.tui.widgets.tool_trail import TrailTitle
    command = "python -m pytest -q tests/test_prices.py 2>&1 | tail -5; ls -la src; echo and then some more"
    with server([_call("Bash", command=command), finish("done")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="bypass"), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "run it")
            title = app.query_one(TrailTitle)
            await pilot.pause()
            line = _title_line(title)
            assert line.rstrip().endswith("… · exit 0") and line.count("…") == 1, line
            assert line.strip().startswith("▶ Bash python -m pytest -q "), line
            await app.host.close(app.engine)


async def test_a_denied_call_is_counted_as_denied_not_failed_live_and_resumed(tmp_path):
    # "2 tool calls · Bash, Edit · 1 failed" after pressing n on the Edit: nothing had failed, it never ran
    from contextual.tui.app import ContextualApp
    from contextual.tui.screens.permission import PermissionModal
    from contextual.tui.widgets.scratchpad import ScratchpadView
    from contextual.tui.widgets.tool_trail import ToolTrail
    script = [_call("Bash", command="exit 2"),
              _call("Edit", file_path="cart.py", old_string="def total_5(): return 5\n", new_string="x\n"),
              _call("Read", file_path="cart.py", limit=1), finish("done")]
    with server(script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await type_and_send(pilot, "try things")
            asked: list[str] = []
            for key in ("y", "n"):
                await wait_for(pilot, lambda: isinstance(app.screen, PermissionModal) and app.screen.tool not in asked)
                asked.append(app.screen.tool)
                await pilot.press(key)
            await wait_for(pilot, lambda: not app.turns.running)
            trail = app.query_one(ToolTrail)
            assert trail.title == "3 tool calls · Bash, Edit, Read · 1 failed · 1 denied"
            [live] = _rows(app)
            steps = app.query_one(ScratchpadView).turns[-1].steps
            assert [s.status for s in steps[:3]] == ["success", "denied", "success"]
            session_id = app.engine.session_id
            await app.host.close(app.engine)
        assert live.split("\n")[2].startswith("✗ Edit cart.py · denied")
        host = make_host(tmp_path, srv.base_url)
        resumed = ContextualApp(host, host.resume(session_id), animate=False)
        async with resumed.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert resumed.query_one(ToolTrail).title == trail.title and _rows(resumed) == [live]
            await resumed.host.close(resumed.engine)


async def test_a_call_a_deny_rule_refused_names_the_rule_whole_at_80_columns_live_and_resumed(tmp_path):
    """The row said the model's sentence, "Bash is denied by the permission rule 'Bas…" at 80 columns: the rule
    was cut and it read as if Bash were off. It says the call (its label, which gives way) and the rule whole."""
    from contextual.tui.app import ContextualApp
    from contextual.tui.widgets.tool_trail import TrailTitle
    from tests.tui_helpers import make_project
    root = make_project(tmp_path)
    (root / ".contextual").mkdir(exist_ok=True)
    (root / ".contextual" / "config.toml").write_text('[permissions]\ndeny = ["Bash(rm -rf:*)"]\n')
    command = "cd build/output/of/the/last/release && rm -rf ./generated-artifacts --verbose"
    with server([_call("Bash", command=command), finish("done")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="bypass"), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "clean up")
            title = app.query_one(TrailTitle)
            await pilot.pause()
            line = _title_line(title)
            assert line.strip().startswith("▶ ✗ Bash cd build/") and line.count("…") == 1, line
            assert line.rstrip().endswith("… · denied by Bash(rm -rf:*)"), line
            [live] = _rows(app)
            session_id = app.engine.session_id
            await app.host.close(app.engine)
        assert live.split("\n")[1] == "  ⎿ denied by Bash(rm -rf:*)"
        sent = srv.requests[1]["messages"][-1]["content"]          # the model reads the call, then the rule whole
        assert f"`{command}` is denied by Bash(rm -rf:*); do the task another way" in sent
        host = make_host(tmp_path, srv.base_url)
        resumed = ContextualApp(host, host.resume(session_id), animate=False)
        async with resumed.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert _rows(resumed) == [live]
            await resumed.host.close(resumed.engine)


async def test_one_tab_from_the_input_reaches_the_newest_trail_and_up_the_older_ones(tmp_path):
    """The focus chain passed the chat (and, narrow, the region tabs) first: two stops that showed nothing, then
    the oldest trail, where the README says tab goes on to the rows (user review, helper-121; tests looped up to
    6 tabs). shift+tab is the permission mode's: ↑ ↓ walk the rows."""
    from contextual.tui.app import ContextualApp
    from contextual.tui.widgets.prompt_input import PromptInput
    from contextual.tui.widgets.tool_trail import TrailTitle
    script = [_call("Read", file_path="cart.py", limit=2), finish("one"), _call("LS"), _call("Glob", pattern="*.py"),
              finish("two")]
    with server(script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="bypass"), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "first")
            await run_turn(pilot, "second")
            for size in ((80, 24), (120, 40)):          # narrow (the region tabs) and wide
                await pilot.resize_terminal(*size)
                app.query_one(PromptInput).focus()
                await pilot.pause()
                await pilot.press("tab")
                await pilot.pause()
                assert isinstance(app.focused, TrailTitle) and "LS, Glob" in str(app.focused.label), size
                await pilot.press("up")
                await pilot.pause()
                assert isinstance(app.focused, TrailTitle) and "Read cart.py" in str(app.focused.label), size
                await pilot.press("down")
                await pilot.pause()
                assert isinstance(app.focused, TrailTitle) and "LS, Glob" in str(app.focused.label), size
            await app.host.close(app.engine)


def _title_line(title) -> str:
    """The trail title's one row as the screen draws it (the cut with its "…" included)."""
    from textual.geometry import Region
    [line] = ["".join(s.text for s in strip) for strip in title.render_lines(Region(0, 0, *title.outer_size))]
    return line
