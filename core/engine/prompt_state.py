"""The prompt's state: history as stored, the builder, the turn in progress, the last usage and the calibration,
and what is read from them — the next prompt (`PromptView`) and the trigger (A6)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable, Collection

from contextual.core.config import Config
from contextual.core.context.builder import Built, ContextBuilder, history_message, pinned_message
from contextual.core.context.cache_rule import DEFAULT_PRICES, CachePrices, prices_for
from contextual.core.context import keep_fit
from contextual.core.context.history import (CompactionPlan, HistoryManager, KeepBudget, apply_compaction,
                                             plan_compaction, rounds)
from contextual.core.context.pairing import normalize
from contextual.core.context.pins import Pins
from contextual.core.context.preprocess import preprocess
from contextual.core.context.nested_rules import NestedRules
from contextual.core.context.rules import SHARE as RULES_SHARE
from contextual.core.context.scratchpad import ScratchStep
from contextual.core.context.trigger import compaction_due
from contextual.core.engine.settings import Settings
from contextual.core.engine.usage import Usage
from contextual.core.messages import Message
from contextual.core.model_facts import lookup
from contextual.core.package_data import InstallDamaged
from contextual.core.prompt import PromptView, Trigger, in_our_tokens
from contextual.core.window_budget import least_window, margin
from contextual.core.tokens import Calibration, calibration_for

if TYPE_CHECKING:
    from contextual.core.tools.base import Todo

UNFITTED = 1 << 40       # a build limit nothing reaches: sizes as they would be sent whole
# window_problem reads a long message's head and tail only: cut to fit, it keeps no more of it
STAND_IN = 8_000
MARKER_SLACK = 4         # tokens its cut form's "[N chars truncated]" may take beyond the stand-in's


def _todo_recap(todos: list[Todo]) -> str:
    if not todos:
        return ""
    from contextual.core.tools.todowrite import todo_recap
    return todo_recap(todos)


def _set_by(source: str) -> str:
    """Where the window came from, as the user changes it."""
    if source == "flag":
        return " (--context-window)"
    if source == "env":
        return " (CONTEXTUAL_CONTEXT_WINDOW)"
    if source == "config":
        return " (context_window in the config)"
    return " (the server's window: give the model a larger context there)" if source.startswith("server") else ""


def _cache_prices(config: Config) -> CachePrices:
    """The configured model's cache prices from the price table (core/model_facts.py), else the default."""
    try:
        return prices_for(lookup(config.model, config.models))
    except InstallDamaged:
        return DEFAULT_PRICES


class PromptState:
    def __init__(self, settings: Settings, system_prompt: str, policy: str, pins: Pins,
                 todos: Callable[[], list[Todo]], reminders: Callable[[str], str]) -> None:
        config = settings.config
        self._settings = settings
        self._todos = todos                  # the ToolContext's todo list (the Toolbox owns it)
        self._reminders = reminders          # pending reminders shown with a previewed input (ContextControls)
        self.history = HistoryManager()
        # Our cl100k count is not the server's: prompts are fitted through the learned ratio (issue 18.1).
        self.calibration = calibration_for(config.home)
        self.builder = ContextBuilder(system_prompt, config.project_root, policy,
                                      rules_share=int(RULES_SHARE * config.context_window), home=config.home)
        self.builder.pins = pins
        self.nested_rules = NestedRules(config.project_root)   # sub-folders' AGENTS.md/CLAUDE.md, given in L3
        self.usage = Usage()
        self.steps: list[ScratchStep] = []          # the current (or last finished) turn's scratchpad
        self.question: str | None = None            # the current turn's preprocessed input
        self.turn_start: int | None = None          # index in history of the current turn's user message
        self.limit_scale = 1.0                      # 0.8 for the rest of a turn the server rejected for size

    @property
    def config(self) -> Config:
        return self._settings.config

    # ---- what changes it --------------------------------------------------------------------------
    def set_policy(self, name: str) -> None:
        from contextual.core.context.scratchpad import POLICIES
        if name not in POLICIES:
            raise ValueError(f"unknown context policy {name!r}; known: {', '.join(sorted(POLICIES))}")
        self.builder.policy = name

    def set_system_prompt(self, text: str) -> None:
        self.builder.system_prompt = text

    def restore(self, history: list[Message], last_usage: int | None) -> None:
        self.history.messages = normalize(list(history))
        self.usage.last = last_usage

    def start_turn(self, question: str) -> None:
        """The turn's user message was just appended: the scratchpad starts empty from there."""
        self.steps = []
        self.question = question
        self.turn_start = len(self.history.messages) - 1

    def add_step(self, step: ScratchStep) -> None:
        self.steps.append(step)

    def aim_lower(self) -> None:
        """The server said the prompt is too long: our count and its tokenizer disagree, so aim lower for the rest
        of this turn."""
        self.limit_scale = 0.8

    def end_turn(self) -> None:
        self.turn_start = None
        self.limit_scale = 1.0

    def calibrate(self, ours: int, servers: int) -> None:
        """A prompt of ``ours`` tokens by our count was ``servers`` by the server's (its usage, or its error)."""
        self.calibration.observe(self.config.model, ours, servers)

    def rewind_to(self, message_id: str) -> Message:
        index = next(i for i, m in enumerate(self.history.messages) if m.id == message_id and m.role == "user")
        message = self.history.messages[index]
        self.history.messages = self.history.messages[:index]
        self.usage.forget()          # the last call's usage described a longer history
        return message

    def apply_compaction(self, summary: Message | None, kept_from_id: str | None, pinned_ids: Collection[str]
                         ) -> None:
        """History = summaries + the new one + pinned + from ``kept_from_id`` on (`history.apply_compaction`); the
        round in progress stays last, re-anchored."""
        in_turn = len(self.history.messages) - self.turn_start if self.turn_start is not None else 0
        applied = apply_compaction(self.history.messages, summary, kept_from_id, pinned_ids)
        if applied is None:
            raise ValueError(f"compaction keeps from {kept_from_id}, which is not in history")
        self.history.messages = applied
        self.nested_rules.forget()
        if self.turn_start is not None:
            self.turn_start = len(applied) - in_turn
        self.usage.forget()      # stale now: the next estimate is the counted size of the next prompt

    # ---- a session's record replayed (core/export.py: the prompts its calls were sent) ------------------
    def start_replay(self) -> None:
        """Empty, and calibrated only by the replayed calls (`calibrate`): the home's calibration as it is now would
        fit the prompts otherwise than when they were sent."""
        self.restore([], None)
        self.calibration = Calibration(None)

    def replay_message(self, message: Message) -> None:
        """A recorded message, into history as the Recorder put it there when it was made (no session to write)."""
        self.history.append(message)

    def replay_compaction(self, summary: Message | None, kept_from_id: str | None, pinned_ids: Collection[str]
                          ) -> None:
        """A recorded compaction; a damaged record (its kept message not in history) keeps everything, the summary
        first, as the loader does."""
        try:
            self.apply_compaction(summary, kept_from_id, pinned_ids)
        except ValueError:
            if summary is not None:
                self.history.messages.insert(0, summary)

    # ---- what is read from it -----------------------------------------------------------------------
    def l3(self) -> list[Message]:
        end = self.turn_start if self.turn_start is not None else len(self.history.messages)
        return self.history.messages[:end]

    def fit_limit(self) -> int:
        """The prompt limit in our tokens: the window less the reserve and the margin, through the calibration (and
        lower for the rest of a turn the server rejected for size). The margin (the trigger's, 2 % of the window):
        the calibration is the largest ratio seen so far, and the next prompt's can be a little larger (Anthropic's
        wire merges blocks differently per prompt), so a prompt fitted to the last token went 3 over at 8k."""
        return self.calibration.fit(self.room(), self.config.model)

    def room(self) -> int:
        """The prompt limit in the server's tokens (``fit_limit`` before the calibration): what /context says a
        prompt may use."""
        limit = self.config.prompt_limit - margin(self.config.context_window)
        return max(1, int(limit * self.limit_scale))

    def window_problem(self, text: str = "") -> str | None:
        """One line when the window cannot hold even the least prompt for ``text`` (L1 whole, the rules and the
        message as far as the builder cuts them, what rides on it) beside the answer's reserve and the margin,
        naming the least window that does; else None. The builder cuts history, the rules and the message to fit,
        never L1: `--context-window 100` sent a 602-token prompt after a warning."""
        config = self.config
        question = self._reminders(preprocess(text, config.project_root) if text else "") or None
        slack = 0
        if question is not None and len(question) > 2 * STAND_IN:
            # cut, a long message keeps its head and tail whatever its length: read from those (counting 1.9 MB
            # took seconds), its marker's count of the characters cut taking a token or two more
            question, slack = question[:STAND_IN] + question[-STAND_IN:], MARKER_SLACK
        limit = self.calibration.fit(config.prompt_limit - margin(config.context_window), config.model)
        whole = self.builder.build([], [], question, limit=UNFITTED, steady=False)
        if not slack and whole.total <= limit:
            return None                     # whole: nothing to cut (the usual case, and the cheap one)
        least = self.builder.build([], [], question, limit=1, steady=False)      # all cut as far as it goes
        if least.total + slack <= limit:
            return None
        factor = self.calibration.factor(config.model)

        def needs(tokens: int) -> int:
            return least_window(math.ceil(tokens * factor), config.reserve_setting, config.output_limit)
        sizes, cut = least.tokens, slack > 0 or least.tokens["input"] < whole.tokens["input"]
        parts = [f"the system prompt and tools ({sizes['L1']:,} tokens)",
                 *([f"the rules files ({sizes['L2']:,})"] if sizes["L2"] else []),
                 *([f"your message ({sizes['input'] + slack:,}{', cut' if cut else ''})"] if text else [])]
        # cut, the message is sent in part: the window that sends it whole is said too (a long one's is not counted)
        whole_too = f", {needs(whole.total):,} to send your message whole" if cut and not slack else ""
        return (f"a {config.context_window:,}-token window is too small: {', '.join(parts)} and room for the answer "
                f"need a window of at least {needs(least.total + slack):,} tokens{whole_too}"
                f"{_set_by(config.window_source)}")

    def build(self, next_input: str | None = None) -> Built:
        self._follow_window()
        limit = self.fit_limit()
        todos = _todo_recap(self._todos())
        if self.turn_start is not None:
            return self.builder.build(self.l3(), self.steps, self.question, todos, limit=limit)
        # What rides on the next input (re-injected facts, `!command` results) is in the next prompt even before
        # anything is typed: the meter and /context count it.
        question = self._reminders(preprocess(next_input, self.config.project_root) if next_input else "") or None
        return self.builder.build(self.history.messages, [], question, todos, limit=limit)

    def _follow_window(self) -> None:
        """The builder's rules share and prices follow the settings' window and model (the server's window, found
        after launch; a /model); its limit is each build's own (``fit_limit``)."""
        config = self.config
        share = int(RULES_SHARE * config.context_window)
        if self.builder.rules_share != share:
            self.builder.rules_share = share
        self.builder.prices = _cache_prices(config)          # prices follow a /model too

    def next_prompt(self, input_text: str = "") -> PromptView:
        """The next call's prompt exactly as it would be sent, with every figure the screen shows about it.
        During a turn it is the turn's next step (the input is the turn's own)."""
        return self.view_of(self.build(input_text or None), input_text)

    def view_of(self, built: Built, input_text: str = "") -> PromptView:
        """A built prompt with the figures around it (the turn's own build, not a second one)."""
        trigger = self._trigger(input_text, built)
        config, usage = self.config, self.usage
        return PromptView(tuple(built.messages), dict(built.tokens), built.total,
                          config.context_window, self.fit_limit(), trigger, tuple(built.adjustments),
                          usage.last_call, usage.session, config.model or "", config.provider,
                          self.calibration.factor(config.model), usage.last, config.output_reserve, self.room(),
                          self.calibration.measured(config.model))

    def keep_budget(self) -> KeepBudget:
        """The room for a compaction's kept rounds (issue 24): the trigger less the prompt's fixed part, and what
        else stays after it (the summaries, the turn in progress and the todo recap, unfitted)."""
        in_turn = self.turn_start is not None
        tokens = self.builder.build([], self.steps if in_turn else [], self.question if in_turn else None,
                                    _todo_recap(self._todos()), limit=UNFITTED, steady=False).tokens
        fixed = sum(n for layer, n in tokens.items() if layer.startswith(("L1", "L2")))
        staying = sum(n for layer, n in tokens.items() if not layer.startswith(("L1", "L2", "L3")))
        size = self.builder.cache.message
        # pinned messages stay whatever is archived, sent whole: the kept rounds get what they leave (a compaction
        # that kept rounds as if no pins were there left the prompt larger than before)
        fixed += sum(size(pinned_message(m).content) for m in self.history.messages if m.id in self.builder.pins)
        staying += sum(size(history_message(m).content) for m in self.history.summaries)
        # a kept round costs what it sends: a tool result's text as L3 renders it, not its stored JSON (~5 % more)
        return KeepBudget(keep_fit.keep_budget(self.in_our_tokens(self.config.threshold), fixed),
                          lambda m: size(history_message(m).content), staying)

    def compaction_due(self, input_text: str = "") -> Trigger:
        """A6: would this input compact first? (estimate, threshold, due)."""
        return self._trigger(input_text, None)

    def archive_plan(self) -> CompactionPlan | None:
        """What an automatic compaction would archive now: closed rounds only (a turn in progress stays)."""
        return plan_compaction(self.l3(), self.config.keep_rounds, self.keep_budget())

    def _trigger(self, input_text: str, built: Built | None) -> Trigger:
        config = self.config
        archivable = self.archive_plan() is not None
        if built is None:
            built = self.build(None)
        typed = built.tokens.get("input", 0)
        # the unfitted size: a prompt the builder had to fit is due whatever usage said (issue 24); the usage is
        # rebased on the next prompt as it will be sent, fitted as the last one was
        counted = built.unfitted - typed
        riding = self._reminders("") if self.turn_start is None else ""
        if riding:
            # what rides on the next input (a hook's context, re-injected facts) is sent with it: the typed words'
            # estimate alone left a SessionStart hook's 10,000 characters out of the trigger at 4k
            counted += self.builder.cache.message(riding)
        # One unit, ours: the usage (the server's count) and the lines (of the server's window) through the
        # calibration. A server counting ×1.3 compacted only once our count passed its line, past where the
        # builder had cut, and its card's "before" (a usage) and "after" (a count) were in two units.
        factor = self.calibration.measured(config.model)
        basis = self.usage.basis(built.total - typed, factor)
        warn_line = min(int(config.warn_ratio * config.context_window), config.threshold)
        return compaction_due(last_usage=None if basis is None else round(basis / factor), counted=counted,
                              input_text=input_text, archivable=archivable, messages=len(self.history.messages),
                              auto=config.auto_compact, threshold=self.in_our_tokens(config.threshold),
                              rounds=len(rounds(self.l3())), warn_at=self.in_our_tokens(warn_line))

    def in_our_tokens(self, server_tokens: int) -> int:
        """A figure of the server's window (the trigger line, the warning line) in our tokens, as measured."""
        return in_our_tokens(server_tokens, self.calibration.measured(self.config.model))
