"""MCP tool descriptions held to a budget in L1 (issue 26, item 4): past a tenth of the window, L1 names the
servers and their tool counts, ToolSearch returns the schemas as an observation (L3) and L1's bytes stay the same
from call to call. Real engine (`contextual -p` / `context` as subprocesses), the SDK's server in
tests/fakes/mcp_server.py with 10,000 extra tools, the fake LLM server."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from contextual.core.mcp.search import rank
from tests.cli_helpers import cli_env, contextual, home_of
from tests.fakes.llm_server import FakeLLMServer

SERVER = str(Path(__file__).parent / "fakes" / "mcp_server.py")
SEARCH = 'Thought: find it\nAction: ToolSearch[{"query": "list items tracker issues"}]'
LIST = 'Thought: call it\nAction: mcp__tracker__list_items[{"limit": 2}]'
DONE = "Thought: done\nAction: Finish[done]"


def servers(project: Path, extra_tools: int) -> None:
    home = home_of(project)
    home.mkdir(parents=True, exist_ok=True)
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"tracker": {
        "command": sys.executable, "args": [SERVER], "env": {"FAKE_MCP_EXTRA_TOOLS": str(extra_tools)},
        "startup_timeout_sec": 120}}}))
    (home / "config.toml").write_text('[permissions]\nallow = ["mcp__tracker"]\n')


def test_ten_thousand_tools_are_found_by_search_and_l1_stays_fixed(project: Path):
    servers(project, 10_000)
    with FakeLLMServer(kind="openai", script=[SEARCH, LIST, DONE]) as srv:
        env = cli_env(home_of(project), srv.base_url, "openai", CONTEXTUAL_CONTEXT_WINDOW="100000")
        result = contextual(["-p", "show two issues"], project, env)
    assert result.returncode == 0, result.stderr
    first, second, third = (r["messages"] for r in srv.requests)
    l1 = first[0]["content"]
    assert "- tracker: 10002 tools" in l1 and "ToolSearch" in l1
    assert "tool_00042" not in l1 and len(l1) < 40_000                  # names the server, not its tools
    assert second[0]["content"] == l1 == third[0]["content"]             # the cached prefix never moved
    found = second[-1]["content"]
    assert found.startswith("Observation: [ok]\nmcp__tracker__list_items — ")
    assert "Arguments: {" in found                                       # the schema arrives in L3
    assert third[-1]["content"].startswith("Observation: [ok]\n[{")      # and the tool it found runs


def test_the_context_command_reports_the_budget_and_the_search(project: Path):
    servers(project, 10_000)
    with FakeLLMServer(kind="openai", script=[DONE]) as srv:
        env = cli_env(home_of(project), srv.base_url, "openai", CONTEXTUAL_CONTEXT_WINDOW="100000")
        shown = contextual(["context", "--json"], project, env)
    assert shown.returncode == 0, shown.stderr
    out = json.loads(shown.stdout)
    assert next(layer["tokens"] for layer in out["layers"] if layer["name"] == "L1") < 2_000   # issue: 620k
    report = out["mcp"]
    assert report["toolSearch"] is True and report["tools"] == 10_002 and report["budget"] == 10_000
    assert report["descriptionTokens"] > 10 * report["budget"]


def test_a_few_tools_within_the_budget_are_listed_in_full(project: Path):
    servers(project, 0)
    with FakeLLMServer(kind="openai", script=[DONE]) as srv:
        env = cli_env(home_of(project), srv.base_url, "openai", CONTEXTUAL_CONTEXT_WINDOW="100000")
        shown = contextual(["context"], project, env)
    assert shown.returncode == 0, shown.stderr
    assert "MCP tool descriptions:" in shown.stdout and "(budget 10000, a tenth of the window)" in shown.stdout
    assert "ToolSearch finds" not in shown.stdout


class Listed:
    def __init__(self, name: str, description: str) -> None:
        self.name, self.server, self.description = f"mcp__s__{name}", "s", description
        self.prompt_entry = f"{self.name} — {description}"


def test_search_ranks_names_over_descriptions_and_an_exact_name_first():
    tools = [Listed("close_issue", "close an issue"), Listed("create_issue", "open a new issue"),
             Listed("search", "find issues by words"), Listed("ping", "nothing relevant")]
    assert [t.name for t in rank(tools, "create issue", 5)][:2] == ["mcp__s__create_issue", "mcp__s__close_issue"]
    assert [t.name for t in rank(tools, "search", 1)] == ["mcp__s__search"]
    assert [t.name for t in rank(tools, "mcp__s__ping", 5)] == ["mcp__s__ping"]
    assert rank(tools, "kubernetes", 5) == []


async def test_the_mcp_screen_says_the_tools_are_found_by_search(tmp_path: Path):
    from contextual.core.config import load_config
    from contextual.tui.app import ContextualApp
    from contextual.tui.host import RealHost
    from contextual.tui.screens.mcp import MCPScreen, render_servers
    from rich.console import Console
    from tests.tui_helpers import SIZE, type_and_send, wait_for
    project = tmp_path / "proj"
    project.mkdir()
    servers(project, 10_000)
    with FakeLLMServer(kind="openai", script=[DONE]) as srv:
        config = load_config(project, {"model": "fake-model", "base_url": srv.base_url, "api_key": "sk-test",
                                       "context_window": 100_000}, env={"CONTEXTUAL_HOME": str(home_of(project))})
        host = RealHost(config)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await host.mcp.wait_started()
            await wait_for(pilot, lambda: "ToolSearch" in app.engine.tools)
            await type_and_send(pilot, "/mcp")
            await wait_for(pilot, lambda: isinstance(app.screen, MCPScreen))
            console = Console(width=200, record=True, file=io.StringIO())
            console.print(render_servers(app.screen.rows, app.screen.l1_total, app.screen.summary))
            shown = console.export_text()
            assert "over the budget of 10000" in shown and "ToolSearch finds the tools" in shown
            assert "… 9902 more" in shown
