"""Prompt diff: what changed between two consecutive prompts and where the provider cache broke (issue 19.4)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from contextual.core.context.prompt_diff import CACHED_PRICE, Change, PromptDiff, diff_prompts
from contextual.core.prompt import PromptMessage
from contextual.core.replay import metrics


def of_kind(diff: PromptDiff, kind: str) -> list[Change]:
    return [c for c in diff.changes if c.kind == kind]


@dataclass(frozen=True)
class Sent:
    """A prompt message as the builder reports it (PromptView's shape)."""
    role: str
    content: str
    layer: str
    form: str = "full"
    tokens: int = 10
    source: str = ""


SYSTEM = Sent("system", "You are Contextual.", "L1", "system", 100, "system")
RULES = Sent("system", "# CODE_LAW.md\nno globals", "L2", "system", 20, "CODE_LAW.md")


def _turn(obs_form: str = "full", obs_tokens: int = 400) -> list[Sent]:
    return [SYSTEM, RULES,
            Sent("user", "fix the bug", "input", "input", 5, "u1"),
            Sent("assistant", "Thought: read\nAction: Read[...]", "scratchpad", "full", 15, "a1"),
            Sent("user", f"Observation: {obs_form} text", "scratchpad", obs_form, obs_tokens, "t1")]


def test_the_cached_price_is_the_one_replay_uses():
    assert CACHED_PRICE == metrics.CACHED_PRICE


def test_a_new_step_appends_and_keeps_the_cache():
    before = _turn()
    after = before + [Sent("assistant", "Thought: edit", "scratchpad", "full", 12, "a2"),
                      Sent("user", "Observation: ok", "scratchpad", "full", 8, "t2")]
    d = diff_prompts(before, after)
    assert [c.kind for c in d.changes] == ["added", "added"]
    assert d.cache_break is None and d.unchanged == 5
    assert (d.before_tokens, d.after_tokens) == (540, 560)


def test_an_observation_made_stored_is_compressed_and_breaks_the_cache_as_a_batch_cut():
    before = _turn() + [Sent("assistant", "Thought: edit", "scratchpad", "full", 12, "a2")]
    after = _turn("stored", 60) + [Sent("assistant", "Thought: edit", "scratchpad", "full", 12, "a2"),
                                   Sent("user", "Observation: ok", "scratchpad", "full", 8, "t2")]
    d = diff_prompts(before, after)
    (compressed,) = of_kind(d, "compressed")
    assert (compressed.source, compressed.before_form, compressed.after_form) == ("t1", "full", "stored")
    assert compressed.delta == -340
    assert [c.source for c in of_kind(d, "added")] == ["t2"]
    brk = d.cache_break
    assert (brk.index, brk.reason) == (4, "batch cut") and "t1 went from full to stored" in brk.detail
    assert brk.reused_tokens == 140 and brk.lost_tokens == 412
    assert brk.cost == pytest.approx(412 * (1 - CACHED_PRICE))


def test_a_cut_observation_is_cut_and_one_that_left_is_cut_too():
    before = _turn() + [Sent("user", "Observation: more", "scratchpad", "full", 50, "t0")]
    after = _turn("cut", 30)
    kinds = {(c.kind, c.source) for c in d_changes(before, after)}
    assert kinds == {("cut", "t1"), ("cut", "t0")}


def d_changes(before, after):
    return diff_prompts(before, after).changes


def test_compaction_archives_old_rounds_and_names_the_break():
    before = [SYSTEM, Sent("user", "old task", "L3", "full", 50, "m1"), Sent("assistant", "old answer", "L3", "full", 30, "m2"),
              Sent("user", "recent", "L3", "full", 20, "m3"), Sent("user", "next", "input", "input", 5, "")]
    after = [SYSTEM, Sent("summary", "Summary: …", "L3", "summary", 40, "s1"),
             Sent("user", "recent", "L3", "full", 20, "m3"), Sent("user", "next", "input", "input", 5, "")]
    d = diff_prompts(before, after)
    assert {c.source for c in of_kind(d, "archived")} == {"m1", "m2"}
    assert [c.source for c in of_kind(d, "added")] == ["s1"]
    assert d.cache_break.reason == "compaction" and d.cache_break.index == 1
    assert d.cache_break.reused_tokens == 100 and d.cache_break.lost_tokens == 105


def test_the_input_becoming_history_is_a_move():
    before = [SYSTEM, Sent("user", "fix it", "input", "input", 5, "u1")]
    after = [SYSTEM, Sent("user", "fix it", "L3", "full", 5, "u1"), Sent("user", "and test", "input", "input", 5, "u2")]
    d = diff_prompts(before, after)
    assert [(c.kind, c.source, c.layer) for c in d.changes] == [("moved", "u1", "L3"), ("added", "u2", "input")]
    assert d.cache_break is None                  # same role and text at the same place: the cache still holds


def test_reordered_messages_are_moved():
    a, b, c = (Sent("user", t, "L3", "full", 5, t) for t in "abc")
    d = diff_prompts([SYSTEM, a, b, c], [SYSTEM, a, c, b])
    (moved,) = d.changes                      # one of the two swapped messages is out of order, not both
    assert moved.kind == "moved" and moved.source in ("b", "c")
    assert d.cache_break.index == 2


@pytest.mark.parametrize("changed, reason", [(0, "system prompt"), (1, "rules file edit")])
def test_system_and_rules_edits_break_at_the_top(changed, reason):
    before = _turn()
    after = list(before)
    after[changed] = Sent(after[changed].role, after[changed].content + " (edited)", after[changed].layer,
                          "system", after[changed].tokens, after[changed].source)
    d = diff_prompts(before, after)
    assert [c.kind for c in d.changes] == ["edited"]
    assert (d.cache_break.index, d.cache_break.reason) == (changed, reason)
    assert d.cache_break.lost_tokens == sum(m.tokens for m in before[changed:])


def test_a_model_switch_loses_the_whole_cache():
    before = _turn()
    d = diff_prompts(before, before, model_before="m-small", model_after="m-large")
    assert d.changes == () and d.cache_break.reason == "model switch"
    assert d.cache_break.index == 0 and d.cache_break.lost_tokens == 540 and d.cache_break.reused_tokens == 0
    assert diff_prompts(before, before, model_before="m", model_after="m").cache_break is None


def test_plain_prompt_messages_without_sources_are_matched_by_text_and_counted():
    before = [PromptMessage("system", "L1 text", "L1"), PromptMessage("user", "question", "input")]
    after = [PromptMessage("system", "L1 text", "L1"), PromptMessage("user", "other question", "input")]
    d = diff_prompts(before, after)
    assert sorted(c.kind for c in d.changes) == ["added", "cut"]
    assert d.cache_break.index == 1 and d.cache_break.reason == "new input"
    first = diff_prompts(before[:1], before[:1]).before_tokens
    assert first > 0 and d.cache_break.reused_tokens == first


def test_a_todo_recap_behind_a_new_step_is_named():
    todo = Sent("user", "Todo: 1. fix", "todo", "todo", 9, "todo")
    before = _turn() + [todo]
    after = _turn() + [Sent("assistant", "Thought: next", "scratchpad", "full", 12, "a2"), todo]
    d = diff_prompts(before, after)
    assert (d.cache_break.reason, d.cache_break.lost_tokens) == ("todo recap", 9)
    assert [(c.kind, c.source) for c in d.changes] == [("added", "a2")]


def test_builder_sources_match_by_message_id_and_show_tool_and_path():
    from contextual.core import prompt as pr
    if not hasattr(pr, "Source"):
        pytest.skip("the builder's Source lands with issue 12")
    src = pr.Source(message_id="m7", tool="Read", path="src/app.py")
    before = [pr.PromptMessage("user", "Observation: whole file", "scratchpad", form="full", source=src, tokens=300)]
    after = [pr.PromptMessage("user", "Observation: stored", "L3", form="stored", source=src, tokens=40)]
    (change,) = diff_prompts(before, after).changes
    assert (change.kind, change.source, change.delta) == ("compressed", "Read src/app.py", -260)
    # a message with neither (a user message moving into L3) shows its text, never its id
    plain = pr.Source(message_id="65d880fa-6441", tool=None, path=None)
    after = [pr.PromptMessage("user", "hello A", "L3", form="full", source=plain, tokens=6)]
    (change,) = diff_prompts([], after).changes
    assert change.source == "hello A"


def test_the_sent_log_diffs_consecutive_calls_and_forgets_the_oldest():
    from contextual.core.context.sent_log import SentLog
    log = SentLog(max_calls=3)
    first = _turn()
    log.add(first, "m")
    assert log.diff(0) is None
    log.add(first + [Sent("assistant", "Thought: b", "scratchpad", "full", 12, "a2")], "m")
    assert [c.kind for c in log.diff(1).changes] == ["added"]
    log.add(first, "other-model")
    assert log.diff(2).cache_break.reason == "model switch"
    log.add(first, "other-model")
    assert [c.number for c in log.calls] == [2, 3, 4] and log.count == 4
    assert log.diff(5) is None


def test_a_form_that_gets_smaller_is_compressed_whatever_its_rank():
    """A head-and-tail cut (2.1k) sent stored (798) at the next call read "expanded · cut → stored" (tmux QA)."""
    from contextual.core.context.prompt_diff import Item, _kind_of_change
    cut = Item(("t", 1), "user", "L3", "cut", 2100, "Read a.py", "a" * 100)
    stored = Item(("t", 1), "user", "L3", "stored", 798, "Read a.py", "b" * 40)
    full = Item(("t", 1), "user", "L3", "full", 3000, "Read a.py", "c" * 200)
    assert _kind_of_change(cut, stored) == "compressed"
    assert _kind_of_change(stored, full) == "expanded" and _kind_of_change(full, stored) == "compressed"
    assert _kind_of_change(stored, cut) == "cut"
