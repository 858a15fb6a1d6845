"""The engine and manager with real MCP servers (issue 17): cancelling a turn cancels the MCP call and the server
keeps serving; a server killed between calls leaves L1 at once; the older SSE transport works with headers."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

import pytest

from contextual.core.events import Notice, ToolFinished, ToolsChanged, ToolStarted
from contextual.core.mcp.config import ServerSpec, parse_entry
from contextual.core.mcp.manager import MCPManager
from contextual.core.tools.base import ToolContext
from tests.engine_helpers import engine_with, finished, run
from tests.fakes.mcp_server import ITEM_COUNT, HttpMCPServer

SERVER = str(Path(__file__).parent / "fakes" / "mcp_server.py")
LIST = 'Thought: issues\nAction: mcp__tracker__list_items[{}]'
BROKEN = 'Thought: the other one\nAction: mcp__tracker__broken[{"reason": "after cancel"}]'


async def test_cancelling_a_turn_cancels_the_mcp_call_and_the_server_keeps_serving(tmp_path: Path):
    root = tmp_path / "proj"
    root.mkdir()
    manager = MCPManager([ServerSpec("tracker", "stdio", root / ".mcp.json", command=sys.executable, args=(SERVER,),
                                     env={"FAKE_MCP_MODE": "hang"})])
    manager.start()
    try:
        await manager.wait_started()
        async with engine_with(root, [LIST, BROKEN, "Thought: ok\nAction: Finish[ok]"]) as (engine, srv):
            engine.attach_mcp(manager)
            started = asyncio.Event()

            async def consume() -> None:
                async for ev in engine.run_turn("list them"):
                    if isinstance(ev, ToolStarted):
                        started.set()

            task = asyncio.create_task(consume())
            await started.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            last = engine.history.messages[-1]
            assert last.role == "tool" and last.meta["tool_name"] == "mcp__tracker__list_items"
            assert "aborted" in last.content

            events = await run(engine, "try the other tool")
            assert finished(events).answer == "ok"
            [result] = [e for e in events if isinstance(e, ToolFinished)]
            assert "read-only today (after cancel)" in result.result["error"]["message"]
            assert [c.status for c in manager.connections] == ["ready"]
            assert "mcp__tracker__list_items" in json.dumps(srv.requests[1]["messages"][0])
    finally:
        await manager.close()


async def test_a_server_that_dies_between_calls_is_reported_at_once_and_leaves_l1(tmp_path: Path):
    root = tmp_path / "proj"
    root.mkdir()
    pidfile = tmp_path / "pid"
    manager = MCPManager([ServerSpec("tracker", "stdio", root / ".mcp.json", command=sys.executable, args=(SERVER,),
                                     env={"FAKE_MCP_PIDFILE": str(pidfile)})])
    changed = asyncio.Event()
    manager.listeners.append(changed.set)
    manager.start()
    try:
        await manager.wait_started()
        async with engine_with(root, ["Thought: ok\nAction: Finish[ok]"]) as (engine, srv):
            engine.attach_mcp(manager)
            await run(engine, "hello")                       # a prompt was sent with the tools in L1
            assert "mcp__tracker__list_items" in srv.requests[0]["messages"][0]["content"]
            changed.clear()
            os.kill(int(pidfile.read_text()), signal.SIGKILL)
            await asyncio.wait_for(changed.wait(), 30)
            events = engine.sync_tools()
            notices = [e for e in events if isinstance(e, Notice)]
            assert len(notices) == 1 and notices[0].message.startswith("MCP server tracker stopped: the server exited")
            [change] = [e for e in events if isinstance(e, ToolsChanged)]
            assert change.removed == ("mcp__tracker__broken", "mcp__tracker__list_items") and change.added == ()
            assert "mcp__tracker" not in engine.next_prompt().messages[0].content and "mcp__tracker__broken" not in engine.tools
    finally:
        await manager.close()


async def test_the_older_sse_transport_lists_and_calls_with_the_configured_headers(tmp_path: Path):
    with HttpMCPServer("sse") as server:
        manager = MCPManager([parse_entry("tracker", {"type": "sse", "url": server.url,
                                                      "headers": {"Authorization": "Bearer ${T}"}},
                                          tmp_path / ".mcp.json", {"T": "tok"})])
        manager.start()
        try:
            await manager.wait_started()
            tool = manager.tools()["mcp__tracker__list_items"]
            result = await tool.call({"state": "closed"}, ToolContext(root=tmp_path))
        finally:
            await manager.close()
    assert result["status"] == "success"
    assert len(json.loads(result["text"])) == sum(1 for i in range(ITEM_COUNT) if i % 3 == 0)
    assert server.headers_seen and all(h.get("authorization") == "Bearer tok" for h in server.headers_seen)


async def test_a_start_cancelled_while_a_server_starts_ends_that_server(tmp_path: Path):
    """Ctrl-C while `contextual context` (or `-p`) waited on a server starting: the caller never had the manager to
    close, the server's task, cancelled by asyncio alone, waited inside the SDK until its startup timeout, and the
    process hung after printing "interrupted" (a clean-clone CI run). The start closes what it started."""
    from contextual.core.mcp.manager import start_servers
    from tests.waits import alive, until_async
    root, home = tmp_path / "proj", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    pid_file = tmp_path / "server.pid"
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"silent": {   # starts at once, never answers
        "command": "sh", "args": ["-c", 'echo $$ > "$0"; exec sleep 120', str(pid_file)]}}}))

    class Engine:
        def attach_mcp(self, manager: MCPManager) -> None:
            raise AssertionError("a cancelled start attaches nothing")

    start = asyncio.create_task(start_servers(Engine(), root, home, wait=True))
    await until_async(lambda: pid_file.exists() and pid_file.read_text().strip(), "the server started")
    pid = int(pid_file.read_text())
    start.cancel()
    with pytest.raises(asyncio.CancelledError):
        await start
    assert not alive(pid)
    assert not [t for t in asyncio.all_tasks() if t.get_name().startswith("mcp:") and not t.done()]
