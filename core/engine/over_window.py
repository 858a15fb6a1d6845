"""A turn's prompt against the window (seed 002 E3; issue 24): a prompt still over the window once fitted compacts
first (once a turn), a server's refusal as over its window is made ready for one retry (its count calibrates ours,
a smaller window it states is taken), and a prompt that cannot fit once its compaction was cancelled in the preview
ends the turn, saying why and what to do. The turn loop (core/engine/turn.py) asks before each call.
"""

from __future__ import annotations

from contextlib import aclosing
from typing import AsyncGenerator

from contextual.core.context.builder import Built
from contextual.core.context.compaction_review import Event
from contextual.core.engine.compactor import Compactor
from contextual.core.engine.prompt_state import PromptState
from contextual.core.engine.settings import Settings
from contextual.core.engine.turn_run import TurnRun
from contextual.core.events import ErrorEvent, Notice
from contextual.core.providers.base import ContextLengthExceeded
from contextual.core.server_windows import takes


class OverWindow:
    """The step's prompt made sendable, or the turn ended; what it tried this turn is the turn's (`TurnRun`)."""

    def __init__(self, settings: Settings, prompt: PromptState, compactor: Compactor) -> None:
        self._settings = settings
        self._prompt = prompt
        self._compactor = compactor

    async def sendable(self, run: TurnRun) -> AsyncGenerator[Event, None]:
        """The step's prompt in `run.built`: a prompt still over the window fitted compacts first (once a turn);
        when that compaction was cancelled in the preview, the turn ends instead (`run.ended`)."""
        built = self._prompt.build()
        over = self._over(built)
        if over and not run.outgrown and not run.declined:
            run.outgrown, cancels = True, self._compactor.cancels
            async with aclosing(self._outgrown(built)) as events:
                async for ev in events:
                    yield ev
            run.declined = self._compactor.cancels > cancels
            built = self._prompt.build()
            over = self._over(built)
        run.built = built
        if over and run.declined:
            run.ended = True
            yield ErrorEvent(self._cannot_fit(built), "context_length")

    async def refused(self, run: TurnRun, exc: ContextLengthExceeded, built: Built
                      ) -> AsyncGenerator[Event, None]:
        """The server refused the prompt as over its window: made ready for one retry, or the turn's end when the
        retry was refused too."""
        if run.retried_context:
            run.ended = True
            after = " (its compaction was cancelled in the preview)" if run.declined else " after compaction"
            yield ErrorEvent(f"the prompt is still too long for the model{after}: {exc}", "context_length")
            return
        run.retried_context, cancels = True, self._compactor.cancels
        async with aclosing(self._over_the_window(exc, built)) as events:
            async for ev in events:
                yield ev
        run.declined = run.declined or self._compactor.cancels > cancels

    def _over(self, built: Built) -> bool:
        """Over what the window leaves the prompt even fitted, while closed rounds could be compacted."""
        return built.total > self._prompt.fit_limit() and self._prompt.archive_plan() is not None

    async def _outgrown(self, built: Built) -> AsyncGenerator[Event, None]:
        """The prompt is over what the window leaves it even fitted (each closed round's messages cut to a marker
        still fill it) while no automatic compaction runs: switched off, or declined in the preview. Sent, the server
        refuses it and the turn compacts then (``_over_the_window``): compacted now instead, and said why."""
        config = self._settings.config
        why = ("auto-compaction is off" if not config.auto_compact else
               "the compaction was declined in the preview" if self._compactor.declined else "")
        yield Notice(f"the next prompt is {built.total:,} tokens even fitted, over the {self._prompt.fit_limit():,} "
                     f"a prompt may use in the {config.context_window:,}-token window (by our count): compacting "
                     "before it is sent" + (f" ({why}, but the server would refuse it)" if why else ""), "warning")
        async with aclosing(self._compactor.run("auto", None)) as events:
            async for ev in events:
                yield ev

    def _cannot_fit(self, built: Built) -> str:
        """The turn's end when the compaction its prompt needs was cancelled in the preview: why, and what to do."""
        config = self._settings.config
        return (f"not sent: the next prompt is {built.total:,} tokens even fitted, over the "
                f"{self._prompt.fit_limit():,} a prompt may use in the {config.context_window:,}-token window (the "
                "server would refuse it), and its compaction was cancelled in the preview. To go on: /compact, then "
                "accept or edit its summary, or a larger window (--context-window, /model)")

    async def _over_the_window(self, exc: ContextLengthExceeded, built: Built) -> AsyncGenerator[Event, None]:
        """The server said the prompt is over the model's window (the turn retries once): its count calibrates
        ours, a smaller window it states is taken, and the retry is this turn fitted lower or, when closed rounds
        can go, a compaction first."""
        config, prompt = self._settings.config, self._prompt
        if exc.server_tokens:   # the server said how big the prompt was by its count: calibrate on it
            prompt.calibrate(built.total, exc.server_tokens)
        took_window = takes(exc.server_window, config.context_window)
        if took_window:
            yield Notice(self._settings.take_server_window(exc.server_window or 0), "warning")
        if not (took_window and exc.server_tokens):
            prompt.aim_lower()   # unexplained by the window: our count and the server's disagree
        # A rejection the server's window explains (Anthropic refuses a prompt that fits when its max_tokens
        # does not) compacts only when that window's trigger says so: compacting regardless archived a
        # round at every turn, and aiming lower too made the builder cut below the trigger.
        if prompt.archive_plan() is None or (took_window and not prompt.compaction_due().due):
            # this turn alone: "nothing compacted" read as a failure; or the server's window, now
            # taken, fits it without compacting: either way the retry is this turn fitted to a lower line
            yield Notice("the server says the prompt is over the model's window: retrying once with this "
                         "turn fitted lower", "warning")
            return
        yield Notice("the server says the prompt is over the model's window: compacting and retrying once",
                     "warning")
        async with aclosing(self._compactor.run("auto", None)) as events:
            async for ev in events:
                yield ev
