"""One compaction as plan → summarise → outcome (seed 002 A4-A6, C2, D6, E2; seed 001 8.7-8.9).

Functions of (closed rounds, keep_rounds, summariser, files); none of them knows the Engine. The Engine owns
the summary task (and its cancellation), applies the CompactionOutcome to its history and records it.
A summary that times out, fails or is cancelled gives an outcome without summary: hard truncation to the
kept rounds, saying why. Once parts of a chunked summary are finished, it keeps them instead, whether the user
stopped it or a later request timed out or failed (`stopped`): what was summarised is never lost (seed 002 E2).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncGenerator, Callable, Sequence

from contextual.core.config import Config
from contextual.core.context.file_analyzer import FileReport, analyze_files
from contextual.core.context.history import CompactionPlan, KeepBudget, plan_compaction, rounds
from contextual.core.context.summary import SummaryCompressor
from contextual.core.context.summary_job import RetryCallback
from contextual.core.context.summary_outcome import PartsDone, SummaryError, ended_by, fallback_message
from contextual.core.context.summary_repair import joined_parts
from contextual.core.input_cut import InputCut
from contextual.core.context.trigger import MIN_MESSAGES
from contextual.core.events import CompactionProgress, CompactionTrigger, Retrying
from contextual.core.messages import Message
from contextual.core.providers.base import Provider
from contextual.core.tokens import calibration_for, shared_cache
from contextual.core.plural import plural

CANCELLED_MESSAGE = "Summary cancelled, keeping recent history only."
MERGE_SHARE = 0.25             # summaries past this share of the window are merged into one (merge_due)
EMPTY_SUMMARY_MESSAGE = "The summary model returned an empty summary, keeping recent history only."


@dataclass(frozen=True)
class CompactionOutcome:
    trigger: CompactionTrigger
    plan: CompactionPlan
    summary: Message | None             # None: hard truncation (fallback says why)
    fallback: str | None
    files_included: tuple[str, ...]
    merged: int = 0                     # earlier summaries the new one replaces (merge_due)
    parts: tuple[int, int] | None = None   # ended with parts finished: (parts kept, parts in all) of a chunked summary
    rounds_truncated: int = 0           # of the archived rounds, those the kept parts did not reach (no summary)
    ended: str = ""                     # then how it ended: "" the user stopped it, else compaction_words' cause
    input_cut: InputCut = InputCut()    # what the summary's input lost to fit the summary model's window
    partly: bool = False                # the first truncated round's start is in the kept parts (the rest is gone)

    @property
    def text(self) -> str:
        return self.summary.content if self.summary is not None else ""


def unread(outcome: CompactionOutcome) -> list[Message]:
    """The archived messages no summary read: all of them when it fell back, else those of the rounds the kept parts
    did not reach (the first one's start read when they reached into it). What rode on them is told nowhere now."""
    if outcome.summary is None:
        return list(outcome.plan.archive)
    if not outcome.rounds_truncated:
        return []
    gone = [m for group in rounds(outcome.plan.archive)[-outcome.rounds_truncated:] for m in group]
    return gone[1:] if outcome.partly else gone


def plan(closed: list[Message], history_len: int, keep_rounds: int, budget: KeepBudget | None = None
         ) -> tuple[CompactionPlan | None, str]:
    """The rounds to archive (whole closed rounds only), or None and the reason for the user."""
    if history_len < MIN_MESSAGES:      # the trigger's minimum, for manual compactions too
        return None, f"nothing to compact yet: the history has fewer than {MIN_MESSAGES} messages"
    got = plan_compaction(closed, keep_rounds, budget)
    if got is None:
        return None, (f"nothing older than the last {keep_rounds} rounds to archive "
                      f"({plural(len(rounds(closed)), 'round')} in history); history is unchanged")
    return got, ""


def files_for(plan: CompactionPlan, root: Path) -> FileReport:
    """FileAnalyzer (seed 001 8.7): the files the archived rounds touched, ranked, with current content."""
    return analyze_files(plan.archive, root)


def summariser(provider: Provider | None, config: Config) -> SummaryCompressor:
    """Its budgets in the server's tokens, through the calibration the prompt builder uses (issue 24: a small
    model's tokenizer counts more than ours, and the summary request must fit its window too)."""
    model = config.effective_summary_model or ""
    return SummaryCompressor(provider, model, timeout=config.summary_timeout, window=config.context_window,
                             output_reserve=config.output_reserve,
                             token_factor=calibration_for(config.home).factor(model),
                             reserve_for=lambda window: config.with_window(window, config.window_source).output_reserve)


def span(messages: list[Message]) -> tuple[str, str]:
    stamps = [m.meta["timestamp"] for m in messages if m.meta.get("timestamp")]
    if not stamps:
        return "the start of the session", "the cutoff"
    return stamps[0], stamps[-1]


def merge_due(earlier: Sequence[Message], new_text: str, window: int) -> bool:
    """Issue 24, a recorded departure from seed A5 ("summaries are never compressed again"), made only here: at
    small windows summaries pile up until they leave no room for the rounds they precede, so once together
    they outgrow a quarter of the window they are merged into one."""
    total = sum(shared_cache.count(m.content) for m in earlier) + shared_cache.count(new_text)
    return bool(earlier) and total > window * MERGE_SHARE


async def summarise(plan: CompactionPlan, trigger: CompactionTrigger, compressor: SummaryCompressor, files: FileReport,
                    instructions: str | None, on_progress: Callable[[int, str], None],
                    earlier: Sequence[Message] = (), done: PartsDone | None = None,
                    on_retry: RetryCallback | None = None) -> CompactionOutcome:
    """Ask the summary model; a SummaryError becomes a fallback outcome, or, once parts of a chunked summary were
    finished, keeps them as esc does (`stopped`). Cancellation propagates (``done`` holds what was finished). With
    the ``earlier`` summaries of the history, the new one is merged with them when merge_due."""
    start, cutoff = span(plan.archive)
    try:
        result = await compressor.summarise(plan.archive, start=start, cutoff=cutoff, instructions=instructions,
                                            files=files,
                                            on_progress=lambda stage, elapsed, tokens, detail: on_progress(tokens,
                                                                                                           detail),
                                            done=done, on_retry=on_retry)
    except SummaryError as exc:
        if done is not None and done.texts and done.result is None:
            # A later part (or the merge of the parts) timed out or failed: only what the finished parts did not
            # reach is truncated. Falling back to truncation threw every finished part away (seed 002 E2's intent:
            # never lose what was summarised).
            return stopped(plan, trigger, done, ended_by(exc))
        return CompactionOutcome(trigger, plan, None, fallback_message(exc), ())
    summary = _summary(result.text, start, cutoff, trigger, plan.rounds_archived, result.files_included)
    if not result.text:       # nothing to store: the archived rounds go all the same, and the record says why
        return CompactionOutcome(trigger, plan, None, EMPTY_SUMMARY_MESSAGE, ())
    cut = result.input_cut
    if not merge_due(earlier, result.text, compressor.window):
        return CompactionOutcome(trigger, plan, summary, None, tuple(result.files_included), input_cut=cut)
    first = str(earlier[0].meta.get("start") or start)
    on_progress(0, f"merging {len(earlier) + 1} summaries: together they outgrow a quarter of the window")
    try:
        text = await compressor.merge([*(m.content for m in earlier), result.text], start=first, cutoff=cutoff,
                                      on_progress=lambda stage, elapsed, tokens, detail: on_progress(tokens, detail),
                                      on_retry=on_retry)
    except SummaryError:      # the summaries stay apart: nothing is lost, the prompt is only larger
        return CompactionOutcome(trigger, plan, summary, None, tuple(result.files_included), input_cut=cut)
    merged = Message("summary", text, meta={**summary.meta, "start": first, "merged": len(earlier)})
    return CompactionOutcome(trigger, plan, merged, None, tuple(result.files_included), len(earlier), input_cut=cut)


def _summary(text: str, start: str, cutoff: str, trigger: CompactionTrigger, rounds_summarised: int,
             files: Sequence[str]) -> Message:
    return Message("summary", text, meta={"start": start, "cutoff": cutoff, "trigger": trigger,
                                          "rounds_archived": rounds_summarised, "files_included": list(files)})


def cancelled(plan: CompactionPlan, trigger: CompactionTrigger) -> CompactionOutcome:
    return CompactionOutcome(trigger, plan, None, CANCELLED_MESSAGE, ())


def stopped(plan: CompactionPlan, trigger: CompactionTrigger, done: PartsDone, ended: str = "") -> CompactionOutcome:
    """The summary ended before it was whole: the user stopped it (esc), or (``ended``, compaction_words' cause) a
    later request timed out or failed. What was finished is kept. The whole summary, when only the merge with
    earlier summaries was left (they stay apart, as when that merge fails); else the finished parts of a chunked
    one, joined unmerged, archive the rounds they cover whole, and only the archived rounds they did not reach
    leave without a summary (E2's truncation, said to the model). With no part finished, hard truncation."""
    if done.result is not None and done.result.text:
        start, cutoff = span(plan.archive)
        summary = _summary(done.result.text, start, cutoff, trigger, plan.rounds_archived, done.result.files_included)
        return CompactionOutcome(trigger, plan, summary, None, tuple(done.result.files_included),
                                 input_cut=done.result.input_cut)
    if not done.texts:
        return cancelled(plan, trigger)
    archived = [m for m in plan.archive if m.role != "summary"]      # as the summary job numbered them
    covered = {m.id for m in archived[:done.covered]}
    groups = rounds(plan.archive)
    whole = next((i for i, group in enumerate(groups) if any(m.id not in covered for m in group)), len(groups))
    truncated = len(groups) - whole         # a round a part reached only in part goes too: it has no summary whole
    partly = whole < len(groups) and any(m.id in covered for m in groups[whole])     # its start is summarised
    start, cutoff = span(archived[:done.covered])
    text = joined_parts(done.texts, start, cutoff)
    summary = _summary(text, start, cutoff, trigger, max(plan.rounds_archived - truncated, 0), ())
    return CompactionOutcome(trigger, plan, summary, None, (), parts=(len(done.texts), done.total),
                             rounds_truncated=truncated, ended=ended, partly=partly)


async def pump(task: asyncio.Future[Any], progress: asyncio.Queue[Any]
               ) -> AsyncGenerator[CompactionProgress | Retrying, None]:
    """Yield progress reports (and the summary requests' retries) while the summary task runs, then any left over."""
    while not task.done():
        getter = asyncio.ensure_future(progress.get())
        done, _ = await asyncio.wait({task, getter}, return_when=asyncio.FIRST_COMPLETED)
        if getter in done:
            yield getter.result()
        else:
            getter.cancel()
    while not progress.empty():
        yield progress.get_nowait()

