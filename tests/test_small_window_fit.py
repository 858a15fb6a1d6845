"""A long turn at a small window: what gives way when the current turn alone outgrows the prompt (issue 24).

At 4,096 tokens (prompt limit 3,072) a turn of thirty Reads does not fit even in stored forms. Its oldest steps give
way first, as whole units: their outputs go to a one-line stub, then their thoughts, then the oldest steps are folded
into one note of one line each. The summaries, the user's message, the rules (L2) and every action (the file each
step read, in its own line or in the note) stay readable, and the newest observation stays whole. Before, one cap
was shared by every message (at the 30th Read the summary, the message and every action were cut to a marker), and
then every step was shaved a little (39 of 40 actions unreadable at the 40th call of a 4k turn, helper-130).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from contextual.core.context.builder import ContextBuilder
from contextual.core.context.scratchpad import ScratchStep, shorten_action
from contextual.core.context.turn_fold import GaveWay, fold_note
from contextual.core.engine.fitted import Fitted
from contextual.core.messages import Message
from contextual.core.prompt import SUMMARY_PREFIX

LIMIT = 3_072          # 4,096 − the answer's reserve
SUMMARY = ("## 📌 Archived Session Summary\n### 🎯 Objectives & Status\n* The user wants a review of src/; "
           "modules m00–m09 are pure arithmetic helpers; m04 holds the parser the user cares about.\n")
TASK = "Please review the modules of src/ and tell me which ones the parser depends on (part 3 of 8)"
RULES = "# Project rules\n" + "".join(f"- Rule {i}: keep the public names of module {i} stable and add a test.\n"
                                      for i in range(1, 13))
THOUGHT = " ".join(["I will look at this next part carefully before I decide what to change in the code"] * 4)


def read_of(number: int, lines: int) -> tuple[str, str]:
    body = "\n".join(f"{i:6d}\t    value_{i} = x * {i * 7 % 999} + len('alpha')" for i in range(1, lines + 1))
    full = f"[ok]\npath: src/m{number:02d}.py\ntotal_lines: {lines}\ncontent:\n{body}"
    stored = f"[ok]\npath: src/m{number:02d}.py\ntotal_lines: {lines}\ncontent:\n" + "\n".join(body.splitlines()[:12])
    return full, stored


def long_turn(steps: int, thought: str = "") -> list[ScratchStep]:
    out = []
    for j in range(steps):
        action = (f"Thought: look at src/m{j:02d}.py {thought}\n"
                  f"Action: Read[{json.dumps({'file_path': f'src/m{j:02d}.py'})}]")
        full, stored = read_of(j, 40 + 10 * (j % 7))
        out.append(ScratchStep(action, shorten_action(action), full, stored, tool="Read", path=f"src/m{j:02d}.py",
                               assistant_id=f"a{j}", result_id=f"r{j}"))
    return out


def built_for(steps: int, root: Path, limit: int = LIMIT, thought: str = ""):
    history = [Message("summary", SUMMARY), Message("user", TASK)]
    builder = ContextBuilder("You are Contextual, a coding agent.", root)
    return builder.build(history, long_turn(steps, thought), None, limit=limit)


def turn_of(built) -> list:
    return [m for m in built.messages if m.layer == "scratchpad"]


def levels(built, steps: int) -> list[int]:
    """What each step of the turn kept: 0 as built, 1 its output a stub, 2 its action line alone, 3 folded."""
    turn = turn_of(built)
    note = turn[0] if turn and turn[0].form == "folded" else None
    folded = int(re.search(r"\((\d+) steps? folded\.\)", note.content).group(1)) if note else 0
    pairs = turn[1:] if note else turn
    out = [3] * folded
    for action, result in zip(pairs[::2], pairs[1::2]):
        out.append(2 if action.content.startswith("Action: ") else 1 if "left out to fit" in result.content else 0)
    assert len(out) == steps
    return out


def readable(built, steps: int) -> None:
    """Every step of the turn names its tool and file: on its own Action line, whole, or on its line of the note."""
    turn = turn_of(built)
    note = turn[0].content if turn[0].form == "folded" else ""
    named = set(re.findall(r"^\d+\. Read src/m(\d+)\.py → ok$", note, re.M))
    for m in turn:
        if m.role == "assistant":
            found = re.search(r"^Action: Read\[\{\"file_path\": \"src/m(\d+)\.py\"\}\]$", m.content, re.M)
            assert found, m.content
            named.add(found.group(1))
    assert named == {f"{j:02d}" for j in range(steps)}


def test_a_long_turn_at_4k_folds_its_oldest_steps_and_keeps_the_memory_every_action_and_the_newest_whole(tmp_path):
    """Forty-eight Reads with a model's usual thoughts (about 90 tokens each). (Forty folded before the turn's older
    steps kept the smaller forms `ours` made for them when fitting began, helper-135.)"""
    steps = long_turn(48, THOUGHT)
    built = built_for(48, tmp_path, thought=THOUGHT)
    assert built.total <= LIMIT
    assert [a.action for a in built.adjustments] == ["compress_kept", "fold_steps"]     # nothing was cut
    sent = {m.content for m in built.messages}
    assert SUMMARY_PREFIX + SUMMARY in sent and TASK in sent                      # the session's memory, whole
    readable(built, 48)
    assert turn_of(built)[-1].content.endswith(steps[-1].observation_full)      # the newest observation, whole
    level = levels(built, 48)
    assert level[0] == 3 and level[-2] == 2 and level[-1] == 0                  # folded, action line alone, whole
    assert built.total >= LIMIT * 0.9                                             # the room is used, not wasted


def test_the_newest_observation_stays_whole_when_the_older_ones_can_give_way(tmp_path):
    steps = long_turn(12)
    built = built_for(12, tmp_path)
    assert built.total <= LIMIT
    newest = turn_of(built)[-1]
    assert newest.content.endswith(steps[-1].observation_full) and newest.form == "full"


def test_outputs_go_first_then_thoughts_then_whole_steps_oldest_first_as_the_window_shrinks(tmp_path):
    """At every limit an older step has given way at least as much as a newer one, a thought goes only once every
    older output is a stub, a step is folded only once every older thought went, and a smaller limit never gives
    anything back: the order the user was promised, checked across the whole range."""
    steps = 24
    seen, previous = set(), [0] * steps
    for limit in range(built_for(steps, tmp_path, 10**6, THOUGHT).total, 700, -40):
        built = built_for(steps, tmp_path, limit, THOUGHT)
        assert built.total <= limit
        level = levels(built, steps)
        older = level[:-1]
        assert level[-1] == 0 or older == [3] * (steps - 1)                  # the newest step is the last to give
        assert older == sorted(older, reverse=True), (limit, level)         # oldest first
        assert max(older) <= 1 or min(older) >= 1                            # a thought only once every output went
        assert max(older) <= 2 or min(older) >= 2                            # a fold only once every thought went
        assert all(now >= then for now, then in zip(level, previous)), (limit, level, previous)
        previous = level
        seen |= set(older)
    assert seen == {0, 1, 2, 3}


def test_the_rules_are_cut_only_after_every_older_step_is_folded_and_then_said_by_name(tmp_path):
    (tmp_path / "AGENTS.md").write_text(RULES)
    rules_whole = None
    for limit in range(2_600, 200, -50):
        built = built_for(30, tmp_path, limit, THOUGHT)
        l2 = next(m for m in built.messages if m.layer == "L2")
        if l2.content.endswith(RULES.strip()):
            rules_whole = limit
            continue
        assert levels(built, 30)[:-1] == [3] * 29, limit                    # every older step already folded
        cut = [a for a in built.adjustments if a.action == "cut_rules"]
        assert cut and re.fullmatch(r"project rules \(AGENTS\.md\) cut to \d+ tokens", cut[0].detail), cut
        break
    else:
        raise AssertionError("the rules were never cut")
    assert rules_whole is not None


def test_a_note_too_large_for_the_window_counts_its_oldest_lines_together(tmp_path):
    built = built_for(60, tmp_path, 1_700)
    assert built.total <= 1_700
    note = turn_of(built)[0].content
    assert re.search(r"^1–\d+\. Read ×\d+$", note, re.M) and "(59 steps folded.)" in note
    assert note.splitlines()[-3].startswith("59. Read src/m58.py")              # the newest folded keep their line


def test_what_was_folded_is_said_in_words_that_read_right_for_one_step_and_for_many(tmp_path):
    """At 16k a user read "step 1 of this turn folded to one line each; step 1 of them counted together on one line"
   , and the note's line for it was "1–1. Read"."""
    def said(built) -> str:
        return next(a.detail for a in built.adjustments if a.action == "fold_steps")
    one = built_for(2, tmp_path, 300)                   # the one older step folded, its line its tool alone
    assert said(one) == "step 1 of this turn folded to one line"
    assert "\n1. Read\n(1 step folded.)" in turn_of(one)[0].content
    assert said(built_for(10, tmp_path, 600)) == "steps 1–9 of this turn folded together into one line"
    assert re.fullmatch(r"steps 1–59 of this turn folded to one line each; of those, steps 1–\d+ counted together "
                        r"on one line", said(built_for(60, tmp_path, 1_700)))
    # held from an earlier call (Held): one step's line given its tool alone, then more steps folded after it
    assert GaveWay(80, 79, 79, 5, 1).words().startswith("steps 1–5 of this turn folded to one line each; of those, "
                                                          "step 1 shortened to its tool's name; steps 6–79 sent as")


def test_the_note_lists_each_step_with_its_tool_main_argument_and_status():
    steps = long_turn(2)
    grep = ScratchStep('Thought: find it\nAction: Grep[{"pattern": "def \\\\w+", "path": "pkg/a.py"}]',
                       'Action: Grep[{"pattern": "def \\\\w+", "path": "pkg/a.py"}]', "[ok]\npkg/a.py:3: def f", "")
    bash = ScratchStep('Thought: t\nAction: Bash[{"command": "pytest -q"}]', 'Action: Bash[{"command": "pytest -q"}]',
                       "[exit 1]\n1 failed", "", tool="Bash")
    read = ScratchStep('Action: Read[{"file_path": "b.py", "offset": 71}]', 'Action: Read[{"file_path": "b.py", '
                       '"offset": 71}]', "[error not_found: no such file: b.py]", "")
    lines = fold_note([*steps, grep, bash, read]).splitlines()
    assert lines[2:7] == ["1. Read src/m00.py → ok", "2. Read src/m01.py → ok", "3. Grep def \\w+ in pkg/a.py → ok",
                          "4. Bash pytest -q → exit 1", "5. Read b.py from line 71 → error not_found: no such file: b.py"]
    assert "full record is in the session" in lines[1] and lines[-2] == "(5 steps folded.)"


def test_the_turns_summary_says_what_gave_way_in_words(tmp_path):
    fitted = Fitted(lambda: 4_096)
    for steps in (20, 48, 30):
        fitted.add(built_for(steps, tmp_path, thought=THOUGHT).adjustments)
    fitted.add([])                                                        # a call whose prompt fitted as built
    said = fitted.summary()
    assert said is not None
    assert re.match(r"steps 1–\d+ of this turn folded to one line each to fit the 4,096-token window \(their full "
                    r"record is in the session\)", said.summary), said.summary
    assert "at 3 of 4 calls" in said.summary and "points" not in said.summary
    assert re.fullmatch(r"steps 1–\d+ folded to fit the 4,096-token window", said.headline)


def test_a_step_the_user_pinned_is_sent_whole_nothing_after_it_is_folded_and_it_is_not_said_given_way(tmp_path):
    steps = long_turn(30, THOUGHT)
    builder = ContextBuilder("You are Contextual, a coding agent.", tmp_path)
    builder.pins = frozenset({"a7", "r7"})                               # the eighth step (issue 19.3)
    built = builder.build([Message("summary", SUMMARY), Message("user", TASK)], steps, None, limit=2_000)
    assert built.total <= 2_000
    level = levels(built, 30)
    assert level[7] == 0 and level[:7] == [3] * 7 and max(level[8:]) <= 2
    sent = {m.source.message_id: m for m in built.messages if m.source.message_id in ("a7", "r7")}
    assert sent["a7"].content == steps[7].action_full and sent["a7"].form == "full"     # whole, not stored
    assert sent["r7"].content.endswith(steps[7].observation_full) and sent["r7"].form == "full"
    said = next(a.detail for a in built.adjustments if a.action == "fold_steps")
    assert "steps 9–29 sent as their action line alone" in said, said                # not 8–29: step 8 went whole
