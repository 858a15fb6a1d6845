"""Hooks whose context fills most of a small window (4k), through the real CLI and a fake server that refuses an
over-long prompt as a real one does: what a hook adds is counted before the message is sent."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from tests.cli_helpers import cli_env, contextual, home_of
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.field_sessions import is_summary_request, summary_for
from tests.test_hooks import _hooks_file

WINDOW = "4096"
FINISH = "Thought: done\nAction: Finish[ok]"
WORDS = ("alpha", "beta", "commit", "fix", "merge", "branch", "test", "update")
# SessionStart's bound (core/hooks.py CONTEXT_CAP), ending in a mark a cut would lose
HOOK_TEXT = (" ".join(WORDS[i * 7 % 8] for i in range(2000)))[:9_988] + " END-OF-HOOK"


def _agent(reads: list[str | None]):
    """Summary requests get a summary; the others read the next file of `reads` (None: finish), then finish."""
    queue = [f'Thought: look\nAction: Read[{{"file_path": "{name}"}}]' if name else FINISH for name in reads]

    def answer(body: dict) -> Reply:
        if is_summary_request(body):
            return Reply(summary_for(body))
        return Reply(queue.pop(0) if queue else FINISH)
    return answer


def test_a_session_start_hooks_context_is_counted_before_the_message_so_the_history_compacts_first(project: Path):
    for name in ("a.py", "b.py"):
        (project / name).write_text("".join(f"def {name[0]}{i}(x):\n    return x + {i}\n" for i in range(40)))
    with FakeLLMServer("openai", [], responder=_agent(["a.py", None, "b.py"]), max_context_tokens=4096) as srv:
        env = cli_env(home_of(project), srv.base_url)
        for i, task in enumerate(("read a", "read b")):
            assert contextual(["-p", task, "--context-window", WINDOW, *(["-c"] if i else [])], project,
                              env).returncode == 0
        # the hook comes with the third run: its context rides on that run's message ("resume")
        (project / "hook.txt").write_text(HOOK_TEXT)
        _hooks_file(home_of(project) / "config.toml", "SessionStart", f"{shlex.quote(sys.executable)} -c "
                    + shlex.quote("print(open('hook.txt').read())"))
        before = len(srv.requests)
        result = contextual(["-p", "and now", "--context-window", WINDOW, "-c"], project, env)
        sent = list(srv.requests)[before:]
    assert result.returncode == 0, result.stderr
    assert not srv.violations
    # the history is compacted before the message is sent, not the message cut to fit it
    assert is_summary_request(sent[0]), result.stderr
    last = sent[-1]["messages"][-1]["content"]
    assert last.startswith("and now") and HOOK_TEXT in last, "the hook's context went whole"
    assert "larger than this window allows" not in result.stderr
