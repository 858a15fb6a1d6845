"""SummaryCompressor (seed 002 A5, C2, E2; seed 001 8.7–8.9): archives old history with a separate model call.

The whole input fits the summary model's window (window − output reserve − the trigger's margin − prompt): file contents are cut
before the history is, and the cut is said in the input. History too big for one call is summarised in
chunks split at message boundaries, then the partial summaries are merged into one A5 summary.
A deadline over the whole job raises SummaryTimeout; anything else raises SummaryFailed. The caller
(the engine) turns both into hard truncation, with `fallback_message(exc)` for the user.
The compressor holds the summary model's settings (a rejection's smaller window among them); each call's requests
are a job's (core/context/summary_job.py), its outcome and errors summary_outcome.py's, its files section
summary_files.py's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from contextual.core.context.file_analyzer import FileReport
from contextual.core.context.summary_job import ProgressCallback, RetryCallback, SummaryJob
from contextual.core.context.summary_outcome import PartsDone, SummaryError, SummaryFailed, SummaryResult
from contextual.core.context.summary_repair import ensure_template
from contextual.core.messages import Message
from contextual.core.providers.base import ContextLengthExceeded, ProviderError
from contextual.core.server_windows import takes
from contextual.prompts.agents_prompts.summary_prompt import render_merge_request

RETRY_BUDGET_SCALE = 0.6       # after the server says "too long": our count is low for its tokenizer


class SummaryCompressor:
    def __init__(self, provider: Any, model: str, timeout: float = 120.0, window: int = 200_000,
                 output_reserve: int = 8_000, *, progress_interval: float = 0.1, token_factor: float = 1.0,
                 reserve_for: Callable[[int], int] | None = None) -> None:
        self.provider = provider
        self.model = model
        self.timeout = timeout
        self.window = window
        self.output_reserve = output_reserve
        self.progress_interval = progress_interval
        self.token_factor = token_factor      # server tokens per our token (the calibration): budgets allow for it
        # the answer's reserve at another window (the config's rule), for a smaller window a rejection states
        self.reserve_for = reserve_for or (lambda window: min(output_reserve, window // 4))
        self.learned: int | None = None       # a smaller window the server stated in its error: the caller keeps it

    def over_window(self, exc: ContextLengthExceeded) -> float:
        """A summary request the server rejected for its size, read as a turn reads its own: a smaller window it
        states is taken (and the answer's reserve with it) for the one retry, aimed lower unless that window
        explains the rejection. A vLLM-style server counts max_tokens in: the summary asked 2,048 of a 4,096
        window the turn had learned, failed, and a whole round was dropped at every turn.
        Returns the retry's budget scale."""
        if not takes(exc.server_window, self.window) or exc.server_window is None:
            return RETRY_BUDGET_SCALE
        self.window = self.learned = exc.server_window
        self.output_reserve = self.reserve_for(self.window)
        return 1.0 if exc.server_tokens else RETRY_BUDGET_SCALE

    async def summarise(self, messages: list[Message], *, start: datetime | str, cutoff: datetime | str,
                        instructions: str | None = None, files: FileReport | None = None,
                        on_progress: ProgressCallback | None = None, done: PartsDone | None = None,
                        on_retry: RetryCallback | None = None) -> SummaryResult:
        """``done`` notes each part as it finishes, then the result: a compaction stopped meanwhile keeps them."""
        done = done if done is not None else PartsDone()
        job = SummaryJob(self, start, cutoff, instructions, files or FileReport(), on_progress, done, on_retry)
        archived = [m for m in messages if m.role != "summary"]   # summaries are never compressed again
        try:
            try:
                done.result = await job.run(archived, budget_scale=1.0)
            except ContextLengthExceeded as exc:
                done.result = await job.run(archived, budget_scale=self.over_window(exc))
            return done.result
        except TimeoutError as exc:    # the provider's own (a read timeout), not the summary deadline
            raise SummaryFailed(f"timed out: {exc}" if str(exc) else "timed out") from exc
        except SummaryError:
            raise
        except ProviderError as exc:
            raise SummaryFailed(str(exc)) from exc
        except Exception as exc:   # noqa: BLE001 - any failure becomes the documented fallback
            raise SummaryFailed(f"{type(exc).__name__}: {exc}") from exc

    async def merge(self, summaries: list[str], *, start: datetime | str, cutoff: datetime | str,
                    on_progress: ProgressCallback | None = None, on_retry: RetryCallback | None = None) -> str:
        """Earlier summaries and the newest as one A5 summary (issue 24: only when together they outgrow a quarter
        of the window). Each request fits the window (grouped as partials are). Errors as for summarise."""
        job = SummaryJob(self, start, cutoff, None, FileReport(), on_progress, PartsDone(), on_retry)
        try:
            try:
                text = await self._merged(job, summaries, 1.0)
            except ContextLengthExceeded as exc:
                text = await self._merged(job, summaries, self.over_window(exc))
        except SummaryError:
            raise
        except Exception as exc:   # noqa: BLE001 - the caller keeps the summaries apart instead
            raise SummaryFailed(f"{type(exc).__name__}: {exc}") from exc
        return ensure_template(text, start, cutoff)

    @staticmethod
    async def _merged(job: SummaryJob, summaries: list[str], scale: float) -> str:
        merged = await job.reduce(summaries, scale)
        return merged[0] if len(merged) == 1 else await job.call(render_merge_request(merged, "", None, summaries=True),
                                                                 "merging the summaries")
