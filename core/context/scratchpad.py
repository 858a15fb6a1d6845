"""The current turn's steps as sent (the scratchpad), under a named policy.

Seed 002 keeps every observation of the turn full; one user message that drives 100 tool calls then
grows without bound (seed 004). The policies here decide, for each step, whether its observation and
its action go full or stored. They are judged by position from the end of the turn.

`ours` is prompt-cache-aware: a step switches to its stored form (core/context/turn_forms.py) only where
the change leaves the provider's cached prefix intact — with the tuned parameters, one step after it arrives,
at the very end of the prompt; sliding masking instead breaks the prefix ten steps back at every call. Even
there a switch rewrites the step at full price, so it is made only when it pays (core/context/cache_rule.py).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any, Callable

from contextual.core.context import anchors, cache_rule
from contextual.core.context.names import first_to_name, name_set
from contextual.core.context.forms import not_larger
from contextual.core.context.turn_forms import StepForms, turn_stored
from contextual.core.context.stored_render import sent_text
from contextual.core.context.truncate import head_tail_lines
from contextual.core.messages import Message
from contextual.core.prompt import PromptMessage
from contextual.core.react import step_text, stored_action
from contextual.core.tools.base import path_of

OBS = "Observation: "


@functools.lru_cache(maxsize=4096)
def observation(text: str) -> str:
    """The observation message's text. The same string for the same text, every call of the turn: its hash is
    computed once, so looking its token count up again costs no pass over a long output."""
    return OBS + text


MASK_PLACEHOLDER = "[Old observation omitted: only the 10 most recent are kept]"


@dataclass(frozen=True)
class ScratchStep:
    action_full: str            # the Thought/Action text the model wrote (thinking removed)
    action_stored: str          # the same, shortened when bulky (a whole file written inline)
    observation_full: str       # the full result, as the model saw it at this step
    observation_stored: str     # the compressed (A3) form written to history
    thinking: str = ""
    # Where the step is in history (PromptView sources); empty for steps that are not (replay).
    assistant_id: str = ""
    result_id: str = ""
    tool: str = ""
    path: str = ""


def step_of(call: Message, result: Message) -> ScratchStep:
    """The step a recorded call (a Thought/Action, or a reply that was none) and its recorded result make: the turn
    loop makes it live and `/export --as-sent` rebuilds it from the record, so both send the same."""
    thinking = call.meta.get("thinking")
    return ScratchStep(call.full or call.content, call.content, result.full or result.content, sent_text(result.content),
                       thinking if isinstance(thinking, str) else "", call.id, result.id, result.tool_name or "",
                       path_of(result.meta.get("args")) or "")


@dataclass(frozen=True)
class OursParams:
    # Chosen on ../shared/trajectories/tune/ only (README, "Context engineering, measured"): the newest
    # observation goes full and each older one switches to its stored form one step later. The switch then
    # always happens at the end of the prompt, so the provider's cached prefix stays valid up to the previous
    # step: billed with cache beats switching 6 at a time behind 3 full ones (which rewrote 9 steps every 6).
    keep_full: int = 1          # the most recent observations always go full
    batch: int = 1              # older ones switch to stored this many at a time
    full_token_budget: int = 24_000   # past this, full observations beyond the newest are stored at once


def _messages(steps: list[ScratchStep], obs: Callable[[int], str], act: Callable[[int], str]) -> list[PromptMessage]:
    out: list[PromptMessage] = []
    last_thinking = max((i for i, s in enumerate(steps) if s.thinking), default=-1)
    for i, step in enumerate(steps):
        action = act(i)
        if i == last_thinking:       # seed 004 layer 2: only the most recent thinking block is sent
            action = f"<think>\n{step.thinking}\n</think>\n{action}"
        out.append(PromptMessage("assistant", action, "scratchpad"))
        out.append(PromptMessage("user", observation(obs(i)), "scratchpad"))
    return out


def raw(steps: list[ScratchStep], count: Callable[[str], int]) -> list[PromptMessage]:
    return _messages(steps, lambda i: steps[i].observation_full, lambda i: steps[i].action_full)


def mask(steps: list[ScratchStep], count: Callable[[str], int], keep: int = 10) -> list[PromptMessage]:
    cut = len(steps) - keep
    return _messages(steps,
                     lambda i: steps[i].observation_full if i >= cut else MASK_PLACEHOLDER,
                     lambda i: steps[i].action_full)


def _head_tail_strings(value: Any, min_chars: int, head: int, tail: int) -> Any:
    """seed 004 layer 1 on the text inside a JSON observation: long strings cut to head + tail lines."""
    if isinstance(value, str):
        if len(value) <= min_chars:
            return value
        lines = value.splitlines()
        kept, dropped = head_tail_lines(lines, head, tail)
        if not dropped:
            return value
        return "\n".join(kept) + f"\n[... {dropped} lines omitted, {len(value)} chars originally ...]"
    if isinstance(value, dict):
        return {k: _head_tail_strings(v, min_chars, head, tail) for k, v in value.items()}
    if isinstance(value, list):
        return [_head_tail_strings(v, min_chars, head, tail) for v in value]
    return value


def seed004(steps: list[ScratchStep], count: Callable[[str], int], keep: int = 6) -> list[PromptMessage]:
    """Seed 004 layer 1: the last 6 observations full, older ones over 500 chars cut to 3 head + 2 tail lines."""
    cut = len(steps) - keep

    def obs(i: int) -> str:
        text = steps[i].observation_full
        if i >= cut or len(text) <= 500:
            return text
        try:
            return json.dumps(_head_tail_strings(json.loads(text), 500, 3, 2), ensure_ascii=False)
        except ValueError:
            kept, dropped = head_tail_lines(text.splitlines(), 3, 2)
            return "\n".join(kept) if dropped else text
    return _messages(steps, obs, lambda i: steps[i].action_full)


def _cuts(steps: list[ScratchStep], count: Callable[[str], int], params: OursParams) -> list[int]:
    """The cut after each prefix of the turn: cuts[k] for steps[:k]. The cut moves rarely and far: only when
    the full steps reach `keep_full + batch`, or outgrow the token budget, and then it leaves just `keep_full`
    full. A fold over the turn's prefixes, so it is a pure function of the steps (a preview, a live turn and a
    replay of the same steps agree) and the cached prefix stays put between moves."""
    cuts = [0]
    cut = 0
    full_tokens = 0
    for k, step in enumerate(steps, start=1):
        full_tokens += count(step.observation_full)
        if k - cut >= params.keep_full + params.batch or (full_tokens > params.full_token_budget and k - cut > 1):
            new_cut = max(cut, k - params.keep_full) if k - cut >= params.keep_full + params.batch else k - 1
            full_tokens -= sum(count(s.observation_full) for s in steps[cut:new_cut])
            cut = new_cut
        cuts.append(cut)
    return cuts


def _switched(steps: list[ScratchStep], forms: list[StepForms], count: Callable[[str], int], params: OursParams,
              prices: cache_rule.CachePrices, past_turns: tuple[int, ...] = ()) -> list[bool]:
    """For each step below the cut, whether it goes stored: decided once, at the call where it passes the cut,
    by whether its stored form pays for the cache prefix it breaks and what the turn has saved so far covers it
    (core/context/cache_rule.py). A step kept full then stays full, so no later call breaks the prefix there.
    Depends only on the steps up to that call."""
    cuts = _cuts(steps, count, params)
    sent_before = [0]                                  # sent_before[j]: what steps[:j] cost when sent full
    for i, s in enumerate(steps):
        sent_before.append(sent_before[-1] + count(forms[i].fresh_action) + count(observation(s.observation_full)))
    out = [False] * len(steps)
    # What the turn has saved so far against sending every step as written, in fresh-input tokens: the thoughts
    # sent shortened from the start and the switches made, each net of its up-front cost (cache_rule.pays).
    banked = 0.0
    saved_per_call = 0.0                               # what the steps sent so far save on each later call
    for k in range(1, len(cuts)):                      # the call sending steps[:k]; k calls made before it
        banked += saved_per_call
        shorter = count(steps[k - 1].action_full) - count(forms[k - 1].fresh_action)   # the step sent first now
        banked += prices.write * shorter
        saved_per_call += prices.read * shorter
        for i in range(cuts[k - 1], cuts[k]):          # the steps that pass the cut at that call
            form = forms[i]
            changed_action = form.action != form.fresh_action    # else the rewrite starts at the observation
            full = count(observation(steps[i].observation_full)) + (count(form.fresh_action) if changed_action else 0)
            stored = count(observation(form.observation)) + (count(form.action) if changed_action else 0)
            rewritten = max(0, sent_before[k - 1] - sent_before[i + 1])   # sent after it by the previous call, written again
            out[i] = cache_rule.pays(full, stored, rewritten, cache_rule.expected_later_calls(k, past_turns), prices,
                                     banked=banked)
            if out[i]:
                banked -= cache_rule.up_front(full, stored, rewritten, prices)
                saved_per_call += prices.read * (full - stored)
    return out


def ours(steps: list[ScratchStep], count: Callable[[str], int], params: OursParams = OursParams(),
         shown: str = "", prices: cache_rule.CachePrices = cache_rule.DEFAULT_PRICES,
         past_turns: tuple[int, ...] = ()) -> list[PromptMessage]:
    forms = turn_stored(steps, len(steps), shown=shown)   # aware of what the prompt already shows (turn_forms.py)
    stored = _switched(steps, forms, count, params, prices, past_turns)
    # Steps kept full send their thought already shortened (turn_forms.py): that never changes once sent.
    return _messages(steps,
                     lambda i: forms[i].observation if stored[i] else steps[i].observation_full,
                     lambda i: forms[i].action if stored[i] else forms[i].fresh_action)


def stored_only(steps: list[ScratchStep], count: Callable[[str], int]) -> list[PromptMessage]:
    """The harshest form, used when even `ours` does not fit the window: everything but the newest stored."""
    last = len(steps) - 1
    return _messages(steps,
                     lambda i: steps[i].observation_full if i == last
                     else not_larger(steps[i].observation_stored, steps[i].observation_full, count),
                     lambda i: steps[i].action_stored)


def _anchor(choose: Callable[[list[ScratchStep], Callable[[str], int]], list[str]]
            ) -> Callable[[list[ScratchStep], Callable[[str], int]], list[PromptMessage]]:
    """A policy from an anchor (core/context/anchors.py): the anchor picks each observation, actions stay full."""
    def policy(steps: list[ScratchStep], count: Callable[[str], int]) -> list[PromptMessage]:
        sent = choose(steps, count)
        return _messages(steps, lambda i: sent[i], lambda i: steps[i].action_full)
    return policy


def _anthropic(params: anchors.ClearToolUses) -> Callable[[list[ScratchStep], Callable[[str], int]], list[PromptMessage]]:
    return _anchor(lambda steps, count: anchors.anthropic_clear(
        [s.observation_full for s in steps], [count(s.action_full) for s in steps], count, params))


def scratchpad(policy: str, steps: list[ScratchStep], count: Callable[[str], int], shown: str = "",
               prices: cache_rule.CachePrices = cache_rule.DEFAULT_PRICES,
               past_turns: tuple[int, ...] = ()) -> list[PromptMessage]:
    """The turn's steps as `policy` sends them; `shown` is the turn's input, which `ours` need not repeat;
    `prices` the model's cache prices and `past_turns` the calls of the session's earlier turns, by which `ours`
    decides whether a stored form pays."""
    if policy == "ours":
        return POLICIES["ours"](steps, count, shown=shown, prices=prices, past_turns=past_turns)
    return POLICIES[policy](steps, count)


POLICIES: dict[str, Callable[..., list[PromptMessage]]] = {
    "ours": ours,
    "raw": raw,
    "mask": mask,
    "seed004": seed004,
    "anthropic": _anthropic(anchors.ANTHROPIC_DEFAULT),
    "anthropic-30k": _anthropic(anchors.ANTHROPIC_DOCS_30K),
    # the scratchpad is the current user turn, so every step is 0 turns back
    "opencode": _anchor(lambda steps, count: anchors.opencode_prune(
        [s.observation_full for s in steps], [0] * len(steps), count)),
    "codex": _anchor(lambda steps, count: [anchors.codex_truncate(s.observation_full) for s in steps]),
}

BULKY_ACTION_CHARS = 1_500     # an action this long (a file written inline) keeps head, tail and naming lines
LONG_THOUGHT_CHARS = 900       # a thought this long keeps its opening and the lines that name something new
THOUGHT_KEEP_CHARS = 450


def _short_thought(thought: str, keep_also: str) -> str:
    if len(thought) <= LONG_THOUGHT_CHARS:
        return thought
    cut = thought.rfind("\n", 0, THOUGHT_KEEP_CHARS)
    if cut < THOUGHT_KEEP_CHARS // 3:
        return thought                             # one long paragraph: nothing whole to drop
    head, rest = thought[:cut].rstrip(), thought[cut + 1:].splitlines()
    kept = first_to_name(rest, name_set(head) | name_set(keep_also))
    if len(kept) == len([line for line in rest if line.strip()]):
        return thought
    body = [rest[i] for i in kept]
    dropped = len(rest) - len(kept)
    return "\n".join([head, *body, f"[{dropped} more lines of this thought omitted]"])


def _short_action(action: str) -> str:
    if len(action) <= BULKY_ACTION_CHARS:
        return action
    lines = action.splitlines()
    if len(lines) <= 18:
        return action
    head, middle, tail = lines[:12], lines[12:-6], lines[-6:]
    kept = first_to_name(middle, name_set("\n".join(head + tail)))
    if len(kept) == len(middle):
        return action
    body = [f"{12 + i + 1}: {middle[i]}" for i in kept]
    note = (f"[lines 13-{len(lines) - 6} of this action: {len(kept)} kept (numbered), "
            f"{len(middle) - len(kept)} omitted]")
    return "\n".join([*head, note, *body, *tail])


def shorten_action(text: str) -> str:
    """Stored form of one step's `Thought/Action` text (A2: history keeps a compressed record of actions):
    a long thought keeps its opening, a bulky action (a file written inline) its head and tail, and both
    keep every line that is the first to show a name, whole, so later steps can still use it. Short steps
    stay as they are."""
    found = stored_action(text)
    if found is None or not found.head:
        return _short_action(text)
    return step_text(_short_thought(found.thought, found.call), _short_action(found.call))
