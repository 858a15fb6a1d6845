"""ContextBuilder (seed 002 A1, D4): L1 → L2 → L3 → current input → scratchpad → todo recap.

Every prompt it returns fits `limit` tokens. When it would not, it first compresses the kept
history and the scratchpad harder, then cuts oversized messages head+tail, one cap for all (seed 003);
no round is dropped (issue 24: a round leaves the prompt only into a summary). Each step is reported as an
Adjustment naming the messages it touched, and every returned message carries its form (full/stored/hard/cut)
and tokens.
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
from contextual.core.context.rules import RulesFiles
from contextual.core.context.stored_render import sent_text
from contextual.core.context.superseded import Supersession
from contextual.core.context.truncate import head_tail
from contextual.core.messages import Message
from contextual.core.prompt import Adjustment, Form, PromptMessage, SUMMARY_PREFIX, Source
from contextual.core.tokens import TokenCache, shared_cache
from contextual.core.tools.base import path_of
from contextual.core.reminder import system_reminder
from contextual.core.plural import plural

MIN_CUT_CHARS = 60        # a cut message keeps at least its first and last few characters
HARD_FALLBACK_CHARS = 600 # a harder form where no rule-made one was recorded: seed 003's head + tail
LAYERS = ("L1", "L2", "L3", "input", "scratchpad", "todo")
SHARE_FLOOR = 64          # tokens each tool result keeps at least before the actions are cut too
MIN_SHARE = 16            # and each result and action before the summaries and the user's messages are


def _is_memory(m: PromptMessage) -> bool:
    """A summary or a message the user wrote: cut only when nothing else can make room."""
    return m.role == "summary" or m.layer == "input" or (m.role == "user" and not _is_result(m) and m.layer == "L3")


def _is_result(m: PromptMessage) -> bool:
    """A tool result: an observation of this turn, or a kept round's result in history."""
    return m.role == "user" and (m.layer == "scratchpad" or (m.layer == "L3" and bool(m.source.tool)))


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
    limit: int                             # window minus the output reserve
    policy: str = "ours"
    rules_share: int = 20_000              # tokens each rules file may use (SHARE of the window)
    cache: TokenCache = field(default_factory=lambda: shared_cache)
    _hard: dict[str, str] = field(default_factory=dict)
    _rendered: dict[str, tuple[str, PromptMessage, bool]] = field(default_factory=dict)
    _tokened: dict[int, tuple[PromptMessage, PromptMessage]] = field(default_factory=dict)
    _pad_made: dict[int, tuple[str, sp.ScratchStep, PromptMessage]] = field(default_factory=dict)
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
              todo_recap: str = "", limit: int | None = None) -> Built:
        """The prompt for these parts, within `limit` tokens (default: the builder's own)."""
        if limit is not None and limit != self.limit:
            if self._rules is None:      # made here, so the copy shares its cache and its notices
                self._rules = RulesFiles(self.project_root, self.home)
            return replace(self, limit=limit, _rules=self._rules).build(history, steps, question, todo_recap)
        head = self.head()
        history = self._supersession.applied(history, self.pins)     # the newest version of a file, not a stale one
        l3 = [self._l3_message(m) for m in history]
        tail: list[PromptMessage] = []
        if question is not None:
            tail.append(PromptMessage("user", question, "input", form="input"))
        pad = sp.scratchpad(self.policy, steps, self.cache.count, shown=question or "", prices=self.prices,
                            past_turns=self._past_turns(history))
        pad = _scratch_forms(pad, steps, self.cache.message, self._pad_made)
        todo = ([PromptMessage("user", system_reminder(todo_recap), "todo", form="todo")]
                if todo_recap else [])

        # the scratchpad's messages are made (and counted) afresh at each call; the rest is looked up
        messages = [self._with_tokens(m) for m in head + l3 + tail] + pad + [self._with_tokens(m) for m in todo]
        total = sum(m.tokens for m in messages)
        adjustments: list[Adjustment] = []
        if total > self.limit:
            messages, adjustments = self._fit(head, history, tail, steps, todo, total)
            messages = [self._with_tokens(m) for m in messages]
        messages = _stable_ends(messages)
        sizes = dict.fromkeys(LAYERS, 0)
        for m in messages:
            sizes[m.layer] += m.tokens
        return Built(messages, sizes, sum(sizes.values()), adjustments)

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

    def _cut_to(self, m: PromptMessage, tokens: int) -> PromptMessage:
        size = self.cache.message(m.content)
        chars = max(MIN_CUT_CHARS, min(len(m.content) - 1, int(len(m.content) * tokens / max(size, 1))))
        return replace(m, content=head_tail(m.content, chars), form="cut")

    def _share_room(self, msgs: list[PromptMessage]) -> tuple[list[PromptMessage], int, list[bool]]:
        """Find the largest cap such that every cuttable message held to it fits, then cut those above it.

        Tool results older than the newest observation share the room first, the rest kept whole, when each of
        them keeps at least SHARE_FLOOR tokens; else the newest observation shares it too; else the actions too
        (MIN_SHARE each); only then every cuttable message (the summaries and the user's messages too). Sharing among all at once cut a 4k session's
        summaries, the user's message and each action's file name to a marker at the 30th Read of a turn,
        while 1,000 tokens of the window went unused."""
        sizes = [self.cache.message(m.content) for m in msgs]
        newest = max((i for i, m in enumerate(msgs) if _is_result(m) and m.layer == "scratchpad"), default=-1)
        Share = Callable[[int, PromptMessage], bool]
        tiers: list[tuple[int, Share]] = [
            (SHARE_FLOOR, lambda i, m: _is_result(m) and i != newest and self._cuttable(m)),
            (SHARE_FLOOR, lambda i, m: _is_result(m) and self._cuttable(m)),
            (MIN_SHARE, lambda i, m: self._cuttable(m) and not _is_memory(m)),
            (0, lambda i, m: self._cuttable(m))]
        for floor, shares in tiers:
            chosen = [shares(i, m) for i, m in enumerate(msgs)]
            fixed = sum(size for size, pick in zip(sizes, chosen) if not pick)
            cuttable = [size for size, pick in zip(sizes, chosen) if pick]
            room = self.limit - fixed
            low, high = 0, max(cuttable, default=0)
            while low < high:                                  # the largest cap whose total fits the room
                mid = (low + high + 1) // 2
                if sum(min(size, mid) for size in cuttable) <= room:
                    low = mid
                else:
                    high = mid - 1
            if cuttable and sum(min(size, low) for size in cuttable) <= room and low >= floor:
                break
        cap = max(low - min(16, low // 8), 1)              # headroom for the cut markers
        out, cuts = [], 0
        for size, m, pick in zip(sizes, msgs, chosen):
            if pick and size > cap and len(m.content) > MIN_CUT_CHARS:
                out.append(self._cut_to(m, cap))
                cuts += 1
            else:
                out.append(m)
        return out, cuts, chosen

    def _cuttable(self, m: PromptMessage) -> bool:
        return m.layer != "L1" and m.source.message_id not in self.pins

    def _fit(self, head: list[PromptMessage], history: list[Message], tail: list[PromptMessage],
             steps: list[sp.ScratchStep], todo: list[PromptMessage], before: int
             ) -> tuple[list[PromptMessage], list[Adjustment]]:
        adjustments: list[Adjustment] = []

        def assemble(hist: list[Message], pad: list[PromptMessage]) -> tuple[list[PromptMessage], int]:
            l3 = [replace(history_message(m), form="hard") if m.id in harder else self._l3_message(m)
                  for m in hist]
            msgs = head + l3 + tail + pad + todo
            return msgs, sum(self._size(msgs).values())

        def ids(msgs: list[PromptMessage]) -> tuple[str, ...]:
            return tuple(m.source.message_id for m in msgs if m.source.message_id)

        # 1. Compress the kept rounds' tool results harder, and store all but the newest observation.
        hist = [self._hard_form(m) for m in history]
        harder = {h.id for h, m in zip(hist, history) if h.content != m.content}
        pad = _scratch_forms(sp.stored_only(steps, self.cache.count), steps, self.cache.message)
        msgs, total = assemble(hist, pad)
        if total < before:
            touched = [m for m in msgs if m.form == "hard" or (m.layer == "scratchpad" and m.form == "stored")]
            adjustments.append(Adjustment("compress_kept", "kept tool results compressed harder; older "
                                          "observations of this turn in stored form", before, total, ids(touched)))
        # 2. (Issue 24) No round is ever dropped: a round leaves the prompt only into a summary, and compaction
        #    fires before this point (core/window_budget.py); what still does not fit is cut, longest first.
        # 3. Cut oversized messages head+tail until the prompt fits, sharing the room fairly: one cap for
        #    all (water-filling), so no message shrinks to a marker while another keeps thousands of tokens.
        cuts = 0
        chosen = [True] * len(msgs)
        if total > self.limit:
            msgs, cuts, chosen = self._share_room(msgs)
            total = sum(self._size(msgs).values())
        while total > self.limit and cuts < 4 * len(msgs):     # rounding leftovers: trim the largest
            sizes = [(self.cache.message(m.content), i) for i, m in enumerate(msgs)
                     if chosen[i] and self._cuttable(m) and len(m.content) > MIN_CUT_CHARS]
            if not sizes:     # those that shared the room are at their least: any cuttable message
                sizes = [(self.cache.message(m.content), i) for i, m in enumerate(msgs)
                         if self._cuttable(m) and len(m.content) > MIN_CUT_CHARS]
            if not sizes:     # pins alone over the window: never over it, so even a pinned message is cut
                sizes = [(self.cache.message(m.content), i) for i, m in enumerate(msgs)
                         if m.layer != "L1" and len(m.content) > MIN_CUT_CHARS]
            if not sizes:
                break
            size, index = max(sizes)
            msgs[index] = self._cut_to(msgs[index], max(1, size - (total - self.limit) - 8))
            total = sum(self._size(msgs).values())
            cuts += 1
        if cuts:
            adjustments.append(Adjustment("cut_observation", f"cut {plural(cuts, 'oversized message')} head+tail",
                                          before, total, ids([m for m in msgs if m.form == "cut"])))
        return msgs, adjustments
