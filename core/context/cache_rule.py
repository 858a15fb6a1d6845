"""Does a stored form pay for the cache prefix it breaks? (issue 28.3) — the one rule, for the live engine and replay.

Providers bill the part of a prompt that repeats the previous call's from the start (the cached prefix) at a
fraction of the input price. Sending an older step in its shorter stored form instead of the full form the
previous call sent rewrites the prompt from that step on: this call pays the stored form, and whatever already
sent text follows it, at the write price instead of the cached price; each later call of the turn then reads
the stored form instead of the full one, at the cached price. The switch pays when what the later calls save
covers what this call adds. How many calls are left is not known while the turn runs: the guess comes from the
lengths of recorded turns (`expected_later_calls`). The prices come from the model's price table
(core/model_facts.py); an unpriced model gets the common ratios (cached input a tenth, writes at the input price).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:       # the price table is read by the engine, which hands its entry here
    from contextual.core.model_facts import ModelFacts


@dataclass(frozen=True)
class CachePrices:
    """Prices per token of fresh input: `read` for cached input, `write` for input written to the cache."""
    read: float = 0.1       # OpenAI's and Anthropic's current models: a cached token costs a tenth
    write: float = 1.0      # Anthropic charges 1.25 to write a prefix; OpenAI nothing extra


DEFAULT_PRICES = CachePrices()


def prices_for(facts: ModelFacts | None) -> CachePrices:
    """The ratios from a model's price table entry; the default when it is unpriced."""
    if facts is None or not facts.input:
        return DEFAULT_PRICES
    price_in, cached, written = facts.input, facts.cached_input, facts.cache_write
    return CachePrices(read=DEFAULT_PRICES.read if cached is None else min(1.0, cached / price_in),
                       write=DEFAULT_PRICES.write if written is None else max(1.0, written / price_in))


# How many more calls a turn makes is not known while it runs. Turn lengths are heavy-tailed (tune/: 14 to 142
# calls), and under such a tail the turns that have lasted k calls go on, on average, for a multiple of k: twice k
# (a Pareto tail of index 1.5). A guess that grows with the turn keeps a short turn from paying for switches a long
# one would recoup: on tune/ a fixed guess of 45 - k calls billed 0.747x the agent's prompts and 2k 0.757x, but
# 45 - k bills a nine-call turn 1.39x what sending it uncompressed would (tests/test_cache_rule.py).
LATER_CALLS_PER_CALL_MADE = 2


def expected_later_calls(calls_so_far: int, past_turns: Sequence[int] = ()) -> int:
    """Calls the turn is expected to make after this one (the turn's model decides; nothing here can know).
    `past_turns`: how many calls each earlier turn of the session made. Those that reached this call say how many
    more are usual here (none: no switch pays). In a session of short turns (read a file, run the tests, answer) a
    switch paid its rewrite and the turn ended, and the turn's end rewrites its steps into history's forms all the
    same (a session of 3-call turns billed 1.08x what sending them as written did). A turn longer than every
    earlier one goes by the tail's guess."""
    this_call = calls_so_far + 1
    reached = [n - this_call for n in past_turns if n >= this_call]     # 0: such a turn ended with this call
    if reached:
        return round(sum(reached) / len(reached))
    return max(1, LATER_CALLS_PER_CALL_MADE * calls_so_far)


# A turn can end at any call. The rule above is right on average, but a turn that ends soon after a switch has paid
# its up-front cost and not yet had it back: on tune/ cut to its first 8 steps, 9 of the 60 turns billed more than
# sending them as written (up to 1.09x). So a switch is also covered: what the turn has saved so far against
# sending everything as written, plus what the switch saves in the next PAYBACK_CALLS calls, must pay its up-front
# cost. A turn then bills at most a few calls' reading of one step more than as written, whenever it ends
# (tune/ cut at 8, 12 and 16 steps: each turn at most 1.004x, from 1.09x, 1.07x and 1.03x, and all of them pooled
# 0.942x, 0.908x, 0.885x from 0.951x, 0.914x, 0.888x; whole turns 0.751x the agent's, from 0.746x).
PAYBACK_CALLS = 4


def up_front(full: int, stored: int, rewritten: int, prices: CachePrices = DEFAULT_PRICES) -> float:
    """What switching one step from `full` to `stored` tokens adds to this call's bill; `rewritten`: tokens already
    sent after the step, which the switch makes uncached too."""
    return prices.write * (stored + rewritten) - prices.read * (full + rewritten)


def pays(full: int, stored: int, rewritten: int, later_calls: int, prices: CachePrices = DEFAULT_PRICES, *,
         banked: float) -> bool:
    """Whether switching one step from `full` to `stored` tokens at this call bills less over the turn than
    keeping it full, and is covered by `banked`: what the turn has saved so far against sending it as written."""
    if stored >= full:
        return False
    added_now = up_front(full, stored, rewritten, prices)
    saved_per_call = prices.read * (full - stored)
    if added_now > banked + saved_per_call * PAYBACK_CALLS:
        return False
    return saved_per_call * later_calls > added_now
