"""Loaders on the shapes real logs take (small hand-written fixtures shaped like public OpenHands, SWE-agent,
Claude Code and Codex files): every event kind read or deliberately skipped, and the baseline rebuilt from
what the agent itself kept (condensations, recorded queries). One test per shape."""

import json
import re
from pathlib import Path

import pytest

from contextual.core.context.command_kind import kind_of
from contextual.core.context.digest import digest
from contextual.core.replay.baseline import agent_calls
from contextual.core.replay.load_events import TASK_NOT_RECORDED, action_text
from contextual.core.replay.loaders import (CLAUDE_CODE_FORMAT, CODEX_FORMAT, MINI_FORMAT, OPENHANDS_FORMAT, TrajectoryError,
                                 find_trajectories, iter_trajectories, load_trajectories, load_trajectory)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "trajectories"


def test_openhands_events_every_kind_read_or_skipped():
    traj = load_trajectory(FIXTURES / "openhands_events.json")
    assert traj.source_format == OPENHANDS_FORMAT and traj.system_prompt_recorded
    assert traj.task == "Fix the rounding bug in calc/money.py"
    # system prompt, then the workspace context the recall observation added (not its log line)
    assert traj.preamble[0].startswith("You are OpenHands agent") and '"execute_bash"' in traj.preamble[1]
    assert "Run tests with pytest -q." in traj.preamble and "Prefer Decimal for money." in traj.preamble
    assert "Added workspace context" not in traj.preamble
    run, view, edit, ipython, think, ask, finish = traj.steps     # state changes, null and unknown kinds skipped
    assert run.action == "grep -n round calc/money.py" and run.returncode == 0
    assert run.output == ("12:    return round(amount, 2)\n[Current working directory: /workspace/calc]\n"
                          "[Python interpreter: /usr/bin/python]\n[Command finished with exit code 0]")
    assert view.action == "str_replace_editor view /workspace/calc/calc/money.py --view_range '[10, 13]'"
    assert "    12\t    return round(amount, 2)" in view.output          # cat -n numbering kept
    assert edit.action.startswith("str_replace_editor str_replace /workspace/calc/calc/money.py --old_str ")
    assert "--new_str <<'NEW_STR'\n    q = Decimal('0.01')\n" in edit.action and edit.returncode == 1
    assert edit.output.endswith("\n[Error occurred in processing last action]")
    assert ipython.action == "execute_ipython_cell --code 'print(round(2.675, 2))'" and ipython.output.startswith("2.67")
    assert think.action.startswith("think --thought ") and think.output == "Your thought has been logged."
    assert ask.thought == "Should I also change to_dollars?" and ask.output == "Yes, both."   # the user's reply
    assert finish.action.startswith("finish --message 'Rounding fixed")
    assert json.loads(finish.response.split(" ", 1)[1])["task_completed"] == "true"


def test_openhands_condensation_drops_forgotten_steps_from_the_baseline():
    traj = load_trajectory(FIXTURES / "openhands_events.json")
    (condensation,) = traj.condensations
    assert condensation.before_step == 4 and condensation.dropped == {0, 1}     # events 5..8: run and view
    calls = agent_calls(traj)
    before, after = calls[3], calls[4]
    assert any(traj.steps[0].output == m["content"] for m in before)
    assert not any(traj.steps[0].output == m["content"] or traj.steps[1].output == m["content"] for m in after)
    assert {"role": "user", "content": "The agent found round() at calc/money.py:12."} in after
    assert any(traj.steps[3].output == m["content"] for m in after)            # kept steps stay


def test_openhands_legacy_pairs_and_flat_events():
    pairs, flat = load_trajectories(FIXTURES / "openhands_output_legacy.jsonl")
    assert (pairs.instance_id, pairs.task) == ("acme__calc-7", "Make add() accept strings.")
    assert [s.action for s in pairs.steps] == ["cat calc/ops.py", "finish"]     # empty defaults not sent
    assert pairs.steps[0].output == "def add(a, b):\n    return a + b" and pairs.steps[0].returncode == 0
    assert pairs.steps[0].thought == "Read ops first." and not pairs.system_prompt_recorded
    assert flat.task == "Add a LICENSE file."
    assert [s.action for s in flat.steps] == ["touch LICENSE",
                                              """execute_ipython_cell --code "open('LICENSE','w').write('MIT')\"""",
                                              "finish"]
    assert flat.steps[1].output.startswith("3\n[Jupyter")


def test_openhands_v1_sdk_events():
    traj = load_trajectory(FIXTURES / "openhands_v1_events.json")
    assert traj.system_prompt_recorded and traj.preamble[0] == "You are OpenHands agent, a helpful AI assistant."
    assert '"terminal"' in traj.preamble[1]                                  # the tool schemas it sent
    ls, view, answer = traj.steps
    assert ls.action == "ls pkg/tests" and ls.thought == "Let me look." and ls.returncode == 0
    assert ls.output == "test_core.py\ntest_io.py\n[Current working directory: /w]\n[Command finished with exit code 0]"
    assert view.action == "file_editor view /w/pkg/tests/test_io.py" and view.returncode == 1
    assert view.output == "File not found: /w/pkg/tests/test_io.py"          # AgentErrorEvent answers the call
    assert answer.response == "pkg/tests has test_core.py and test_io.py."
    assert traj.condensations[0].dropped == {0} and traj.condensations[0].before_step == 2


def test_openhands_v1_older_events_without_tool_call_copies(tmp_path):
    events = json.loads((FIXTURES / "openhands_v1_events.json").read_text())
    for event in events:           # early V1: no tool_call copy; an ExecuteBashObservation with `output`
        event.pop("tool_call", None)
        if event["kind"] == "ObservationEvent":
            event["observation"] = {"kind": "ExecuteBashObservation", "output": "test_core.py\ntest_io.py"}
    (tmp_path / "v1.json").write_text(json.dumps(events))
    ls, view, _ = load_trajectory(tmp_path / "v1.json").steps
    assert (ls.action, ls.output) == ("ls pkg/tests", "test_core.py\ntest_io.py")
    assert view.action == "file_editor view /w/pkg/tests/test_io.py"          # from the parsed action


def test_claude_code_sidechains_thinking_compaction_and_replies():
    traj = load_trajectory(FIXTURES / "claude_code_compacted.jsonl")
    assert traj.source_format == CLAUDE_CODE_FORMAT and not traj.system_prompt_recorded
    assert traj.task == "Dates like 2024-02-30 should be rejected in util/dates.py"     # isMeta skipped
    grep, edit, reply, write = traj.steps                                              # sidechain skipped
    assert grep.action == ("Grep util --pattern 'def parse_date' --output_mode content -n true\n"
                           "Glob --pattern 'util/*.py'")                   # two calls of one reply: one step
    assert grep.output == "util/dates.py:4:def parse_date(text):\n/repo/util/dates.py"
    assert grep.thought == "Searching for the parser." and "secret plan" not in grep.response
    assert edit.action.startswith("Edit /repo/util/dates.py --old_string ")
    assert edit.output == "The file /repo/util/dates.py has been updated."
    assert reply.response == "The parser now validates dates. Want a test too?" and reply.output == "Yes, add one."
    assert "API Error" not in "".join(s.response for s in traj.steps)            # a line Claude Code made up
    assert write.action.startswith("Write /repo/tests/test_dates.py --content <<'CONTENT'\nfrom util.dates")
    (compaction,) = traj.condensations
    assert compaction.before_step == 2 and compaction.dropped == {0, 1}
    assert agent_calls(traj)[2] == [{"role": "user", "content": traj.task},
                                    {"role": "user", "content": compaction.summary}]


def test_codex_rollout_every_item_kind():
    traj = load_trajectory(FIXTURES / "codex_rollout_compacted.jsonl")
    assert traj.source_format == CODEX_FORMAT and traj.instance_id == "codex-rollout-2"
    assert traj.system_prompt_recorded and traj.preamble[0] == "You are Codex, a coding agent based on GPT-5."
    assert "Always run the tests." not in traj.preamble                  # session_meta's copy of AGENTS.md ...
    assert sum("Always run the tests." in p for p in traj.preamble) == 1    # ... counted once, as sent
    assert any(p.startswith("<permissions instructions>") for p in traj.preamble)    # developer message
    assert traj.task == "Why does slugify drop digits?"
    rg, sed, patch, test, search, answer = traj.steps
    assert rg.action == "rg -n 'def slugify' -S ." and "text/slug.py:8:def slugify" in rg.output
    assert sed.action == "sed -n '1,20p' text/slug.py" and sed.output.startswith("import re")   # {content, success}
    assert patch.action.startswith("apply_patch <<'EOF'\n*** Begin Patch") and patch.output.startswith("Success.")
    assert patch.thought.startswith("The pattern [^a-z-] removes digits")
    assert test.action == "python -m pytest -q tests/test_slug.py" and test.output == "1 passed in 0.02s"
    assert search.action == "web_search --type search --query 'python slugify digits'"
    assert answer.response == "Fixed: digits are kept now."
    assert traj.condensations[0].dropped == {0, 1} and traj.condensations[0].before_step == 2


def test_swe_agent_recorded_queries_are_the_baseline():
    traj = load_trajectory(FIXTURES / "swe_agent_query.traj")
    calls = agent_calls(traj)
    assert [len(c) for c in calls] == [2, 4, 6]
    assert calls[2][3]["content"] == "Old environment output: (3 lines omitted)"     # its history processor
    assert 'str_replace_editor {"command":"view"' in calls[1][2]["content"].replace("\n", " ")   # tool call counted
    assert traj.steps[0].response == "Open the file.\nstr_replace_editor view /testbed/dates.py"


def test_non_shell_tools_become_one_cheap_command():
    assert action_text("str_replace_editor", {"command": "view", "path": "/a.py"}) == "str_replace_editor view /a.py"
    assert action_text("Read", {"file_path": "/a.py", "offset": 10}) == "Read /a.py --offset 10"
    assert action_text("Bash", {"command": "ls -la"}) == "ls -la"
    assert action_text("shell", {"command": ["bash", "-lc", "cat x"]}) == "cat x"
    assert action_text("shell", {"command": ["ls", "-la", "a b"]}) == "ls -la 'a b'"
    text = action_text("Write", {"file_path": "/a", "content": "x = 1\nCONTENT\n"})
    assert text == "Write /a --content <<'CONTENT_END'\nx = 1\nCONTENT\n\nCONTENT_END"   # delimiter not in the text


@pytest.mark.parametrize("name, content, fragment", [
    ("empty.jsonl", "", "empty file"),
    ("package.json", '{"name": "x", "version": "1"}', "not a trajectory"),
    ("notes.jsonl", '{"event": "x"}\n{"event": "y"}\n', "not a trajectory"),
    ("bad.jsonl", '{"type": "user"}\n{oops\n', "line 2 is not JSON"),
])
def test_a_file_that_is_not_a_trajectory_is_one_line(tmp_path, name, content, fragment):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(TrajectoryError) as info:
        load_trajectories(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value) and fragment in str(info.value)


def test_folder_finds_output_jsonl_whose_history_comes_after_a_long_patch(tmp_path):
    row = {"instance_id": "x__y-1", "test_result": {"git_patch": "+" * 100_000}, "instruction": "Fix it",
           "history": json.loads((FIXTURES / "openhands_v1_events.json").read_text())}
    (tmp_path / "output.jsonl").write_text(json.dumps(row) + "\n")
    (tmp_path / "metadata.json").write_text('{"agent_class": "CodeActAgent"}')
    assert find_trajectories([tmp_path]) == [tmp_path / "output.jsonl"]
    assert load_trajectory(tmp_path / "output.jsonl").instance_id == "x__y-1"


def test_output_jsonl_is_read_a_line_at_a_time_and_a_bad_line_costs_that_instance(tmp_path):
    lines = (FIXTURES / "openhands_output.jsonl").read_text().splitlines()
    path = tmp_path / "output.jsonl"
    path.write_text("\n".join([lines[0], '{"instance_id": "cut", "history": [', lines[1]]) + "\n")
    first, bad, second = iter_trajectories(path)
    assert (first.instance_id, second.instance_id) == ("demo__demo-1", "demo__demo-2")
    assert isinstance(bad, TrajectoryError) and str(bad).startswith(f"{path}: line 2 is not JSON")
    with pytest.raises(TrajectoryError, match="line 2"):
        load_trajectories(path)                      # the all-or-nothing reader still says where


@pytest.mark.parametrize("action, output", [
    ("str_replace_editor view /w/a.py", "Here's the result of running `cat -n` on /w/a.py:\n"
     + "\n".join(f"{i:6}\t{'def f%d(x):' % i if i % 10 == 0 else '    y = x + %d' % i}" for i in range(1, 80))),
    ("open /w/a.py", "[File: /w/a.py (79 lines total)]\n"
     + "\n".join(f"{i}:{'def f%d(x):' % i if i % 10 == 0 else '    y = x + %d' % i}" for i in range(1, 80))),
    ("Read /w/a.py", "\n".join(f"{i:6}\u2192{'def f%d(x):' % i if i % 10 == 0 else '    y = x + %d' % i}"
                               for i in range(1, 80))),
], ids=["openhands-view", "swe-agent-open", "claude-code-read"])
def test_every_family_file_view_is_stored_as_a_file_view(action, output):
    """What the loaders play is what the stored forms understand: a view keeps its definitions with the
    file's own line numbers, not a second count in front of them."""
    assert kind_of(action) == "view"
    stored = digest(action, output)
    body = stored.splitlines()[1:]
    assert any(line.endswith("def f40(x):") and "40" in line for line in body)
    assert not any(re.match(r"\d+: +\d+[:\t\u2192]", line) for line in body)      # no "3: 2:    y = …"


def test_mini_swe_agent_2_tool_calls_and_exit_message():
    traj = load_trajectory(FIXTURES / "mini_toolcall.traj.json")
    assert traj.source_format == MINI_FORMAT and traj.instance_id == "text__slug-2"
    grep, pair, submit = traj.steps                                    # the `exit` message is no model call
    assert grep.action == "grep -rn 'def slugify' text" and grep.thought == "find slugify first."
    assert grep.output == "text/slug.py:8:def slugify(value):" and grep.returncode == 0
    assert pair.action == "sed -n '1,12p' text/slug.py\npython -c 'import text.slug'"    # one turn, two calls
    assert pair.output.startswith("import re\n") and "ModuleNotFoundError" in pair.output and pair.returncode == 1
    assert pair.output.endswith("Every response MUST include at least one tool call.")   # what it read next
    assert submit.response == "THOUGHT: done.\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"
    calls = agent_calls(traj)
    assert len(calls) == 3 and calls[1][2]["content"].endswith('bash {"command": "grep -rn \'def slugify\' text"}')
    assert calls[2][-1]["role"] == "user"                             # tool and user messages, as recorded


def test_openhands_calls_of_one_reply_are_one_step(tmp_path):
    events = json.loads((FIXTURES / "openhands_events.json").read_text())
    for event in events:                  # the grep and the view came back in one model response
        if event.get("id") in (5, 6, 7, 8):
            event["tool_call_metadata"]["model_response"]["id"] = "chatcmpl-parallel"
    path = tmp_path / "parallel.json"
    path.write_text(json.dumps(events))
    traj = load_trajectory(path)
    both = traj.steps[0]
    assert both.action.startswith("grep -n round calc/money.py\nstr_replace_editor view /workspace/calc/calc/money.py")
    assert "[Command finished with exit code 0]\nHere's the result of running `cat -n`" in both.output
    assert len(traj.steps) == 6 and traj.condensations[0].dropped == {0} and traj.condensations[0].before_step == 3



@pytest.mark.parametrize("drop", ["trajectory", "history"])
def test_swe_agent_falls_back_when_one_record_is_missing(tmp_path, drop):
    data = json.loads((FIXTURES / "swe_agent_query.traj").read_text())
    data[drop] = []
    path = tmp_path / "x.traj"
    path.write_text(json.dumps(data))
    traj = load_trajectory(path)
    assert traj.task.endswith("Fix is_leap in dates.py") and len(traj.steps) == 3
    assert traj.steps[1].action.startswith("str_replace_editor str_replace /testbed/dates.py")


def test_openhands_v1_conversation_folder_is_one_trajectory(tmp_path):
    events = json.loads((FIXTURES / "openhands_v1_events.json").read_text())
    folder = tmp_path / "runs" / "conv-42" / "events"
    folder.mkdir(parents=True)
    for number, event in enumerate(events):
        (folder / f"event-{number:05d}-{event['id']}.json").write_text(json.dumps(event))
    (tmp_path / "runs" / "conv-42" / "base_state.json").write_text('{"id": "conv-42", "agent": {}}')
    (tmp_path / "runs" / "llm_completions").mkdir()
    (tmp_path / "runs" / "llm_completions" / "x.json").write_text('{"messages": [], "source": "x"}')
    assert find_trajectories([tmp_path / "runs"]) == [folder]
    traj = load_trajectory(folder)
    assert traj.instance_id == "conv-42" and [s.action for s in traj.steps][:1] == ["ls pkg/tests"]


def test_openhands_long_observations_are_cut_as_openhands_cut_them(tmp_path):
    events = json.loads((FIXTURES / "openhands_events.json").read_text())
    for event in events:
        if event.get("cause") == 5:
            event["content"] = "x" * 40_000 + "\nlast line"
    (tmp_path / "long.json").write_text(json.dumps(events))
    run = load_trajectory(tmp_path / "long.json").steps[0]
    assert len(run.output) < 30_100 and "\n[... Observation truncated due to length ...]\n" in run.output
    assert run.output.endswith("[Command finished with exit code 0]")          # the tail the agent saw
    row = {"instance_id": "a__b-1", "instruction": "Fix it", "history": events,
           "metadata": {"llm_config": {"max_message_chars": 1_000}}}         # the run's own setting wins
    (tmp_path / "output.jsonl").write_text(json.dumps(row) + "\n")
    assert len(load_trajectory(tmp_path / "output.jsonl").steps[0].output) < 1_100


def test_codex_task_from_the_ui_copy_when_no_response_item_has_it(tmp_path):
    rows = [json.loads(line) for line in (FIXTURES / "codex_rollout_compacted.jsonl").read_text().splitlines()]
    rows = [r for r in rows if not (r["type"] == "response_item" and r["payload"].get("role") == "user"
                                    and "slugify" in str(r["payload"].get("content")))]
    (tmp_path / "rollout.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert load_trajectory(tmp_path / "rollout.jsonl").task == "Why does slugify drop digits?"


def test_claude_code_subagent_file_is_read_as_its_own_session(tmp_path):
    rows = [json.loads(line) for line in (FIXTURES / "claude_code_session.jsonl").read_text().splitlines()]
    for row in rows:
        row["isSidechain"] = True
    (tmp_path / "agent-1a2b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    traj = load_trajectory(tmp_path / "agent-1a2b.jsonl")
    assert traj.task == "Fix the off-by-one in src/parse.py" and len(traj.steps) == 2


def test_codex_exec_json_stream():
    traj = load_trajectory(FIXTURES / "codex_exec.jsonl")
    assert (traj.instance_id, traj.source_format, traj.system_prompt_recorded) == ("t-9", CODEX_FORMAT, False)
    assert traj.task == TASK_NOT_RECORDED                       # the stream starts after the prompt
    ls, change, mcp, done = traj.steps                            # reasoning and todo_list skipped
    assert (ls.action, ls.output, ls.returncode, ls.thought) == ("ls -la src", "main.rs\nlib.rs\n", 0,
                                                                  "Listing first.")
    assert change.action.startswith("file_change --changes ") and "src/lib.rs" in change.action
    assert mcp.action == "docs.search --arguments '{\"q\": \"serde\"}'" and "serde 1.0" in mcp.output
    assert done.response == "Done."


def test_claude_code_stream_json_without_the_prompt_gets_a_placeholder_task(tmp_path):
    rows = [json.loads(line) for line in (FIXTURES / "claude_code_session.jsonl").read_text().splitlines()]
    rows = [r for r in rows if not (r.get("type") == "user" and isinstance(r["message"]["content"], str))]
    (tmp_path / "stream.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    traj = load_trajectory(tmp_path / "stream.jsonl")
    assert traj.task == TASK_NOT_RECORDED and len(traj.steps) == 2


def test_claude_code_reads_the_branch_that_ends_the_session(tmp_path):
    rows = [json.loads(line) for line in (FIXTURES / "claude_code_session.jsonl").read_text().splitlines()]
    first = json.loads(json.dumps(rows[1]))               # the prompt as first sent, then edited and sent again
    first["uuid"], first["message"]["content"] = "u1-old", "Fix src/old.py"
    answer = json.loads(json.dumps(rows[2]))
    answer["uuid"], answer["parentUuid"] = "u2-old", "u1-old"
    answer["message"]["content"][1]["input"] = {"file_path": "src/old.py"}
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [rows[0], first, answer] + rows[1:]))
    traj = load_trajectory(tmp_path / "s.jsonl")
    assert traj.task == "Fix the off-by-one in src/parse.py"
    assert [s.action for s in traj.steps] == ["Read src/parse.py", "python -m pytest tests/test_parse.py -q"]
    assert len(load_trajectory(FIXTURES / "claude_code_compacted.jsonl").steps) == 4     # no fork: file order
