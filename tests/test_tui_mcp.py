"""The app with real MCP servers (issue 17): tools join L1 when the server comes up, a call asks permission,
and /mcp shows servers, status, tools and their cost in L1."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from contextual.core.config import load_config
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.mcp_server import ITEM_COUNT
from tests.tui_helpers import SIZE, type_and_send, wait_for, shown_screen
from contextual.tui.app import ContextualApp
from contextual.tui.host import RealHost
from contextual.tui.screens.mcp import MCPScreen
from contextual.tui.screens.permission import PermissionModal

SERVER = str(Path(__file__).parent / "fakes" / "mcp_server.py")


def host_with_servers(tmp: Path, base_url: str) -> RealHost:
    root = tmp / "proj"
    root.mkdir()
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "tracker": {"command": sys.executable, "args": [SERVER]},
        "gone": {"command": str(tmp / "no-such-server")}}}))
    config = load_config(root, {"model": "fake-model", "base_url": base_url, "api_key": "sk-test"},
                         env={"CONTEXTUAL_HOME": str(tmp / "home")})
    return RealHost(config)


async def test_mcp_tools_join_l1_ask_permission_and_show_in_the_mcp_screen(tmp_path: Path):
    script = ['Thought: issues\nAction: mcp__tracker__list_items[{"state": "open"}]', "Thought: ok\nAction: Finish[seen]"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        host = host_with_servers(tmp_path, srv.base_url)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            l1_before = app.engine.next_prompt().tokens["L1"]
            await host.mcp.wait_started()
            await wait_for(pilot, lambda: "mcp__tracker__list_items" in app.engine.tools)
            assert app.engine.next_prompt().tokens["L1"] > l1_before          # the meter counts the new L1
            assert "mcp__tracker__broken" in app.engine.next_prompt().messages[0].content
            notices = [str(n.render()) for n in app.query(".notice")]
            assert [n for n in notices if "MCP server gone" in n] == [
                next(n for n in notices if n.startswith("MCP server gone failed: ") and "No such file" in n)]

            await type_and_send(pilot, "look at the open issues")
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            assert '"state": "open"' in str(app.screen.preview)
            await pilot.press("y")
            await app.workers.wait_for_complete()
            await pilot.pause()
            observation = srv.requests[1]["messages"][-1]["content"]
            head, _, body = observation.removeprefix("Observation: ").partition("\n")
            items = json.loads(body)
            assert head == "[ok]"
            assert len(items) == sum(1 for i in range(ITEM_COUNT) if i % 3)

            await type_and_send(pilot, "/mcp")
            await wait_for(pilot, lambda: isinstance(app.screen, MCPScreen))
            rows = {r.name: r for r in app.screen.rows}
            assert rows["tracker"].status == "ready" and [t.listed.name for t in rows["tracker"].tools] == [
                "list_items", "broken"]
            assert all(size > 10 for size in rows["tracker"].tool_tokens)
            assert rows["gone"].status == "failed" and "No such file" in rows["gone"].error
            shown = app.export_screenshot()
            assert all(word in shown for word in ("tracker", "list_items", "broken", "ready", "failed", "gone"))
            await pilot.press("escape")
            await app.action_quit()
        assert all(c.status == "stopped" for c in host.mcp.connections if c.spec.name == "tracker")


async def test_an_mcp_call_is_shown_as_server_and_tool_in_the_dialog_and_the_trail_and_sent_by_its_id(tmp_path: Path):
    # "mcp__tracker__list_items wants to run: {…}": the id the model writes, not the names /mcp shows
    from textual.widgets import Static

    from contextual.tui.widgets.tool_trail import ToolTrail
    call = 'Thought: issues\nAction: mcp__tracker__list_items[{"state": "open"}]'
    with FakeLLMServer(kind="openai", script=[call, call, "Thought: ok\nAction: Finish[seen]"]) as srv:
        host = host_with_servers(tmp_path, srv.base_url)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await host.mcp.wait_started()
            await wait_for(pilot, lambda: "mcp__tracker__list_items" in app.engine.tools)
            await type_and_send(pilot, "look at the open issues")
            answered: list[object] = []
            for _ in range(2):
                await wait_for(pilot, lambda: isinstance(app.screen, PermissionModal) and app.screen not in answered)
                answered.append(app.screen)
                what = str(app.screen.query_one("#permission-what", Static).render())
                assert what.startswith("tracker · list_items wants to run: ") and "mcp__" not in what
                await pilot.press("y")
            await wait_for(pilot, lambda: not app.turns.running)
            trail = app.query_one(ToolTrail)
            rows = str(trail.query_one(".trail-lines", Static).render())
            assert trail.title == "2 tool calls · tracker · list_items ×2" and "mcp__" not in rows
            assert rows.startswith("✓ tracker · list_items ")
            assert "mcp__tracker__list_items" in srv.requests[0]["messages"][0]["content"]      # the model's name
            await app.action_quit()


async def test_a_tool_name_a_server_lists_reaches_the_mcp_screen_without_escape_sequences(tmp_path: Path):
    """/mcp showed each tool's name as the server listed it: a name holding an OSC title and SGR 8 reached the
    terminal, which retitled its window and hid the rest of the row (helper77)."""
    import re
    hostile = str(Path(__file__).parent / "fakes" / "hostile_mcp.py")
    name = "t\x1b]0;pwned\x1b\\\x1b[8mhidden\x1b[28m"
    root, home = tmp_path / "proj", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"hostile": {
        "command": sys.executable, "args": [hostile], "env": {"HOSTILE_NAME": name}}}}))
    with FakeLLMServer(kind="openai", script=[]) as srv:
        host = RealHost(load_config(root, {"model": "fake-model", "base_url": srv.base_url, "api_key": "sk-test"},
                                    env={"CONTEXTUAL_HOME": str(home)}))
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: host.mcp is not None)
            await host.mcp.wait_started()
            await wait_for(pilot, lambda: any(t.startswith("mcp__hostile__t_") for t in app.engine.tools))
            await type_and_send(pilot, "/mcp")
            await wait_for(pilot, lambda: isinstance(app.screen, MCPScreen))
            await pilot.pause()
            lines = [w.render_line(y).text for w in app.screen.query("*") for y in range(w.size.height)]
            assert any(line.count("thidden") == 2 for line in lines), lines       # its name, and its description
            assert not [line for line in lines if re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", line)]
            await app.action_quit()


async def test_a_project_mcp_json_that_is_a_fifo_is_said_in_the_chat_at_launch(tmp_path: Path):
    """A FIFO `.mcp.json` was skipped without a word (red team): the app says it as an unreadable file, once."""
    import os
    root, home = tmp_path / "proj", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    os.mkfifo(root / ".mcp.json")
    with FakeLLMServer(kind="openai", script=[]) as srv:
        host = RealHost(load_config(root, {"model": "fake-model", "base_url": srv.base_url, "api_key": "sk-test"},
                                    env={"CONTEXTUAL_HOME": str(home)}))
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            said = f"MCP config: cannot read {root / '.mcp.json'}: it is a named pipe (FIFO), not a regular file"

            def notices() -> list[str]:
                return [str(n.render()) for n in app.query(".notice") if ".mcp.json" in str(n.render())]
            await wait_for(pilot, lambda: bool(notices()))
            assert len(notices()) == 1 and notices()[0].startswith(said), notices()
            await app.action_quit()


async def test_a_long_wide_tool_name_leaves_the_mcp_screen_its_status_and_command_and_rejected_tools_are_capped(
        tmp_path: Path):
    """One tool named by 100 wide characters (200 cells, in a column that does not wrap) took the whole width: every
    server's status, command line and error showed as nothing (red team). Each tool rejected was a row;
    the screen lists as many of them as it lists tools, and says how many more."""
    hostile = str(Path(__file__).parent / "fakes" / "hostile_mcp.py")
    root, home = tmp_path / "proj", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"hostile": {
        "command": sys.executable, "args": [hostile], "env": {"HOSTILE_NAME": "😀" * 100, "HOSTILE_LONG": "150", "HOSTILE_DEPTH": "1"}}}}))
    with FakeLLMServer(kind="openai", script=[]) as srv:
        host = RealHost(load_config(root, {"model": "fake-model", "base_url": srv.base_url, "api_key": "sk-test"},
                                    env={"CONTEXTUAL_HOME": str(home)}))
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: host.mcp is not None)
            await host.mcp.wait_started()
            await wait_for(pilot, lambda: "mcp__hostile__good" in app.engine.tools)
            await type_and_send(pilot, "/mcp")
            await wait_for(pilot, lambda: isinstance(app.screen, MCPScreen))
            await pilot.pause()
            text = "\n".join(w.render_line(y).text for w in app.screen.query("#mcp-servers")
                             for y in range(w.size.height))
            assert "stdio · " in text and "ready" in text and "Echoes its text." in text, text
            # 151 rejected: the 150 names and the tool whose schema is a string
            assert text.count("rejected a tool named") == 99 and "… 51 more rejected" in text, text
            await app.action_quit()
