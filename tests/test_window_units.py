"""One unit for the figures a user compares, when the server's tokenizer counts ×1.3 of ours (a small model's):
the window, the trigger line and the next prompt are all in our tokens, the server's window named beside them.
Before, the meter read "next prompt 4.5k of 8.2k window" (ours against the server's: 55 % full while the server
held 5.9k and a 2k reserve), the trigger compared our count with a line of the server's window, and a compaction's
"before" (a usage, the server's count) and "after" (our count) were in two units (helper-133, r130 finding 9)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from contextual.core.window_budget import auto_reserve, compaction_threshold
from tests.cli_helpers import cli_env, contextual, home_of
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.server_flavors import Flavor

RATIO = 1.3


def _reply(body: dict[str, Any]) -> str:
    last = body["messages"][-1]["content"]
    if isinstance(last, str) and last.startswith("Observation"):
        return "Thought: done\nAction: Finish[read]"
    return 'Thought: read it\nAction: Read[{"file_path": "notes.md"}]'


def test_the_window_and_the_trigger_line_are_said_in_our_tokens_beside_the_servers_count(project: Path):
    (project / "notes.md").write_text("".join(f"- note {i}: the parser keeps line {i} as written\n"
                                              for i in range(120)))
    with FakeLLMServer("openai", responder=_reply, flavor=Flavor("llamacpp", n_ctx=8192, token_ratio=RATIO)) as srv:
        env = cli_env(home_of(project), srv.base_url)
        run = contextual(["-p", "read the notes", "--permission-mode", "bypass"], project, env)
        assert run.stdout == "read\n", run.stderr
        text = contextual(["context", "-c"], project, env)
        data = json.loads(contextual(["context", "-c", "--json"], project, env).stdout)
    factor = json.loads((home_of(project) / "calibration.json").read_text())["fake-model"]
    assert abs(max(factor) - RATIO) < 0.02
    ours = int(8192 / max(factor))
    line = int(compaction_threshold(8192, auto_reserve(8192)) / max(factor))
    assert (data["window"], data["trigger"]["threshold"]) == (8192, line)       # the setting; the line in ours
    assert (f"window {ours:,} (8,192 by the server's count, ×{max(factor):.2f} ours)" in text.stdout
            and f"of the {line:,} trigger line" in text.stdout), text.stdout[:400]
    assert data["trigger"]["estimate"] == data["tokens"]      # our count of the next prompt, as the line is
