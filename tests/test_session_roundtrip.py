"""Round trip: for random sequences of turns, tool results, compactions and resumes, the history loaded from
disk equals the history the engine held in memory (and so do the full record, last usage and todos)."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextual.core.session.schema import INTERRUPTED, CompactionRecord, TurnEnd
from contextual.core.events import UsageEvent
from contextual.core.messages import Message
from contextual.core.session import SessionWriter, load_session

ABORTED = {"status": "error", "error": {"code": "aborted", "message": "aborted"}}

json_leaf = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8)
json_value = st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=3)
                          | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6)
# Random meta keys never collide with the keys the loader reads (call_id, tool_name, ...).
extra_meta = st.dictionaries(st.text(alphabet="abcdefgh", min_size=1, max_size=4), json_value, max_size=3)
text = st.text(max_size=40) | st.sampled_from(["line\nbreak", "sep\u2028arator", "中文内容", '{"quoted": "\\n"}'])

user_op = st.tuples(st.just("user"), text, extra_meta)
step_op = st.tuples(st.just("step"), text, st.sampled_from(["Read", "Bash", "Grep"]), json_value, text,
                    st.one_of(st.none(), text), extra_meta)
interrupted_op = st.tuples(st.just("interrupted"), text, st.sampled_from(["Read", "Bash"]), json_value)
final_op = st.tuples(st.just("final"), text)
usage_op = st.tuples(st.just("usage"), st.integers(0, 300_000), st.integers(0, 10_000))
todos_op = st.tuples(st.just("todos"), st.lists(st.fixed_dictionaries(
    {"content": st.text(max_size=10), "status": st.sampled_from(["pending", "in_progress", "completed"])}),
    max_size=3))
compact_op = st.tuples(st.just("compact"), st.one_of(st.none(), st.integers(0, 1000)), st.booleans(), text)
resume_op = st.tuples(st.just("resume"))
ops = st.lists(st.one_of(user_op, user_op, step_op, step_op, interrupted_op, final_op, usage_op, todos_op,
                         compact_op, resume_op), max_size=30)


class Simulator:
    """The in-memory side: history as the engine would hold it, with the same compaction semantics."""

    def __init__(self) -> None:
        self.summaries: list[Message] = []
        self.kept: list[Message] = []
        self.full_record: list[Message] = []
        self.written_ids: set[str] = set()
        self.last_usage: UsageEvent | None = None
        self.todos: list[dict] = []
        self.calls = 0

    @property
    def history(self) -> list[Message]:
        return self.summaries + self.kept

    def keep(self, msg: Message, *, written: bool = True) -> None:
        self.kept.append(msg)
        self.full_record.append(msg)
        if written:
            self.written_ids.add(msg.id)

    def next_call_id(self) -> str:
        self.calls += 1
        return f"call-{self.calls}"


async def play(operations: list, home: Path, project: Path) -> tuple[Simulator, Path]:
    sim = Simulator()
    writer = SessionWriter.create(home, project)
    step = 0
    for op in operations:
        kind = op[0]
        if kind == "user":
            msg = Message("user", op[1], meta=op[2])
            sim.keep(msg)
            writer.append_message(msg)
        elif kind in ("step", "interrupted"):
            step += 1
            call_id = sim.next_call_id()
            tool, args = op[2], op[3]
            assistant = Message("assistant", f"Thought: {op[1]}\nAction: {tool}",
                                meta={"step": step, "call_id": call_id, "tool_name": tool, "args": args})
            sim.keep(assistant)
            writer.append_message(assistant)
            writer.append_tool_use(call_id, tool, args, assistant)
            if kind == "step":
                result = Message("tool", json.dumps({"status": "success", "text": op[4]}), full=op[5],
                                 meta={**op[6], "tool_name": tool, "call_id": call_id, "step": step, "args": args})
                sim.keep(result)
                writer.append_message(result)
            else:
                writer.append_turn_end(TurnEnd(None, INTERRUPTED, "cancelled"))
                synthetic = Message("tool", json.dumps(ABORTED), full=json.dumps(ABORTED), id=f"aborted-{call_id}",
                                    meta={"tool_name": tool, "call_id": call_id, "args": args,
                                          "interrupted": True, "synthetic": True, "step": step})
                sim.keep(synthetic, written=False)
        elif kind == "final":
            msg = Message("assistant", op[1], meta={"final": True})
            sim.keep(msg)
            writer.append_message(msg)
        elif kind == "usage":
            usage = UsageEvent(op[1], op[2])
            sim.last_usage = usage
            writer.append_usage(usage)
        elif kind == "todos":
            sim.todos = op[1]
            writer.append_todos(op[1])
        elif kind == "compact":
            choice, has_summary, summary_text = op[1], op[2], op[3]
            candidates = [m for m in sim.kept if m.id in sim.written_ids]
            kept_from = None if choice is None or not candidates else candidates[choice % len(candidates)].id
            summary = Message("summary", summary_text, meta={"rounds": 2}) if has_summary else None
            writer.append_compaction(CompactionRecord("auto", 1000, 100, files_included=("a.py",), kept_from_id=kept_from,
                                                      fallback=None if has_summary else "summary timed out"),
                                     summary)
            if kept_from is None:
                sim.kept = []
            else:
                sim.kept = sim.kept[[m.id for m in sim.kept].index(kept_from):]
            if summary is not None:
                sim.summaries.append(summary)
                sim.full_record.append(summary)
            sim.last_usage = None
        elif kind == "resume":
            await writer.close()
            writer = SessionWriter.reopen(writer.path)
    await writer.close()
    return sim, writer.path


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops)
def test_history_after_resume_equals_history_before_exit(operations):
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir()
        sim, path = asyncio.run(play(operations, home, project))
        loaded = load_session(path)
    assert loaded.warnings == []
    assert loaded.history == sim.history
    assert loaded.full_record == sim.full_record
    assert loaded.last_usage == sim.last_usage
    assert loaded.todos == sim.todos
    assert len(loaded.compactions) == sum(1 for op in operations if op[0] == "compact")


def test_compaction_log_records_metadata_and_fallback(tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    operations = [("user", "hi", {}), ("compact", None, False, ""), ("user", "again", {}),
                  ("compact", 0, True, "the summary")]
    sim, path = asyncio.run(play(operations, tmp_path / "home", project))
    loaded = load_session(path)
    assert [c.fallback for c in loaded.compactions] == ["summary timed out", None]
    assert loaded.compactions[0].files_included == ("a.py",)
    assert loaded.compactions[1].pre_tokens == 1000 and loaded.compactions[1].post_tokens == 100
    assert [m.content for m in loaded.history] == ["the summary", "again"]
    assert loaded.history == sim.history
