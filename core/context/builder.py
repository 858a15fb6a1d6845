"""ContextBuilder (seed 002 A1, D4): L1 → L2 → L3 → current input → scratchpad → todo recap.

Every prompt it returns fits `limit` tokens. When it would not, it gives up room in an order (`_fit`): the kept
history and the scratchpad in harder forms, the kept rounds' results cut, the turn's oldest steps as whole units
(core/context/turn_fold.py), and only then head+tail cuts (seed 003), the session's memory and the rules last;
no round is dropped (issue 24: a round leaves the prompt only into a summary). Each step is reported as an
Adjustment naming the messages it touched, and every returned message carries its form (full/stored/hard/cut/
folded) and tokens.
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
from contextual.core.context.rules import USER_NAME, RulesFiles
from contextual.core.context.stored_render import sent_text
from contextual.core.context.superseded import Supersession
from contextual.core.context.truncate import head_tail
from contextual.core.context.turn_fold import GaveWay, Held, give_way
from contextual.core.messages import Message
from contextual.core.prompt import Adjustment, Form, PromptMessage, SUMMARY_PREFIX, Source
from contextual.core.tokens import TokenCache, shared_cache
from contextual.core.tools.base import path_of
from contextual.core.reminder import system_reminder
from contextual.core.plural import plural

MIN_CUT_CHARS = 60        # a cut message keeps at least its first and last few characters
HARD_FALLBACK_CHARS = 600 # a harder form where no rule-made one was recorded: seed 003's head + tail
LAYERS = ("L1", "L2", "L3", "input", "scratchpad", "todo")
UNFOLD_UNDER = 4          # a held turn is sent afresh when it would fill less than a quarter of the limit (_steady)
MOVE_SLACK = 8            # a move of the turn's fold past the last call's gives an eighth of the limit more (_fit)
SHARE_FLOOR = 64          # tokens each kept round's result (and the newest observation) keeps before more gives way
MIN_SHARE = 16            # and each result and action before the summaries, the user's messages and L2 are


def _is_memory(m: PromptMessage) -> bool:
    """A summary, a message the user wrote, the rules (L2, kept like the user's own words), the note of the turn's
    folded steps: cut only when nothing else can make room."""
    return (m.role == "summary" or m.layer in ("input", "L2") or m.form == "folded"
            or (m.role == "user" and not _is_result(m) and m.layer == "L3"))


def _is_result(m: PromptMessage) -> bool:
    """A tool result: an observation of this turn, or a kept round's result in history."""
    return m.role == "user" and m.form != "folded" and (m.layer == "scratchpad" or
                                                        (m.layer == "L3" and bool(m.source.tool)))


Share = Callable[[int, PromptMessage], bool]


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
class _Fitting:
    """The prompt while `ContextBuilder._fit` gives up room, stage by stage."""
    msgs: list[PromptMessage]
    total: int                             # its tokens now
    before: int                            # and as built, before any fitting
    fitted: list[PromptMessage]            # as they were before any cut: what the cuts are told against
    adjustments: list[Adjustment]
    pad: tuple[int, int]                   # where the turn's steps are among `msgs` (start, end)


def _ids(msgs: list[PromptMessage]) -> tuple[str, ...]:
    return tuple(m.source.message_id for m in msgs if m.source.message_id)


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
        got, adjustments, given, cap, shared = self._fit(head, history, tail, steps, todo, total, messages, limit,
                                                         held)
        gave: GaveWay | None = given
        if held is not None and sum(self._size(got).values()) < limit // UNFOLD_UNDER:
            if total <= limit:
                got, adjustments, gave, cap, shared = messages, [], None, None, None
            else:
                got, adjustments, gave, cap, shared = self._fit(head, history, tail, steps, todo, total, messages,
                                                                limit)
        if steady:
            self._held.keep(steps, gave, cap, shared)
        return [self._with_tokens(m) for m in got], adjustments

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

    def _share_room(self, msgs: list[PromptMessage], tiers: list[tuple[int, Share]], limit: int,
                    held: tuple[int, int] | None = None
                    ) -> tuple[list[PromptMessage], list[bool], tuple[int, int] | None]:
        """Find the largest cap such that every message a tier picks, held to it, fits; cut those above it. The
        first tier whose cap keeps its floor is taken; when none does, the last one's cap (it may be tiny).
        A tier past the first (every action; then the memory at the prompt's head) keeps the cap the turn's last
        call shared it at (`held`: tier, cap) while that fits, and one that must go lower goes a MOVE_SLACK-th of the
        limit lower: the largest cap moved with each call's newest output, so a 50k-token paste at 8k was cut anew,
        and the prompt sent afresh from its third message, at 34 of 35 calls. Returns (tier, cap)."""
        sizes = [self.cache.message(m.content) for m in msgs]
        tier, fits, cap = 0, False, 0
        for tier, (floor, shares) in enumerate(tiers):
            chosen = [shares(i, m) for i, m in enumerate(msgs)]
            cap, fits = self._largest_cap(sizes, chosen, limit)
            if fits and cap >= floor:
                break
        if not (tier and fits):
            return self._held_to(msgs, sizes, chosen, cap), chosen, None
        if held is not None and held[0] == tier:
            cap = held[1] if held[1] <= cap else max(floor, cap - limit // MOVE_SLACK)
        return self._held_to(msgs, sizes, chosen, cap), chosen, (tier, cap)

    def _largest_cap(self, sizes: list[int], chosen: list[bool], limit: int) -> tuple[int, bool]:
        """The largest cap the chosen messages can be held to so that the whole fits, and whether any does."""
        room = limit - sum(size for size, pick in zip(sizes, chosen) if not pick)
        cuttable = [size for size, pick in zip(sizes, chosen) if pick]
        low, high = 0, max(cuttable, default=0)
        while low < high:
            mid = (low + high + 1) // 2
            if sum(min(size, mid) for size in cuttable) <= room:
                low = mid
            else:
                high = mid - 1
        return low, bool(cuttable) and sum(min(size, low) for size in cuttable) <= room

    def _held_to(self, msgs: list[PromptMessage], sizes: list[int], chosen: list[bool], cap: int
                 ) -> list[PromptMessage]:
        cap = max(cap - min(16, cap // 8), 1)              # headroom for the cut markers
        return [self._cut_to(m, cap) if pick and size > cap and len(m.content) > MIN_CUT_CHARS else m
                for size, m, pick in zip(sizes, msgs, chosen)]

    def _cuttable(self, m: PromptMessage) -> bool:
        return m.layer != "L1" and m.source.message_id not in self.pins

    def _fit(self, head: list[PromptMessage], history: list[Message], tail: list[PromptMessage],
             steps: list[sp.ScratchStep], todo: list[PromptMessage], before: int, built: list[PromptMessage],
             limit: int, held: Held | None = None
             ) -> tuple[list[PromptMessage], list[Adjustment], GaveWay, int | None, tuple[int, int] | None]:
        """Give up room in an order, each stage only when the one before did not make the prompt fit:
        1. the kept rounds' tool results in their harder form, the turn's older observations in stored form;
        2. the kept rounds' tool results cut head+tail (each keeping at least SHARE_FLOOR tokens);
        3. the turn's oldest steps, as whole units (core/context/turn_fold.py): outputs to a one-line stub, then
           thoughts, then folded into one note;
        4. the newest observation cut head+tail, then every action (MIN_SHARE each), and only then the memory of
           the session: the summaries, the user's messages, the rules files (L2) and the fold note.
        Sharing one cap among all at once had cut every action's file name to a marker at the 30th Read of a 4k
        turn; cutting every step a little had left 39 of 40 actions unreadable and AGENTS.md cut to
        67 characters at the 40th call of a 4k turn. `built`: the prompt as built; `held`: what the turn's last fitted call gave
        (stages 2 and 3 give at least as much; a move past it gives a MOVE_SLACK-th of the limit more). Returns what
        stage 3 gave, stage 2's cap and where stage 4 shared the room, for the next call."""
        fit = self._compress_kept(head, history, tail, steps, todo, before, built)
        # (Issue 24) No round is ever dropped: a round leaves the prompt only into a summary, and compaction
        # fires before this point (core/window_budget.py); what still does not fit gives way below.
        kept_cap = self._cut_kept_results(fit, limit, held)
        gave = self._fold_turn(fit, steps, limit, held)
        chosen, shared = self._share_the_rest(fit, limit, held)
        self._trim_leftovers(fit, chosen, limit)
        return fit.msgs, fit.adjustments + self._cuts_said(fit), gave, kept_cap, shared

    def _compress_kept(self, head: list[PromptMessage], history: list[Message], tail: list[PromptMessage],
                       steps: list[sp.ScratchStep], todo: list[PromptMessage], before: int,
                       built: list[PromptMessage]) -> _Fitting:
        """Stage 1: the kept rounds' tool results in their harder form, all but the newest observation stored."""
        hist = [self._hard_form(m) for m in history]
        harder = {h.id for h, m in zip(hist, history) if h.content != m.content}
        pad = self._stored_pad([m for m in built if m.layer == "scratchpad"], steps)
        l3 = [replace(history_message(m), form="hard") if m.id in harder else self._l3_message(m) for m in hist]
        msgs = head + l3 + tail + pad + todo
        total = sum(self._size(msgs).values())
        adjustments: list[Adjustment] = []
        if total < before:
            touched = [m for m in msgs if m.form == "hard" or (m.layer == "scratchpad" and m.form == "stored")]
            adjustments.append(Adjustment("compress_kept", "kept tool results compressed harder; older "
                                          "observations of this turn in stored form", before, total, _ids(touched)))
        pad_at = len(msgs) - len(todo) - len(pad)
        return _Fitting(msgs, total, before, list(msgs), adjustments, (pad_at, pad_at + len(pad)))

    def _cut_kept_results(self, fit: _Fitting, limit: int, held: Held | None) -> int | None:
        """Stage 2: the kept rounds' results, older than this turn's, cut head+tail to one cap (at least
        SHARE_FLOOR tokens), never above the cap the turn's last call cut them to. Returns the cap."""
        kept_cap = held.cap if held is not None else None
        if not (fit.total > limit or kept_cap is not None):
            return kept_cap
        older = [_is_result(m) and m.layer == "L3" and self._cuttable(m) for m in fit.msgs]
        sizes = [self.cache.message(m.content) for m in fit.msgs]
        cap, fits = self._largest_cap(sizes, older, limit)
        cap = cap if fits and cap >= SHARE_FLOOR else SHARE_FLOOR
        kept_cap = cap if kept_cap is None or fit.total > limit and cap < kept_cap else kept_cap
        fit.msgs = self._held_to(fit.msgs, sizes, older, kept_cap)
        fit.total = sum(self._size(fit.msgs).values())
        return kept_cap

    def _fold_turn(self, fit: _Fitting, steps: list[sp.ScratchStep], limit: int, held: Held | None) -> GaveWay:
        """Stage 3: the turn's oldest steps give way as whole units (core/context/turn_fold.py), at least as much as
        at the turn's last call. Returns what gave way."""
        if not ((fit.total > limit or held is not None) and steps):
            return GaveWay(len(steps))
        (at, end), msgs = fit.pad, fit.msgs
        room = limit - (fit.total - sum(self.cache.message(m.content) for m in msgs[at:end]))
        pinned = self._pinned_steps(steps)
        floor = held.gave if held is not None else GaveWay()
        slack = limit // MOVE_SLACK if floor else 0
        given, gave = give_way(steps, msgs[at:end], room, self.cache.message, pinned, floor, slack)
        fit.msgs, fit.fitted = msgs[:at] + given + msgs[end:], fit.fitted[:at] + given + fit.fitted[end:]
        fit.total = sum(self._size(fit.msgs).values())
        if gave:
            folded = tuple(i for s in steps[:gave.folded] for i in (s.assistant_id, s.result_id) if i)
            fit.adjustments.append(Adjustment("fold_steps", gave.words(), fit.before, fit.total,
                                              folded + _ids([m for m in given if m.form in ("stub", "action-only")]),
                                              (gave.stubbed, gave.bare, gave.folded, gave.grouped, *gave.kept)))
        return gave

    def _share_the_rest(self, fit: _Fitting, limit: int, held: Held | None
                        ) -> tuple[list[bool], tuple[int, int] | None]:
        """Stage 4: the newest observation, the actions, then the memory, cut to a shared cap (`_share_room`).
        Returns which messages shared the room and where (tier, cap)."""
        if fit.total <= limit:
            return [True] * len(fit.msgs), None
        fit.msgs, chosen, shared = self._share_room(fit.msgs, [
            (SHARE_FLOOR, lambda i, m: _is_result(m) and self._cuttable(m)),
            (MIN_SHARE, lambda i, m: self._cuttable(m) and not _is_memory(m)),
            (0, lambda i, m: self._cuttable(m))], limit, held.shared if held is not None else None)
        fit.total = sum(self._size(fit.msgs).values())
        return chosen, shared

    def _trim_leftovers(self, fit: _Fitting, chosen: list[bool], limit: int) -> None:
        """Rounding leftovers: the largest trimmable message cut by what is still over, a few tries a message."""
        msgs, tries = fit.msgs, 0
        while fit.total > limit and tries < 4 * len(msgs):
            sizes_at = self._trimmable(msgs, chosen)
            if not sizes_at:
                break
            size, index = max(sizes_at)
            msgs[index] = self._cut_to(msgs[index], max(1, size - (fit.total - limit) - 8))
            fit.total = sum(self._size(msgs).values())
            tries += 1

    def _trimmable(self, msgs: list[PromptMessage], chosen: list[bool]) -> list[tuple[int, int]]:
        """(tokens, index) of the messages a leftover may be trimmed from: those that shared the room first."""
        sizes_at = [(self.cache.message(m.content), i) for i, m in enumerate(msgs)
                    if chosen[i] and self._cuttable(m) and len(m.content) > MIN_CUT_CHARS]
        if not sizes_at:     # those that shared the room are at their least: any cuttable message
            sizes_at = [(self.cache.message(m.content), i) for i, m in enumerate(msgs)
                        if self._cuttable(m) and len(m.content) > MIN_CUT_CHARS]
        if not sizes_at:     # pins alone over the window: never over it, so even a pinned message is cut
            sizes_at = [(self.cache.message(m.content), i) for i, m in enumerate(msgs)
                        if m.layer != "L1" and len(m.content) > MIN_CUT_CHARS]
        return sizes_at

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

    def _cuts_said(self, fit: _Fitting) -> list[Adjustment]:
        """What the cuts took, named for the user: a rules file by its name and the tokens it kept ("project rules
        (AGENTS.md) cut to 62 tokens"); it had read "cut 77 oversized messages head+tail"."""
        fitted, msgs, before, total = fit.fitted, fit.msgs, fit.before, fit.total
        newest = max((i for i, m in enumerate(msgs) if _is_result(m) and m.layer == "scratchpad"), default=-1)
        cut = [(i, m) for i, (was, m) in enumerate(zip(fitted, msgs)) if m.content != was.content]
        out = []
        others = [(i, m) for i, m in cut if m.layer != "L2"]
        if others:
            kinds: dict[tuple[str, str], int] = {}
            for i, m in others:
                kind = _kind(m, i == newest)
                kinds[kind] = kinds.get(kind, 0) + 1
            said = ", ".join(one if n == 1 else f"{n} {many}" for (one, many), n in kinds.items())
            out.append(Adjustment("cut_observation", f"cut head+tail: {said}", before, total,
                                  _ids([m for _, m in others])))
        for _, m in cut:
            if m.layer == "L2":
                kept = self.cache.count(m.content)
                out.append(Adjustment("cut_rules", f"{rules_words(m.source.path or '')} cut to "
                                                   f"{plural(kept, 'token')}", before, total, given=(kept,)))
        return out


def _kind(m: PromptMessage, newest: bool) -> tuple[str, str]:
    """What a cut message is, said of one and of several."""
    if _is_result(m):
        return ("the newest observation", "") if newest else ("1 earlier tool result", "earlier tool results")
    if m.role == "summary":
        return "the summary", "summaries"
    if m.form == "folded":
        return "the note of folded steps", ""
    if _is_memory(m):
        return "your message", "messages of yours"
    return ("1 action", "actions") if m.role == "assistant" else ("1 message", "messages")


def rules_words(name: str) -> str:
    """A rules file as the user calls it: 'project rules (AGENTS.md)', 'your own rules (AGENTS.md in …)'."""
    return "your own rules (AGENTS.md in $CONTEXTUAL_HOME)" if name == USER_NAME else f"project rules ({name})"
