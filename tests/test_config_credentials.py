"""Tokens the config hands out (MCP servers' headers, env, URLs and command lines; a base URL's user:password or
`?key=`) are secrets like the API key: registered where the config is read (core/credentials.py), they reach no
output, log, session or screen, and a line cut for its length leaves no piece of one (helper83)."""

from __future__ import annotations

import base64
import io
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from contextual.core import credentials
from tests.cli_helpers import cli_env, contextual, home_of, session_text
from tests.fakes.llm_server import Fault, FakeLLMServer
from tests.test_mcp_bounds import DONE, LIST, stdio, user_servers

ENV_TOKEN = "ghp_EnvTokQw7Rt2Yu9Io4PaSd"
DB_PASSWORD = "db-PassZx8Cv3Bn6Ml1KjHg"
HEADER_TOKEN = "hdr-TokFr5Gt8Hy2Ju7Ki4LoMnBvCxZaSdQwErTyUiOpLkJhGf"    # long: pydantic's text quotes it cut
URL_TOKEN = "url-TokEd3Rf6Tg9Yh2Uj5IkOl"
PASSWORD = "pw-SecAq1Sw2De3Fr4Gt5HyJu"
QUERY_KEY = "qk-SecZa9Xs8Cd7Vf6Bg5NhMj"


def pieces(secret: str) -> set[str]:
    """Every 8 characters of it: a cut that kept a key's start shows one."""
    return {secret[i:i + 8] for i in range(len(secret) - 7)}


def leaked(text: str, *secrets: str) -> list[str]:
    return sorted(p for s in secrets for p in pieces(s) if p in text)


def all_logs(home: Path) -> str:
    return "\n".join(p.read_text() for p in (home / "logs").rglob("*.log"))


class HeaderEcho:
    """An HTTP server on 127.0.0.1 answering every request with a JSON object that quotes the Authorization header
    it got (a debugging endpoint, a misconfigured proxy): no MCP answer, so the SDK's error quotes it in turn."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                body = json.dumps({"echo": self.headers.get("authorization", "")}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_DELETE = do_POST

            def log_message(self, *args: object) -> None:
                pass
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/mcp"

    def __enter__(self) -> "HeaderEcho":
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_tokens_given_to_mcp_servers_reach_no_output_log_or_session(project: Path):
    """A server's env (GITHUB_TOKEN: no *_API_KEY name), its Authorization header and a `?token=` in its URL were
    not secrets: the server's stderr put the token in its log and in the failure line; a server echoing the header
    put it, cut mid-value by pydantic's error text, in the failure line and the SDK's log (a 0644 file, not
    redacted); and the URL's token was in the warning, cut at 200 characters before redaction could see it whole."""
    home = home_of(project)
    with HeaderEcho() as echoing, FakeLLMServer(kind="openai") as plain:
        # the 404's text names the URL: its token starts 10 characters before the line's 200-character cut
        long_path = "x" * (190 - len("Client error '404 Not Found' for url '") - len(f"{plain.base_url}/?token="))
        user_servers(project, {
            "tracker": stdio(FAKE_MCP_START="say:GITHUB_TOKEN", GITHUB_TOKEN=ENV_TOKEN),
            "db": {"command": sys.executable, "env": {"DB_PASSWORD": DB_PASSWORD},
                   "args": ["-c", "import os, sys; sys.exit('cannot log in with ' + os.environ['DB_PASSWORD'])"]},
            "web": {"url": echoing.url, "headers": {"Authorization": f"Bearer {HEADER_TOKEN}"}},
            "old": {"type": "sse", "url": f"{plain.base_url}/{long_path}?token={URL_TOKEN}"}})
        with FakeLLMServer(kind="openai", script=[LIST, DONE]) as srv:
            result = contextual(["-p", "look", "--permission-mode", "bypass"], project,
                                cli_env(home, srv.base_url, "openai"))
    assert result.returncode == 0 and result.stdout.strip() == "done", result.stderr
    assert all(f"MCP server {name} failed" in result.stderr for name in ("db", "web", "old")), result.stderr
    assert "cannot log in with [redacted]" in result.stderr and "?token=[redacted" in result.stderr
    assert "GITHUB_TOKEN=[redacted]" in all_logs(home)
    [sdk_log] = (home / "logs").rglob("sdk.log")
    assert sdk_log.stat().st_mode & 0o077 == 0
    written = "\n".join([result.stdout, result.stderr, session_text(home), all_logs(home)])
    assert not leaked(written, ENV_TOKEN, DB_PASSWORD, HEADER_TOKEN, URL_TOKEN)


def test_a_password_or_key_in_the_base_url_is_never_shown(project: Path):
    """`http://user:password@host/v1` sends the password as a Basic header a server may echo, and an unreachable
    server was named by its whole URL, password and `?key=` included, on stderr, in -p's JSON and in the session."""
    home = home_of(project)
    def echo(_body: dict) -> Fault:
        return Fault("401", message="bad credentials: " + srv.requests[-1].headers["authorization"])
    with FakeLLMServer(kind="openai", responder=echo) as srv:
        with_password = srv.base_url.replace("http://", f"http://alice:{PASSWORD}@")
        echoed = contextual(["-p", "hi", "--base-url", with_password, "--output-format", "json"], project,
                            cli_env(home, srv.base_url))
        gone, env = f"{with_password}?key={QUERY_KEY}", cli_env(home, srv.base_url, CONTEXTUAL_MAX_RETRIES="0")
    refused = contextual(["-p", "hi", "--base-url", gone], project, env)       # the server is gone: nothing listens
    assert echoed.returncode == 1 and refused.returncode == 1
    assert "bad credentials: Basic [redacted]" in json.loads(echoed.stdout)["result"]
    assert "connection to http://[redacted]@127.0.0.1" in refused.stderr and "?key=[redacted]" in refused.stderr
    written = "\n".join([echoed.stdout, echoed.stderr, refused.stdout, refused.stderr, session_text(home)])
    basic = base64.b64encode(f"alice:{PASSWORD}".encode()).decode()         # the header a server may echo
    assert not leaked(written, PASSWORD, QUERY_KEY, basic)


@pytest.mark.parametrize("printed", [
    "printf '%0190d %s' 0 \"$SOMETOOL_API_KEY\" >&2; exit 1",                          # its warning: 200 kept
    "printf '%01990d %s' 0 \"$SOMETOOL_API_KEY\" >&2; exit 2",                         # its block's reason: 2,000
    "printf '{\"systemMessage\": \"%01990d %s\"}' 0 \"$SOMETOOL_API_KEY\"",                # its message: 2,000
    "printf '{\"continue\": false, \"stopReason\": \"%01990d %s\"}' 0 \"$SOMETOOL_API_KEY\"",    # why it stopped: 2,000
    "printf '%09990d %s' 0 \"$SOMETOOL_API_KEY\"",                                    # context for the model: 10,000
])
def test_what_a_hook_printed_cut_to_its_bound_leaves_no_piece_of_a_key(project: Path, printed: str):
    """A hook's stderr, message and added context were cut to their bounds before redaction: a key the hook printed
    across the cut showed its start on stderr, in the session and to the model."""
    key = "other-tool-key-Wq4Er7Ty1UiOp"
    config = home_of(project) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"[[hooks.UserPromptSubmit]]\nhooks = [{{ type = \"command\", command = {json.dumps(printed)} }}]\n")
    with FakeLLMServer(kind="openai", script=[DONE]) as srv:
        result = contextual(["-p", "hi"], project, cli_env(home_of(project), srv.base_url, SOMETOOL_API_KEY=key))
    assert "0000000000" in result.stderr + json.dumps(srv.requests), result.stderr      # the hook's text is there
    assert not leaked("\n".join([result.stdout, result.stderr, session_text(home_of(project)),
                                 json.dumps(srv.requests)]), key)


def test_a_token_written_into_a_hooks_command_is_not_shown_when_the_hook_fails(project: Path):
    """A failed hook is named by its command line: a webhook's `Authorization: Bearer …` written in it was shown."""
    config = home_of(project) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    command = f": -H 'Authorization: Bearer {HEADER_TOKEN}' --token {ENV_TOKEN} https://hooks.example/notify; exit 1"
    config.write_text(f"[[hooks.UserPromptSubmit]]\nhooks = [{{ type = \"command\", command = {json.dumps(command)} }}]\n")
    with FakeLLMServer(kind="openai", script=[DONE]) as srv:
        result = contextual(["-p", "hi"], project, cli_env(home_of(project), srv.base_url))
    assert "Authorization: Bearer [redacted]' --token [redacted] https://hooks.example" in result.stderr, result.stderr
    assert not leaked(result.stdout + result.stderr + session_text(home_of(project)), HEADER_TOKEN, ENV_TOKEN)


async def test_mcp_shows_no_token_written_into_a_servers_command_line_or_url(tmp_path: Path):
    """/mcp shows a server's command line and URL as written: a token written there literally (not as `${VAR}`)
    was on the screen, in the row and in the failure line quoting the URL."""
    from contextual.core.config import load_config
    from contextual.tui.app import ContextualApp
    from contextual.tui.host import RealHost
    from contextual.tui.screens.mcp import MCPScreen, render_servers
    from rich.console import Console
    from tests.tui_helpers import type_and_send, wait_for
    root, home = tmp_path / "proj", tmp_path / "home"
    root.mkdir()
    with FakeLLMServer(kind="openai") as srv:
        user_servers(root, {"gh": {"command": "no-such-gh-mcp", "args": ["--token", ENV_TOKEN]},
                            "docs": {"type": "sse", "url": f"{srv.base_url}/sse?api_key={URL_TOKEN}"}})
        config = load_config(root, {"model": "fake-model", "base_url": srv.base_url},
                             env={"CONTEXTUAL_HOME": str(home)})
        host = RealHost(config)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=(140, 40)) as pilot:
            await host.mcp.wait_started()
            await type_and_send(pilot, "/mcp")
            await wait_for(pilot, lambda: isinstance(app.screen, MCPScreen))
            console = Console(width=200, file=io.StringIO())          # the screen's table, as plain text
            console.print(render_servers(app.screen.rows, app.screen.l1_total, app.screen.summary))
            shown = console.file.getvalue()
            await pilot.press("escape")
            notices = " ".join(str(n.render()) for n in app.query(".notice"))
            await app.action_quit()
    assert "--token [redacted]" in shown and "api_key=[redacted]" in shown and "404" in shown
    assert not leaked(shown + notices, ENV_TOKEN, URL_TOKEN)


@pytest.mark.parametrize("name, value, found", [
    ("GITHUB_TOKEN", "ghp_x", ("ghp_x",)),
    ("X-Api-Key", "k", ("k",)),
    ("Authorization", "Bearer tok12345", ("Bearer tok12345", "tok12345")),
    ("Authorization", "Basic YWxpY2U6czNjcmV0", ("Basic YWxpY2U6czNjcmV0", "YWxpY2U6czNjcmV0", "alice:s3cret", "s3cret")),
    ("", "curl -H 'Authorization: Bearer tok12345'; echo the token expired", ("tok12345",)),
    ("DATABASE_URL", "postgres://u:pw@db/x", ("u:pw", "dTpwdw==", "pw", "pw")),
    ("AUTH_MODE", "oauth2", ()),                 # a name alone is not enough: AUTH_MODE, GIT_AUTHOR_NAME, PATH
    ("GIT_AUTHOR_NAME", "Alice Smith", ()),
    ("Accept", "application/json", ()),
])
def test_which_parts_of_a_setting_are_credentials(name: str, value: str, found: tuple[str, ...]):
    assert credentials.in_setting(name, value) == found


def test_a_command_lines_credentials_are_flag_values_and_url_passwords():
    args = ["srv", "--token", "T1", "--api-key=K1", "--no-auth", "--port", "80", "https://h/x?access_token=Q1&page=2"]
    assert credentials.in_args(args) == ("T1", "K1", "Q1", "Q1")


def test_a_servers_tokens_are_registered_where_its_file_is_read_and_its_repr_shows_none(tmp_path: Path):
    """A spec's repr (a traceback's locals, a test's failure) printed its headers and env whole."""
    from contextual.core import secrets
    from contextual.core.mcp.config import load_servers
    home = tmp_path / "home"
    home.mkdir()
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {
        "web": {"url": "https://h.example/mcp", "headers": {"Authorization": "Bearer ${WEB_TOKEN}"}},
        "gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": ENV_TOKEN}}}}))
    specs, problems = load_servers(tmp_path, home, env={"WEB_TOKEN": HEADER_TOKEN}, trusted=True)
    assert not problems and not leaked(" ".join(map(repr, specs)), HEADER_TOKEN, ENV_TOKEN)
    assert secrets.redact(f"{HEADER_TOKEN} {ENV_TOKEN}") == "[redacted] [redacted]"


SHELL_TOKEN = "ghp_ShellTokAb3Cd5Ef7Gh9Ij"


def test_a_token_in_the_shells_environment_printed_by_a_command_is_redacted_everywhere(tmp_path: Path) -> None:
    """`printenv` in a Bash step put the user's GITHUB_TOKEN (not a *_API_KEY, so not a key variable) in the
    observation sent to the model, the session file and the screen (helper-83 left it)."""
    project = tmp_path / "proj"
    project.mkdir()
    script = ['Thought: check\nAction: Bash[{"command": "printenv GITHUB_TOKEN; printenv SECRET_KEY_BASE"}]',
              "Thought: done\nAction: Finish[the token is set]"]
    with FakeLLMServer("openai", script) as srv:
        env = cli_env(home_of(project), srv.base_url, GITHUB_TOKEN=SHELL_TOKEN, SECRET_KEY_BASE="development",
                      PWD=str(project))
        result = contextual(["-p", "is the token set?", "--permission-mode", "bypass", "--output-format", "json"],
                            project, env)
    assert result.returncode == 0, result.stderr
    observation = json.dumps(srv.requests[1]["messages"])
    assert "[redacted]" in observation and "development" in observation       # a word under such a name stays
    assert not leaked(observation + result.stdout + result.stderr + session_text(home_of(project)), SHELL_TOKEN)
    assert str(project) in session_text(home_of(project))       # the working directory is no secret


def test_which_environment_values_are_tokens() -> None:
    env = {"GITHUB_TOKEN": SHELL_TOKEN, "NPM_TOKEN": "npm_1234abcd5678efgh", "SECRET_KEY_BASE": "development",
           "TOKENIZERS_PARALLELISM": "false", "HOME": "/home/user1234567", "DB_PASSWORD": "hunter2",
           "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
           # the working directory (named like a password) and paths are places, not tokens (helper-84 saw the
           # project path redacted on the top bar)
           "PWD": "/tmp/helper84/proj1", "OLDPWD": "/home/user1", "DB_PWD_FILE": "/run/secrets/db1"}
    assert set(credentials.in_environment(env)) == {SHELL_TOKEN, "npm_1234abcd5678efgh", env["AWS_SECRET_ACCESS_KEY"]}
