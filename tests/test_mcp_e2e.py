"""MCP end to end (issue 17): `contextual -p` as a subprocess against the fake LLM server, with real MCP
servers written with the SDK (tests/fakes/mcp_server.py) over stdio and streamable HTTP."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from contextual.core.session import load_session
from tests.cli_helpers import cli_env, contextual, home_of, session_files
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.mcp_server import ITEM_COUNT, HttpMCPServer

SERVER = str(Path(__file__).parent / "fakes" / "mcp_server.py")
LIST = 'Thought: look at the issues\nAction: mcp__tracker__list_items[{"state": "all"}]'
BROKEN = 'Thought: try the broken one\nAction: mcp__tracker__broken[{"reason": "test"}]'
DONE = "Thought: done\nAction: Finish[done]"


def rules(project: Path, **lists: str) -> None:
    """`[permissions]` in the project's config file, e.g. allow='["mcp__tracker"]'."""
    (project / ".contextual").mkdir()
    (project / ".contextual" / "config.toml").write_text(
        "[permissions]\n" + "".join(f"{key} = {value}\n" for key, value in lists.items()))


def stdio(**extra) -> dict:
    return {"command": sys.executable, "args": [SERVER], **extra}


def run(project: Path, servers: dict, script: list[str], *args: str, **env: str):
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "look at the tracker", *args], project,
                            cli_env(home_of(project), srv.base_url, "openai", **env))
    return result, srv.requests


def system(request) -> str:
    return request["messages"][0]["content"]


def observation(request) -> tuple[str, str]:
    """The last observation of a request: its status line and its body."""
    head, _, body = request["messages"][-1]["content"].removeprefix("Observation: ").partition("\n")
    return head, body


def session_messages(project: Path):
    [path] = session_files(home_of(project))
    return load_session(path).history


def test_stdio_tools_join_l1_run_and_store_compressed(project: Path):
    servers = {"tracker": stdio(),
               "silent": {"command": sys.executable, "args": ["-c", "import sys; sys.stdin.read()"],
                          "startup_timeout_sec": 1},
               "bad": {"args": ["no command"]}}
    rules(project, allow='["mcp__tracker"]')                     # every tool of the server, in default mode
    result, requests = run(project, servers, [LIST, BROKEN, DONE])
    assert result.returncode == 0, result.stderr
    assert result.stdout == "done\n"
    # Listed in L1 with a concise schema; the same bytes in every request of the session.
    l1 = system(requests[0])
    assert 'mcp__tracker__list_items — List the tracker\'s issues' in l1
    assert 'Arguments: {"state": str?, "limit": int?}' in l1
    assert 'mcp__tracker__broken — Always fails' in l1 and 'Arguments: {"reason": str}' in l1
    assert "mcp__silent" not in l1
    assert all(system(r) == l1 for r in requests)
    # The servers that could not start are one line each; the agent went on.
    warnings = [line for line in result.stderr.splitlines() if "MCP server" in line]
    assert any("silent" in w and "did not start within 1 s" in w for w in warnings), result.stderr
    assert any("'bad'" in w and 'needs "command"' in w for w in warnings), result.stderr
    assert "Traceback" not in result.stderr
    # The full result reaches the next request: every one of the 200 items, bodies included.
    head, body = observation(requests[1])
    items = json.loads(body)
    assert head == "[ok]" and len(items) == ITEM_COUNT and items[-1]["body"].count("flickers") == 8
    # The failing tool is an error observation with the server's message.
    head, _ = observation(requests[2])
    assert head.startswith("[error mcp_tool_error: broken on MCP server tracker:") and "read-only today (test)" in head
    # History holds the stored form: structure, ids, URLs and counts kept, bulk cut.
    tool_messages = [m for m in session_messages(project) if m.role == "tool"]
    stored = json.loads(tool_messages[0].content)
    block = stored["data"]["content"][0]["json"]
    assert block["count"] == ITEM_COUNT and block["keys"] == ["id", "title", "url", "state", "labels", "body"]
    assert block["all"]["id"][:100] == list(range(1000, 1100)) and block["all"]["id"][100] == "… 100 more"
    assert block["all"]["url"][0] == "https://tracker.example/issues/1000"
    assert len(tool_messages[0].content) < len(tool_messages[0].full) / 5
    assert json.loads(tool_messages[1].content)["error"]["code"] == "mcp_tool_error"


def test_http_server_with_headers_from_the_environment(project: Path):
    with HttpMCPServer() as mcp:
        servers = {"tracker": {"type": "http", "url": mcp.url, "headers": {"Authorization": "Bearer ${TRACKER_TOKEN}"}}}
        result, requests = run(project, servers, [LIST, DONE], "--permission-mode", "bypass",
                               TRACKER_TOKEN="tok-123")
    assert result.returncode == 0, result.stderr
    assert "mcp__tracker__list_items" in system(requests[0])
    head, body = observation(requests[1])
    assert head == "[ok]" and len(json.loads(body)) == ITEM_COUNT
    assert mcp.headers_seen and all(h.get("authorization") == "Bearer tok-123" for h in mcp.headers_seen)


def test_rules_refuse_headless_and_contextual_context_shows_the_l1_the_next_call_sends(project: Path):
    rules(project, deny='["mcp__tracker__broken"]')
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"tracker": stdio()}}))
    with FakeLLMServer(kind="openai", script=[LIST, BROKEN, DONE, DONE]) as srv:
        env = cli_env(home_of(project), srv.base_url, "openai")
        result = contextual(["-p", "look at the tracker"], project, env)
        shown = contextual(["context", "-c", "--json", "--input", "again"], project, env)
        again = contextual(["-p", "again", "-c"], project, env)
    assert result.returncode == 0 and shown.returncode == 0 and again.returncode == 0, result.stderr + shown.stderr
    requests = srv.requests
    assert observation(requests[1])[0].startswith(                  # no rule: default mode asks, headless refuses
        "[error permission_denied: mcp__tracker__list_items is not allowed in permission mode 'default'")
    assert observation(requests[2])[0].startswith(
        "[error permission_denied: mcp__tracker__broken is denied by the rule mcp__tracker__broken;")
    # `contextual context` starts the servers too: its L1 lists their tools, as the next call sends it.
    printed = json.loads(shown.stdout)["request"]["messages"]
    assert "mcp__tracker__list_items" in printed[0]["content"]
    assert json.dumps(printed, ensure_ascii=False) == json.dumps(requests[3]["messages"], ensure_ascii=False)
    assert system(requests[3]) == system(requests[0])               # one L1 across processes of a session


def test_a_call_that_never_answers_times_out_and_a_server_that_dies_leaves_l1(project: Path):
    servers = {"slow": stdio(env={"FAKE_MCP_MODE": "hang"}, tool_timeout_sec=1),
               "flaky": stdio(env={"FAKE_MCP_MODE": "die"})}
    script = ['Thought: a\nAction: mcp__slow__list_items[{}]', 'Thought: b\nAction: mcp__flaky__list_items[{}]', DONE]
    result, requests = run(project, servers, script, "--permission-mode", "bypass")
    assert result.returncode == 0, result.stderr
    # Never answers: a timeout observation in one line, and the server stays (a slow call is not a dead server).
    assert observation(requests[1]) == ("[error timeout: MCP server slow did not answer list_items within 1 s]", "")
    assert "  mcp__slow__list_items error: MCP server slow did not answer list_items within 1 s" in result.stderr
    # Dies mid-call: an observation saying so, one warning line, and its tools leave L1 (announced).
    head, _ = observation(requests[2])
    assert head.startswith("[error server_unavailable: MCP server flaky stopped during list_items")
    [stopped] = [line for line in result.stderr.splitlines() if line.startswith("warning: MCP server flaky stopped")]
    assert stopped.startswith("warning: MCP server flaky stopped: the server exited; log: ")   # its stderr's file
    assert stopped.endswith("flaky.log; its tools are not available")
    assert "tools changed: -mcp__flaky__broken -mcp__flaky__list_items" in result.stderr
    assert "mcp__flaky" in system(requests[1]) and "mcp__flaky" not in system(requests[2])
    assert "mcp__slow__list_items" in system(requests[2])
