"""A hostile MCP server's listing and errors (red team): a tool the SDK would refuse costs that tool
only, over stdio and HTTP; thousands of tools left out are said in a few lines; a server's own error codes never
read as a closed connection or a timeout; a 10 MB description costs no copy of each of its words. `contextual -p`
runs as a subprocess against tests/fakes/hostile_mcp.py; the HTTP case is a real server on 127.0.0.1."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.test_mcp_bounds import DONE, observation, run, user_servers

HOSTILE = str(Path(__file__).parent / "fakes" / "hostile_mcp.py")
GOOD = 'Thought: echo\nAction: mcp__hostile__good[{"text": "hi"}]'


def hostile(**env: str) -> dict:
    return {"hostile": {"command": sys.executable, "args": [HOSTILE], "env": env}}


def test_a_tool_the_sdk_refuses_in_a_valid_listing_is_rejected_alone(project: Path):
    """Only a listing that was not valid JSON-RPC had its bad tools dropped: one inputSchema that was a string,
    beside tools that are fine (schemas 2 levels deep), failed the whole server."""
    user_servers(project, hostile(HOSTILE_DEPTH="1"))
    result, requests = run(project, [GOOD, DONE])
    assert result.returncode == 0, result.stderr
    assert "failed" not in result.stderr, result.stderr
    [said] = [ln for ln in result.stderr.splitlines() if "'malformed'" in ln]
    assert "inputSchema is not an object; that tool is not offered" in said
    assert "echo {'text': 'hi'}" in observation(requests[1]), observation(requests[1])


async def test_a_tool_the_sdk_refuses_over_http_is_rejected_alone(tmp_path: Path):
    from contextual.core.mcp.config import ServerSpec
    from contextual.core.mcp.connection import ServerConnection
    from tests.fakes.hostile_http import HostileHTTP
    with HostileHTTP("http", malformed=True) as srv:
        conn = ServerConnection(ServerSpec("hostile", "http", tmp_path / "mcp.json", url=srv.url), lambda c: None)
        conn.start()
        try:
            await conn.wait_ready()
            assert conn.status == "ready", conn.error
            assert [t.name for t in conn.tools] == ["t"]
            assert conn.rejected == ["tool 'malformed': its inputSchema is not an object"]
            assert (await conn.call("t", {})).content[0].text == "ok"
        finally:
            await conn.close()


def test_thousands_of_tools_not_offered_are_said_in_a_few_lines(project: Path):
    """3,000 names that read the same as another's in mcp__ ids and 3,000 names too long were a warning each:
    30,000 such tools froze the app adding a chat row for each."""
    user_servers(project, hostile(HOSTILE_CLASH="3000", HOSTILE_LONG="3000", HOSTILE_DEPTH="1"))
    result, _ = run(project, [DONE])
    assert result.returncode == 0, result.stderr
    warnings = [ln for ln in result.stderr.splitlines() if ln.startswith("warning:")]
    assert len(warnings) <= 14, warnings[:20]
    assert any("2,996 more of its tools are not offered" in ln for ln in warnings), warnings
    assert any("2,995 more MCP tool names are offered more than once" in ln for ln in warnings), warnings


async def test_a_name_offered_twice_is_said_once_not_again_at_every_change_of_any_server(tmp_path: Path):
    from contextual.core.mcp.config import ServerSpec
    from contextual.core.mcp.manager import MCPManager
    spec = ServerSpec("hostile", "stdio", tmp_path / "mcp.json", command=sys.executable, args=(HOSTILE,),
                      env={"HOSTILE_DEPTH": "1", "HOSTILE_CLASH": "2"})
    manager = MCPManager([spec])
    manager.start()
    try:
        await manager.wait_started()
        first = [line for line in manager.drain_reports() if "more than once" in line]
        manager._changed(manager.connections[0])           # as another server's start or stop calls it
        again = [line for line in manager.drain_reports() if "more than once" in line]
    finally:
        await manager.close()
    assert first == [f"MCP tool mcp__hostile__c_{n} is offered more than once; only the first is kept" for n in (0, 1)]
    assert again == []


@pytest.mark.parametrize("code", ["-32000", "-32001"])
def test_a_servers_own_error_code_reads_as_its_error_not_a_closed_connection_or_a_timeout(project: Path, code: str):
    """-32000 and -32001 are the SDK's own codes for a closed connection and a timeout, and JSON-RPC leaves them to
    servers' errors: a server answering with -32000 was taken as gone (its tools left L1), one with -32001 was said
    not to have answered within 120 s."""
    user_servers(project, hostile(HOSTILE_DEPTH="1", HOSTILE_ERROR=code))
    result, requests = run(project, [GOOD, GOOD, DONE])
    assert result.returncode == 0, result.stderr
    for request in requests[1:3]:       # the server still serves: the second call reaches it too
        seen = observation(request)
        assert seen.startswith("[error mcp_error:") and "busy: try again later" in seen, seen
    assert "stopped" not in result.stderr and "tools changed" not in result.stderr, result.stderr


@pytest.mark.parametrize("form", ["json", "sse"])
async def test_a_servers_own_minus_32000_over_streamable_http_is_that_calls_error_and_a_cut_stream_still_ends_it(
        tmp_path: Path, form: str):
    """Over streamable HTTP the SDK answers a request whose event stream was cut with -32000 itself, so a live
    server's own "-32000: busy" (as a JSON body or as an event) read as a closed connection: the server was marked
    stopped and its tools left L1. The server's own bytes say which it is: its error is the call's, the server
    serves the next call; a stream cut before any answer still ends it."""
    from contextual.core.mcp.config import ServerSpec
    from contextual.core.mcp.connection import CallFailed, ServerConnection
    from tests.fakes.hostile_http import HostileHTTP
    for cut in (False, True):
        with HostileHTTP("http", form=form, error=-32000, cut=cut) as srv:
            conn = ServerConnection(ServerSpec("hostile", "http", tmp_path / "mcp.json", url=srv.url), lambda c: None)
            conn.start()
            try:
                await conn.wait_ready()
                assert conn.status == "ready", conn.error
                with pytest.raises(CallFailed) as first:
                    await conn.call("t", {})
                if cut:
                    assert first.value.code == "server_unavailable" and conn.status == "failed", str(first.value)
                    continue
                with pytest.raises(CallFailed) as second:        # still serving: the next call reaches it too
                    await conn.call("t", {})
                for failed in (first.value, second.value):
                    assert failed.code == "mcp_error" and "busy: try again later" in str(failed), str(failed)
                assert conn.status == "ready" and [t.name for t in conn.tools] == ["t"] and srv.calls == 2
            finally:
                await conn.close()


@pytest.mark.parametrize("form, status, error_id, code", [
    ("json", 500, "null", -32000), ("json", 400, "other", -32000), ("json", 200, "null", -32000),
    ("json", 200, "null", -32602), ("sse", 200, "null", -32000)])
async def test_an_error_a_post_answers_with_is_that_calls_whatever_its_status_or_id(
        tmp_path: Path, form: str, status: int, error_id: str, code: int):
    """The answer to a POST is the answer to the one request it carried. A "-32000: busy" at HTTP 500 with id null
    (a server that failed before it read the id), or naming another id, read as a closed connection: the server was
    marked stopped and its tools left L1. An error with id null in a 200 JSON body answered no call at all: the
    call waited out its timeout and was said not to have answered."""
    from contextual.core.mcp.config import ServerSpec
    from contextual.core.mcp.connection import CallFailed, ServerConnection
    from tests.fakes.hostile_http import HostileHTTP
    with HostileHTTP("http", form=form, error=code, status=status, error_id=error_id) as srv:
        spec = ServerSpec("hostile", "http", tmp_path / "mcp.json", url=srv.url, tool_timeout=5)
        conn = ServerConnection(spec, lambda c: None)
        conn.start()
        try:
            await conn.wait_ready()
            assert conn.status == "ready", conn.error
            for _ in range(2):                          # still serving: the next call reaches it too
                with pytest.raises(CallFailed) as failed:
                    await conn.call("t", {})
                assert failed.value.code == "mcp_error" and "busy: try again later" in str(failed.value), \
                    str(failed.value)
            assert conn.status == "ready" and [t.name for t in conn.tools] == ["t"] and srv.calls == 2
        finally:
            await conn.close()


async def test_a_10_mb_description_costs_no_copy_of_each_of_its_words(tmp_path: Path):
    """A description of 10 MB of two-letter words was split whole, 3.3 million strings, wherever it was put on one
    line (the L1 entry, the /mcp row) and read whole by every ToolSearch: 50 MB took `-p` to 1.45 GB. What the
    listing, a search and the row cost beyond the answer's own parse is now small."""
    import tracemalloc
    from contextual.core.mcp.config import ServerSpec
    from contextual.core.mcp.manager import MCPManager
    from contextual.core.tools.base import ToolContext
    from contextual.tui.format import one_line
    spec = ServerSpec("hostile", "stdio", tmp_path / "mcp.json", command=sys.executable, args=(HOSTILE,),
                      env={"HOSTILE_DEPTH": "1", "HOSTILE_ESSAY": "10000000"})
    manager = MCPManager([spec])
    manager.start()
    try:
        await manager.wait_started()
        essay = manager.tools()["mcp__hostile__essay"]
        tracemalloc.start()
        try:
            manager._changed(manager.connections[0])            # the tools' L1 entries built anew
            search = manager.listing(budget=10).search
            assert search is not None
            found = await search.call({"query": "ab"}, ToolContext(root=tmp_path))
            row = one_line(essay.description, 70)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    finally:
        await manager.close()
    assert "mcp__hostile__essay" in found["text"] and row.startswith("ab ab")
    assert peak < 20 * 1024 * 1024, peak
