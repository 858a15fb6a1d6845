"""The turn in progress outgrowing the window: its oldest steps give way first, as whole units.

A 41-call turn at 4k used to be fitted by shaving every message to one cap: by the 40th call 39 of 40 actions no
longer showed which tool they called, and the newest observation was cut too. Here the turn's older steps (every
step but the newest) give way oldest first, in an order a reader can follow:

1. their outputs become a one-line stub (the status line and the output's size: the model can read it again);
2. their thoughts go: the step is its `Action: Tool[args]` line alone (the arguments bounded), so every action of
   the turn stays readable longer than any thought;
3. the oldest steps are folded into one note, one line per step (tool, main argument, status), that says how many
   and that the full record is in the session;
4. only when that note itself is too large are its oldest lines counted together on one line.

Each move touches the oldest steps first, so what comes before the boundary is the same text at the next call (a
provider's cached prefix stays valid up to it). The newest step is never touched here: the builder cuts it
head+tail only when it alone cannot fit (core/context/fitting.py: `_Fitting.share_room`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable, NamedTuple, Sequence

from contextual.core.context.observation import split_header
from contextual.core.context.scratchpad import ScratchStep, observation
from contextual.core.context.truncate import head_tail
from contextual.core.context.turn_forms import tool_call
from contextual.core.plural import plural, times
from contextual.core.prompt import PromptMessage
from contextual.core.react import stored_action
from contextual.core.reminder import system_reminder
from contextual.core.textsafe import one_line
from contextual.core.tools.base import subject_of

ACTION_ARGS_CHARS = 200   # an action line sent alone keeps this much of its arguments (head and tail)
SUBJECT_CHARS = 60        # a folded step's main argument on its line
STATUS_CHARS = 60         # and its status (an error's message is cut here)
FOLD_HEAD = ("Earlier steps of this turn, folded to one line each to fit the context window (their full record is "
             "in the session: re-read or re-run what you need):")


@dataclass(frozen=True)
class GaveWay:
    """How many of the turn's oldest steps gave way, at each stage (folded ≤ bare ≤ stubbed)."""
    steps: int = 0          # the turn's steps
    stubbed: int = 0        # the oldest steps whose output is a one-line stub
    bare: int = 0           # ... sent as their action line alone
    folded: int = 0         # ... folded into the note
    grouped: int = 0        # of the folded, the oldest counted together on one line of the note
    kept: tuple[int, ...] = ()   # steps (0-based) the user pinned among them: sent whole, never said given way

    def __bool__(self) -> bool:
        return self.stubbed > 0

    def words(self) -> str:
        """What gave way, in the user's words: 'steps 1–25 of this turn folded to one line each; …'."""
        said = []
        if self.folded:
            said.append(_folded_words(self.folded, self.grouped))
        if 0 < self.grouped < self.folded:
            said.append("of those, step 1 shortened to its tool's name" if self.grouped == 1 else
                        f"of those, {_steps(1, self.grouped)} counted together on one line")
        bare = _spans(self.folded + 1, self.bare, self.kept)
        if bare:
            said.append(f"{bare} sent as their action line alone")
        stubbed = _spans(self.bare + 1, self.stubbed, self.kept)
        if stubbed:
            said.append(f"the output of {stubbed} left out (a one-line stub)")
        return "; ".join(said)

    def headline(self) -> str:
        """The strongest of them, short: 'steps 1–25 folded'."""
        if self.folded:
            return f"{_steps(1, self.folded)} folded"
        return f"{_spans(1, self.stubbed, self.kept) or _steps(1, self.stubbed)} shortened"


def _spans(first: int, last: int, kept: tuple[int, ...]) -> str:
    """Steps first..last (1-based) less the pinned ones, which were sent whole: 'steps 6–11, 13–29'."""
    runs: list[tuple[int, int]] = []
    for n in range(first, last + 1):
        if n - 1 in kept:
            continue
        if runs and runs[-1][1] == n - 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    if not runs:
        return ""
    if len(runs) == 1:
        return _steps(*runs[0])
    return "steps " + ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in runs)


def _folded_words(folded: int, grouped: int) -> str:
    """Said for 1 and for N: it read "step 1 of this turn folded to one line each; step 1 of them counted together
    on one line"."""
    if folded == 1:
        return "step 1 of this turn folded to one line"
    if grouped == folded:
        return f"{_steps(1, folded)} of this turn folded together into one line"
    return f"{_steps(1, folded)} of this turn folded to one line each"


def _steps(first: int, last: int) -> str:
    return f"step {first}" if first == last else f"steps {first}–{last}"


def _status(step: ScratchStep) -> str:
    head, _ = split_header(step.observation_full)
    return one_line(head[1:-1], STATUS_CHARS) if head else "done"


def stub(step: ScratchStep) -> str:
    """A step's output as one line: its status and size, and that it was left out."""
    lines = len(split_header(step.observation_full)[1].splitlines())
    return observation(f"[{_status(step)}; {plural(lines, 'line')} left out to fit the window]")


def action_line(step: ScratchStep) -> str:
    """The step's `Action: …` line, its arguments bounded; the thought (and any thinking) left out."""
    found = stored_action(step.action_stored)
    if found is None:              # a reply that was no action (a format error's): its head and tail
        return head_tail(step.action_stored, ACTION_ARGS_CHARS)
    name, bracket, args = found.line.partition("[")
    return f"{name}{bracket}{head_tail(args, ACTION_ARGS_CHARS)}"


def fold_line(number: int, step: ScratchStep) -> str:
    """'12. Read pkg/colorsys.py → ok': the tool, its main argument, the status."""
    call = tool_call(step.action_stored)
    tool = step.tool or (call[0] if call else "") or "reply"
    args = call[1] if call else {}
    subject = subject_of(args) or ""
    pattern = args.get("pattern")
    if isinstance(pattern, str) and subject and subject != pattern:
        subject = f"{pattern} in {subject}"
    offset = args.get("offset")
    if isinstance(offset, int) and offset > 1 and subject:      # which part of a file a Read saw
        subject = f"{subject} from line {offset}"
    said = f" {one_line(subject, SUBJECT_CHARS)}" if subject else ""
    return f"{number}. {tool}{said} → {_status(step)}"


def _group_line(steps: Sequence[ScratchStep]) -> str:
    tools = Counter(step.tool or ((tool_call(step.action_stored) or ("reply",))[0]) for step in steps)
    counted = ", ".join(times(tool, n) for tool, n in tools.items())
    return f"{'1' if len(steps) == 1 else f'1–{len(steps)}'}. {counted}"       # one step: '1', not '1–1'


def fold_note(steps: Sequence[ScratchStep], grouped: int = 0) -> str:
    lines = ([_group_line(steps[:grouped])] if grouped else []) + \
        [fold_line(i + 1, step) for i, step in enumerate(steps) if i >= grouped]
    return system_reminder("\n".join([FOLD_HEAD, *lines, f"({plural(len(steps), 'step')} folded.)"]))


class _Shape(NamedTuple):
    """How far the turn's oldest steps give way: the oldest `stubbed` outputs stubbed, `bare` thoughts gone,
    `folded` steps in the note, of which the oldest `grouped` counted together on one line."""
    stubbed: int
    bare: int
    folded: int = 0
    grouped: int = 0


def _sums(values: Sequence[int]) -> list[int]:
    """Running totals from 0: the sum of the first n values is at n."""
    out = [0]
    for v in values:
        out.append(out[-1] + v)
    return out


class _TurnPad:
    """The turn's pad measured once (its messages, their stubbed and bare forms): each shape tried costs sums of
    these, not a count of any text but the fold note."""

    def __init__(self, steps: Sequence[ScratchStep], pad: list[PromptMessage], size: Callable[[str], int],
                 pinned: frozenset[int]) -> None:
        older = self.older = len(steps) - 1       # every step but the newest may give way
        self.steps, self.pad, self.size = steps, pad, size
        self.stubs = [stub(s) for s in steps[:older]]
        self.bares = [action_line(s) for s in steps[:older]]
        sizes = self.sizes = [size(m.content) for m in pad]
        # a pinned step is sent as it is: its stub and bare forms are its own
        self.stub_sizes = [sizes[2 * i + 1] if i in pinned else min(sizes[2 * i + 1], size(self.stubs[i]))
                           for i in range(older)]
        self.bare_sizes = [sizes[2 * i] if i in pinned else min(sizes[2 * i], size(self.bares[i]))
                           for i in range(older)]
        self.kept = tuple(sorted(i for i in pinned if i < older))
        self.foldable = min([older, *pinned])     # no step from the first pinned one on is folded
        self.newest = sizes[-2] + sizes[-1]
        self.acts, self.outs = _sums(sizes[0:2 * older:2]), _sums(sizes[1:2 * older:2])
        self.bare_at, self.stub_at = _sums(self.bare_sizes), _sums(self.stub_sizes)

    def held(self, floor: GaveWay) -> _Shape:
        """What gave way at the turn's last call, held within this turn (a pinned step is never folded: the fold
        stops before it)."""
        older = self.older
        folded = min(floor.folded, self.foldable if self.foldable >= 1 else 0)
        return _Shape(min(floor.stubbed, older), min(floor.bare, older), folded, min(floor.grouped, folded))

    def most(self) -> _Shape:
        """The most it can give: every older step folded, the note's lines counted together."""
        older, foldable = self.older, self.foldable
        return _Shape(older, older, foldable, foldable) if foldable >= 1 else _Shape(older, older, 0, 0)

    def cost(self, shape: _Shape) -> int:
        """The pad's tokens given way to `shape`."""
        stubbed, bare, folded, grouped = shape
        note = self.size(fold_note(self.steps[:folded], grouped)) if folded else 0
        actions = self.bare_at[bare] - self.bare_at[folded] + self.acts[self.older] - self.acts[bare]
        results = self.stub_at[stubbed] - self.stub_at[folded] + self.outs[self.older] - self.outs[stubbed]
        return note + actions + results + self.newest

    def shaped(self, shape: _Shape) -> tuple[list[PromptMessage], GaveWay]:
        """The pad given way to `shape`, and what gave way."""
        stubbed, bare, folded, grouped = shape
        steps, pad, sizes = self.steps, self.pad, self.sizes
        out = []
        if folded:
            covers = tuple(i for s in steps[:folded] for i in (s.assistant_id, s.result_id) if i)
            out.append(PromptMessage("user", fold_note(steps[:folded], grouped), "scratchpad", form="folded",
                                     covers=covers))
        for i in range(folded, len(steps)):
            action, result = pad[2 * i], pad[2 * i + 1]
            if i < bare and self.bare_sizes[i] < sizes[2 * i]:
                action = replace(action, content=self.bares[i], form="action-only")
            if i < stubbed and self.stub_sizes[i] < sizes[2 * i + 1]:
                result = replace(result, content=self.stubs[i], form="stub")
            out += [action, result]
        return out, GaveWay(len(steps), stubbed, bare, folded, grouped, self.kept)


def _least(low: int, high: int, fits: Callable[[int], bool]) -> int | None:
    """The least of low..high that fits (each fits when the one before does), None when none does."""
    if low > high or not fits(high):
        return None
    while low < high:
        mid = (low + high) // 2
        low, high = (low, mid) if fits(mid) else (mid + 1, high)
    return high


def _within(low: int, high: int, cost_at: Callable[[int], int], room: int, spare: int) -> int | None:
    """The least of a stage that fits the room, `spare` tokens under it when the stage can (never a stage
    further for the spare)."""
    exact = _least(low, high, lambda x: cost_at(x) <= room)
    if exact is None or not spare:
        return exact
    return _least(exact, high, lambda x: cost_at(x) <= room - spare) or exact


def _first_fit(turn: _TurnPad, held: _Shape, room: int, slack: int) -> _Shape | None:
    """The least that gives way from what is held on, in the order: outputs, thoughts, folds, the note's lines."""
    older, foldable = turn.older, turn.foldable
    s0, b0, f0, g0 = held
    # 1. the outputs, oldest first
    got = _within(s0, older, lambda s: turn.cost(_Shape(s, b0, f0, g0)), room, slack)
    if got is not None:
        return _Shape(got, b0, f0, g0)
    # 2. then the thoughts
    got = _within(b0, older, lambda b: turn.cost(_Shape(older, b, f0, g0)), room, slack)
    if got is not None:
        return _Shape(older, got, f0, g0)
    if foldable < 1:
        return None
    # 3. the oldest steps folded into the note
    got = _within(max(f0, 1), foldable, lambda f: turn.cost(_Shape(older, older, f, min(g0, f))), room, slack)
    if got is not None:
        return _Shape(older, older, got, min(g0, got))
    # 4. the note's oldest lines counted together
    got = _within(max(g0, 2), foldable, lambda g: turn.cost(_Shape(older, older, foldable, g)), room, 0)
    return None if got is None else _Shape(older, older, foldable, got)


def give_way(steps: Sequence[ScratchStep], pad: list[PromptMessage], room: int, size: Callable[[str], int],
             pinned: frozenset[int] = frozenset(), floor: GaveWay = GaveWay(), slack: int = 0
             ) -> tuple[list[PromptMessage], GaveWay]:
    """The pad (two messages a step) within `room` tokens, giving up as little as it takes, oldest steps first;
    the most it can give when even that is over (the builder then cuts). A step the user pinned (`pinned`: its
    index) is sent as it is and never folded, so no step after it is folded either.

    `floor`: what gave way at the turn's previous call. It stays given (the boundary only moves forward, so the
    prompt up to it is the text the server cached), and when more must give way, `slack` tokens more than the call
    needs are given within the stage the call needs (never a stage further for them), so the next calls append to
    the same prefix instead of each moving the boundary a step."""
    if len(steps) < 2 or len(pad) != 2 * len(steps):
        return pad, GaveWay(len(steps))
    turn = _TurnPad(steps, pad, size, pinned)
    held = turn.held(floor)
    if turn.cost(held) <= room:
        return turn.shaped(held)
    shape = _first_fit(turn, held, room, slack)
    return turn.shaped(turn.most() if shape is None else shape)


@dataclass
class Held:
    """What gave way at the turn's last fitted call, so the next call gives way at least as much (the builder's
    memory within one turn; a new turn, or a turn sent whole again, starts it afresh)."""
    first: ScratchStep | None = None    # the turn's first step: which turn it is
    steps: int = 0                      # the steps the turn had then
    gave: GaveWay = GaveWay()
    cap: int | None = None              # the kept rounds' tool results were cut to this many tokens
    shared: tuple[int, int] | None = None   # the last stage shared the room at (its tier, the cap)

    def of(self, steps: Sequence[ScratchStep]) -> Held | None:
        """This memory when it is of this turn (the same first step, no fewer steps), else None."""
        if self.first is None or not steps or len(steps) < self.steps or steps[0] != self.first:
            return None
        return self

    def keep(self, steps: Sequence[ScratchStep], gave: GaveWay | None, cap: int | None,
             shared: tuple[int, int] | None = None) -> None:
        """What this call gave way (gave None: the turn went whole, nothing held)."""
        self.first, self.steps = (steps[0], len(steps)) if gave is not None and steps else (None, 0)
        self.gave, self.cap, self.shared = gave or GaveWay(), cap, shared if gave is not None else None
