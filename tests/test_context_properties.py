"""Property tests (hypothesis) over random histories and turns for the context pipeline (issue 4).

Invariants checked:
- A4/D1/D2 no compaction plan splits a round or a call/result pair; at least `keep_rounds` rounds stay verbatim;
- A4 summaries are never compressed again: a compaction only appends a summary, the earlier ones unchanged;
- "never over the window": no prompt ContextBuilder.build assembles exceeds its limit;
- A2 the most recent observation of the scratchpad goes full when the prompt fits (`ours`: the last keep_full);
- D2 normalize() answers every call and leaves no orphan result.

Examples per test come from a profile registered here: 50 by default (the suite must stay under five minutes
on two cores), 10,000 in the dedicated run
`CONTEXTUAL_HYPOTHESIS_PROFILE=thorough python -m pytest -q tests/test_context_properties.py`.
The profile is applied per test (not loaded globally) so other test modules keep their own settings.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import tempfile
from functools import lru_cache
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis import given

from contextual.core.context import compressor
from contextual.core.context.builder import ContextBuilder
from contextual.core.context.history import HistoryManager, apply_compaction, plan_compaction, rounds
from contextual.core.context.pairing import normalize
from contextual.core.context.scratchpad import OBS, OursParams, ScratchStep, shorten_action
from contextual.core.context.turn_forms import turn_stored
from contextual.core.messages import Message
from contextual.core.providers.openai import render_messages as openai_wire
from contextual.core.tokens import PER_MESSAGE_OVERHEAD, count
from tests.fakes.llm_server import request_tokens

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]
settings.register_profile("contextual-default", max_examples=50, deadline=None, suppress_health_check=_QUIET)
settings.register_profile("contextual-thorough", max_examples=10_000, deadline=None, suppress_health_check=_QUIET)
PROFILE = settings.get_profile("contextual-thorough" if os.environ.get("CONTEXTUAL_HYPOTHESIS_PROFILE") == "thorough"
                               else "contextual-default")

TOOLS = ("Read", "Bash", "Grep", "LS", "Edit", "Mystery")
DENSE = "漢字テスト😀ʃ€λ→"          # many tokens per character: the worst case for char-based cuts


# ---- content ---------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def text_of(kind: str, size: int, salt: int) -> str:
    """Deterministic text of about `size` chars (cached, so token counts are cached too across examples)."""
    if size == 0:
        return ""
    if kind == "lines":
        body = "\n".join(f"{salt}:{i:05d}  def function_{i}(value): return value * {i + salt}"
                         for i in range(size // 40 + 1))
    elif kind == "dense":
        body = (DENSE * (size // len(DENSE) + 1))
    elif kind == "oneline":
        body = ("x=" + "ab1" * (size // 3 + 1)).replace("\n", " ")
    else:   # json-ish: quotes and backslashes double when the result is serialised
        body = "\n".join(f'{{"k{i}": "v\\\\{salt}\\"q"}}' for i in range(size // 16 + 1))
    return body[:size]


SIZES = st.sampled_from([0, 12, 300, 2_500, 20_000, 90_000])
KINDS = st.sampled_from(["lines", "dense", "oneline", "json"])


def tool_result(tool: str, text: str, status: str) -> dict:
    if status == "error":
        return {"status": "error", "error": {"code": "failed", "message": text or "failed"}}
    lines = text.splitlines()
    if tool == "Read":
        data = {"path": "f.py", "content": text, "start_line": 1, "end_line": len(lines), "total_lines": len(lines)}
    elif tool == "Bash":
        data = {"command": "run", "exit_code": 1, "stdout": text, "stderr": text[-3000:]}
    elif tool == "Grep":
        data = {"pattern": "x", "matches": [{"path": f"m{i % 7}.py", "line": i, "text": line}
                                            for i, line in enumerate(lines[:400])], "match_count": len(lines)}
    elif tool == "LS":
        data = {"path": ".", "entries": lines[:2000], "count": len(lines)}
    elif tool == "Edit":
        data = {"path": "f.py", "replacements": 1, "diff": text, "lines_added": len(lines)}
    else:
        data = text
    return {"status": "success", "data": data, "text": text, "stats": {"ms": 1}}


@lru_cache(maxsize=None)
def observation(tool: str, kind: str, size: int, salt: int, status: str) -> tuple[str, str, str]:
    """(tool name, full JSON, stored JSON) of one tool result, computed by the real compressor."""
    result = tool_result(tool, text_of(kind, size, salt), status)
    return tool, compressor.full_text(result), compressor.stored_text(tool, {}, result)


@st.composite
def observations(draw) -> tuple[str, str, str]:
    return observation(draw(st.sampled_from(TOOLS)), draw(KINDS), draw(SIZES), draw(st.integers(0, 3)),
                       draw(st.sampled_from(["success", "success", "success", "error"])))


# ---- histories ---------------------------------------------------------------------------------------
@st.composite
def a_round(draw, index: int, max_steps: int = 4) -> list[Message]:
    """user → 0..n (Thought/Action, result) pairs → the final answer, or interrupted, or a dangling call."""
    msgs = [Message("user", f"question {index}", meta={"turn": f"t{index}"})]
    for j in range(draw(st.integers(0, max_steps))):
        tool, full, stored = draw(observations())
        call = f"call_{index}_{j}"
        meta = {"call_id": call, "tool_name": tool, "args": {}, "step": j + 1}
        msgs.append(Message("assistant", f"Thought: step {j}\nAction: {tool}[{{}}]", meta=dict(meta)))
        msgs.append(Message("tool", stored, full=full, meta=dict(meta)))
    ending = draw(st.sampled_from(["final", "final", "interrupted", "dangling"]))
    if ending == "final":
        msgs.append(Message("assistant", f"answer {index}", meta={"final": True}))
    elif ending == "dangling":
        call = f"call_{index}_dangling"
        msgs.append(Message("assistant", "Thought: go\nAction: Bash[{}]",
                            meta={"call_id": call, "tool_name": "Bash", "args": {}}))
    return msgs


@st.composite
def histories(draw, min_rounds: int = 0, max_rounds: int = 14, max_steps: int = 4) -> list[Message]:
    """Summaries first, then rounds; sometimes a stray pair before the first user message."""
    msgs = [Message("summary", f"summary {i}") for i in range(draw(st.integers(0, 3)))]
    if draw(st.booleans()) and draw(st.booleans()):
        meta = {"call_id": "call_pre", "tool_name": "LS", "args": {}}
        msgs += [Message("assistant", "Thought: pre\nAction: LS[{}]", meta=dict(meta)),
                 Message("tool", '{"status": "success"}', meta=dict(meta))]
    for i in range(draw(st.integers(min_rounds, max_rounds))):
        msgs += draw(a_round(i, max_steps))
    return msgs


def _calls(messages: list[Message]) -> set[str]:
    return {m.call_id for m in messages if m.role == "assistant" and m.call_id}


def _results(messages: list[Message]) -> set[str]:
    return {m.call_id for m in messages if m.role == "tool" and m.call_id}


# ---- (a) rounds and pairs ---------------------------------------------------------------------------------
@PROFILE
@given(histories(), st.integers(1, 12))
def test_a4_no_compaction_splits_a_round_or_a_pair_and_keeps_at_least_n_rounds(history, keep):
    plan = plan_compaction(history, keep)
    body = [m for m in history if m.role != "summary"]
    all_rounds = rounds(history)
    if len(all_rounds) <= keep:
        assert plan is None
        return
    assert plan is not None
    assert [m.id for m in plan.archive + plan.kept] == [m.id for m in body]     # nothing lost, nothing moved
    assert all(m.role != "summary" for m in plan.archive + plan.kept)
    kept_rounds = rounds(plan.kept)
    assert plan.rounds_kept == len(kept_rounds) >= keep
    assert plan.kept[0].role == "user"                                          # cut right before a round
    assert [[m.id for m in r] for r in rounds(plan.archive) + kept_rounds] == [[m.id for m in r] for r in all_rounds]
    for part, other in ((plan.archive, plan.kept), (plan.kept, plan.archive)):
        assert not (_calls(part) | _results(part)) & (_calls(other) | _results(other))


@PROFILE
@given(histories(), st.integers(1, 12))
def test_a4_history_manager_apply_keeps_the_planned_rounds_verbatim(history, keep):
    manager = HistoryManager(list(history))
    plan = manager.plan(keep)
    if plan is None:
        return
    kept_before = [(m.id, m.content, m.full) for m in plan.kept]
    manager.messages = apply_compaction(manager.messages, Message("summary", "new"), plan.kept[0].id, ())
    after = [m for m in manager.messages if m.role != "summary"]
    assert [(m.id, m.content, m.full) for m in after] == kept_before
    assert len(manager.rounds()) >= keep


# ---- (b) summaries -------------------------------------------------------------------------------------
@PROFILE
@given(histories(max_rounds=6), st.lists(st.tuples(st.integers(0, 6), st.integers(1, 5), st.booleans()),
                                         min_size=1, max_size=5), st.data())
def test_a4_summaries_are_never_recompressed_only_appended(history, compactions, data):
    manager = HistoryManager(list(history))
    next_round = 100
    for added, keep, summarised in compactions:
        for _ in range(added):
            manager.messages += data.draw(a_round(next_round, max_steps=2))
            next_round += 1
        before = [(id(m), m.id, m.content) for m in manager.summaries]
        plan = manager.plan(keep)
        if plan is None:
            continue
        assert all(m.role != "summary" for m in plan.archive)            # never fed to the summary model again
        new = Message("summary", f"summary of rounds up to {next_round}") if summarised else None
        manager.messages = apply_compaction(manager.messages, new, plan.kept[0].id, ())
        after = [(id(m), m.id, m.content) for m in manager.summaries]
        assert after[:len(before)] == before
        assert after[len(before):] == ([(id(new), new.id, new.content)] if new else [])
        count_summaries = len(after)
        assert all(m.role == "summary" for m in manager.messages[:count_summaries])   # summaries first
        assert all(m.role != "summary" for m in manager.messages[count_summaries:])


# ---- (e) normalisation ---------------------------------------------------------------------------------
@st.composite
def messy_histories(draw) -> list[Message]:
    """A history with dangling calls and orphan results (a crash, a torn session file) inserted anywhere."""
    msgs = list(draw(histories(max_rounds=6)))
    for k in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(msgs)))
        if draw(st.booleans()):
            msgs.insert(at, Message("tool", '{"status": "success"}', meta={"call_id": f"ghost_{k}"}))
        else:
            msgs.insert(at, Message("assistant", "Thought: x\nAction: Read[{}]",
                                    meta={"call_id": f"lost_{k}", "tool_name": "Read", "args": {}}))
    if draw(st.booleans()):
        msgs.insert(draw(st.integers(0, len(msgs))), Message("tool", "{}"))     # a result with no call id at all
    return msgs


@PROFILE
@given(messy_histories())
def test_d2_normalize_answers_every_call_and_leaves_no_orphan_result(history):
    out = normalize(history)
    calls = _calls(out)
    assert _results(out) >= calls
    assert all(m.role != "tool" or m.call_id in calls for m in out)
    for i, m in enumerate(out):     # every call is answered after it, before the next user message
        if m.role == "assistant" and m.call_id:
            rest = out[i + 1:]
            until = next((j for j, n in enumerate(rest) if n.role == "user"), len(rest))
            assert any(n.role == "tool" and n.call_id == m.call_id for n in rest[:until])
    kept = [m for m in out if not m.meta.get("synthetic")]
    expected = [m for m in history if m.role != "tool" or (m.call_id and m.call_id in _calls(history))]
    assert [m.id for m in kept] == [m.id for m in expected]                  # only orphans dropped, order kept
    again = normalize(out)
    assert [m.id for m in again] == [m.id for m in out]                      # idempotent


# ---- (c), (d) the builder --------------------------------------------------------------------------------
_ROOTS = Path(tempfile.mkdtemp(prefix="contextual-props-"))
NO_RULES = _ROOTS / "plain"
WITH_RULES = _ROOTS / "rules"
NO_RULES.mkdir()
WITH_RULES.mkdir()
(WITH_RULES / "CODE_LAW.md").write_text("\n".join(f"Rule {i}: keep functions short and named well." for i in range(120)))

L1_TEXTS = {size: "You are Contextual, a coding agent. " + text_of("lines", size, 9) for size in (0, 4_000, 20_000)}


@st.composite
def scratch_steps(draw, max_steps: int = 24) -> list[ScratchStep]:
    steps = []
    for j in range(draw(st.integers(0, max_steps))):
        tool, full, stored = draw(observations())
        payload = text_of("lines", draw(st.sampled_from([0, 0, 0, 5_000])), j % 4)   # a file written inline
        action = f"Thought: step {j}\nAction: {tool}[{json.dumps({'content': payload})}]"
        thinking = draw(st.sampled_from(["", "", "I should look at the tests first."]))
        steps.append(ScratchStep(action, shorten_action(action), full, stored, thinking))
    return steps


# Every message but L1 can shrink to a head+tail marker of a few dozen tokens, and the builder may drop every
# kept round but the last; so a window holds a prompt when it has room for L1 plus one marker per message that
# must stay. Below that no prompt is possible at all; the properties start there.
MARKER_TOKENS = 40
BASE_MARGIN = 100


def must_stay(history: list[Message], steps: list[ScratchStep], todo: str) -> int:
    """How many messages the builder can never drop: L2, every history message (issue 24: a round leaves the
    prompt only into a summary, which the engine makes before building; the builder only cuts), the input, the
    steps and the todo."""
    return 1 + len(history) + 1 + 2 * len(steps) + (1 if todo else 0)


@st.composite
def build_inputs(draw):
    l1 = L1_TEXTS[draw(st.sampled_from(sorted(L1_TEXTS)))]
    history = normalize(draw(histories(max_rounds=draw(st.sampled_from([2, 6, 14])), max_steps=3)))
    steps = draw(scratch_steps())
    question = "fix it " + text_of(draw(KINDS), draw(st.sampled_from([0, 0, 200, 30_000])), 1)
    todo = draw(st.sampled_from(["", "Todos: 1/3 completed; in progress: tests"]))
    root = draw(st.sampled_from([NO_RULES, WITH_RULES]))
    floor = BASE_MARGIN + MARKER_TOKENS * must_stay(history, steps, todo)
    margin = floor + draw(st.one_of(st.integers(0, 3_000), st.integers(3_000, 150_000)))
    limit = count(l1) + PER_MESSAGE_OVERHEAD + margin
    return l1, limit, history, steps, question, todo, root


@lru_cache(maxsize=4096)
def _tokens(text: str) -> int:
    return count(text)      # core.tokens.count itself, not the builder's cache


def _recount(messages) -> int:
    return sum(_tokens(m.content) + PER_MESSAGE_OVERHEAD for m in messages)


@PROFILE
@given(build_inputs(), st.sampled_from(["ours", "raw", "mask", "seed004"]))
def test_never_over_the_window_no_built_prompt_exceeds_its_limit(inputs, policy):
    l1, limit, history, steps, question, todo, root = inputs
    built = ContextBuilder(l1, root, policy).build(history, steps, question, todo, limit=limit)
    assert built.total <= limit, [a.detail for a in built.adjustments]
    assert _recount(built.messages) == built.total          # the reported size is the real (cl100k) size
    assert request_tokens({"messages": openai_wire(built.messages)}) == built.total   # as the server counts it
    assert built.messages[0].content == l1 and built.messages[0].layer == "L1"   # L1 is never cut


def test_the_builder_keeps_no_limit_of_its_own_each_build_is_given_one():
    """The engine fits each prompt to its limit in our tokens (PromptState.fit_limit, through the calibration); a
    second limit on the builder, in the server's tokens, was never the one used, and each engine build ran on a copy
    of the builder made to swap it."""
    assert "limit" not in {f.name for f in dataclasses.fields(ContextBuilder)}
    limit = inspect.signature(ContextBuilder.build).parameters["limit"]
    assert limit.kind is limit.KEYWORD_ONLY and limit.default is limit.empty


def _observations_sent(built) -> list[str]:
    """The turn's observations as sent (not the note its oldest steps may be folded into)."""
    return [m.content for m in built.messages if m.layer == "scratchpad" and m.role == "user" and m.form != "folded"]


def _folded(built) -> int:
    """How many of the turn's oldest steps were folded into one note to fit (core/context/turn_fold.py)."""
    return sum(a.given[2] for a in built.adjustments if a.action == "fold_steps")


def assert_ours_keeps_recent_full(steps: list[ScratchStep], sent: list[str]) -> None:
    """`ours`: the newest observation always goes full, and the last keep_full do whenever the turn's full
    observations stay within full_token_budget (past it, a few huge results may be stored early)."""
    params = OursParams()
    keep = min(params.keep_full, len(steps))
    if sum(_tokens(s.observation_full) for s in steps) > params.full_token_budget:
        keep = min(1, len(steps))
    assert sent[len(sent) - keep:] == [OBS + s.observation_full for s in steps[len(steps) - keep:]]


@PROFILE
@given(build_inputs(), st.sampled_from(["ours", "raw", "mask", "seed004"]))
def test_a2_the_most_recent_observation_is_full_unless_a_cut_was_needed(inputs, policy):
    l1, limit, history, steps, question, todo, root = inputs
    built = ContextBuilder(l1, root, policy).build(history, steps, question, todo, limit=limit)
    if not steps:
        return
    sent = _observations_sent(built)
    assert len(sent) == len(steps) - _folded(built)
    if not any(a.action == "cut_observation" for a in built.adjustments):
        assert sent[-1] == OBS + steps[-1].observation_full
    if not built.adjustments and policy == "ours":
        assert_ours_keeps_recent_full(steps, sent)


@PROFILE
@given(scratch_steps(max_steps=40))
def test_a2_ours_keeps_the_last_keep_full_observations_full_when_the_window_is_large(steps):
    built = ContextBuilder("L1", NO_RULES, "ours").build([], steps, "q", limit=10_000_000)
    assert not built.adjustments
    sent = _observations_sent(built)
    assert_ours_keeps_recent_full(steps, sent)
    forms = turn_stored(steps, len(steps))      # an older step goes full or in its turn form, nothing else
    assert all(text in (OBS + s.observation_full, OBS + f.observation) for text, s, f in zip(sent, steps, forms))
