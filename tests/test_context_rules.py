"""One test per rule of seed 002 (A1–A8, C1–C8, D1–D7, E1–E5), each named after its rule.

Engine-level rules run the real Engine against the fake OpenAI/Anthropic servers on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from contextual.core.agent import Engine
from contextual.core.context import compressor
from contextual.core.context.builder import ContextBuilder
from contextual.core.context.history import HistoryManager, apply_compaction, plan_compaction, rounds
from contextual.core.context.pairing import normalize
from contextual.core.context.preprocess import REMINDER, mentioned_paths, preprocess
from contextual.core.events import CompactionFinished, ToolFinished
from contextual.core.messages import Message
from contextual.core.prompt import SUMMARY_PREFIX
from contextual.core.react import ReactFormatError, parse_reply
from tests.engine_helpers import engine_with, finish, finished, make_config, read_action, run

TOOLS = frozenset({"Read", "Bash", "Edit", "Grep", "LS", "Glob", "Write", "MultiEdit", "TodoWrite"})


def _round(i: int, tool_output: str = "x") -> list[Message]:
    call = f"c{i}"
    return [Message("user", f"question {i}"),
            Message("assistant", f"Thought: t{i}\nAction: Read[{{}}]", meta={"call_id": call, "tool_name": "Read"}),
            Message("tool", json.dumps({"status": "success", "data": tool_output}), meta={"call_id": call}),
            Message("assistant", f"Thought: ok\nAction: Finish[answer {i}]", meta={"final": True})]


# ---- A1: layers and order ------------------------------------------------------------------------
async def test_a1_layers_in_order_l1_l2_l3_input_scratchpad_todo(tmp_path: Path):
    (tmp_path / "CODE_LAW.md").write_text("Always use tabs.")
    (tmp_path / "a.py").write_text("print(1)\n")
    script = [finish("first"), read_action("a.py"),
              'Thought: plan\nAction: TodoWrite[{"todos": [{"content": "check a", "status": "in_progress"}]}]',
              finish("second")]
    async with engine_with(tmp_path, script) as (engine, srv):
        await run(engine, "hello")
        await run(engine, "read a.py please")
    last = srv.requests[-1]["messages"]
    roles = [m["role"] for m in last]
    assert roles[0] == "system" and last[0]["content"].startswith("You are Contextual")
    assert last[1]["role"] == "system" and "Always use tabs." in last[1]["content"]
    # L3 (the first round), then the current input, then this turn's steps, then the todo recap last.
    texts = [m["content"] for m in last]
    i_l3 = texts.index("hello")
    i_input = texts.index("read a.py please")
    assert i_l3 < i_input
    assert texts[i_input + 1].startswith("Thought: look at a.py")
    assert texts[i_input + 2].startswith("Observation: ")
    assert "check a" in texts[-1] and "<system-reminder>" in texts[-1]


async def test_a1_l1_is_byte_identical_across_calls(tmp_path: Path):
    (tmp_path / "a.py").write_text("x = 1\n")
    async with engine_with(tmp_path, [read_action("a.py"), finish(), read_action("a.py"), finish()]) as (engine, srv):
        await run(engine, "one")
        (tmp_path / "CODE_LAW.md").write_text("rules changed between turns")
        await run(engine, "two")
    systems = {r["messages"][0]["content"] for r in srv.requests}
    assert len(systems) == 1


# ---- A2 / D3: full observations this turn, stored ones in history, written at once -------------------
async def test_a2_model_sees_full_observation_history_keeps_stored(tmp_path: Path):
    big = "\n".join(f"line {i}" for i in range(900))
    (tmp_path / "big.txt").write_text(big)
    async with engine_with(tmp_path, [read_action("big.txt"), finish()]) as (engine, srv):
        events = await run(engine, "read big.txt")
    tool = [e for e in events if isinstance(e, ToolFinished)][0]
    sent = srv.requests[1]["messages"][-1]["content"]
    assert sent == "Observation: " + tool.full_text             # the model saw the full result
    stored = [m for m in engine.history.messages if m.role == "tool"][0]
    assert stored.content == tool.stored and len(stored.content) < len(tool.full_text)
    assert stored.full == tool.full_text


async def test_a2_each_step_is_written_to_history_before_the_next_call(tmp_path: Path):
    (tmp_path / "a.py").write_text("x = 1\n")
    seen: list[int] = []

    def second_call(request):
        seen.append(len(holder[0].history.messages))
        return finish()
    holder: list[Engine] = []
    async with engine_with(tmp_path, [read_action("a.py"), second_call]) as (engine, srv):
        holder.append(engine)
        await run(engine, "go")
    assert seen == [3]        # user, assistant Thought/Action, tool (stored) — before the second call


async def test_d3_current_user_input_is_sent_once_as_input_not_in_l3(tmp_path: Path):
    (tmp_path / "a.py").write_text("x = 1\n")
    async with engine_with(tmp_path, [read_action("a.py"), finish()]) as (engine, srv):
        await run(engine, "unique-question-text")
    for request in srv.requests:
        texts = [m["content"] for m in request["messages"]]
        assert texts.count("unique-question-text") == 1


# ---- A3 / C1: the compression table ---------------------------------------------------------------
def _stored(tool: str, args: dict, data, status="success", **extra) -> dict:
    result = {"status": status, "data": data, "text": "TEXT", "stats": {"ms": 1}, "context": {"args": 1}, **extra}
    return json.loads(compressor.stored_text(tool, args, result))


def test_a3_read_keeps_at_most_500_lines_of_the_range():
    content = "\n".join(f"{i:6}\tline" for i in range(1, 801))
    out = _stored("Read", {"file_path": "f"}, {"path": "f", "content": content, "start_line": 1, "end_line": 800,
                                               "total_lines": 800, "mtime": 1.0})
    assert len(out["data"]["content"].splitlines()) == 500
    assert "omitted" in out["data"] and out["data"]["mtime"] == 1.0


def test_a3_grep_keeps_5_matching_lines_with_file_and_line_plus_counts():
    matches = [{"path": f"src/m{i}.py", "line": i, "text": f"hit {i}"} for i in range(12)]
    out = _stored("Grep", {"pattern": "hit"}, {"pattern": "hit", "matches": matches, "match_count": 12, "file_count": 12})
    assert out["data"]["matches"] == [f"src/m{i}.py:{i}: hit {i}" for i in range(5)]
    assert out["data"]["match_count"] == 12 and "7 more" in out["data"]["omitted"]


def test_a3_ls_and_glob_keep_counts_and_the_first_entries():
    entries = [f"f{i}.py" for i in range(40)]
    ls = _stored("LS", {}, {"path": ".", "entries": entries, "count": 40, "dirs": 0, "files": 40})
    glob = _stored("Glob", {"pattern": "*"}, {"pattern": "*", "paths": entries, "count": 40})
    assert ls["data"]["count"] == 40 and len(ls["data"]["entries"]) == 10
    assert glob["data"]["count"] == 40 and len(glob["data"]["paths"]) == 10 and "30 more" in glob["data"]["omitted"]


def test_a3_edit_keeps_a_change_summary_and_a_large_diff_keeps_its_summary_only():
    small = _stored("Edit", {}, {"path": "a.py", "replacements": 1, "first_line": 3, "last_line": 4,
                                 "diff": "@@ -3 +3 @@\n-a\n+b", "lines_added": 1, "lines_removed": 1})
    assert small["data"]["diff"].startswith("@@") and small["data"]["applied"] is True
    big_diff = "\n".join(f"+line {i}" for i in range(400))
    big = _stored("MultiEdit", {}, {"path": "a.py", "edits_applied": 3, "diff": big_diff, "lines_added": 400})
    assert big["data"]["diff"] == "(large diff: summary only)" and big["data"]["lines_added"] == 400


def test_a3_write_keeps_the_first_20_to_50_lines_of_a_new_file():
    head = "\n".join(f"row {i}" for i in range(50))
    out = _stored("Write", {}, {"path": "n.py", "created": True, "lines": 300, "bytes": 9000, "head": head})
    assert 20 <= len(out["data"]["snippet"].splitlines()) <= 50 and out["data"]["created"] is True


def test_a3_bash_keeps_a_summary_and_the_last_20_stderr_lines():
    stderr = "\n".join(f"err {i}" for i in range(100))
    stdout = "\n".join(f"out {i}" for i in range(300))
    out = _stored("Bash", {"command": "make"}, {"command": "make", "exit_code": 2, "stdout": stdout, "stderr": stderr})
    assert out["data"]["stderr_tail"].splitlines() == [f"err {i}" for i in range(80, 100)]
    assert out["data"]["exit_code"] == 2 and "300 lines" in out["data"]["stdout_summary"]
    assert len(out["data"]["stdout_summary"]) < len(stdout)


def test_a3_every_form_that_cuts_says_how_to_see_the_rest_again():
    lines = "\n".join(f"{i:6}\tline" for i in range(1, 801))
    entries = [f"f{i}.py" for i in range(40)]
    cut = [
        _stored("Read", {"file_path": "f"}, {"path": "f", "content": lines, "start_line": 1, "end_line": 800}),
        _stored("Grep", {"pattern": "hit"}, {"pattern": "hit", "matches": [{"path": "a", "line": i, "text": "hit"}
                                                                           for i in range(12)]}),
        _stored("LS", {}, {"path": ".", "entries": entries}),
        _stored("Glob", {"pattern": "*"}, {"pattern": "*", "paths": entries}),
        _stored("Write", {}, {"path": "n.py", "lines": 300, "head": lines}),
    ]
    for out in cut:
        assert " again" in out["data"]["omitted"] or "Read the file" in out["data"]["omitted"], out["data"]["omitted"]


def test_a3_todowrite_keeps_only_the_recap():
    out = _stored("TodoWrite", {}, {"todos": [{"content": "a", "status": "pending"}] * 30, "recap": "Todos: 0/30"})
    assert out["data"] == {"recap": "Todos: 0/30"}


def test_a3_unknown_tool_gets_the_default_head_and_tail_row():
    out = _stored("Mystery", {}, "A" * 5000 + "Z" * 5000)
    assert out["data"].startswith("AAA") and out["data"].endswith("ZZZ") and "truncated" in out["data"]


def test_c1_stored_form_keeps_status_and_whole_error_and_drops_text_stats_context():
    error = {"code": "not_found", "message": "x.py does not exist " * 50}
    out = _stored("Read", {"file_path": "x.py"}, None, status="error", error=error)
    assert out == {"status": "error", "error": error}
    ok = _stored("LS", {}, {"path": ".", "entries": ["a"], "count": 1})
    assert set(ok) == {"status", "data"}


# ---- A4 / D1 / D2: rounds, pairs, summaries ------------------------------------------------------
def test_d1_a_round_starts_at_a_user_message_and_an_interrupted_round_is_still_a_round():
    msgs = _round(1) + [Message("user", "interrupted one"),
                        Message("assistant", "Thought: x\nAction: Read[{}]", meta={"call_id": "zz", "tool_name": "Read"})]
    assert [len(r) for r in rounds(msgs)] == [4, 2]


def test_a4_keeps_at_least_the_last_10_rounds_and_cuts_between_whole_rounds():
    msgs = [m for i in range(14) for m in _round(i)]
    plan = plan_compaction(msgs, keep_rounds=10)
    assert plan.rounds_archived == 4 and plan.rounds_kept == 10
    assert plan.kept[0].role == "user" and plan.kept[0].content == "question 4"
    assert plan_compaction(msgs[:40], keep_rounds=10) is None


def test_a4_tool_call_and_result_pairs_are_never_split():
    msgs = [m for i in range(12) for m in _round(i)]
    plan = plan_compaction(msgs, keep_rounds=10)
    for part in (plan.archive, plan.kept):
        calls = {m.call_id for m in part if m.role == "assistant" and m.call_id}
        results = {m.call_id for m in part if m.role == "tool"}
        assert calls == results


def test_a4_summaries_are_never_compressed_again_only_appended():
    history = HistoryManager([m for i in range(12) for m in _round(i)])
    first = Message("summary", "S1")
    history.messages = apply_compaction(history.messages, first, history.plan(10).kept[0].id, ())
    history.messages.extend(m for i in range(12, 15) for m in _round(i))
    plan = history.plan(10)
    assert all(m.role != "summary" for m in plan.archive)
    history.messages = apply_compaction(history.messages, Message("summary", "S2"), plan.kept[0].id, ())
    assert [m.content for m in history.summaries] == ["S1", "S2"]
    assert history.messages[0].content == "S1" and history.messages[1].content == "S2"


def test_d2_normalize_adds_aborted_result_and_drops_orphan_results():
    msgs = [Message("user", "q"),
            Message("assistant", "Thought: a\nAction: Read[{}]", meta={"call_id": "c1", "tool_name": "Read"}),
            Message("tool", "{}", meta={"call_id": "ghost"})]
    out = normalize(msgs)
    assert [m.role for m in out] == ["user", "assistant", "tool"]
    assert json.loads(out[2].content)["error"]["code"] == "aborted" and out[2].call_id == "c1"


# ---- A5 / C2 / E2: summary is a system message in L3 ----------------------------------------------
def test_a5_summary_is_a_system_message_in_l3_introduced_as_earlier_work(tmp_path: Path):
    builder = ContextBuilder("L1", tmp_path)
    built = builder.build([Message("summary", "## 📌 Archived Session Summary"), *_round(1)], [], "now",
                          limit=100_000)
    summary = built.messages[1]
    assert summary.role == "summary" and summary.layer == "L3"
    assert summary.content.startswith(SUMMARY_PREFIX)
    from contextual.core.prompt import as_wire_dicts
    assert as_wire_dicts(built.messages)[1]["role"] == "system"


# ---- A6 / C7 / E5: the trigger --------------------------------------------------------------------
async def test_a6_trigger_uses_last_usage_plus_input_estimate(tmp_path: Path):
    async with engine_with(tmp_path, [], context_window=100_000) as (engine, srv):
        engine.history.messages = [m for i in range(12) for m in _round(i)]
        engine.prompt.usage.last = 79_900
        assert engine.compaction_due("a" * 300).estimate == 79_900 + 100
        assert engine.compaction_due("a" * 300).due          # 80,000 >= 0.8 * 100,000
        assert not engine.compaction_due("a" * 297).due      # 79,999
        view = engine.next_prompt("a" * 300)                 # every display reads the same decision
        assert (view.trigger.estimate, view.trigger.threshold, view.trigger.due) == (80_000, 80_000, True)


async def test_a6_needs_at_least_three_messages(tmp_path: Path):
    async with engine_with(tmp_path, [], context_window=1000) as (engine, srv):
        engine.history.messages = _round(1)[:2]
        engine.prompt.usage.last = 5000
        assert not engine.compaction_due("x").due


def test_e5_threshold_is_0_8_of_the_configured_window(tmp_path: Path):
    assert make_config(tmp_path, "http://x").threshold == 160_000
    assert make_config(tmp_path, "http://x", context_window=128_000).threshold == int(0.8 * 128_000)


# ---- A7 / C3 / E4: @file reminders ---------------------------------------------------------------
def test_a7_mention_appends_the_exact_reminder_inside_the_user_message(tmp_path: Path):
    (tmp_path / "src" / "utils").mkdir(parents=True)
    (tmp_path / "src/utils/auth.ts").write_text("x")
    out = preprocess("look at @src/utils/auth.ts.", tmp_path)
    assert out == ("look at @src/utils/auth.ts.\n\n<system-reminder>\nThe user mentioned @src/utils/auth.ts.\n"
                   "You MUST read this file with the Read tool before answering.\n</system-reminder>")


def test_a7_preceding_alphanumeric_is_not_a_mention_and_missing_files_are_ignored(tmp_path: Path):
    (tmp_path / "a.py").write_text("x")
    assert preprocess("mail me@a.py or @nope.py", tmp_path) == "mail me@a.py or @nope.py"


def test_a7_a_chinese_character_before_the_at_sign_still_makes_a_mention(tmp_path: Path):
    """The seed's letters and digits are its regex's ([a-zA-Z0-9]): str.isalnum is true of every CJK character,
    so "请看@a.py" (no space, as Chinese is written) had no reminder at all."""
    (tmp_path / "a.py").write_text("x")
    assert mentioned_paths("请看@a.py，谢谢", tmp_path) == ["a.py"]
    assert mentioned_paths("mail me@a.py or x1@a.py", tmp_path) == []


def test_a7_a_folder_gets_no_read_reminder(tmp_path: Path):
    """The reminder tells the model to Read the file, and Read refuses a folder ("is a directory")."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "b.py").write_text("x")
    assert mentioned_paths("look in @src/ and @src, then @src/b.py", tmp_path) == ["src/b.py"]


def test_e4_regex_and_order_dedup_max_5_and_more_line(tmp_path: Path):
    for i in range(7):
        (tmp_path / f"f{i}.py").write_text("x")
    text = " ".join(f"@f{i}.py" for i in [3, 1, 3, 0, 2, 4, 5, 6])
    out = preprocess(text, tmp_path)
    mentioned = [line.split("@")[1].rstrip(".") for line in out.splitlines() if line.startswith("The user mentioned")]
    assert mentioned == ["f3.py", "f1.py", "f0.py", "f2.py", "f4.py"]
    assert out.endswith("(and 2 more…)")


def test_e4_a_quoted_path_with_a_space_is_a_mention_in_its_place(tmp_path: Path):
    (tmp_path / "user guide").mkdir()
    (tmp_path / "user guide" / "getting started.md").write_text("x")
    (tmp_path / "a.py").write_text("x")
    out = preprocess('see @"user guide/getting started.md", then @a.py and @"no such file"', tmp_path)
    mentioned = [line.removeprefix("The user mentioned @")[:-1] for line in out.splitlines()
                 if line.startswith("The user mentioned")]
    assert mentioned == ["user guide/getting started.md", "a.py"]


def test_c3_reminders_are_not_separate_messages(tmp_path: Path):
    (tmp_path / "a.py").write_text("x")
    builder = ContextBuilder("L1", tmp_path)
    built = builder.build([], [], preprocess("see @a.py", tmp_path), limit=100_000)
    assert [m.layer for m in built.messages] == ["L1", "input"]
    assert REMINDER.format(path="a.py") in built.messages[1].content


# ---- A8 / C4 / D5: mtime notes ----------------------------------------------------------------------
async def test_a8_reading_again_after_an_external_change_adds_the_note(tmp_path: Path):
    f = tmp_path / "a.py"
    f.write_text("x = 1\n")
    async with engine_with(tmp_path, [read_action("a.py"), finish(), read_action("a.py"), finish()]) as (engine, srv):
        first = await run(engine, "read")
        os.utime(f, (time.time() + 5, time.time() + 5))
        second = await run(engine, "read again")
    note = "Note: a.py was modified externally."
    assert note not in [e for e in first if isinstance(e, ToolFinished)][0].full_text
    assert note in [e for e in second if isinstance(e, ToolFinished)][0].full_text
    assert note in [m for m in engine.history.messages if m.role == "tool"][-1].content   # survives compression


def test_c4_mtime_record_is_memory_only_and_starts_empty(tmp_path: Path):
    engine = Engine(make_config(tmp_path, "http://127.0.0.1:9"), None)
    assert engine.ctx.mtimes == {}


# ---- C5: CODE_LAW.md -----------------------------------------------------------------------------
async def test_c5_code_law_any_case_read_afresh_and_never_in_history(tmp_path: Path):
    (tmp_path / "code_LAW.md").write_text("rule one")
    async with engine_with(tmp_path, [finish(), finish()]) as (engine, srv):
        await run(engine, "a")
        (tmp_path / "code_LAW.md").write_text("rule two")
        await run(engine, "b")
    assert "rule one" in srv.requests[0]["messages"][1]["content"]
    assert "rule two" in srv.requests[1]["messages"][1]["content"]
    assert not any("rule" in m.content for m in engine.history.messages)


# ---- C6: kept rounds configurable -------------------------------------------------------------------
def test_c6_kept_rounds_are_configurable():
    msgs = [m for i in range(6) for m in _round(i)]
    assert plan_compaction(msgs, keep_rounds=2).rounds_kept == 2
    assert plan_compaction(msgs, keep_rounds=5).rounds_kept == 5


# ---- E1: ReAct text ------------------------------------------------------------------------------
def test_e1_parser_takes_the_first_action_ignores_think_and_fences_and_trailing_text():
    reply = ("<think>secret plan</think>```\nThought: read it\nAction: Read[{\"file_path\": \"a]b.py\"}]\n```\n"
             "Action: Bash[{\"command\": \"rm -rf /\"}]")
    parsed = parse_reply(reply, TOOLS)
    assert parsed.tool == "Read" and parsed.args == {"file_path": "a]b.py"} and parsed.thought == "read it"
    assert "secret" not in parsed.text


def test_e1_finish_takes_text_up_to_the_last_bracket():
    parsed = parse_reply("Thought: ok\nAction: Finish[use `x[0]` here]\n", TOOLS)
    assert parsed.args == "use `x[0]` here"


@pytest.mark.parametrize("reply", ["just words", "Action: Nope[{}]", "Action: Read[not json]", "Action: Read[[1]]"])
def test_e1_anything_else_is_a_format_error(reply: str):
    with pytest.raises(ReactFormatError):
        parse_reply(reply, TOOLS)


async def test_e1_format_error_goes_back_to_the_model_as_an_observation(tmp_path: Path):
    async with engine_with(tmp_path, ["I think the answer is 4", finish("4")]) as (engine, srv):
        events = await run(engine, "2+2?")
    assert finished(events).answer == "4"
    observation = srv.requests[1]["messages"][-1]["content"]
    assert observation.startswith("Observation: ") and "format_error" in observation


def test_e1_tool_messages_serialise_as_observations_in_react_text(tmp_path: Path):
    builder = ContextBuilder("L1", tmp_path)
    built = builder.build(_round(1), [], None, limit=100_000)
    assert built.messages[3].role == "user" and built.messages[3].content.startswith("Observation: [ok]\n")


# ---- E2: summary timeout fallback ----------------------------------------------------------------
async def test_e2_summary_timeout_falls_back_to_recent_rounds_with_the_exact_message(tmp_path: Path):
    from tests.fakes.llm_server import Reply
    slow = Reply("## 📌 Archived Session Summary\nlate", delay_first_byte=3.0)
    async with engine_with(tmp_path, [slow], summary_timeout=0.3, keep_rounds=2) as (engine, srv):
        engine.history.messages = [m for i in range(5) for m in _round(i)]
        events = [e async for e in engine.compact()]
    done = events[-1]
    assert isinstance(done, CompactionFinished)
    assert done.fallback == "Summary generation timed out, keeping recent history only."
    assert [m.content for m in engine.history.messages if m.role == "user"] == ["question 3", "question 4"]
    assert not engine.history.summaries


def test_stored_forms_are_cached_by_content_and_bounded():
    from contextual.core.context.compressor import _StoredCache
    cache = _StoredCache(max_entries=2)
    result = {"status": "success", "data": {"entries": ["a"] * 50, "count": 50}}
    first = cache.stored("LS", {}, result, "normal")
    assert cache.stored("LS", {}, dict(result), "normal") == first and cache.hits == 1
    cache.stored("LS", {"path": "x"}, result, "normal")
    cache.stored("LS", {"path": "y"}, result, "normal")
    assert len(cache.data) == 2 and cache.misses == 3      # the least recently used entry went out


async def test_a1_anthropic_requests_mark_the_cache_breakpoints_of_the_stable_prefix(tmp_path: Path):
    (tmp_path / "a.py").write_text("x = 1\n")
    script = [finish("first"), read_action("a.py"), finish("second")]
    async with engine_with(tmp_path, script, kind="anthropic") as (engine, srv):
        await run(engine, "hello")
        await run(engine, "read a.py")
    body = srv.requests[-1]
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    marked = [(i, block["text"][:40]) for i, m in enumerate(body["messages"]) if isinstance(m["content"], list)
              for block in m["content"] if "cache_control" in block]
    texts = [text for _, text in marked]
    assert len(marked) == 2
    assert texts[0].startswith("Thought: done")                 # the end of L3 (last turn's answer)
    assert texts[1].startswith("Observation: ")                  # the newest step of this turn
    assert json.dumps(body).count("cache_control") == 3


async def test_context_length_error_compacts_and_retries_once_aiming_lower(tmp_path: Path):
    from tests.fakes.llm_server import Fault
    async with engine_with(tmp_path, [Fault("400_context_length"), finish("fits now")]) as (engine, srv):
        events = await run(engine, "hi")
    assert finished(events).answer == "fits now" and len(srv.requests) == 2
    assert engine.prompt.limit_scale == 1.0          # aiming lower ends with the turn
