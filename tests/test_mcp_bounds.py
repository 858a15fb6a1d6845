"""MCP bounded (issue 26): server names that parse one way, ${VAR} from the environment as it was at start, a cap
on each result. `contextual -p` runs as a subprocess against the fake LLM server and the SDK's server in
tests/fakes/mcp_server.py, including its hostile modes."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contextual.core.mcp.config import load_servers
from tests.cli_helpers import cli_env, contextual, home_of, session_files, sigint_at_default
from tests.fakes.llm_server import FakeLLMServer
from tests.waits import alive, until

SERVER = str(Path(__file__).parent / "fakes" / "mcp_server.py")
LIST = 'Thought: look\nAction: mcp__tracker__list_items[{}]'
DONE = "Thought: done\nAction: Finish[done]"
KEY = "sk-test-key-0123456789abcdef"


def stdio(**env: str) -> dict:
    return {"command": sys.executable, "args": [SERVER], "env": env}


def user_servers(project: Path, servers: dict) -> None:
    """Servers in the user-level file (needs no project approval)."""
    home = home_of(project)
    home.mkdir(parents=True, exist_ok=True)
    (home / "mcp.json").write_text(json.dumps({"mcpServers": servers}))


def run(project: Path, script: list[str], *args: str, **env: str):
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "look", "--permission-mode", "bypass", *args], project,
                            cli_env(home_of(project), srv.base_url, "openai", **env))
    return result, srv.requests


def observation(request) -> str:
    return request["messages"][-1]["content"].removeprefix("Observation: ")


def test_a_server_name_with_a_double_underscore_is_refused_by_name(tmp_path: Path):
    root, home = tmp_path / "proj", tmp_path / "home"
    home.mkdir()
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"my__srv": {"command": "x"}, "my_srv": {"command": "x"}}}))
    specs, problems = load_servers(root, home, env={})
    assert [s.name for s in specs] == ["my_srv"]
    assert len(problems) == 1 and "'my__srv'" in problems[0] and "'__'" in problems[0]


def test_a_projects_servers_are_not_given_contextuals_own_keys_and_the_approval_shows_what_they_get(tmp_path: Path):
    """`${CONTEXTUAL_API_KEY}` in a checkout's .mcp.json (in env or in a header sent to its URL) reads as unset,
    with a line saying so; the user's own mcp.json may pass a key on; the approval shows each server's env and
    headers as written."""
    from contextual.core.mcp.config import servers_item
    root, home = tmp_path / "proj", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    entry = {"command": "srv", "env": {"LEAK": "${CONTEXTUAL_API_KEY}", "TOKEN": "${TRACKER_TOKEN}"}}
    web = {"url": "https://example.invalid/mcp", "headers": {"Authorization": "Bearer ${OPENAI_API_KEY:-none}"}}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"tracker": entry, "web": web}}))
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"mine": {"command": "srv", "env": {"K": "${OPENAI_API_KEY}"}}}}))
    env = {"CONTEXTUAL_API_KEY": "sk-ctx-0123456789", "OPENAI_API_KEY": "sk-oai-0123456789", "TRACKER_TOKEN": "tt-1"}
    specs, problems = load_servers(root, home, env=env, trusted=True)
    by_name = {s.name: s for s in specs}
    assert by_name["tracker"].env == {"LEAK": "", "TOKEN": "tt-1"}
    assert by_name["web"].headers == {"Authorization": "Bearer none"}
    assert by_name["mine"].env == {"K": "sk-oai-0123456789"}                 # the user's own file: their choice
    assert sum("is Contextual's own key" in p for p in problems) == 2, problems
    details = servers_item(root / ".mcp.json", "", {"tracker": entry, "web": web}).details
    assert "env LEAK=${CONTEXTUAL_API_KEY}, TOKEN=${TRACKER_TOKEN}" in details[0]
    assert "headers Authorization: Bearer ${OPENAI_API_KEY:-none}" in details[1]


def test_a_checkouts_file_of_many_servers_is_named_in_a_line_of_bounded_length():
    """40,000 servers in a checkout's .mcp.json (under the 1 MB a config file may have) made -p's one line saying
    they were not approved 269 kB long, every name in it: the first nine are named, the rest counted."""
    from contextual.core.mcp.config import servers_item
    servers = {f"s{n}": {"command": "x"} for n in range(40_000)}
    item = servers_item(Path("/p/.mcp.json"), "", servers)
    assert item.what == "the MCP servers s0, s1, s2, s3, s4, s5, s6, s7, s8 and 39,991 more in /p/.mcp.json"
    assert len(item.details) == 40_000                    # the modal shows the first 40 of them and counts the rest


def test_env_variables_expand_from_the_environment_at_start_under_p(project: Path):
    """-p drops the key variables from its environment before MCP servers start; ${OPENAI_API_KEY} still expands."""
    user_servers(project, {"tracker": stdio(FAKE_MCP_MODE="env:SEEN", SEEN="${OPENAI_API_KEY}")})
    result, requests = run(project, [LIST, DONE], OPENAI_API_KEY=KEY)
    assert result.returncode == 0, result.stderr
    assert json.loads(observation(requests[1]).partition("\n")[2]) == {"length": len(KEY)}
    assert KEY not in result.stdout + result.stderr


def test_a_large_result_is_cut_at_the_default_cap_and_the_cut_is_said(project: Path):
    user_servers(project, {"tracker": stdio(FAKE_MCP_MODE=f"big:{10 * 1024 * 1024}")})
    result, requests = run(project, [LIST, DONE])
    assert result.returncode == 0, result.stderr
    seen = observation(requests[1])
    assert "[cut: list_items on MCP server tracker answered 10,485,760 characters; only the first 25,000 tokens" in seen
    assert len(json.dumps(requests[1])) < 1_000_000                  # sent: about 25k tokens, not 10 MB
    [session] = session_files(home_of(project))
    assert session.stat().st_size < 1_000_000                        # stored: the cut text only


def test_a_50_mb_answer_is_discarded_by_the_transport_and_said(project: Path):
    """The SDK's answer holds the text twice (content and structured): over 64 MiB, so not even parsed."""
    user_servers(project, {"tracker": stdio(FAKE_MCP_MODE=f"big:{50 * 1024 * 1024}")})
    result, requests = run(project, [LIST, DONE])
    assert result.returncode == 0, result.stderr
    assert observation(requests[1]).startswith(
        "[error mcp_error: list_items on MCP server tracker: the server's answer was 104,857,")
    assert "discarded" in observation(requests[1]) and len(json.dumps(requests[1])) < 100_000
    [session] = session_files(home_of(project))
    assert session.stat().st_size < 100_000
    assert "Traceback" not in result.stderr


def test_the_cap_is_set_per_server(project: Path):
    user_servers(project, {"tracker": {**stdio(), "max_output_tokens": 300}})
    result, requests = run(project, [LIST, DONE])
    assert result.returncode == 0, result.stderr
    body, _, note = observation(requests[1]).rpartition("\n")
    assert note.startswith("[cut: list_items on MCP server tracker answered") and "first 300 tokens" in note
    assert body.startswith("[ok]\n[{") and len(body) < 300 * 8


HOSTILE = str(Path(__file__).parent / "fakes" / "hostile_mcp.py")


def logs(project: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in (home_of(project) / "logs" / "mcp").rglob("*.log")}


def test_garbage_on_stdout_and_stderr_goes_to_the_session_log_not_the_terminal(project: Path):
    user_servers(project, {"tracker": stdio(FAKE_MCP_START="garbage")})
    result, requests = run(project, [LIST, DONE])
    assert result.returncode == 0, result.stderr
    assert observation(requests[1]).startswith("[ok]\n[{")             # the server still works after the noise
    assert "Traceback" not in result.stderr and "noise" not in result.stderr and "not JSON" not in result.stderr
    log = logs(project)["tracker.log"]
    assert "fake server noise on stderr" in log and "skipped a line that is not a valid JSON-RPC message" in log


def test_a_server_that_crashes_at_start_is_one_line_naming_its_log(project: Path):
    user_servers(project, {"tracker": stdio(FAKE_MCP_START="crash")})
    result, requests = run(project, [DONE])
    assert result.returncode == 0, result.stderr
    [line] = [ln for ln in result.stderr.splitlines() if "MCP server tracker" in ln]
    assert "cannot open the tracker database" in line and "tracker.log" in line
    [log_path] = (home_of(project) / "logs" / "mcp").rglob("tracker.log")
    assert str(log_path) in line


def test_a_tool_with_a_deep_or_malformed_schema_is_rejected_alone_by_name(project: Path):
    user_servers(project, {"hostile": {"command": sys.executable, "args": [HOSTILE]}})
    result, requests = run(project, [DONE])
    assert result.returncode == 0, result.stderr
    l1 = requests[0]["messages"][0]["content"]
    assert "mcp__hostile__good" in l1 and "mcp__hostile__deep" not in l1 and "mcp__hostile__malformed" not in l1
    rejected = [ln for ln in result.stderr.splitlines() if "MCP server hostile" in ln]
    assert any("'deep'" in ln and "nests deeper than 32 levels" in ln for ln in rejected), result.stderr
    assert any("'malformed'" in ln and "inputSchema is not an object" in ln for ln in rejected), result.stderr
    assert "did not start" not in result.stderr and "Traceback" not in result.stderr


def test_a_server_that_hangs_at_start_is_given_up_after_its_timeout_and_ended(project: Path):
    pidfile = project.parent / "hang.pid"
    user_servers(project, {"tracker": {**stdio(FAKE_MCP_START="hang", FAKE_MCP_PIDFILE=str(pidfile)),
                                       "startup_timeout_sec": 1}})
    result, requests = run(project, [DONE])
    assert result.returncode == 0 and result.stdout.strip() == "done", result.stderr
    [line] = [ln for ln in result.stderr.splitlines() if "MCP server tracker" in ln]
    assert "did not start within 1 s" in line, line
    assert "mcp__tracker" not in requests[0]["messages"][0]["content"]
    until(lambda: not alive(int(pidfile.read_text())), "the hung server ended")


def test_ctrl_c_while_p_waits_on_a_hung_server_ends_both(project: Path):
    pidfile = project.parent / "hang.pid"
    user_servers(project, {"tracker": {**stdio(FAKE_MCP_START="hang", FAKE_MCP_PIDFILE=str(pidfile)),
                                       "startup_timeout_sec": 300}})
    with FakeLLMServer(kind="openai", script=[DONE]) as srv:
        child = subprocess.Popen([sys.executable, "-m", "contextual", "-p", "look"], cwd=project,
                                 env=cli_env(home_of(project), srv.base_url, "openai"), stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 preexec_fn=sigint_at_default)
        try:
            until(pidfile.exists, "the server started", 60)
            child.send_signal(signal.SIGINT)
            out, err = child.communicate(timeout=60)
        finally:
            if child.poll() is None:
                child.kill()
    assert child.returncode != 0 and "Traceback" not in err and "interrupted" in err, err
    assert srv.requests == []
    until(lambda: not alive(int(pidfile.read_text())), "the hung server ended")


def test_without_a_configured_server_the_sdk_is_never_imported(project: Path):
    """Why the MCP SDK can stay a plain dependency (docs/mcp.md): a session with no server does not load it."""
    probe = ("import sys, io, contextlib\nfrom contextual.context_cmd import context_main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n    context_main([])\n"
             "print(sorted(m for m in ('mcp', 'pydantic', 'starlette', 'uvicorn') if m in sys.modules))")
    with FakeLLMServer(kind="openai", script=[]) as srv:
        done = subprocess.run([sys.executable, "-c", probe], cwd=project, capture_output=True, text=True,
                              env=cli_env(home_of(project), srv.base_url, "openai"), timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


async def test_an_http_answer_past_the_limit_fails_that_call_only(tmp_path: Path, monkeypatch):
    """Streamable HTTP: the SDK reads a JSON answer whole, so our transport bounds it (core/mcp/http_bound.py, the
    limit lowered here from 64 MiB); the call fails naming the cut and the server keeps serving."""
    from contextual.core.mcp import http_bound
    from contextual.core.mcp.config import ServerSpec
    from contextual.core.mcp.connection import CallFailed, ServerConnection
    from tests.fakes.mcp_server import HttpMCPServer
    monkeypatch.setattr(http_bound, "MAX_RESPONSE_BYTES", 1_000_000)
    with HttpMCPServer() as srv:
        conn = ServerConnection(ServerSpec("tracker", "http", tmp_path / "mcp.json", url=srv.url), lambda c: None)
        conn.start()
        try:
            await conn.wait_ready()
            monkeypatch.setenv("FAKE_MCP_MODE", "big:3000000")
            with pytest.raises(CallFailed) as failed:
                await conn.call("list_items", {})
            assert failed.value.code == "mcp_error" and "passed 1,000,000 bytes" in str(failed.value)
            monkeypatch.setenv("FAKE_MCP_MODE", "big:3000")
            answer = await conn.call("list_items", {})
            assert conn.status == "ready" and len(answer.content[0].text) == 3000
        finally:
            await conn.close()


@pytest.mark.parametrize("form", ["json", "sse"])
async def test_an_http_answer_of_too_many_objects_is_refused_before_it_is_parsed(tmp_path: Path, form: str):
    """Over streamable HTTP only bytes were bounded: 1,500,000 tiny blocks, a 45 MB JSON body, took 4.1 GB to parse
    (hostile-input red team). A message is refused past MAX_OBJECTS as on stdio, a JSON body or an event of an
    event stream (its data lines joined), the call's error naming why; after a JSON body the server keeps serving
    (a failed event stream the SDK reports as a closed connection, as it does one past the byte limit)."""
    from contextual.core.mcp.config import ServerSpec
    from contextual.core.mcp.connection import CallFailed, ServerConnection
    from tests.fakes.hostile_http import HostileHTTP
    with HostileHTTP("http", blocks=150_000, form=form) as srv:
        conn = ServerConnection(ServerSpec("hostile", "http", tmp_path / "mcp.json", url=srv.url), lambda c: None)
        conn.start()
        try:
            await conn.wait_ready()
            assert conn.status == "ready", conn.error
            with pytest.raises(CallFailed) as failed:
                await conn.call("t", {})
            assert "holds 150,002 JSON objects, over the 100,000" in str(failed.value)
            if form == "json":
                srv.blocks = 3
                answer = await conn.call("t", {})
                assert conn.status == "ready" and [block.text for block in answer.content] == ["b"] * 3
        finally:
            await conn.close()


async def test_an_sse_servers_answer_to_a_post_is_bounded_too(tmp_path: Path, monkeypatch):
    """The older SSE transport POSTs each message and read the response's body whole (the result itself comes on
    the event stream): a server answering with an endless body took 2.8 GB in a call's 20 s (hostile-input red
    team). That body is bounded like every answer (the limit lowered here from 64 MiB): the client stops reading it
    and the call fails."""
    from contextual.core.mcp import http_bound
    from contextual.core.mcp.config import ServerSpec
    from contextual.core.mcp.connection import CallFailed, ServerConnection
    from tests.fakes.hostile_http import HostileHTTP
    monkeypatch.setattr(http_bound, "MAX_RESPONSE_BYTES", 1_000_000)
    with HostileHTTP("sse", post_body=20_000_000) as srv:
        spec = ServerSpec("hostile", "sse", tmp_path / "mcp.json", url=srv.url, tool_timeout=3)
        conn = ServerConnection(spec, lambda c: None)
        conn.start()
        try:
            await conn.wait_ready()
            assert conn.status == "ready", conn.error
            with pytest.raises(CallFailed):
                await conn.call("t", {})
            assert srv.cut.is_set()
        finally:
            await conn.close()


async def test_a_line_past_the_limit_is_read_in_bounded_memory(monkeypatch):
    """The stdio transport keeps at most the limit of one line (and its first bytes for the id), never a copy of
    it: a 30 MiB line past an 8 MiB limit peaks near 8 MiB of Python memory, not at the line's size."""
    import tracemalloc
    from contextual.core.mcp import stdio
    monkeypatch.setattr(stdio, "MAX_LINE_BYTES", 8 * 1024 * 1024)
    chunk = b"x" * 65536

    async def server_output():
        yield b'{"jsonrpc": "2.0", "id": 7, "result": {"text": "'
        for _ in range(30 * 16):                 # 30 MiB, the same chunk object each time
            yield chunk
        yield b'"}}\n{"jsonrpc": "2.0", "id": 8, "result": {}}\n'

    tracemalloc.start()
    try:
        lines = [line async for line in stdio._lines(server_output())]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    too_long, after = lines
    assert isinstance(too_long, stdio._TooLong) and b'"id": 7' in too_long.head and too_long.size > 30 * 2**20
    assert after == b'{"jsonrpc": "2.0", "id": 8, "result": {}}'
    assert peak < 10 * 1024 * 1024, peak


def test_a_key_a_server_prints_on_stderr_reaches_its_log_redacted_and_the_log_is_the_users_alone(project: Path):
    """A server given ${TRACKER_API_KEY} printed it to stderr, which went straight to a 0644 file: the one place a
    key reached the disk whole (hostile-input red team)."""
    secret = "tk-TRACKERSECRET-987654"
    user_servers(project, {"tracker": stdio(FAKE_MCP_START="say:X", X="${TRACKER_API_KEY}")})
    result, _requests = run(project, [LIST, DONE], TRACKER_API_KEY=secret)
    assert result.returncode == 0, result.stderr
    [path] = (home_of(project) / "logs" / "mcp").rglob("tracker.log")
    text = path.read_text()
    assert "X=[redacted]" in text and secret not in text
    assert path.stat().st_mode & 0o077 == 0 and path.parent.stat().st_mode & 0o077 == 0


def test_an_answer_of_many_tiny_blocks_is_refused_before_it_is_parsed(project: Path):
    """2,000,000 one-letter blocks are a 62 MB line, under the byte cap, that took 5.3 GB to parse and validate
    (hostile-input red team); past 100,000 objects the answer is refused, for its call only."""
    user_servers(project, {"hostile": {"command": sys.executable, "args": [HOSTILE], "env": {"HOSTILE_BLOCKS": "300000"}}})
    result, requests = run(project, ['Thought: go\nAction: mcp__hostile__good[{"text": "x"}]', DONE])
    assert result.returncode == 0, result.stderr
    seen = observation(requests[1])
    assert seen.startswith("[error mcp_error:") and "300,002 JSON objects, over the 100,000" in seen, seen[:300]


async def test_a_server_listing_page_after_page_is_offered_its_first_tools_and_the_cut_is_said(tmp_path: Path,
                                                                                                monkeypatch):
    """Each tools/list page is bounded, and so is their sum: 50 pages of 45,000 tiny tools took 3.3 GB and two
    minutes before the first prompt (hostile-input red team). Past MAX_TOOLS (lowered here) the listing stops, the
    first are offered, and a line says so."""
    from contextual.core.mcp import connection
    from contextual.core.mcp.config import ServerSpec
    from contextual.core.mcp.manager import MCPManager
    monkeypatch.setattr(connection, "MAX_TOOLS", 25)
    manager = MCPManager([ServerSpec("pages", "stdio", tmp_path / "mcp.json", command=sys.executable, args=(HOSTILE,),
                                     env={"HOSTILE_PAGES": "10"})])
    manager.start()
    try:
        await manager.wait_started()
        assert sorted(manager.tools()) == sorted(f"mcp__pages__p{n // 10}_{n % 10}" for n in range(25))
        assert manager.drain_reports() == ["MCP server pages lists more than 25 tools: only the first 25 are offered"]
    finally:
        await manager.close()


def test_an_answer_of_millions_of_values_in_few_objects_is_refused_before_it_is_parsed(project: Path):
    """Objects alone did not bound the parse: 9,000,000 two-letter strings in one array (a 54 MB line of 4 objects)
    took 14 s to parse on the event loop, deaf to Esc and Ctrl-C (red team)."""
    user_servers(project, {"hostile": {"command": sys.executable, "args": [HOSTILE],
                                       "env": {"HOSTILE_ITEMS": "1500000"}}})
    result, requests = run(project, ['Thought: go\nAction: mcp__hostile__good[{"text": "x"}]', DONE])
    assert result.returncode == 0, result.stderr
    seen = observation(requests[1])
    assert seen.startswith("[error mcp_error:") and "more than 1,000,000 JSON values" in seen, seen[:300]


def test_an_answer_whose_last_string_never_ends_is_counted_in_one_pass_and_refused(project: Path):
    """Objects are counted outside strings; the pattern that found them was tried again from each quote inside an
    unterminated string, quadratic: a 2 MB line of escaped quotes held the event loop for hours, the call's timeout
    and Ctrl-C unheard (hostile-input red team)."""
    user_servers(project, {"hostile": {"command": sys.executable, "args": [HOSTILE],
                                       "env": {"HOSTILE_QUOTES": "1000000"}}})
    result, requests = run(project, ['Thought: go\nAction: mcp__hostile__good[{"text": "x"}]', DONE])
    assert result.returncode == 0, result.stderr
    seen = observation(requests[1])
    assert seen.startswith("[error mcp_error:") and "100,002 JSON objects, over the 100,000" in seen, seen[:300]


def test_a_server_flooding_notifications_ends_without_noise(project: Path):
    """Its pipes were left to the garbage collector, which closed them after the event loop and printed
    'Exception ignored … Event loop is closed' at exit (hostile-input red team)."""
    user_servers(project, {"hostile": {"command": sys.executable, "args": [HOSTILE], "env": {"HOSTILE_FLOOD": "1"}}})
    result, requests = run(project, ['Thought: go\nAction: mcp__hostile__good[{"text": "x"}]', DONE])
    assert result.returncode == 0 and result.stdout.strip() == "done", result.stderr
    assert observation(requests[1]).startswith("[ok]")
    assert "Exception ignored" not in result.stderr and "Event loop is closed" not in result.stderr, result.stderr


def test_an_embedded_text_resource_is_shown_and_held_to_the_cap(project: Path):
    """A file's content sent as an embedded resource (as GitHub's server does) reached the model as `[resource
    text/plain  bytes: not shown]`, and its text did not count toward max_output_tokens (helper77)."""
    user_servers(project, {"hostile": {"command": sys.executable, "args": [HOSTILE], "max_output_tokens": 300,
                                       "env": {"HOSTILE_RESULT": "resource:30000"}}})
    result, requests = run(project, ['Thought: go\nAction: mcp__hostile__good[{"text": "x"}]', DONE])
    assert result.returncode == 0, result.stderr
    body, _, note = observation(requests[1]).rpartition("\n")
    assert body.startswith("[ok]\n<file:///big.txt>\nrrrr") and len(body) < 300 * 8, body[:200]
    assert note.startswith("[cut: good on MCP server hostile answered 30,018 characters; only the first 300 tokens")


@pytest.mark.parametrize("depth", [500, 3000])
def test_a_text_result_of_deeply_nested_json_stays_text_and_the_turn_goes_on(project: Path, depth: int):
    """Text that is JSON becomes JSON; nested 500 levels it ended the run in a RecursionError on every Python (the
    result's check walks it), and 3,000 levels too on 3.13, whose decoder no longer fails first (helper80)."""
    user_servers(project, {"hostile": {"command": sys.executable, "args": [HOSTILE],
                                       "env": {"HOSTILE_RESULT": f"deep:{depth}"}}})
    result, requests = run(project, ['Thought: go\nAction: mcp__hostile__good[{"text": "x"}]', DONE])
    assert result.returncode == 0 and result.stdout.strip() == "done", result.stderr
    assert "Traceback" not in result.stderr and "RecursionError" not in result.stderr
    seen = observation(requests[1])
    assert seen.startswith("[ok]") and '[[["end"]]]' in seen, seen[:300]


def test_requests_never_advertised_and_an_answer_that_is_not_a_result_fail_that_call_leaving_no_piece_of_a_key(
        project: Path):
    """Sampling, roots and elicitation requests, an answer to an id never sent, progress never asked for, and a call
    answered with a string that repeats the server's key (its real answer after): the call is an error naming the
    cause, the turn goes on. The cause quoted
    pydantic's text, which repeats the input cut mid-value, and the log quoted the line cut at 200 bytes: a key
    across either cut left its start in the server's log, where redaction no longer knew it (helper77)."""
    secret = "tk-TRACKERSECRET-987654-abcdefghijklmnopqrstuvwxyz"
    user_servers(project, {"hostile": {"command": sys.executable, "args": [HOSTILE],
                                       "env": {"HOSTILE_CHATTER": "1", "HOSTILE_SAY": "${TRACKER_API_KEY}"}}})
    result, requests = run(project, ['Thought: go\nAction: mcp__hostile__good[{"text": "x"}]', DONE],
                           TRACKER_API_KEY=secret)
    assert result.returncode == 0 and result.stdout.strip() == "done", result.stderr
    seen = observation(requests[1])
    assert seen.startswith("[error mcp_error: good on MCP server hostile: the server's answer is not valid MCP")
    assert len(seen) < 1_000 and "Traceback" not in result.stderr
    [session] = session_files(home_of(project))
    written = "\n".join([seen, session.read_text(), *logs(project).values()])
    assert "JSONRPCResponse.result: Input should be an object" in written     # the cause, without the input
    pieces = {secret[i:i + 8] for i in range(len(secret) - 7)}
    assert not [p for p in pieces if p in written], [p for p in pieces if p in written][:3]


def test_a_server_that_exits_mid_call_leaving_a_child_on_its_output_fails_the_call_at_once_and_the_child_ends(
        project: Path):
    """Its output stayed open (the child held it), so the call waited its whole timeout on a server that was gone;
    and since the server had exited, stopping it signalled nobody: the child outlived contextual (red team)."""
    pidfile = project.parent / "orphan.pid"
    user_servers(project, {"hostile": {"command": sys.executable, "args": [HOSTILE], "tool_timeout_sec": 120,
                                       "env": {"HOSTILE_ORPHAN": str(pidfile)}}})
    result, requests = run(project, ['Thought: go\nAction: mcp__hostile__good[{"text": "x"}]', DONE])
    assert result.returncode == 0 and result.stdout.strip() == "done", result.stderr
    seen = observation(requests[1])
    assert seen.startswith("[error server_unavailable:") and "stopped during good" in seen, seen
    until(lambda: not alive(int(pidfile.read_text())), "the child the server left behind ended")


def test_one_tools_entry_is_bounded_whatever_its_schema_and_an_overlong_name_is_not_offered(project: Path):
    """20,000 properties with long names made one tool's entry 44 MB (11 million tokens, 28 s to count at launch,
    and ToolSearch returned it whole); a name of a million characters cost 500,000 tokens in L1 (red team)."""
    user_servers(project, {"hostile": {"command": sys.executable, "args": [HOSTILE],
                                       "env": {"HOSTILE_WIDE": "2000", "HOSTILE_NAME": "n" * 5000}}})
    result, requests = run(project, [DONE])
    assert result.returncode == 0, result.stderr
    l1 = requests[0]["messages"][0]["content"]
    entry = l1[l1.index("mcp__hostile__wide"):]
    assert "mcp__hostile__good" in l1 and len(entry) < 16_000, len(entry)
    assert "(and 1960 more described arguments)" in entry and "… [cut: the arguments take" in entry
    assert "nnnnn" not in l1
    [said] = [ln for ln in result.stderr.splitlines() if "(5,000 characters, over 128)" in ln]
    assert "that tool is not offered" in said


def test_two_stuck_servers_are_stopped_together_at_the_end_within_one_grace(project: Path):
    """A server that outlives its input and ignores SIGTERM was waited for twice (STOP_GRACE after stdin closed,
    again after SIGTERM) before SIGKILL: every exit after a stuck server took 4 s (red team). The servers stop
    together, and a stop ends within one grace: half after stdin closes, half after SIGTERM."""
    from contextual.core.mcp.stdio import STOP_GRACE
    logs = {name: project.parent / f"{name}.log" for name in ("one", "two")}
    user_servers(project, {name: {"command": sys.executable, "args": [HOSTILE], "env": {"HOSTILE_STUCK": str(log)}}
                           for name, log in logs.items()})
    with FakeLLMServer(kind="openai", script=[DONE]) as srv:
        result = contextual(["-p", "look"], project, cli_env(home_of(project), srv.base_url, "openai"))
        ended = time.time()
    assert result.returncode == 0 and result.stdout.strip() == "done", result.stderr
    stamps = [{event: float(at) for event, at in (line.split() for line in log.read_text().splitlines())}
              for log in logs.values()]
    assert all(set(stamp) == {"eof", "term"} for stamp in stamps), stamps
    assert max(s["eof"] for s in stamps) < min(s["term"] for s in stamps), stamps    # the two stops overlap
    assert all(s["term"] - s["eof"] < STOP_GRACE for s in stamps), stamps
    # SIGKILL leaves no stamp: the process's end bounds it (2 graces before, one grace and the exit now)
    assert ended - min(s["eof"] for s in stamps) < 2 * STOP_GRACE, (ended, stamps)
