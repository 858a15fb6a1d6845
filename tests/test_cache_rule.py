"""Issue 28.3: a stored form is sent only where its saving pays for the cache prefix it breaks — one rule
(core/context/cache_rule.py), used by the live engine's builder and so by `contextual replay`; per family with
data, `ours` never bills more than `raw` through the real `contextual replay`."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from contextual.core.context import cache_rule
from contextual.core.context.builder import ContextBuilder
from contextual.core.context.scratchpad import OBS, ScratchStep, ours, raw
from contextual.core.replay.metrics import call_figures
from contextual.core.model_facts import lookup
from contextual.core.tokens import count
from tests.cli_helpers import cli_env, contextual
from tests.trajectory_files import SUFFIXES, WRITERS

GPT_4O = cache_rule.CachePrices(read=0.5, write=1.0)


RICH = 1e9     # a turn that has saved plenty already: only the average decides


def test_a_switch_pays_when_later_reads_save_more_than_this_call_adds():
    assert cache_rule.pays(1_000, 100, 0, later_calls=2, banked=0)    # 100 - 100 now; 90 a call after
    assert not cache_rule.pays(1_000, 840, 0, later_calls=40, banked=RICH)    # 740 now against 16 a call
    assert not cache_rule.pays(1_000, 1_000, 0, 1_000, banked=RICH) and not cache_rule.pays(100, 120, 0, 1_000, banked=RICH)
    assert cache_rule.pays(1_000, 840, 0, 40, GPT_4O, banked=RICH)    # cached at half price, the saving counts more
    assert cache_rule.pays(1_000, 300, 0, 10, banked=RICH) and not cache_rule.pays(1_000, 300, 5_000, 10, banked=RICH)
    anthropic = cache_rule.CachePrices(read=0.1, write=1.25)
    assert cache_rule.pays(1_000, 500, 0, 9, banked=RICH) and not cache_rule.pays(1_000, 500, 0, 9, anthropic,
                                                                                   banked=RICH)


def test_a_switch_the_turn_has_not_saved_for_waits_whatever_the_average_says():
    # 400 more now, 50 less a call after: pays over 12 later calls, but a turn that ends within 8 loses by it
    assert not cache_rule.pays(1_000, 500, 0, 12, banked=0)
    assert not cache_rule.pays(1_000, 500, 0, 12, banked=199)       # 199 saved + 4 calls' 50 < 400
    assert cache_rule.pays(1_000, 500, 0, 12, banked=200)
    assert not cache_rule.pays(1_000, 500, 0, 4, banked=RICH)       # the average still decides


def test_prices_come_from_the_model_table():
    assert cache_rule.prices_for(lookup("gpt-4o")) == GPT_4O
    claude = cache_rule.prices_for(lookup("claude-sonnet-4-5"))
    assert claude.write == pytest.approx(1.25) and claude.read == pytest.approx(0.1)
    assert cache_rule.prices_for(lookup("some-local-model")) == cache_rule.DEFAULT_PRICES
    assert cache_rule.expected_later_calls(30) > cache_rule.expected_later_calls(1) > 0     # grows with the turn


def _read_step(i: int, full_lines: int, stored_lines: int) -> ScratchStep:
    """A step of a tool whose in-turn form is its C1 stored form (an MCP tool's; Read gets a view's digest):
    `stored_lines` of the `full_lines` it showed."""
    lines = [f"{n:6d}\tvalue_{i}_{n} = compute_{i}({n})" for n in range(full_lines)]
    action = f'Thought: read part {i}\nAction: mcp__docs__fetch[{{"file_path": "m{i}.py"}}]'
    return ScratchStep(action, action, "[ok]\n" + "\n".join(lines), "[ok]\n" + "\n".join(lines[:stored_lines]))


def _sent(steps: list[ScratchStep], prices: cache_rule.CachePrices) -> list[str]:
    return [m.content for m in ours(steps, count, prices=prices) if m.role == "user"]


def test_a_form_that_saves_little_stays_full_for_the_whole_turn_unless_the_cache_is_dear():
    small_saving = _read_step(0, 100, 70)                 # 30% smaller
    steps = [small_saving] + [_read_step(i, 3, 1) for i in range(1, 6)]
    for upto in range(2, len(steps) + 1):                 # never switched, so the prefix never breaks there
        assert _sent(steps[:upto], cache_rule.DEFAULT_PRICES)[0] == OBS + small_saving.observation_full
    assert _sent(steps, GPT_4O)[0] == OBS + small_saving.observation_stored


def test_a_form_that_saves_much_switches_once_it_is_older_than_the_newest():
    big = _read_step(0, 400, 20)
    steps = [big, _read_step(1, 3, 1), _read_step(2, 3, 1)]
    assert _sent(steps[:1], cache_rule.DEFAULT_PRICES) == [OBS + big.observation_full]
    assert _sent(steps, cache_rule.DEFAULT_PRICES)[0] == OBS + big.observation_stored


def _billed_each_prefix(policy, steps: list[ScratchStep]) -> list[float]:
    """The turn's bill (cl100k tokens, the cached prefix at a tenth) had it ended after each of its calls."""
    calls = [[{"role": m.role, "content": m.content} for m in policy(steps[:n], count)] for n in range(1, len(steps) + 1)]
    return [call_figures(calls[:n]).billed_tokens for n in range(1, len(calls) + 1)]


def test_a_turn_never_bills_more_than_sent_as_written_whenever_it_ends():
    """Five short steps, then two whose stored form halves them: on average switching them pays (the turn is
    expected to go on), but the turn ends three calls later; at no call has it cost more than `raw`."""
    def halved(i: int) -> ScratchStep:       # its stored form differs from the first line: the cached prefix ends there
        step = _read_step(i, 300, 300)
        return replace(step, observation_stored="[ok]\n" + "\n".join(step.observation_full.splitlines()[151:]))
    steps = [_read_step(i, 3, 1) for i in range(5)] + [halved(5), halved(6)] + [_read_step(i, 3, 1) for i in range(7, 10)]
    ours_bills, raw_bills = _billed_each_prefix(ours, steps), _billed_each_prefix(raw, steps)
    assert all(o <= r for o, r in zip(ours_bills, raw_bills)), list(zip(ours_bills, raw_bills))
    # and a turn that has saved (long thoughts sent shortened) does switch such a step
    thought = "The totals of the ledger are wrong.\n" + "Looking at the ledger again for the totals.\n" * 40
    wordy = [ScratchStep(f"Thought: {thought}\n" + s.action_full.partition("\n")[2], s.action_stored,
                         s.observation_full, s.observation_stored) for s in steps]
    assert _sent(wordy, cache_rule.DEFAULT_PRICES)[5] == OBS + steps[5].observation_stored


def test_the_live_builder_decides_with_its_models_prices(tmp_path):
    steps = [_read_step(0, 100, 70)] + [_read_step(i, 3, 1) for i in range(1, 6)]
    builder = ContextBuilder("L1", tmp_path, "ours")
    first = [m for m in builder.build([], steps, "q", limit=1_000_000).messages if m.layer == "scratchpad" and m.role == "user"][0]
    builder.prices = GPT_4O
    again = [m for m in builder.build([], steps, "q", limit=1_000_000).messages if m.layer == "scratchpad" and m.role == "user"][0]
    assert first.content == OBS + steps[0].observation_full and again.content == OBS + steps[0].observation_stored


def _work() -> list[tuple[str, str, str]]:
    """A short turn: file views whose stored form is much smaller (names repeat) and file views where it is not
    (every line shows new names, so it keeps most of them), each followed by a short test run."""
    steps = []
    for i in range(4):
        if i % 2 == 0:
            body = "\n".join(f"class Ledger{i}_{j}(Base):" if j % 25 == 0 else f"    total_{j % 20} = add(total_{(j - 1) % 20})"
                             for j in range(200))
        else:
            body = "\n".join(f"def handler_{i}_{j}(request_{j}):\n    return route_{i}_{j}(request_{j}, limit={j})"
                             for j in range(120))
        steps.append((f"Read module {i} to find the totals.", f"cat pkg/mod{i}.py", body))
        steps.append((f"Run the tests for module {i}.", f"python -m pytest -q tests/test_mod{i}.py",
                      f"..F.\nFAILED tests/test_mod{i}.py::test_total - AssertionError\n1 failed, 3 passed"))
    return steps


@pytest.mark.parametrize("family", sorted(WRITERS))
def test_ours_bills_no_more_than_raw_through_contextual_replay(tmp_path: Path, family: str):
    path = WRITERS[family](tmp_path / ("run" + SUFFIXES[family]), _work())
    report = tmp_path / "figures.json"
    done = contextual(["replay", str(path), "--policy", "ours", "--policy", "raw", "--jobs", "1", "--json",
                       str(report), "--summary-only"], tmp_path, cli_env(tmp_path / "home"))
    assert done.returncode == 0, done.stderr
    overall = {name: p["overall"] for name, p in json.loads(report.read_text())["policies"].items()}
    assert overall["ours"]["calls"] == overall["raw"]["calls"] == 9
    assert overall["ours"]["prompt_tokens"] < overall["raw"]["prompt_tokens"]     # stored forms were sent
    assert overall["ours"]["billed_tokens"] <= overall["raw"]["billed_tokens"]


def test_the_sessions_earlier_turns_say_how_many_calls_are_left():
    """A turn at its third call (two made) in a session whose turns made 3 calls: this is likely its last, so no
    switch pays; turns of 30 calls: 27 more. A turn longer than every earlier one, or the first, goes by the tail."""
    assert cache_rule.expected_later_calls(2, (3, 3)) == 0
    assert cache_rule.expected_later_calls(2, (30, 30, 4)) == round((27 + 27 + 1) / 3)
    assert cache_rule.expected_later_calls(5, (3, 4)) == cache_rule.expected_later_calls(5) == 10
    assert not cache_rule.pays(10_000, 1_500, 0, cache_rule.expected_later_calls(2, (3,)), banked=RICH)


async def test_a_session_of_short_turns_bills_no_more_than_sent_as_written_after_its_first_turn(tmp_path: Path):
    """Read a 900-line file, run the tests, answer: three calls a turn. The Read's stored form paid (on the tail's
    guess of calls to come) and was sent at the turn's last call; the turn's end rewrote it into history's form all
    the same, so each such turn billed more than sending it as written (1.08x over four turns). From the second
    turn on, the session's own turns say this is the last call, and nothing switches there."""
    from contextual.core.replay.session_policies import replay_session
    from tests.engine_helpers import make_config
    from tests.short_turns import session
    turns = session(calls=3)
    config = make_config(tmp_path, "http://127.0.0.1:9/v1")
    ours_calls = (await replay_session(turns, "ours", config)).calls
    raw_calls = (await replay_session(turns, "raw", config)).calls
    later_ours, later_raw = call_figures(ours_calls[3:]), call_figures(raw_calls[3:])
    assert later_ours.billed_tokens <= later_raw.billed_tokens * 1.001, (later_ours, later_raw)
