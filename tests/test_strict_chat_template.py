"""A local model whose chat template wants one system message and user/assistant turns alternating (Mistral's,
Devstral's, Gemma's, as llama.cpp, vLLM and LM Studio apply them): the rules file after the system prompt, or the
task list after an observation, made every call fail with llama.cpp's "Jinja Exception: … roles must alternate"."""

from __future__ import annotations

import json
from pathlib import Path

from contextual.core.prompt import PromptMessage
from contextual.core.providers.openai import render_messages
from contextual.core.providers.role_order import refuses_role_order
from tests.cli_helpers import cli_env, contextual
from tests.fakes.llm_server import FakeLLMServer, _alternating


def action(tool: str, args: dict) -> str:
    return f"Thought: next\nAction: {tool}[{json.dumps(args)}]"


def test_a_session_with_a_rules_file_and_a_task_list_runs_on_a_strict_template(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "AGENTS.md").write_text("Run the tests after each change.\n")
    (project / "cart.py").write_text("def total(cart):\n    return sum(cart)\n")
    script = [action("TodoWrite", {"todos": [{"content": "read cart.py", "status": "in_progress"}]}),
              action("Read", {"file_path": "cart.py"}), "Thought: done\nAction: Finish[cart.py sums the cart]"]
    with FakeLLMServer("openai", script, strict_roles=True) as srv:
        result = contextual(["-p", "what does cart.py do?", "--permission-mode", "bypass"], project,
                            cli_env(tmp_path / "home", srv.base_url))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "cart.py sums the cart\n"
    # the first call was refused (a system prompt, then the rules file); every later one alternates
    assert [entry["request"] for entry in srv.invalid] == [0]
    accepted = srv.requests[1:]
    assert len(accepted) == 3 and all(_alternating(r["messages"]) for r in accepted)
    first = accepted[0]["messages"][0]["content"]
    assert first.index("You are Contextual") < first.index("Run the tests after each change.")
    assert "read cart.py" in accepted[-1]["messages"][-1]["content"]     # the task list joined to the observation


def test_a_strict_template_is_named_by_its_own_words_only() -> None:
    assert refuses_role_order("Jinja Exception: After the optional system message, conversation roles must "
                              "alternate user and assistant roles except for tool calls and results")
    assert refuses_role_order("Conversation roles must alternate user/assistant/user/assistant/...")
    assert refuses_role_order("System role not supported")
    assert not refuses_role_order("This model's maximum context length is 8192 tokens")
    assert not refuses_role_order("invalid role: tool")


def test_runs_of_one_role_stay_apart_unless_joined() -> None:
    messages = [PromptMessage("system", "L1", "L1"), PromptMessage("system", "rules", "L2"),
                PromptMessage("summary", "summary", "L3"), PromptMessage("user", "q", "input"),
                PromptMessage("assistant", "a", "scratchpad"), PromptMessage("user", "obs", "scratchpad"),
                PromptMessage("user", "todo", "todo")]
    assert [m["role"] for m in render_messages(messages)] == ["system"] * 3 + ["user", "assistant", "user", "user"]
    joined = render_messages(messages, joined=True)
    assert joined == [{"role": "system", "content": "L1\n\nrules\n\nsummary"}, {"role": "user", "content": "q"},
                      {"role": "assistant", "content": "a"}, {"role": "user", "content": "obs\n\ntodo"}]
