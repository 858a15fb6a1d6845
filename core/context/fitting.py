"""Fitting a built prompt into `limit` tokens (seed 002 E3): the room given up stage by stage (`fit`).

The builder (core/context/builder.py) makes the prompt and its harder forms (it keeps their caches); this module
only gives up room, in an order: the kept history and the scratchpad in harder forms, the kept rounds' results cut,
the turn's oldest steps as whole units (core/context/turn_fold.py), and only then head+tail cuts (seed 003), the
session's memory and the rules last. Each step is reported as an Adjustment naming the messages it touched.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace
from typing import Callable

from contextual.core.context import scratchpad as sp
from contextual.core.context.rules import USER_NAME
from contextual.core.context.truncate import head_tail
from contextual.core.context.turn_fold import GaveWay, Held, give_way
from contextual.core.plural import plural
from contextual.core.prompt import Adjustment, PromptMessage
from contextual.core.tokens import TokenCache

MIN_CUT_CHARS = 60        # a cut message keeps at least its first and last few characters
MOVE_SLACK = 8            # a move of the turn's fold past the last call's gives an eighth of the limit more
SHARE_FLOOR = 64          # tokens each kept round's result (and the newest observation) keeps before more gives way
MIN_SHARE = 16            # and each result and action before the summaries, the user's messages and L2 are

Share = Callable[[int, PromptMessage], bool]


def _is_memory(m: PromptMessage) -> bool:
    """A summary, a message the user wrote, the rules (L2, kept like the user's own words), the note of the turn's
    folded steps: cut only when nothing else can make room."""
    return (m.role == "summary" or m.layer in ("input", "L2") or m.form == "folded"
            or (m.role == "user" and not _is_result(m) and m.layer == "L3"))


def _is_result(m: PromptMessage) -> bool:
    """A tool result: an observation of this turn, or a kept round's result in history."""
    return m.role == "user" and m.form != "folded" and (m.layer == "scratchpad" or
                                                        (m.layer == "L3" and bool(m.source.tool)))


def _ids(msgs: list[PromptMessage]) -> tuple[str, ...]:
    return tuple(m.source.message_id for m in msgs if m.source.message_id)


@dataclass(frozen=True)
class FitInput:
    """What the builder hands over: the prompt in its harder forms (stage 1's), and its size as built."""
    before: int                            # the prompt's tokens as built
    harder: list[PromptMessage]            # the kept rounds' results harder, the turn's steps in stored form
    pad: tuple[int, int]                   # where the turn's steps are among `harder` (start, end)
    steps: list[sp.ScratchStep]            # the turn's steps
    pinned: frozenset[int]                 # those the user pinned (their index): never given way


@dataclass(frozen=True)
class Fit:
    """The fitted prompt, what each stage said, and what the next call of the turn holds to (turn_fold.Held)."""
    messages: list[PromptMessage]
    adjustments: list[Adjustment]
    gave: GaveWay                          # what stage 3 gave way
    kept_cap: int | None                   # stage 2's cap
    shared: tuple[int, int] | None         # where stage 4 shared the room (tier, cap)


def fit(parts: FitInput, cache: TokenCache, pins: Collection[str], limit: int, held: Held | None = None) -> Fit:
    """Give up room in an order, each stage only when the one before did not make the prompt fit:
    1. the kept rounds' tool results in their harder form, the turn's older observations in stored form;
    2. the kept rounds' tool results cut head+tail (each keeping at least SHARE_FLOOR tokens);
    3. the turn's oldest steps, as whole units (core/context/turn_fold.py): outputs to a one-line stub, then
       thoughts, then folded into one note;
    4. the newest observation cut head+tail, then every action (MIN_SHARE each), and only then the memory of
       the session: the summaries, the user's messages, the rules files (L2) and the fold note.
    Sharing one cap among all at once had cut every action's file name to a marker at the 30th Read of a 4k
    turn; cutting every step a little had left 39 of 40 actions unreadable and AGENTS.md cut to
    67 characters at the 40th call of a 4k turn. `held`: what the turn's last fitted call gave (stages 2 and 3
    give at least as much; a move past it gives a MOVE_SLACK-th of the limit more). Returns what stage 3 gave,
    stage 2's cap and where stage 4 shared the room, for the next call."""
    fitting = _Fitting.compressed(parts, cache, pins)
    # (Issue 24) No round is ever dropped: a round leaves the prompt only into a summary, and compaction
    # fires before this point (core/window_budget.py); what still does not fit gives way below.
    kept_cap = fitting.cut_kept_results(limit, held)
    gave = fitting.fold_turn(parts.steps, parts.pinned, limit, held)
    chosen, shared = fitting.share_the_rest(limit, held)
    fitting.trim_leftovers(chosen, limit)
    return Fit(fitting.msgs, fitting.adjustments + fitting.cuts_said(), gave, kept_cap, shared)


@dataclass
class _Fitting:
    """The prompt while `fit` gives up room, stage by stage."""
    msgs: list[PromptMessage]
    total: int                             # its tokens now
    before: int                            # and as built, before any fitting
    fitted: list[PromptMessage]            # as they were before any cut: what the cuts are told against
    pad: tuple[int, int]                   # where the turn's steps are among `msgs` (start, end)
    cache: TokenCache
    pins: Collection[str]
    adjustments: list[Adjustment] = field(default_factory=list)

    @classmethod
    def compressed(cls, parts: FitInput, cache: TokenCache, pins: Collection[str]) -> _Fitting:
        """Stage 1: the kept rounds' tool results in their harder form, all but the newest observation stored."""
        msgs = list(parts.harder)
        fitting = cls(msgs, 0, parts.before, list(msgs), parts.pad, cache, pins)
        fitting.total = fitting.size(msgs)
        if fitting.total < parts.before:
            touched = [m for m in msgs if m.form == "hard" or (m.layer == "scratchpad" and m.form == "stored")]
            fitting.adjustments.append(Adjustment("compress_kept", "kept tool results compressed harder; older "
                                                  "observations of this turn in stored form", parts.before,
                                                  fitting.total, _ids(touched)))
        return fitting

    def size(self, msgs: list[PromptMessage]) -> int:
        return sum(self.cache.message(m.content) for m in msgs)

    def cuttable(self, m: PromptMessage) -> bool:
        return m.layer != "L1" and m.source.message_id not in self.pins

    def cut_kept_results(self, limit: int, held: Held | None) -> int | None:
        """Stage 2: the kept rounds' results, older than this turn's, cut head+tail to one cap (at least
        SHARE_FLOOR tokens), never above the cap the turn's last call cut them to. Returns the cap."""
        kept_cap = held.cap if held is not None else None
        if not (self.total > limit or kept_cap is not None):
            return kept_cap
        older = [_is_result(m) and m.layer == "L3" and self.cuttable(m) for m in self.msgs]
        sizes = [self.cache.message(m.content) for m in self.msgs]
        cap, fits = _largest_cap(sizes, older, limit)
        cap = cap if fits and cap >= SHARE_FLOOR else SHARE_FLOOR
        kept_cap = cap if kept_cap is None or self.total > limit and cap < kept_cap else kept_cap
        self.msgs = self.held_to(self.msgs, sizes, older, kept_cap)
        self.total = self.size(self.msgs)
        return kept_cap

    def fold_turn(self, steps: list[sp.ScratchStep], pinned: frozenset[int], limit: int,
                  held: Held | None) -> GaveWay:
        """Stage 3: the turn's oldest steps give way as whole units (core/context/turn_fold.py), at least as much as
        at the turn's last call. Returns what gave way."""
        if not ((self.total > limit or held is not None) and steps):
            return GaveWay(len(steps))
        (at, end), msgs = self.pad, self.msgs
        room = limit - (self.total - sum(self.cache.message(m.content) for m in msgs[at:end]))
        floor = held.gave if held is not None else GaveWay()
        slack = limit // MOVE_SLACK if floor else 0
        given, gave = give_way(steps, msgs[at:end], room, self.cache.message, pinned, floor, slack)
        self.msgs, self.fitted = msgs[:at] + given + msgs[end:], self.fitted[:at] + given + self.fitted[end:]
        self.total = self.size(self.msgs)
        if gave:
            folded = tuple(i for s in steps[:gave.folded] for i in (s.assistant_id, s.result_id) if i)
            self.adjustments.append(Adjustment("fold_steps", gave.words(), self.before, self.total,
                                               folded + _ids([m for m in given if m.form in ("stub", "action-only")]),
                                               (gave.stubbed, gave.bare, gave.folded, gave.grouped, *gave.kept)))
        return gave

    def share_the_rest(self, limit: int, held: Held | None) -> tuple[list[bool], tuple[int, int] | None]:
        """Stage 4: the newest observation, the actions, then the memory, cut to a shared cap (`share_room`).
        Returns which messages shared the room and where (tier, cap)."""
        if self.total <= limit:
            return [True] * len(self.msgs), None
        self.msgs, chosen, shared = self.share_room([
            (SHARE_FLOOR, lambda i, m: _is_result(m) and self.cuttable(m)),
            (MIN_SHARE, lambda i, m: self.cuttable(m) and not _is_memory(m)),
            (0, lambda i, m: self.cuttable(m))], limit, held.shared if held is not None else None)
        self.total = self.size(self.msgs)
        return chosen, shared

    def share_room(self, tiers: list[tuple[int, Share]], limit: int, held: tuple[int, int] | None = None
                   ) -> tuple[list[PromptMessage], list[bool], tuple[int, int] | None]:
        """Find the largest cap such that every message a tier picks, held to it, fits; cut those above it. The
        first tier whose cap keeps its floor is taken; when none does, the last one's cap (it may be tiny).
        A tier past the first (every action; then the memory at the prompt's head) keeps the cap the turn's last
        call shared it at (`held`: tier, cap) while that fits, and one that must go lower goes a MOVE_SLACK-th of the
        limit lower: the largest cap moved with each call's newest output, so a 50k-token paste at 8k was cut anew,
        and the prompt sent afresh from its third message, at 34 of 35 calls. Returns (tier, cap)."""
        msgs = self.msgs
        sizes = [self.cache.message(m.content) for m in msgs]
        tier, fits, cap = 0, False, 0
        for tier, (floor, shares) in enumerate(tiers):
            chosen = [shares(i, m) for i, m in enumerate(msgs)]
            cap, fits = _largest_cap(sizes, chosen, limit)
            if fits and cap >= floor:
                break
        if not (tier and fits):
            return self.held_to(msgs, sizes, chosen, cap), chosen, None
        if held is not None and held[0] == tier:
            cap = held[1] if held[1] <= cap else max(floor, cap - limit // MOVE_SLACK)
        return self.held_to(msgs, sizes, chosen, cap), chosen, (tier, cap)

    def trim_leftovers(self, chosen: list[bool], limit: int) -> None:
        """Rounding leftovers: the largest trimmable message cut by what is still over, a few tries a message."""
        msgs, tries = self.msgs, 0
        while self.total > limit and tries < 4 * len(msgs):
            sizes_at = self.trimmable(msgs, chosen)
            if not sizes_at:
                break
            size, index = max(sizes_at)
            msgs[index] = self.cut_to(msgs[index], max(1, size - (self.total - limit) - 8))
            self.total = self.size(msgs)
            tries += 1

    def trimmable(self, msgs: list[PromptMessage], chosen: list[bool]) -> list[tuple[int, int]]:
        """(tokens, index) of the messages a leftover may be trimmed from: those that shared the room first."""
        sizes_at = [(self.cache.message(m.content), i) for i, m in enumerate(msgs)
                    if chosen[i] and self.cuttable(m) and len(m.content) > MIN_CUT_CHARS]
        if not sizes_at:     # those that shared the room are at their least: any cuttable message
            sizes_at = [(self.cache.message(m.content), i) for i, m in enumerate(msgs)
                        if self.cuttable(m) and len(m.content) > MIN_CUT_CHARS]
        if not sizes_at:     # pins alone over the window: never over it, so even a pinned message is cut
            sizes_at = [(self.cache.message(m.content), i) for i, m in enumerate(msgs)
                        if m.layer != "L1" and len(m.content) > MIN_CUT_CHARS]
        return sizes_at

    def held_to(self, msgs: list[PromptMessage], sizes: list[int], chosen: list[bool], cap: int
                ) -> list[PromptMessage]:
        cap = max(cap - min(16, cap // 8), 1)              # headroom for the cut markers
        return [self.cut_to(m, cap) if pick and size > cap and len(m.content) > MIN_CUT_CHARS else m
                for size, m, pick in zip(sizes, msgs, chosen)]

    def cut_to(self, m: PromptMessage, tokens: int) -> PromptMessage:
        size = self.cache.message(m.content)
        chars = max(MIN_CUT_CHARS, min(len(m.content) - 1, int(len(m.content) * tokens / max(size, 1))))
        return replace(m, content=head_tail(m.content, chars), form="cut")

    def cuts_said(self) -> list[Adjustment]:
        """What the cuts took, named for the user: a rules file by its name and the tokens it kept ("project rules
        (AGENTS.md) cut to 62 tokens"); it had read "cut 77 oversized messages head+tail"."""
        fitted, msgs, before, total = self.fitted, self.msgs, self.before, self.total
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


def _largest_cap(sizes: list[int], chosen: list[bool], limit: int) -> tuple[int, bool]:
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
