"""A long turn at a small window: what the builder cuts when the current turn alone outgrows the prompt (issue 24).

At 4,096 tokens (prompt limit 3,072) a turn of thirty Reads does not fit even in stored forms, so the builder cuts.
It must cut the tool results, not the memory of the session: the summaries, the user's message and each action
(the file each step read) stay whole, and the newest observation too while the older ones can keep a head and a
tail. Before, one cap was shared by every message: at the 30th Read the summary, the message and every action
were cut to a ~45-character marker while a third of the prompt's room went unused.
"""

from __future__ import annotations

import json
from pathlib import Path

from contextual.core.context.builder import ContextBuilder
from contextual.core.context.scratchpad import ScratchStep, shorten_action
from contextual.core.messages import Message
from contextual.core.prompt import SUMMARY_PREFIX

LIMIT = 3_072          # 4,096 − the answer's reserve
SUMMARY = ("## 📌 Archived Session Summary\n### 🎯 Objectives & Status\n* The user wants a review of src/; "
           "modules m00–m09 are pure arithmetic helpers; m04 holds the parser the user cares about.\n")
TASK = "Please review the modules of src/ and tell me which ones the parser depends on (part 3 of 8)"


def read_of(number: int, lines: int) -> tuple[str, str]:
    body = "\n".join(f"{i:6d}\t    value_{i} = x * {i * 7 % 999} + len('alpha')" for i in range(1, lines + 1))
    full = f"[ok]\npath: src/m{number:02d}.py\ntotal_lines: {lines}\ncontent:\n{body}"
    stored = f"[ok]\npath: src/m{number:02d}.py\ntotal_lines: {lines}\ncontent:\n" + "\n".join(body.splitlines()[:12])
    return full, stored


def long_turn(steps: int) -> list[ScratchStep]:
    out = []
    for j in range(steps):
        action = f"Thought: look at src/m{j:02d}.py\nAction: Read[{json.dumps({'file_path': f'src/m{j:02d}.py'})}]"
        full, stored = read_of(j, 40 + 10 * (j % 7))
        out.append(ScratchStep(action, shorten_action(action), full, stored, tool="Read", path=f"src/m{j:02d}.py"))
    return out


def built_for(steps: int, tmp_path: Path, limit: int = LIMIT):
    history = [Message("summary", SUMMARY), Message("user", TASK)]
    builder = ContextBuilder("You are Contextual, a coding agent.", tmp_path, limit)
    return builder.build(history, long_turn(steps), None)


def test_a_long_turn_at_4k_cuts_tool_results_and_keeps_the_summary_the_message_and_the_actions(tmp_path):
    built = built_for(30, tmp_path)
    assert built.total <= LIMIT
    assert any(a.action == "cut_observation" for a in built.adjustments)       # the turn did outgrow the prompt
    sent = {m.content for m in built.messages}
    assert SUMMARY_PREFIX + SUMMARY in sent                                       # the session's memory, whole
    assert TASK in sent                                                           # what the user asked, whole
    actions = [m.content for m in built.messages if m.layer == "scratchpad" and m.role == "assistant"]
    assert all(a.endswith('.py"}]') and "truncated" not in a for a in actions)    # each step's file still named
    results = [m for m in built.messages if m.layer == "scratchpad" and m.role == "user"]
    assert len(results) == 30 and all(m.tokens >= 40 for m in results)           # older results keep a head+tail
    assert built.total >= LIMIT * 0.8                                             # the room is used, not wasted


def test_the_newest_observation_stays_whole_when_the_older_ones_can_give_way(tmp_path):
    steps = long_turn(12)
    built = built_for(12, tmp_path)
    assert built.total <= LIMIT
    newest = [m for m in built.messages if m.layer == "scratchpad" and m.role == "user"][-1]
    assert newest.content.endswith(steps[-1].observation_full) and newest.form == "full"


def test_when_even_the_actions_must_give_way_the_summary_and_the_message_stay_whole(tmp_path):
    """4,096 with a tokenizer counting 1.3× ours: about 2,360 of our tokens for a turn of 40 Reads."""
    built = built_for(40, tmp_path, limit=2_360)
    assert built.total <= 2_360
    sent = {m.content for m in built.messages}
    assert SUMMARY_PREFIX + SUMMARY in sent and TASK in sent
    assert len([m for m in built.messages if m.layer == "scratchpad"]) == 80      # every step still there
