"""`contextual context` (issue 12.2): the next `contextual -p TEXT -c` sends exactly what
`contextual context -c --input TEXT --json` printed, through the real CLI against the fake servers, both wires.

The session behind it has a summary (an auto-compaction), a todo list, a turn whose prompt needed cuts, and the
next input names a file (@file reminder); the project has CODE_LAW.md and AGENTS.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contextual.core.window_budget import auto_reserve, compaction_threshold

from tests.cli_helpers import cli_env, contextual
from tests.fakes.llm_server import FakeLLMServer, Reply

WINDOW = 8_000
SUMMARY = "## 📌 Archived Session Summary\n*(Contains context from a to b)*\n\n### 🎯 Objectives & Status\n* read"


def act(tool: str, args: dict[str, Any]) -> str:
    return f"Thought: next\nAction: {tool}[{json.dumps(args)}]"


def finish(text: str) -> str:
    return f"Thought: done\nAction: Finish[{text}]"


class Model:
    def __init__(self, replies: list[str | Reply]) -> None:
        self.replies = list(replies)

    def __call__(self, body: dict[str, Any]) -> str | Reply:
        text = json.dumps(body.get("system") or body["messages"][0])
        if "You are archiving the OLD part" in text:
            return SUMMARY
        return self.replies.pop(0)


def prompt_fields(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    return {k: body[k] for k in (("system", "messages") if kind == "anthropic" else ("messages",)) if k in body}


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_context_json_is_byte_for_byte_the_next_request(tmp_path: Path, kind: str):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "CODE_LAW.md").write_text("Keep functions short.")
    (project / "AGENTS.md").write_text("Run the tests before finishing.")
    (project / "notes.md").write_text("remember the milk\n")
    (project / "big.log").write_text("\n".join(f"entry {i} " + "z" * 70 for i in range(1000)))   # ~25k tokens: over the window, cuts needed
    todos = {"todos": [{"content": "read the log", "status": "in_progress"},
                       {"content": "report", "status": "pending"}]}
    replies = [
        Reply(act("TodoWrite", todos), usage_input=500, usage_output=20),
        Reply(finish("planned"), usage_input=600, usage_output=10),
        Reply(finish("noted"), usage_input=7_000, usage_output=10),            # near the window: compaction next
        Reply(act("Read", {"file_path": "big.log", "limit": 1000}), usage_input=900, usage_output=10),
        Reply(act("Read", {"file_path": "big.log", "offset": 500, "limit": 500}), usage_input=900, usage_output=10),
        Reply(finish("read it"), usage_input=900, usage_output=10),
        Reply(finish("summed up"), usage_input=900, usage_output=10),
        finish("the final one"),
    ]
    model = Model(replies)
    with FakeLLMServer(kind=kind, responder=model) as srv:
        env = cli_env(tmp_path / "home", srv.base_url, kind, CONTEXTUAL_CONTEXT_WINDOW=str(WINDOW))
        for i, text in enumerate(["make a plan", "note it", "read the log twice"]):
            result = contextual(["-p", text, "--keep-rounds", "1"] + (["-c"] if i else []), project, env)
            assert result.returncode == 0, result.stderr
        assert "compacted" in result.stderr and "context:" in result.stderr     # a summary, and cuts in that turn
        # Issue 24: that turn's reads outgrow an 8k window whole, so the next message archives them first.
        result = contextual(["-p", "sum it up", "-c", "--keep-rounds", "1"], project, env)
        assert result.returncode == 0 and "compacted" in result.stderr, result.stderr
        shown = contextual(["context", "-c", "--input", "check @notes.md", "--json", "--keep-rounds", "1"],
                           project, env)
        assert shown.returncode == 0, shown.stderr
        printed = json.loads(shown.stdout)
        before = len(srv.requests)
        result = contextual(["-p", "check @notes.md", "-c", "--keep-rounds", "1"], project, env)
        assert result.returncode == 0 and result.stdout == "the final one\n", result.stderr
        sent = srv.requests[before]
    assert printed["provider"] == kind and printed["trigger"]["due"] is False
    assert json.dumps(printed["request"], ensure_ascii=False) == json.dumps(prompt_fields(kind, sent),
                                                                            ensure_ascii=False)
    wire = json.dumps(printed["request"], ensure_ascii=False)
    assert "Project rules (CODE_LAW.md)" in wire and "Project rules (AGENTS.md)" in wire
    assert "Archived Session Summary" in wire, wire[:3000]
    assert "The user mentioned @notes.md" in wire and "in progress: read the log" in wire
    names = [layer["name"] for layer in printed["layers"]]
    assert names == ["L1", "L2 CODE_LAW.md", "L2 AGENTS.md", "L3", "input", "scratchpad", "todo"]
    assert printed["tokens"] == sum(layer["tokens"] for layer in printed["layers"])
    # the trigger line in our tokens, through the calibration the scripted usages made (tests/test_window_units.py)
    factor = max(json.loads((tmp_path / "home" / "calibration.json").read_text())["fake-model"])
    assert printed["window"] == WINDOW
    assert printed["trigger"]["threshold"] == int(compaction_threshold(WINDOW, auto_reserve(WINDOW)) / factor)


def test_context_text_lists_layers_and_messages_without_a_model(tmp_path: Path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "CLAUDE.md").write_text("Be brief.")
    env = cli_env(tmp_path / "home", "http://127.0.0.1:9/v1", "openai")     # nothing listens there
    shown = contextual(["context", "--input", "hello there"], project, env)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert "L2 CLAUDE.md" in out and "Project rules (CLAUDE.md):\n\nBe brief." in out
    assert "── 3. user · input · input ·" in out and "hello there" in out
    missing = contextual(["context", "-c"], project, env)
    assert missing.returncode == 1 and missing.stderr.startswith("contextual: no earlier session")


def test_context_help_lists_the_settings_a_session_does_not_record():
    """A session ran with --context-window 8000 showed a 200k window in `context -c`: the flags that give the
    settings it ran with were accepted but hidden from --help (QA)."""
    from contextual.context_cmd import build_parser
    shown = build_parser().format_help()
    for flag in ("--provider", "--model NAME", "--base-url URL", "--context-window N", "--keep-rounds N"):
        assert flag in shown, flag
    assert "does not record them" in shown


def test_a_reader_that_stops_early_ends_the_output_quietly(tmp_path: Path):
    """`contextual context | head -3` printed a BrokenPipeError traceback once head had its lines (helper-65)."""
    import os
    import subprocess
    import sys
    project = tmp_path / "proj"
    project.mkdir()
    env = cli_env(tmp_path / "home", "http://127.0.0.1:9/v1", "openai")     # nothing listens there
    read_end, write_end = os.pipe()
    os.close(read_end)                                      # the reader is gone before the first line
    try:
        done = subprocess.run([sys.executable, "-m", "contextual", "context"], cwd=project, env=env,
                              stdin=subprocess.DEVNULL, stdout=write_end, stderr=subprocess.PIPE, text=True,
                              timeout=60)
    finally:
        os.close(write_end)
    assert done.returncode == 141 and done.stderr == "", done.stderr
