"""/init (issues 29/30) in the real app, engine and fake server: a turn in which the agent reads the project and
writes the instruction file the user chose; run again, it is told to keep what the file holds."""

from __future__ import annotations

import json

from contextual.tui.app import ContextualApp
from tests.fakes.llm_server import FakeLLMServer
from tests.tui_helpers import chat_text, SIZE, finish, make_host, type_and_send, wait_for

LAW = "# Rules\n\nRun python -m pytest -q before you finish.\n"


def _write(path: str, content: str) -> str:
    return f"Thought: write it\nAction: Write[{json.dumps({'file_path': path, 'content': content})}]"


async def test_init_runs_a_turn_that_writes_the_chosen_file_and_keeps_an_existing_one(tmp_path):
    script = [_write("AGENTS.md", LAW), finish("wrote AGENTS.md"), finish("kept it")]
    with FakeLLMServer(kind="openai", script=script) as srv:
        host = make_host(tmp_path, srv.base_url, permission_mode="bypass")
        root = host.config.project_root
        (root / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "/init README.txt")
            await wait_for(pilot, lambda: "not README.txt" in chat_text(app))
            assert not srv.requests
            await type_and_send(pilot, "/init AGENTS.md")
            await wait_for(pilot, lambda: (root / "AGENTS.md").exists() and not app.turns.running)
            first = srv.requests[0]["messages"][-1]["content"]
            assert "AGENTS.md does not exist yet" in first and "python -m pytest" in first   # the starter draft
            # the chat and the record say what was typed, not the prompt made from it
            assert "you  /init AGENTS.md" in chat_text(app) and "does not exist yet" not in chat_text(app)
            asked = next(m for m in app.engine.history.messages if m.role == "user")
            assert asked.meta["raw"] == "/init AGENTS.md" and "does not exist yet" in asked.content
            await wait_for(pilot, lambda: len(srv.requests) == 2)
            await type_and_send(pilot, "/init")                             # AGENTS.md exists: it is the default
            await wait_for(pilot, lambda: len(srv.requests) == 3 and not app.turns.running)
        again = srv.requests[2]["messages"]
    assert "AGENTS.md exists: read it first and KEEP everything" in again[-1]["content"]
    assert (root / "AGENTS.md").read_text() == LAW
    assert any("Run python -m pytest -q before you finish." in str(m["content"]) for m in again)   # in L2 now




async def test_init_without_a_name_updates_the_file_the_project_has_else_writes_agents_md(tmp_path):
    with FakeLLMServer(kind="openai", script=[finish("looked"), finish("looked")]) as srv:
        host = make_host(tmp_path, srv.base_url)
        root = host.config.project_root
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "/init")                    # neither file: AGENTS.md, created
            await wait_for(pilot, lambda: len(srv.requests) == 1 and not app.turns.running)
            (root / "CODE_LAW.md").write_text(LAW)
            await type_and_send(pilot, "/init")                    # the project has CODE_LAW.md: that one, kept
            await wait_for(pilot, lambda: len(srv.requests) == 2 and not app.turns.running)
    first, second = (r["messages"][-1]["content"] for r in srv.requests)
    assert "AGENTS.md does not exist yet: create it" in first
    assert "CODE_LAW.md exists: read it first and KEEP everything" in second
