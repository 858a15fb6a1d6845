"""Built-in slash commands under `-p` (a user review, helper-130): `contextual -c -p "/compact"` sent "/compact" to the
model as the user's message, and `-p --no-auto-compact` advised "run /compact" at every turn with no way to. Now
`/compact [N] [instructions]` runs headless (no preview: the summary is accepted), printing the app's chat line for
it; every other built-in, and a `/word` naming no command, is refused in one line naming the way to do it; none of
them reaches the model."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from contextual.core import slash_commands
from tests.cli_helpers import cli_env, contextual, home_of, session_files
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.scripted_model import Model, answer
from tests.test_compaction_e2e import ALPHA, BETA, WINDOW, run_turns, session_entries, three_turns, wire_text


def _env(project: Path, srv: FakeLLMServer) -> dict[str, str]:
    return cli_env(home_of(project), srv.base_url, CONTEXTUAL_CONTEXT_WINDOW=str(WINDOW))


@pytest.mark.parametrize("form", ["text", "json"])
def test_compact_under_p_runs_the_compaction_and_prints_its_chat_line(project: Path, form: str):
    model = Model(three_turns())
    with FakeLLMServer(kind="openai", responder=model) as srv:
        run_turns(project, srv, "openai", [(ALPHA, []), (BETA, [])])
        asked = len(model.turn_requests)
        done = contextual(["-c", "-p", "/compact 1 keep the ALPHA notes", "--output-format", form], project,
                          _env(project, srv))
    assert done.returncode == 0, done.stderr
    assert len(model.turn_requests) == asked        # the model was never sent "/compact"
    (summary,) = model.summary_requests
    assert "keep the ALPHA notes" in wire_text(summary)
    (boundary,) = [e for e in session_entries(project) if e.get("subtype") == "compact_boundary"]
    assert boundary["compactMetadata"]["trigger"] == "manual" and not boundary.get("fallback")
    meta = boundary["compactMetadata"]
    line = (f"compacted (manual): trigger estimate {meta['preTokens']:,} → {meta['postTokens']:,} tokens, "
            f"1 round archived")
    if form == "text":
        assert done.stdout.startswith(line), done.stdout
        assert "compacted:" not in done.stderr      # the line is the answer, not said twice
    else:
        result = json.loads(done.stdout)
        (session,) = [p.stem for p in session_files(home_of(project))]
        assert result["result"].startswith(line) and result["is_error"] is False
        assert result["session_id"] == session and result["num_steps"] == 0
        assert result["usage"]["input_tokens"] > 0          # the summary call's, billed to this run


def test_compact_with_nothing_to_archive_says_so_and_how_to_archive_more(project: Path):
    model = Model(three_turns())
    with FakeLLMServer(kind="openai", responder=model) as srv:
        run_turns(project, srv, "openai", [(ALPHA, []), (BETA, [])])
        done = contextual(["-c", "-p", "/compact"], project, _env(project, srv))
    assert done.returncode == 0 and not model.summary_requests, done.stderr
    assert done.stdout.startswith("nothing compacted: nothing older than the last 10 rounds"), done.stdout
    assert "`/compact N` keeps only the last N of the 2 rounds" in done.stdout


@pytest.mark.parametrize("prompt,said", [
    ("/compact", "/compact compacts a session: add -c (this project's latest) or -r ID"),
    ("/context", "/context is the app's command, not run by -p: `contextual context -c` prints the next prompt"),
    ("/export notes.md", "/export is the app's command, not run by -p: `contextual export -c"),
    ("/cost", "/cost is the app's command, not run by -p: `--output-format json` gives each run's usage and total_cost_usd"),
    ("/compcat 3", "unknown command /compcat: did you mean /compact?"),
    ("/exit", "unknown command /exit: -p ends by itself when its turn does"),     # not "did you mean /export?"
])
def test_other_commands_are_refused_in_one_line_and_nothing_is_sent_or_opened(project: Path, prompt: str, said: str):
    with FakeLLMServer(kind="openai", script=[answer("sent after all")]) as srv:
        done = contextual(["-p", prompt, "--output-format", "json"], project, cli_env(home_of(project), srv.base_url))
        chat_calls = [r for r in srv.requests if r.path.endswith("/chat/completions")]
    assert done.returncode == 1 and not chat_calls, done.stderr
    assert said in done.stderr and "nothing was sent to the model" in done.stderr, done.stderr
    assert json.loads(done.stdout)["result"].startswith(said)
    assert session_files(home_of(project)) == []        # no empty session left behind


def test_a_path_is_still_a_task(project: Path):
    with FakeLLMServer(kind="openai", script=[answer("it is a shell")]) as srv:
        done = contextual(["-p", "/bin/sh what is it?"], project, cli_env(home_of(project), srv.base_url))
    assert done.returncode == 0 and done.stdout == "it is a shell\n", done.stderr


def test_every_built_in_command_of_the_app_is_known_headless():
    from contextual.tui.commands import COMMANDS
    assert [c.name for c in COMMANDS] == list(slash_commands.NAMES)


def test_no_auto_compact_under_p_names_the_run_that_compacts_and_it_does(project: Path):
    model = Model(three_turns())
    with FakeLLMServer(kind="openai", responder=model) as srv:
        results = run_turns(project, srv, "openai", [(ALPHA, []), (BETA, []), ("GAMMA", ["--no-auto-compact"])])
        advice = re.search(r"auto-compaction is off — compact between turns with `(contextual -r \S+ -p /compact)`",
                           results[2].stderr)
        assert advice, results[2].stderr
        args = advice.group(1).split()[1:]
        done = contextual([*args[:-1], "/compact 1"], project, _env(project, srv))
    assert done.returncode == 0 and done.stdout.startswith("compacted (manual)"), done.stderr


def test_a_prompt_beside_p_is_refused_naming_both_tasks(project: Path):
    """`contextual -p fix it`: the shell gives -p `fix` and leaves `it`, now the app's PROMPT. Neither is guessed."""
    with FakeLLMServer(kind="openai", script=[answer("sent after all")]) as srv:
        done = contextual(["-p", "fix", "it"], project, cli_env(home_of(project), srv.base_url))
    assert done.returncode == 1 and not srv.requests, done.stderr
    assert "two tasks: -p 'fix' runs one headless, 'it' opens the app with it" in done.stderr
