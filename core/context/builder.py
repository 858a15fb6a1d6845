"""ContextBuilder (seed 002 A1, D4): L1 → L2 → L3 → current input → scratchpad → todo recap.

Every prompt it returns fits `limit` tokens. When it would not, it gives up room in an order (core/context/
fitting.py: `fit`): the kept history and the scratchpad in harder forms, the kept rounds' results cut, the turn's
oldest steps as whole units (core/context/turn_fold.py), and only then head+tail cuts (seed 003), the session's
memory and the rules last; no round is dropped (issue 24: a round leaves the prompt only into a summary). Each
step is reported as an Adjustment naming the messages it touched, and every returned message carries its form
(full/stored/hard/cut/folded) and tokens. The builder makes the harder forms (it keeps their caches) and holds
what the turn's last fitted call gave way (`_steady`); the fitting itself is fitting.py's.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from contextual.core.context import scratchpad as sp
from contextual.core.context.history import rounds
from contextual.core.context.scratchpad import observation
from contextual.core.context.cache_rule import DEFAULT_PRICES, CachePrices
from contextual.core.context.forms import not_larger
from contextual.core.context.pins import pinned_form
from contextual.core.context.fitting import FitInput, fit
from contextual.core.context.rules import RulesFiles
from contextual.core.context.stored_render import sent_text
from contextual.core.context.superseded import Supersession
from contextual.core.context.truncate import head_tail
from contextual.core.context.turn_fold import Held
from contextual.core.messages import Message
from contextual.core.prompt import Adjustment, Form, PromptMessage, SUMMARY_PREFIX, Source
from contextual.core.tokens import TokenCache, shared_cache
from contextual.core.tools.base import path_of
from contextual.core.reminder import system_reminder

HARD_FALLBACK_CHARS = 600 # a harder form where no rule-made one was recorded: seed 003's head + tail
LAYERS = ("L1", "L2", "L3", "input", "scratchpad", "todo")
UNFOLD_UNDER = 4          # a held turn is sent afresh when it would fill less than a quarter of the limit (_steady)


def source_of(m: Message) -> Source:
    return Source(m.id, m.tool_name, path_of(m.meta.get("args")))


def _calls_per_turn(history: list[Message]) -> tuple[int, ...]:
    """The model calls of each earlier turn still in history (its replies: tool calls and the answer)."""
    return tuple(n for n in (sum(m.role == "assistant" for m in r) for r in rounds(history)) if n)


def history_message(m: Message) -> PromptMessage:
    """A history message as sent in L3 (stored form), with its form and source."""
    src = source_of(m)
    if m.role == "summary":
        return PromptMessage("summary", SUMMARY_PREFIX + m.content, "L3", form="summary", source=src)
    if m.role == "tool":
        content = not_larger(sent_text(m.content), m.full)
        return PromptMessage("user", observation(content), "L3", form="stored" if content != m.full else "full",
                             source=src)
    return PromptMessage(m.role, m.content, "L3", form="stored" if m.full is not None else "full", source=src)


def pinned_message(m: Message) -> PromptMessage:
    """A pinned history message (issue 19.3): whole, as the turn that made it saw it."""
    stored = history_message(m)
    text = pinned_form(m)
    return replace(stored, content=observation(text) if m.role == "tool" else text, form="full")


def _scratch_forms(pad: list[PromptMessage], steps: list[sp.ScratchStep], tokens: Callable[[str], int],
                   made: dict[int, tuple[str, sp.ScratchStep, PromptMessage]] | None = None) -> list[PromptMessage]:
    """Name each scratchpad message's form (full/stored), source and tokens: policies emit one pair per step.
    `made` keeps what earlier calls made: a step sends the very same text at every call until it switches, so
    its message is looked up, not made again (this runs for every step of the turn at every call)."""
    if len(pad) != 2 * len(steps):
        return [replace(m, tokens=tokens(m.content)) for m in pad]
    made = {} if made is None else made
    out: list[PromptMessage] = []
    for i, step in enumerate(steps):
        out.append(_named(pad[2 * i], step, True, tokens, made))
        out.append(_named(pad[2 * i + 1], step, False, tokens, made))
    if len(made) > 20_000:
        made.clear()
    return out


def _named(m: PromptMessage, step: sp.ScratchStep, action: bool, tokens: Callable[[str], int],
           made: dict[int, tuple[str, sp.ScratchStep, PromptMessage]]) -> PromptMessage:
    key = 2 * id(m.content) + action           # the entry holds the text, so its id is not reused while kept
    got = made.get(key)
    if got is not None and got[0] is m.content and got[1] is step and not m.cache_breakpoint:
        return got[2]
    if action:
        form: Form = "full" if m.content.endswith(step.action_full) else "stored"
        source = Source(step.assistant_id or None, step.tool or None, step.path or None)
    else:     # or a policy's turn form; sp.observation gives the very string the policy sent
        form = "full" if m.content == observation(step.observation_full) else "stored"
        source = Source(step.result_id or None, step.tool or None, step.path or None)
    named = PromptMessage(m.role, m.content, m.layer, m.cache_breakpoint, form, source, tokens(m.content))
    made[key] = (m.content, step, named)
    return named


def _stable_ends(messages: list[PromptMessage]) -> list[PromptMessage]:
    """Anthropic breakpoints: the end of history (stable across the turn) and the newest step, so the next call
    of the turn (same prefix plus one step) reads both back from the provider's cache. Set on the prompt as
    sent, fitted or not: a fitted prompt (a turn outgrowing the window) used to carry the system one alone."""
    ends = {max((i for i, m in enumerate(messages) if m.layer == layer), default=-1)
            for layer in ("L3", "scratchpad")}
    return [replace(m, cache_breakpoint=True) if i in ends else m for i, m in enumerate(messages)]


@dataclass(frozen=True)
class Built:
    messages: list[PromptMessage]          # as sent, each with its tokens, form and source
    tokens: dict[str, int]                 # per layer, message overhead included
    total: int
    adjustments: list[Adjustment] = field(default_factory=list)

    @property
    def unfitted(self) -> int:
        """The prompt's size before any fitting: what compaction must bring under the trigger (issue 24)."""
        return self.adjustments[0].tokens_before if self.adjustments else self.total


@dataclass
class ContextBuilder:
    system_prompt: str                     # L1: byte-identical for the whole session
    project_root: Path
    policy: str = "ours"
    rules_share: int = 20_000              # tokens each rules file may use (SHARE of the window)
    cache: TokenCache = field(default_factory=lambda: shared_cache)
    _hard: dict[str, str] = field(default_factory=dict)
    _rendered: dict[str, tuple[str, PromptMessage, bool]] = field(default_factory=dict)
    _tokened: dict[int, tuple[PromptMessage, PromptMessage]] = field(default_factory=dict)
    _pad_made: dict[int, tuple[str, sp.ScratchStep, PromptMessage]] = field(default_factory=dict)
    _held: Held = field(default_factory=Held)       # what the turn's last fitted call gave way (turn_fold.Held)
    _turn_calls: dict[tuple[int, str], tuple[int, ...]] = field(default_factory=dict)    # by history's end
    _rules: RulesFiles | None = None
    _supersession: Supersession = field(default_factory=Supersession)
    # Pinned history message ids (issue 19.3, the engine's Pins): sent whole, never harder, cut or dropped.
    pins: Any = frozenset()
    home: Path | None = None               # $CONTEXTUAL_HOME: the user's own AGENTS.md leads L2 (issue 30.5)
    # The model's cache prices: `ours` sends a stored form only where it pays for the prefix it breaks.
    prices: CachePrices = DEFAULT_PRICES

    def _history_message(self, m: Message) -> PromptMessage:
        """The same PromptMessage object for an unchanged message, so its text is hashed and counted once."""
        got = self._rendered.get(m.id)
        pinned = m.id in self.pins
        if got is None or got[0] is not m.content or got[2] != pinned:
            got = (m.content, pinned_message(m) if pinned else history_message(m), pinned)
            self._rendered[m.id] = got
            if len(self._rendered) > 20_000:
                self._rendered.pop(next(iter(self._rendered)))
        return got[1]

    def _past_turns(self, history: list[Message]) -> tuple[int, ...]:
        """_calls_per_turn, once per history (a pass over 11,000 messages is 1.3 ms, at every call of a turn)."""
        key = (len(history), history[-1].id if history else "")
        got = self._turn_calls.get(key)
        if got is None:
            self._turn_calls.clear()
            got = self._turn_calls[key] = _calls_per_turn(history)
        return got

    def _l3_message(self, m: Message) -> PromptMessage:
        sent = self._history_message(m)
        return replace(sent, form="superseded") if m.id in self._supersession.ids else sent

    def count(self, text: str) -> int:
        return self.cache.count(text)

    def _with_tokens(self, m: PromptMessage) -> PromptMessage:
        """The message carrying its token count. The same message (an unchanged history message, the same L1) is
        looked up, not copied again: a copy per message per call cost most of a build at a long history."""
        got = self._tokened.get(id(m))
        if got is None or got[0] is not m:     # the entry holds `m`, so its id is not reused while it is kept
            got = (m, replace(m, tokens=self.cache.message(m.content)))
            self._tokened[id(m)] = got
            if len(self._tokened) > 20_000:
                self._tokened.pop(next(iter(self._tokened)))
        return got[1]

    def _size(self, messages: list[PromptMessage]) -> dict[str, int]:
        sizes = dict.fromkeys(LAYERS, 0)
        for m in messages:
            sizes[m.layer] += self.cache.message(m.content)
        return sizes

    def head(self) -> list[PromptMessage]:
        """L1, then L2: one system message per rules file (read afresh, held to its share)."""
        head = [PromptMessage("system", self.system_prompt, "L1", cache_breakpoint=True, form="system")]
        if self._rules is None:
            self._rules = RulesFiles(self.project_root, self.home)
        for rules in self._rules.read(self.rules_share, self.count):
            head.append(PromptMessage("system", rules.text, "L2", form="cut" if rules.cut else "system",
                                      source=Source(path=rules.name)))
        return head

    def rules_notices(self) -> list[str]:
        """Rules files refused or cut since the last call, for the user (the model sees the cut note)."""
        return self._rules.take_notices() if self._rules is not None else []

    def build(self, history: list[Message], steps: list[sp.ScratchStep], question: str | None,
              todo_recap: str = "", *, limit: int, steady: bool = True) -> Built:
        """The prompt for these parts, within `limit` tokens (the caller's: the engine's is in our tokens, through
        the calibration, so the builder keeps none of its own). `steady`: a call of the turn, which gives way at
        least as much as the turn's last fitted call did (`_steady`); False for a size asked of the parts alone
        (the room a compaction keeps)."""
        head = self.head()
        history = self._supersession.applied(history, self.pins)     # the newest version of a file, not a stale one
        l3 = [self._l3_message(m) for m in history]
        tail: list[PromptMessage] = []
        if question is not None:
            tail.append(PromptMessage("user", question, "input", form="input"))
        pad = sp.scratchpad(self.policy, steps, self.cache.count, shown=question or "", prices=self.prices,
                            past_turns=self._past_turns(history))
        pad = _scratch_forms(self._pinned_whole(pad, steps), steps, self.cache.message, self._pad_made)
        todo = ([PromptMessage("user", system_reminder(todo_recap), "todo", form="todo")]
                if todo_recap else [])

        # the scratchpad's messages are made (and counted) afresh at each call; the rest is looked up
        messages = [self._with_tokens(m) for m in head + l3 + tail] + pad + [self._with_tokens(m) for m in todo]
        total = sum(m.tokens for m in messages)
        adjustments: list[Adjustment] = []
        held = self._held.of(steps) if steady else None
        if total > limit or held is not None:
            messages, adjustments = self._steady(messages, head, history, tail, steps, todo, total, held, steady,
                                                 limit)
        elif steady:
            self._held.keep(steps, None, None)
        messages = _stable_ends(messages)
        sizes = dict.fromkeys(LAYERS, 0)
        for m in messages:
            sizes[m.layer] += m.tokens
        return Built(messages, sizes, sum(sizes.values()), adjustments)

    def _pinned_whole(self, pad: list[PromptMessage], steps: list[sp.ScratchStep]) -> list[PromptMessage]:
        """A step of the turn the user pinned goes whole, as a pinned history message does (issue 19.3)."""
        pinned = self._pinned_steps(steps)
        if not pinned or len(pad) != 2 * len(steps):
            return pad
        out = list(pad)
        for i in pinned:
            out[2 * i] = replace(pad[2 * i], content=steps[i].action_full)
            out[2 * i + 1] = replace(pad[2 * i + 1], content=observation(steps[i].observation_full))
        return out

    def _pinned_steps(self, steps: list[sp.ScratchStep]) -> frozenset[int]:
        """The steps of the turn (their index) the user pinned, by their call or its result."""
        return frozenset(i for i, s in enumerate(steps)
                         if any(part and part in self.pins for part in (s.assistant_id, s.result_id)))

    def _steady(self, messages: list[PromptMessage], head: list[PromptMessage], history: list[Message],
                tail: list[PromptMessage], steps: list[sp.ScratchStep], todo: list[PromptMessage], total: int,
                held: Held | None, steady: bool, limit: int) -> tuple[list[PromptMessage], list[Adjustment]]:
        """Fit the prompt, at least as the turn's last fitted call did (`held`): a step once stubbed, sent as its
        action line or folded stays so for the turn, so the prompt up to the newest step is the text the server
        has cached (llama.cpp's KV cache, a provider's prefix cache); moving with each call's newest output had
        rewritten the prompt from the first step at nearly every call of a 4k turn. The turn is sent
        afresh only when what it holds would leave more than three quarters of the limit unused (a compaction
        mid-turn, a larger window learned): at half, a 4k turn unfolded after each short output and folded again
        at the next long one, two rewrites for one call's detail."""
        parts = self._fit_input(messages, head, history, tail, steps, todo, total)
        got = fit(parts, self.cache, self.pins, limit, held)
        if held is not None and sum(self._size(got.messages).values()) < limit // UNFOLD_UNDER:
            if total <= limit:          # sent afresh, whole: nothing held for the next call
                if steady:
                    self._held.keep(steps, None, None, None)
                return [self._with_tokens(m) for m in messages], []
            got = fit(parts, self.cache, self.pins, limit)
        if steady:
            self._held.keep(steps, got.gave, got.kept_cap, got.shared)
        return [self._with_tokens(m) for m in got.messages], got.adjustments

    def _fit_input(self, built: list[PromptMessage], head: list[PromptMessage], history: list[Message],
                   tail: list[PromptMessage], steps: list[sp.ScratchStep], todo: list[PromptMessage], before: int
                   ) -> FitInput:
        """The prompt as built and in stage 1's forms (core/context/fitting.py): the kept rounds' tool results in
        their harder form, all but the newest observation stored."""
        hist = [self._hard_form(m) for m in history]
        harder = {h.id for h, m in zip(hist, history) if h.content != m.content}
        pad = self._stored_pad([m for m in built if m.layer == "scratchpad"], steps)
        l3 = [replace(history_message(m), form="hard") if m.id in harder else self._l3_message(m) for m in hist]
        pad_at = len(head) + len(l3) + len(tail)
        return FitInput(before, head + l3 + tail + pad + todo, (pad_at, pad_at + len(pad)), steps,
                        self._pinned_steps(steps))

    # ---- never over the window -------------------------------------------------------------
    def _hard_form(self, m: Message) -> Message:
        if m.role != "tool" or not m.full or m.id in self.pins:
            return m
        got = self._hard.get(m.id)
        if got is None:
            hard = m.meta.get("hard")     # made from the result when it was recorded (core/engine/tool_step.py)
            # A result recorded without one (an older session) is cut to its head and tail instead.
            got = hard if isinstance(hard, str) else head_tail(m.content, HARD_FALLBACK_CHARS)
            if len(got) > len(m.content):
                got = m.content
            self._hard[m.id] = got
        return m.with_content(got)

    def _stored_pad(self, built: list[PromptMessage], steps: list[sp.ScratchStep]) -> list[PromptMessage]:
        """The turn in its stored forms to fit: each message the smaller of the policy's and the stored form (a
        form `ours` made aware of the turn is often the smaller, and it is the text the last call sent), a pinned
        step whole. Always the stored forms had swapped `ours`'s forms for larger ones."""
        stored = _scratch_forms(self._pinned_whole(sp.stored_only(steps, self.cache.count), steps), steps,
                                self.cache.message)
        if len(built) != len(stored):
            return stored
        size = self.cache.message
        return [b if size(b.content) <= size(s.content) else s for b, s in zip(built, stored)]
