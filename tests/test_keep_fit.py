"""Issue 24: a compaction keeps as many whole recent rounds as fit a budget, and says so."""

from pathlib import Path

from contextual.core.context import keep_fit
from contextual.core.context.history import KeepBudget, plan_compaction
from contextual.core.events import Notice
from contextual.core.messages import Message
from tests.engine_helpers import engine_with, finish, run


def _rounds(n: int, words: int) -> list[Message]:
    return [m for i in range(n) for m in (Message("user", f"question {i}"),
                                          Message("assistant", f"answer {i} " + "word " * words))]


def test_rounds_that_fit_keeps_the_newest_whole_up_to_keep_rounds():
    assert keep_fit.rounds_that_fit([5, 5, 5, 5], 10, None) == 4
    assert keep_fit.rounds_that_fit([5, 5, 5, 5], 2, None) == 2
    assert keep_fit.rounds_that_fit([5, 5, 5, 5], 10, 22) == 2       # 20 > three quarters of 22: half of it
    assert keep_fit.rounds_that_fit([5, 5, 5, 5], 10, 27) == 4       # 20 <= three quarters of 27: all of them
    assert keep_fit.rounds_that_fit([6, 2, 8], 10, 27) == 2          # but the quarter left must hold the largest
    assert keep_fit.rounds_that_fit([1, 50, 5], 10, 40) == 1         # whole rounds only, newest first
    assert keep_fit.rounds_that_fit([5, 30], 10, 40) == 0            # the newest closed round alone is too big


def _len4(m: Message) -> int:
    return len(m.content) // 4


def test_at_200k_ten_rounds_are_kept_and_no_note():
    messages = _rounds(12, 200)
    plan = plan_compaction(messages, 10, KeepBudget(keep_fit.keep_budget(160_000, 3_000), _len4))
    assert plan is not None and plan.rounds_kept == 10 and plan.rounds_archived == 2 and plan.note == ""


def test_at_200k_ten_rounds_of_a_500_line_read_each_are_kept_as_the_seed_says():
    """Seed 002 A4 keeps at least 10 rounds, and they fit under the trigger with room to spare: 110k of the
    ~159k the trigger leaves. Half the room (the budget a small window needs) kept 6 (audit, helper-94)."""
    messages = _rounds(12, 11_000 * 4 // 5)                          # ~11,000 tokens a round by len/4
    plan = plan_compaction(messages, 10, KeepBudget(keep_fit.keep_budget(160_000, 1_000), _len4))
    assert plan is not None and plan.rounds_kept == 10 and plan.note == ""
    crowded = _rounds(12, 13_000 * 4 // 5)                           # 130k would leave too little: the budget
    plan = plan_compaction(crowded, 10, KeepBudget(keep_fit.keep_budget(160_000, 1_000), _len4))
    assert plan is not None and plan.rounds_kept == 6 and plan.note.startswith("kept the last 6 rounds whole")


def test_a_small_budget_keeps_fewer_and_says_so():
    messages = _rounds(6, 400)            # ~500 tokens a round by len/4
    plan = plan_compaction(messages, 10, KeepBudget(2_200, _len4))
    assert plan is not None and plan.rounds_kept == 2 and plan.rounds_archived == 4
    assert plan.note == "kept the last 2 rounds whole: more do not fit in this window with room left for the next turns"
    assert plan.archive + plan.kept == messages                     # every round archived or kept, none lost
    # what stays beside them (summaries, the turn in progress) comes out of the same half of the room
    plan = plan_compaction(messages, 10, KeepBudget(2_200, _len4, staying=500))
    assert plan is not None and plan.rounds_kept == 1 and plan.archive + plan.kept == messages
    # keep_rounds is named only when it is not the seed's 10 (the user chose it)
    plan = plan_compaction(messages, 4, KeepBudget(2_200, _len4))
    assert plan is not None and plan.note.endswith("room left for the next turns (you asked for 4)")


async def test_engine_compacts_at_an_8k_window_keeping_what_fits(tmp_path: Path):
    big = "x " * 2_500                     # ~2.5k tokens an answer: ten such rounds cannot fit an 8k window
    script = [finish(f"answer {i} {big}") for i in range(4)] + ["summary of the early rounds"] + [finish("done")]
    async with engine_with(tmp_path, script, context_window=8192) as (engine, srv):
        notes = []
        for i in range(5):
            events = await run(engine, f"question {i}")
            notes += [e.message for e in events if isinstance(e, Notice)]
        assert engine.compactions, notes
        assert any("whole: more do not fit in this window" in n for n in notes), notes
        assert not any("keep_rounds" in n for n in notes), notes          # a setting the user never chose
        assert not any("dropped" in n or "drop_round" in n for n in notes)


async def test_the_card_the_meter_and_context_give_the_same_before_and_after(tmp_path: Path):
    """Issue 24, one unit: the compaction card's figures are the trigger estimate the meter and /context show
    (PromptView.trigger), before and after — not the server's usage of the last, already fitted, request."""
    from contextual.core.events import CompactionFinished
    from tests.engine_helpers import read_action
    from tests.fakes.scripted_model import Model

    for i in range(6):
        (tmp_path / f"m{i}.py").write_text("".join(f"def f{i}_{k}(x):\n    return x * {k} + {i}\n"
                                                   for k in range(120)))
    model = Model([read_action("m0.py"), read_action("m1.py"), read_action("m2.py"), finish("one"),
                   read_action("m3.py"), read_action("m4.py"), read_action("m5.py"), finish("two"), finish("three")])
    async with engine_with(tmp_path, [model] * 12, context_window=8192) as (engine, srv):
        await run(engine, "first")
        await run(engine, "second")
        shown = engine.next_prompt().trigger
        assert shown.due
        events = await run(engine, "third")
        card = next(e for e in events if isinstance(e, CompactionFinished))
        assert card.pre_tokens == shown.estimate
        after = engine.next_prompt().trigger.estimate
        record = engine.compactions[-1]
        assert card.post_tokens == record.post_tokens
        assert after >= card.post_tokens     # the next prompt then carries the new question and its answer


async def test_pinned_messages_come_out_of_the_kept_rounds_budget(tmp_path: Path):
    """A pinned message stays whatever is archived, so the rounds kept get what it leaves: a compaction that kept
    rounds as if no pin were there left the prompt larger than before it (found in the app at an 8k window)."""
    big = "x " * 1_500
    script = [finish(f"answer {i} {big}") for i in range(4)] + ["summary of the early rounds"] + [finish("done")]
    async with engine_with(tmp_path, script, context_window=8192) as (engine, srv):
        await run(engine, "question 0")
        first = next(m for m in engine.history.messages if m.role == "assistant")
        assert engine.toggle_pin(first.id)
        without = engine.prompt.keep_budget()[0]
        assert engine.toggle_pin(first.id) is False
        assert engine.prompt.keep_budget()[0] - without >= len(big) // 8    # the pin's tokens


async def test_esc_on_an_automatic_compaction_still_makes_room_by_truncation(tmp_path: Path):
    """The user stopping an automatic compaction: history is cut by truncation (UI.md), engine-level."""
    from contextual.core.context.compaction import CANCELLED_MESSAGE
    from contextual.core.events import CompactionFinished, CompactionProgress
    from tests.fakes.llm_server import Reply
    big = "x " * 2_500
    slow_summary = Reply("## Summary\n" + "slow " * 400, chunk_delay=0.05)
    script = [finish(f"answer {i} {big}") for i in range(3)] + [slow_summary, finish("done")]
    async with engine_with(tmp_path, script, context_window=8192) as (engine, srv):
        for i in range(3):
            await run(engine, f"question {i}")
        assert engine.next_prompt().trigger.due
        finished_with = None
        async for ev in engine.run_turn("question 3"):
            if isinstance(ev, CompactionProgress) and ev.stage == "summarising" and ev.tokens_received:
                engine.cancel_compaction()
            if isinstance(ev, CompactionFinished):
                finished_with = ev
        assert finished_with is not None and finished_with.fallback == CANCELLED_MESSAGE
        assert engine.compactions and engine.compactions[-1].fallback == CANCELLED_MESSAGE


async def test_a_kept_round_is_measured_as_l3_sends_it_not_as_its_stored_record(tmp_path: Path):
    """A tool result's record is JSON (status, data, text); L3 sends it rendered as text, about 5 % smaller, and
    the budget measured the record, so a round that fitted could be archived (audit, helper-94)."""
    from tests.engine_helpers import read_action
    (tmp_path / "m.py").write_text("".join(f"def f{k}(x):\n    return x * {k}\n" for k in range(200)))
    async with engine_with(tmp_path, [read_action("m.py"), finish("read")], context_window=200_000) as (engine, _):
        await run(engine, "read m.py")
        result = next(m for m in engine.history.messages if m.role == "tool")
        size = engine.prompt.keep_budget()[1]
        sent = next(m for m in engine.next_prompt().messages if m.role == "user" and "def f199" in m.content)
        assert size(result) == sent.tokens < engine.prompt.builder.cache.message(result.content)



async def test_why_fewer_rounds_are_kept_is_said_in_the_chat_once_not_at_every_compaction(tmp_path: Path):
    """At a small window nearly every message compacts, each keeping what fits: the chat said "the newest rounds
    fill the window, so 1 is kept whole" at each of them, under the compaction's own line."""
    from tests.fakes.scripted_model import Model
    big = "x " * 2_500
    model = Model([finish(f"answer {i} {big}") for i in range(8)])
    async with engine_with(tmp_path, [model] * 20, context_window=8192) as (engine, srv):
        notes = []
        for i in range(8):
            notes += [e.message for e in await run(engine, f"question {i}") if isinstance(e, Notice)]
        said = [n for n in notes if "more do not fit in this window" in n]
        assert len(engine.compactions) >= 3 and said, (len(engine.compactions), notes)
        assert len(said) == len(set(said)), said               # each wording once; it changes only with the count


async def test_a_compaction_at_8k_leaves_room_for_the_next_turn(tmp_path: Path):
    """An 8k session of two 100-line Reads a turn (user review, helper-121): the kept round was budgeted alone, so
    the summaries and the turn in progress came on top; each compaction ended at 75 % of the trigger and every
    turn from the third compacted again (4 compactions in 6 turns, turns ending at 96-110 % of the trigger). The
    kept rounds now share half the room with what stays beside them: the prompt after a compaction is under half
    the trigger, the next turn runs without one, and every round is archived or kept, none lost."""
    import json
    from contextual.core.events import CompactionFinished
    from contextual.core.context.history import rounds
    from tests.engine_helpers import read_action
    from tests.fakes.scripted_model import Model
    for i in range(1, 13):
        (tmp_path / f"mod{i}.py").write_text("".join(f'def f{i}_{k}(x):\n    """Add {k} to x, scale by {i}."""\n'
                                                     f'    return (x + {k}) * {i}\n\n' for k in range(25)))
    grep = 'Thought: uses\nAction: Grep[{}]'
    script = [a for m in range(1, 12, 2) for a in (read_action(f"mod{m}.py"), read_action(f"mod{m + 1}.py"),
                                                     grep.format(json.dumps({"pattern": f"f{m}_3"})), finish("ok"))]
    async with engine_with(tmp_path, [Model(script)] * 60, context_window=8192) as (engine, srv):
        compacted_at = []
        for turn in range(6):
            for card in [e for e in await run(engine, f"audit {turn}") if isinstance(e, CompactionFinished)]:
                compacted_at.append(turn)
                assert card.post_tokens <= engine.compaction_due().threshold // 2, card
        assert compacted_at and len(compacted_at) <= 3, compacted_at
        assert all(b - a >= 2 for a, b in zip(compacted_at, compacted_at[1:])), compacted_at
        archived = sum(record.rounds_archived for record in engine.compactions)
        assert archived + len(rounds(engine.history.messages)) == 6       # none lost: summarised or kept
