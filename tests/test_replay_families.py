"""Other agents' logs (OpenHands, Claude Code, Codex, SWE-agent function calling), the recorded agent's own
prompts as the baseline, and the figures per source family."""

import json
from pathlib import Path

import pytest

from contextual.core.replay.baseline import agent_calls
from contextual.core.replay.cli import replay_main
from contextual.core.replay.loaders import (CLAUDE_CODE_FORMAT, CODEX_FORMAT, MINI_FORMAT, OPENHANDS_FORMAT, SWE_AGENT_FORMAT,
                                 find_trajectories, load_trajectories, load_trajectory)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "trajectories"
SAMPLES = Path(__file__).resolve().parents[2] / "shared" / "trajectories"
needs_samples = pytest.mark.skipif(not (SAMPLES / "swe-agent").is_dir(), reason=f"no samples at {SAMPLES}")


def test_claude_code_session_tool_uses_become_steps():
    traj = load_trajectory(FIXTURES / "claude_code_session.jsonl")
    assert (traj.source_format, traj.instance_id) == (CLAUDE_CODE_FORMAT, "cc-session-1")
    assert traj.task == "Fix the off-by-one in src/parse.py"
    read, bash = traj.steps
    assert read.action == "Read src/parse.py" and read.thought == "Let me read the parser."
    assert read.response == 'Let me read the parser.\nRead {"file_path": "src/parse.py"}'   # the call as sent
    assert "def parse_items(text):" in read.output
    assert bash.action == "python -m pytest tests/test_parse.py -q"       # a shell call is its command
    assert bash.output.endswith("1 failed") and bash.returncode == 1        # is_error kept


def test_codex_rollout_calls_and_outputs_pair_by_call_id():
    traj = load_trajectory(FIXTURES / "codex_rollout.jsonl")
    assert (traj.source_format, traj.instance_id) == (CODEX_FORMAT, "codex-rollout-1")
    assert traj.task.startswith("Rename helper_fn") and traj.preamble[0].startswith("<environment_context>")
    grep, patch = traj.steps
    assert grep.action == "grep -n helper_fn -r lib"                         # ["bash", "-lc", cmd] -> cmd
    assert grep.output.startswith("lib/util.py:3:def helper_fn(x):")        # the JSON {"output"} unwrapped
    assert patch.action.startswith("apply_patch <<'EOF'\n*** Begin Patch") and "make_helper" in patch.action
    assert patch.thought == "Two uses; patching both." and patch.output.startswith("Success.")


def test_openhands_output_jsonl_holds_one_trajectory_per_line():
    one, two = load_trajectories(FIXTURES / "openhands_output.jsonl")
    assert [one.instance_id, two.instance_id] == ["demo__demo-1", "demo__demo-2"]
    assert one.source_format == OPENHANDS_FORMAT and one.task == "Fix the bug in conf/io.py"
    run, view, finish = one.steps
    assert run.action == "grep -n def conf/io.py" and run.output.startswith("3:def load_config")
    assert view.action == "str_replace_editor view conf/io.py --view_range '[1, 12]'"
    assert json.loads(view.response.split(" ", 1)[1])["command"] == "view"      # the call as the model sent it
    assert "return open(path).read()" in view.output
    assert finish.action == "finish" and finish.output == ""


@needs_samples
def test_openhands_event_list_and_swe_agent_function_calling_samples():
    oh = load_trajectory(SAMPLES / "openhands" / "test_basic.json")
    assert oh.source_format == OPENHANDS_FORMAT and oh.task.startswith("Please create a simple 2048 game")
    assert [s.action.split(" ")[0] for s in oh.steps] == ["str_replace_editor", "finish"]
    assert oh.steps[0].action.startswith("str_replace_editor create /workspace/game_2048.py --file_text <<'FILE_TEXT'\n")
    assert "class Game2048" in oh.steps[0].action and oh.steps[0].output.startswith("--- /workspace/game_2048.py")
    assert not oh.system_prompt_recorded
    fc = load_trajectory(SAMPLES / "swe-agent" / "trajectories_demonstrations_function_calling_simple.traj")
    assert fc.source_format == SWE_AGENT_FORMAT and fc.task.startswith("We're currently solving")
    assert fc.steps[0].action == "find_file missing_colon.py"
    assert fc.steps[0].output.startswith('Found 1 matches for "missing_colon.py"')
    assert fc.steps[1].action == 'open "tests/missing_colon.py"'


@needs_samples
def test_baseline_is_the_recorded_messages_for_mini_swe_agent():
    traj = load_trajectory(SAMPLES / "astropy__astropy-12907.traj.json")
    calls = agent_calls(traj)
    assert len(calls) == len(traj.steps)
    assert [m["role"] for m in calls[0]] == ["system", "user"] and calls[0][1]["content"] == traj.task
    assert calls[2][-1]["content"].startswith("<returncode>")      # the observation exactly as the agent sent it
    assert calls[2][-2]["content"] == traj.steps[1].response


def test_baseline_rebuilt_when_the_log_has_no_prompts():
    traj = load_trajectory(FIXTURES / "claude_code_session.jsonl")
    first, second = agent_calls(traj)
    assert first == [{"role": "user", "content": traj.task}]
    assert second[1:] == [{"role": "assistant", "content": traj.steps[0].response},
                          {"role": "user", "content": traj.steps[0].output}]


def test_folder_search_finds_event_logs_but_not_other_json(tmp_path):
    (tmp_path / "package.json").write_text('{"name": "x", "version": "1"}')
    (tmp_path / "log.jsonl").write_text((FIXTURES / "codex_rollout.jsonl").read_text())
    assert find_trajectories([tmp_path]) == [tmp_path / "log.jsonl"]


def test_cli_reports_every_family_against_the_agent_and_raw(tmp_path, capsys):
    report = tmp_path / "figures.json"
    code = replay_main([str(FIXTURES), "--policy", "ours", "--policy", "codex", "--summary-only",
                        "--json", str(report)])
    out = capsys.readouterr().out
    assert code == 0
    assert "family claude-code" in out and "family openhands" in out and "framing ratio" in out
    figures = json.loads(report.read_text())
    assert set(figures["families"]) == {CLAUDE_CODE_FORMAT, CODEX_FORMAT, MINI_FORMAT, OPENHANDS_FORMAT,
                                        SWE_AGENT_FORMAT}
    assert figures["families"][OPENHANDS_FORMAT]["trajectories"] == 6
    overall = figures["overall"]
    assert set(overall["policies"]) == {"agent", "ours", "codex"}
    agent = overall["policies"]["agent"]
    steps = sum(len(t.steps) for p in find_trajectories([FIXTURES]) for t in load_trajectories(p))
    assert agent["tokens_vs_agent"] == 1.0 and agent["calls"] == steps == 45
    ours = figures["policies"]["ours"]["overall"]
    assert ours["calls"] == agent["calls"]
    assert ours["tokens_vs_agent"] == round(ours["prompt_tokens"] / agent["prompt_tokens"], 4)
    assert overall["framing_ratio"] > 0 and "line_recall" in ours
    assert figures["families"][MINI_FORMAT]["policies"]["agent"]["calls"] == 3     # mini-swe-agent 2.x tool calls


def test_logs_without_a_system_prompt_are_compared_without_l1_on_both_sides(tmp_path, capsys):
    """Claude Code records no system prompt: its figures leave our L1 out, say so, and keep the with-L1 ratio."""
    report = tmp_path / "figures.json"
    code = replay_main([str(FIXTURES / "claude_code_session.jsonl"), str(FIXTURES / "swe_agent_query.traj"),
                        "--policy", "raw", "--json", str(report)])
    out = capsys.readouterr().out
    assert code == 0
    figures = json.loads(report.read_text())
    plain, recorded = figures["families"][CLAUDE_CODE_FORMAT], figures["families"][SWE_AGENT_FORMAT]
    assert plain["baseline_treatment"] == "system prompt not recorded: compared without L1 on both sides"
    assert recorded["baseline_treatment"].startswith("system prompt recorded")
    assert figures["overall"]["system_prompt_not_recorded"] == 1
    raw = plain["policies"]["raw"]
    assert raw["tokens_vs_agent_with_l1"] > raw["tokens_vs_agent"] > 0       # our L1 is the difference
    assert raw["billed_vs_agent_with_l1"] > raw["billed_vs_agent"]
    same = recorded["policies"]["raw"]
    assert same["tokens_vs_agent_with_l1"] == same["tokens_vs_agent"]       # nothing left out where recorded
    per = figures["policies"]["raw"]["trajectories"]["cc-session-1"]
    assert per["baseline_treatment"].startswith("system prompt not recorded")
    assert "system prompt not recorded: compared without L1 on both sides" in out
    heads = [line.split() for line in out.splitlines() if "tokens vs agent," in line]     # titles on two lines
    assert heads and all(" ".join(words[-6:]) == "tokens vs agent, billed vs agent," for words in heads)
    assert "with our L1" in out
