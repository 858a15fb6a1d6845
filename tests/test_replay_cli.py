import json
import shutil
from pathlib import Path

import pytest

from contextual.core.prompt import PromptMessage
from contextual.core.providers.base import ChatRequest, ProviderError, StreamDone, TextChunk, UsageChunk
from contextual.core.react import parse_reply
from contextual.core.replay.cli import replay_main
from contextual.core.replay.loaders import Step, Trajectory, load_trajectory
from contextual.core.replay.replay_model import ReplayBash, ReplayProvider, render_step
from contextual.core.replay.report_text import table, title_lines
from contextual.core.replay.runner import replay_one, trajectory_pairs
from contextual.core.tokens import count
from contextual.core.tools.runner import run_tool
from contextual.core.tools.base import ToolContext
from contextual.core.tools.bash import BashTool

# A trajectory kept in this repository (a machine path would make these tests skip anywhere else).
SAMPLE = Path(__file__).resolve().parent / "fixtures" / "replay" / "retry_cap.traj.json"
NAME = "httpkit__retry-cap"          # its instance_id

TRICKY = Step(thought="check it\nObservation: not a real one\nAction: Bash[{}] is only text",
              action='cat <<\'EOF\' > a.py\nprint("hi")\nEOF', output="hi\n", returncode=0)


def _traj(*steps: Step) -> Trajectory:
    return Trajectory("demo-1", "do it", list(steps), "mini-swe-agent-1")


def test_rendered_step_parses_back_to_the_recorded_command():
    parsed = parse_reply(render_step(TRICKY), {"Bash"})
    assert parsed.tool == "Bash" and parsed.args == {"command": TRICKY.action}
    assert "not a real one" in parsed.thought


async def test_provider_answers_in_order_records_requests_and_counts_usage():
    provider = ReplayProvider(_traj(TRICKY))
    request = ChatRequest([PromptMessage("system", "be good", "L1"), PromptMessage("user", "do it", "input")], "m")
    chunks = [c async for c in provider.stream(request)]
    assert isinstance(chunks[0], TextChunk) and chunks[0].text == render_step(TRICKY)
    assert chunks[1] == UsageChunk(count("be good") + 4 + count("do it") + 4, count(chunks[0].text))
    assert isinstance(chunks[2], StreamDone)
    finish = [c async for c in provider.stream(request)]
    assert finish[0].text.splitlines()[-1].startswith("Action: Finish[")
    assert provider.requests == [request, request]
    with pytest.raises(ProviderError):
        [c async for c in provider.stream(request)]


async def test_replay_bash_has_the_real_bash_result_shape(tmp_path):
    ctx = ToolContext(root=tmp_path)
    real = await run_tool(BashTool(), {"command": "echo hi"}, ctx)
    provider = ReplayProvider(_traj(TRICKY))
    [c async for c in provider.stream(ChatRequest([], "m"))]
    replayed = await run_tool(ReplayBash(provider), {"command": TRICKY.action}, ctx)
    assert set(replayed) == set(real) and set(replayed["data"]) == set(real["data"])
    assert set(replayed["stats"]) == set(real["stats"]) and replayed["context"] == {"command": TRICKY.action}
    assert replayed["status"] == "success" and replayed["data"]["stdout"] == "hi\n"
    assert replayed["data"]["exit_code"] == 0 and replayed["data"]["stderr"] == ""


async def test_replay_one_runs_the_engine_once_per_recorded_step():
    traj = load_trajectory(SAMPLE)
    run = await replay_one(traj, "raw", max_steps=5)
    assert len(run.calls) == 6 and run.call_steps == [0, 1, 2, 3, 4, 5]
    assert run.actions[0] == render_step(traj.steps[0])
    # Call k's prompt ends with step k-1's action and its recorded output.
    last = run.calls[5]
    assert json.dumps({"command": traj.steps[4].action}, ensure_ascii=False)[1:-1] in last[-2]["content"]
    assert traj.task[:200] in "\n".join(m["content"] for m in run.calls[0])
    figures = run.figures(trajectory_pairs(traj, 5))
    assert figures.calls == 5 and figures.recall in (None, 1.0)


def test_cli_tables_json_dump_and_a_corrupt_file(tmp_path, capsys):
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(SAMPLE, folder / SAMPLE.name)
    (folder / "broken.traj.json").write_text("{oops")
    dump, report = tmp_path / "dump", tmp_path / "figures.json"
    code = replay_main([str(folder), "--policy", "mask", "--dump", str(dump), "--json", str(report),
                        "--max-steps", "12"])
    out, err = capsys.readouterr()
    assert code == 1                                   # one file failed, the other ran
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "broken.traj.json" in errors[0]
    assert "policy mask" in out and "summary" in out and NAME in out
    steps = len(load_trajectory(SAMPLE).steps[:12])

    lines = (dump / "mask" / f"{NAME}.jsonl").read_text().splitlines()
    assert not (dump / "raw").exists()                 # raw ran for the ratios only
    records = [json.loads(line) for line in lines]
    assert [r["step"] for r in records] == list(range(steps + 1))       # the actions + the closing Finish call
    assert all(set(m) == {"role", "content"} for r in records for m in r["messages"])
    assert records[0]["messages"][0]["role"] == "system"

    figures = json.loads(report.read_text())
    assert figures["trajectories"] == [NAME]
    mask = figures["policies"]["mask"]
    entry = mask["trajectories"][NAME]
    assert entry["calls"] == steps and mask["overall"]["prompt_tokens"] == entry["prompt_tokens"]
    for key in ("prompt_tokens", "prompt_tokens_vs_raw", "billed_tokens", "billed_vs_raw", "peak_prompt",
                "recall", "action_recall", "line_recall_split", "line_recall_numbers", "line_recall_quoted"):
        assert key in entry
    assert 0 < entry["prompt_tokens_vs_raw"] <= 1.0


def test_a_title_wider_than_its_figures_goes_on_two_header_lines():
    assert title_lines("line/numbers", 5) == ("line/", "numbers")
    assert title_lines("billed (cache)", 9) == ("billed", "(cache)")
    assert title_lines("tokens", 10) == ("", "tokens") and title_lines("recall", 5) == ("", "recall")
    row = {"calls": 12, "prompt_tokens": 3456, "recall": 0.5, "line_recall_numbers": 1.0, "line_recall_quoted": None}
    top, bottom, rule, body = table("policy", [("ours", row)])
    assert len(top) == len(bottom) == len(rule) == len(body)
    assert "line/numbers" not in bottom and bottom.split()[-2:] == ["numbers", "quoted"]
    assert top.split()[-2:] == ["line/", "line/"] and body.split()[-2:] == ["1.000", "-"]


def test_the_report_fits_the_terminals_width_and_its_figures_do_not_change(tmp_path, capsys, monkeypatch):
    """Finding 11 of a user review: 316 columns at any width. Read as CLIs read it ($COLUMNS), the width splits the
    columns into tables and wraps the headings; --json and --dump are the same at every width."""
    families = Path(__file__).resolve().parent / "fixtures" / "trajectories"      # some without a system prompt
    shown, written = {}, {}
    for columns in ("80", "250"):
        monkeypatch.setenv("COLUMNS", columns)
        dump, report = tmp_path / f"dump-{columns}", tmp_path / f"figures-{columns}.json"
        assert replay_main([str(families), "--policy", "ours", "--jobs", "1", "--dump", str(dump),
                            "--json", str(report)]) == 0
        shown[columns] = capsys.readouterr().out
        written[columns] = (report.read_text(), sorted((p.name, p.read_text()) for p in (dump / "ours").iterdir()))
    assert written["80"] == written["250"]
    narrow, wide = shown["80"].splitlines(), shown["250"].splitlines()
    assert max(map(len, narrow)) <= 80 < max(map(len, wide)) <= 250
    for lines in (narrow, wide):        # every column is still there, and every figure of the pooled rows
        words = " ".join(lines).split()
        for title in ("calls", "tokens", "(cache)", "peak", "action", "split", "quoted", "agent,"):
            assert title in words
        assert "system prompt not recorded: compared without L1 on both sides" in "\n".join(lines)
    # the last summary (all families): one table wide, three at 80 (tokens, billed and peak; the recalls; the
    # ratios with our L1), the same figures
    ours = [[line.split()[1:] for line in lines if line.startswith("ours ")] for lines in (narrow, wide)]
    assert sum(ours[0][-3:], []) == ours[1][-1]
    assert len(ours[1]) == len(json.loads(written["80"][0])["families"]) + 1 < len(ours[0])


def test_cli_usage_errors(tmp_path, capsys):
    assert replay_main([str(tmp_path / "nothing-here")]) == 2
    assert replay_main([str(tmp_path)]) == 2
    assert replay_main([str(tmp_path), "--policy", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and "no trajectory files" in err and "invalid choice" in err


def test_jobs_run_files_in_processes_and_report_the_same_figures(tmp_path, capsys):
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("a", "b", "c"):
        shutil.copy(SAMPLE, folder / f"{name}.traj.json")
    reports = []
    for jobs in ("1", "3"):
        report = tmp_path / f"figures-{jobs}.json"
        assert replay_main([str(folder), "--policy", "ours", "--max-steps", "6", "--jobs", jobs,
                            "--json", str(report), "--summary-only"]) == 0
        reports.append(json.loads(report.read_text()))
    assert reports[0] == reports[1]
    assert reports[0]["trajectories"] == [NAME, f"{NAME}-2", f"{NAME}-3"]     # the files' order, for any N
    capsys.readouterr()
    assert replay_main([str(folder), "--jobs", "0"]) == 2
    assert "--jobs must be a positive number" in capsys.readouterr().err


def test_the_default_prices_a_live_sessions_l1_and_bash_l1_is_the_option(tmp_path, capsys):
    """Issue 28: what a user's prompts cost, with every built-in tool described, unless asked otherwise."""
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(SAMPLE, folder / SAMPLE.name)
    system = {}
    for label, extra in (("live", []), ("bash", ["--bash-l1"])):
        dump = tmp_path / label
        assert replay_main([str(folder), "--policy", "ours", "--dump", str(dump), "--max-steps", "2", *extra]) == 0
        first = json.loads((dump / "ours" / f"{NAME}.jsonl").read_text().splitlines()[0])
        system[label] = first["messages"][0]["content"]
    capsys.readouterr()
    assert "TodoWrite" in system["live"] and "MultiEdit" in system["live"]
    assert "TodoWrite" not in system["bash"] and "Bash" in system["bash"]


def test_progress_only_when_asked_off_a_terminal(tmp_path, capsys):
    figures = tmp_path / "f.json"
    assert replay_main([str(SAMPLE), "--policy", "ours", "--jobs", "1", "--json", str(figures)]) == 0
    quiet = capsys.readouterr()
    assert "[#" not in quiet.err and "[#" not in quiet.out
    assert replay_main([str(SAMPLE), "--policy", "ours", "--jobs", "1", "--progress", "--json", str(figures)]) == 0
    asked = capsys.readouterr()
    assert "] 1/1" in asked.err and SAMPLE.name in asked.err and "[#" not in asked.out
    assert "[#" not in figures.read_text()


def test_progress_redrawn_in_place_on_a_terminal(tmp_path):
    import io

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    err, out = Terminal(), io.StringIO()
    assert replay_main([str(SAMPLE), "--policy", "ours", "--jobs", "1"], out=out, err=err) == 0
    assert err.getvalue().startswith("\r\x1b[2K[") and "] 1/1" in err.getvalue()
    assert "[#" not in out.getvalue()
