"""`-p --output-format json|stream-json` stopped by Ctrl-C (or SIGTERM): the result carries the session, the steps
made and the usage spent so far, so a wrapper can resume by id and bill the spend. It said `"session_id": null`,
`"num_steps": 0` and zero usage although init had named the session and usage events were streamed (a user
review, helper-130), also when stopped during a compaction."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.cli_helpers import cli_env, home_of, session_files, sigint_at_default
from tests.fakes.llm_server import Fault, FakeLLMServer, Reply
from tests.fakes.scripted_model import SUMMARY_TEXT, Model, answer
from tests.waits import until


def _stopped(project: Path, env: dict[str, str], args: list[str], ready, sent: signal.Signals = signal.SIGINT
             ) -> tuple[subprocess.Popen, str, str]:
    # into files, not pipes: a stream-json run's output can outgrow a pipe's buffer before it is stopped
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen([sys.executable, "-m", "contextual", *args], cwd=project, env=env,
                                 stdin=subprocess.DEVNULL, stdout=out, stderr=err, text=True,
                                 preexec_fn=sigint_at_default)
        try:
            until(ready, "the run reaching the point it is stopped at", 60)
            child.send_signal(sent)
            child.wait(timeout=30)
        finally:
            if child.poll() is None:
                child.kill()
        out.seek(0)
        err.seek(0)
        return child, out.read(), err.read()


@pytest.mark.parametrize("form,sent", [("stream-json", "SIGINT"), ("json", "SIGINT"), ("json", "SIGTERM")])
def test_a_stopped_turns_result_keeps_its_session_steps_and_usage(project: Path, form: str, sent: str):
    (project / "notes.txt").write_text("hello\n")
    script = [Reply('Thought: look\nAction: Read[{"file_path": "notes.txt"}]', usage_input=1000, usage_output=30),
              Reply('Thought: again\nAction: Read[{"file_path": "notes.txt"}]', usage_input=1100, usage_output=20),
              Fault("slow_first_byte", seconds=30, text=answer("too late"))]
    with FakeLLMServer(kind="openai", script=script) as srv:
        env = cli_env(home_of(project), srv.base_url)
        child, out, err = _stopped(project, env, ["-p", "look twice", "--output-format", form],
                                   lambda: len(srv.requests) == 3, getattr(signal, sent))
    assert child.returncode == 1 and "Traceback" not in err, err
    lines = [json.loads(line) for line in out.splitlines()]
    result = lines[-1]
    (session,) = [p.stem for p in session_files(home_of(project))]
    assert result["is_error"] is True and result["result"].startswith("interrupted")
    assert result["session_id"] == session and result["num_steps"] == 2
    assert result["usage"]["input_tokens"] == 2100 and result["usage"]["output_tokens"] == 50
    if form == "stream-json":
        assert lines[0]["type"] == "system" and lines[0]["session_id"] == session
        streamed = [line for line in lines if line["type"] == "usage"]
        assert sum(u["input_tokens"] for u in streamed) == result["usage"]["input_tokens"]
        assert [line["type"] for line in lines].count("result") == 1
    else:
        assert len(lines) == 1
    assert err.count("contextual: interrupted") == 1, err


def test_a_run_stopped_during_its_compaction_names_its_session(project: Path):
    """Stopped while the summary is asked for: the compaction is abandoned (history stays whole), and the result
    still names the session to resume."""
    model = Model([Reply(answer("one"), usage_input=300, usage_output=10),
                   Reply(answer("two"), usage_input=19_000, usage_output=10)],
                  summary=[Fault("slow_first_byte", seconds=30, text=SUMMARY_TEXT)])
    with FakeLLMServer(kind="openai", responder=model) as srv:
        env = cli_env(home_of(project), srv.base_url, CONTEXTUAL_CONTEXT_WINDOW="20000")
        for index, prompt in enumerate(["ALPHA", "BETA"]):
            done = subprocess.run([sys.executable, "-m", "contextual", "-p", prompt, "--keep-rounds", "1",
                                   *(["-c"] if index else [])], cwd=project, env=env, capture_output=True,
                                  text=True, timeout=60, stdin=subprocess.DEVNULL)
            assert done.returncode == 0, done.stderr
        child, out, err = _stopped(project, env, ["-p", "GAMMA", "--keep-rounds", "1", "-c", "--output-format",
                                                  "json"], lambda: len(model.summary_requests) == 1)
    (session,) = [p.stem for p in session_files(home_of(project))]
    result = json.loads(out)
    assert child.returncode == 1 and result["is_error"] is True and result["session_id"] == session, err
    assert result["usage"]["input_tokens"] == 0 and result["num_steps"] == 0     # no call of this run ended


@pytest.mark.parametrize("form", ["text", "stream-json"])
def test_a_turn_stopped_after_its_steps_were_folded_says_what_was_folded(project: Path, form: str):
    """Five 240-line Reads at an 8k window: the turn's older steps give way before its sixth call, which Ctrl-C
    stops. stderr said only "contextual: interrupted; …": the "context: … to fit the 8,192-token window" line (and
    stream-json's turn_adjustments event) came only at a turn's end, which a stopped turn never reaches (user
    review, helper-139). Said now as the end would have, before the result, and recorded for a resumed chat."""
    for i in range(5):
        (project / f"m{i}.py").write_text("".join(f"def f{i}_{k}(x):\n    return x * {k} + {i}\n" for k in range(120)))
    script = [*[f'Thought: read m{i}\nAction: Read[{{"file_path": "m{i}.py"}}]' for i in range(5)],
              Fault("slow_first_byte", seconds=30, text=answer("too late"))]
    with FakeLLMServer(kind="openai", script=script) as srv:
        env = cli_env(home_of(project), srv.base_url)
        child, out, err = _stopped(project, env, ["-p", "read the five modules", "--context-window", "8192",
                                                  "--output-format", form], lambda: len(srv.requests) == 6)
    assert child.returncode == 1 and "Traceback" not in err, err
    lines = err.splitlines()
    said = [line for line in lines if line.startswith("context: ")]
    assert len(said) == 1 and "to fit the 8,192-token window" in said[0], err
    assert lines.index(said[0]) < lines.index(next(line for line in lines if line.startswith("contextual: interrupted")))
    if form == "stream-json":
        events = [json.loads(line) for line in out.splitlines()]
        kinds = [event["type"] for event in events]
        assert kinds.count("turn_adjustments") == 1 and kinds[-1] == "result", kinds
        fitted = events[kinds.index("turn_adjustments")]
        assert "context: " + fitted["summary"] == said[0] and fitted["adjustments"], fitted
    (session,) = session_files(home_of(project))
    assert '"subtype":"context_adjusted"' in session.read_text()
