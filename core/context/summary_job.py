"""One summary job (seed 002 A5, C2, E2): the requests one summarise() or merge() call makes to the summary model.

The whole input of each request fits the summary model's window (window − output reserve − the trigger's margin −
prompt): file contents are cut before the history is, and the cut is said in the input. History too big for one
call is summarised in parts split at message boundaries, then the partial summaries are merged into one A5
summary. Each request has E2's deadline (SummaryTimeout); the compressor (core/context/summary.py) owns the
settings a job reads (`SummaryModel`) and turns a provider's failure into SummaryFailed.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from datetime import datetime
from typing import Any, Callable, Protocol

from contextual.core.context.file_analyzer import FileReport
from contextual.core.context.stored_render import sent_text
from contextual.core.context.summary_files import BLOCK_JOIN_TOKENS, FILES_OMITTED_TOKENS, files_section
from contextual.core.context.summary_outcome import PartsDone, SummaryFailed, SummaryResult, SummaryTimeout
from contextual.core.context.summary_repair import ensure_template
from contextual.core.input_cut import InputCut
from contextual.core.messages import Message
from contextual.core.prompt import PromptMessage
from contextual.core.providers.base import (ChatRequest, ReasoningChunk, ReplyTooLong, RetryChunk, StreamDone,
                                            TextChunk)
from contextual.core.react import strip_thinking
from contextual.core.tokens import PER_MESSAGE_OVERHEAD, encoding, shared_cache
from contextual.core.tokens import count as count_tokens
from contextual.core.window_budget import margin
from contextual.prompts.agents_prompts.summary_prompt import (render_merge_request, render_summary_request,
                                                              summary_system_prompt)

ProgressCallback = Callable[[str, float, int, str], None]   # (stage, elapsed s, tokens received, detail)
RetryCallback = Callable[[RetryChunk], None]                # a summary request tried again: why, and its wait

STAGE = "summarising"          # the CompactionProgress stage these reports belong to
SAFETY_TOKENS = 32             # slack for tokens that do not add up exactly across joins
MIN_CONTENT_BUDGET = 64        # below this the window cannot hold a summary request at all
CUT_SLACK_TOKENS = 8           # a text cut to N tokens may count a few more once re-encoded
RESULT_SHARE = 0.3             # of a summary part, the most one archived tool result takes when history is split


class SummaryModel(Protocol):
    """The summary model's settings, as the compressor holds them: read at each request, so a retry after a
    rejection reads the smaller window the server stated (SummaryCompressor.over_window)."""
    provider: Any
    model: str
    timeout: float
    window: int
    output_reserve: int
    progress_interval: float
    token_factor: float


def render_message(message: Message) -> str:
    """One archived message as the summary model reads it, roles and stored forms as the prompt shows them."""
    return f"[{message.role}] {sent_text(message.content) if message.role == 'tool' else message.content}"


class SummaryJob:
    """One summarise() call: its budget, its progress clock and counters."""

    def __init__(self, owner: SummaryModel, start: datetime | str, cutoff: datetime | str,
                 instructions: str | None, files: FileReport, on_progress: ProgressCallback | None,
                 done: PartsDone, on_retry: RetryCallback | None = None) -> None:
        self.owner = owner
        self.on_retry = on_retry
        self.done = done
        self.start, self.cutoff = start, cutoff
        self.instructions = instructions
        self.files = files
        self.on_progress = on_progress
        self.system = summary_system_prompt(start, cutoff)
        self.began = time.monotonic()
        self.tokens = 0
        self.last_report = float("-inf")
        # Room always left for the one-line note that file contents were omitted.
        self.files_floor = FILES_OMITTED_TOKENS if files.files or files.notes else 0

    # -- budget ---------------------------------------------------------------------------------

    def content_budget(self, wrapper: str, scale: float) -> int:
        """Tokens left for history/files/partials in one request whose fixed text is `wrapper`."""
        fixed = (shared_cache.count(self.system) + shared_cache.count(wrapper)
                 + 2 * PER_MESSAGE_OVERHEAD + SAFETY_TOKENS)
        # less the margin the agent's prompts keep (window_budget.margin, 2 %): a request filled to window − reserve
        # left 187 tokens of 128,000, nothing for a server that counts a little more than ours
        room = self.owner.window - self.owner.output_reserve - margin(self.owner.window)
        budget = int(room * scale / self.owner.token_factor) - fixed
        if budget < MIN_CONTENT_BUDGET:
            raise SummaryFailed(f"the summary model's window ({self.owner.window} tokens, "
                                f"{self.owner.output_reserve} reserved for the answer) cannot hold the summary prompt")
        return budget

    # -- plan -----------------------------------------------------------------------------------

    async def run(self, archived: list[Message], budget_scale: float) -> SummaryResult:
        blocks = [render_message(m) for m in archived]
        sizes = [shared_cache.count(b) + BLOCK_JOIN_TOKENS for b in blocks]
        single_budget = self.content_budget(render_summary_request("", "", self.instructions), budget_scale)
        if sum(sizes) <= single_budget - self.files_floor:
            files_text, included, cut = files_section(self.files, single_budget - sum(sizes))
            self.report(0, f"summarising {len(blocks)} archived messages")
            text = await self.call(render_summary_request("\n\n".join(blocks), files_text, self.instructions),
                                   "summary")
            return self.finish(text, included, cut, chunks=1)

        chunks, messages_cut = self.split(blocks, sizes, budget_scale, [m.role == "tool" for m in archived])
        partials: list[str] = []
        self.done.begin(len(chunks))
        for index, chunk in enumerate(chunks, 1):
            detail = f"part {index} of {len(chunks)} of the archived history"
            self.report(0, detail)
            partials.append(await self.call(
                render_summary_request("\n\n".join(chunk), "", self.instructions, part=(index, len(chunks))), detail))
            self.done.add(partials[-1], len(chunk))     # one block per archived message
        partials = await self.reduce(partials, budget_scale)
        merge_budget = self.content_budget(render_merge_request([""] * len(partials), "", self.instructions),
                                           budget_scale)
        used = sum(shared_cache.count(p) + BLOCK_JOIN_TOKENS for p in partials)
        files_text, included, cut = files_section(self.files, merge_budget - used)
        if used > merge_budget:   # one left, too long for a merge request: it already merges every part
            left_out = InputCut(messages_cut, files_left_out=len(self.files.files))
            return self.finish(partials[0], (), left_out, chunks=len(chunks))
        self.report(0, f"merging {len(partials)} partial summaries")
        text = await self.call(render_merge_request(partials, files_text, self.instructions), "merge")
        return self.finish(text, included, replace(cut, messages=messages_cut), chunks=len(chunks))

    def split(self, blocks: list[str], sizes: list[int], scale: float,
              results: list[bool] | None = None) -> tuple[list[list[str]], int]:
        """History parts that each fit one call, cut only between messages; an oversized message is cut, and a
        tool result over RESULT_SHARE of a part keeps its head and tail within it: the summary needs what a result
        showed, not all of it, and at a small window one long Read a part made a call to the summary model each
        (an 8-turn session at 4k asked 213 of them). Also how many messages were cut (SummaryResult.input_cut)."""
        widest_note = render_summary_request("", "", self.instructions, part=(99_999, 99_999))
        budget = self.content_budget(widest_note, scale)
        share = max(MIN_CONTENT_BUDGET, int(budget * RESULT_SHARE))
        shared = 0
        blocks, sizes = list(blocks), list(sizes)
        for i, is_result in enumerate(results or []):
            if is_result and sizes[i] > share:
                blocks[i] = cut_middle(blocks[i], share - BLOCK_JOIN_TOKENS - CUT_SLACK_TOKENS)
                sizes[i] = shared_cache.count(blocks[i]) + BLOCK_JOIN_TOKENS
                shared += 1
        chunks: list[list[str]] = [[]]
        used = 0
        cut = shared
        for block, size in zip(blocks, sizes):
            if size > budget:
                # Cut anyway: to the room this part has left when that is at least half a part, so a short
                # message before it (the call that asked for a long result) does not make a part of its own
                # (at 4k two parts in five were one action of 30 tokens, each a call to the summary model)
                room = budget - used if chunks[-1] and budget - used >= budget // 2 else budget
                block = cut_middle(block, room - BLOCK_JOIN_TOKENS)
                size = room
                cut += 1
            if chunks[-1] and used + size > budget:
                chunks.append([])
                used = 0
            chunks[-1].append(block)
            used += size
        return chunks, cut

    async def reduce(self, partials: list[str], scale: float) -> list[str]:
        """Merge partial summaries in groups until all of them fit one merge request, or one is left: a merge's
        reply may be longer than a merge request holds (a server ignoring max_tokens, a calibration above 1)."""
        while len(partials) > 1:
            budget = self.content_budget(render_merge_request([""] * len(partials), "", self.instructions),
                                         scale) - self.files_floor
            sizes = [shared_cache.count(p) + BLOCK_JOIN_TOKENS for p in partials]
            if sum(sizes) <= budget:
                return partials
            # At most half the budget each, at any budget (no floor), so every group holds two and the list shrinks.
            half = budget // 2 - BLOCK_JOIN_TOKENS - CUT_SLACK_TOKENS
            partials = [p if s <= half else cut_middle(p, half) for p, s in zip(partials, sizes)]
            groups: list[list[str]] = [[]]
            used = 0
            for part in partials:
                size = shared_cache.count(part) + BLOCK_JOIN_TOKENS
                if groups[-1] and used + size > budget:
                    groups.append([])
                    used = 0
                groups[-1].append(part)
                used += size
            if len(groups) == len(partials):   # no group could take two: merging would never converge
                raise SummaryFailed("the partial summaries do not fit the summary model's window")
            merged = []
            for index, group in enumerate(groups, 1):
                if len(group) == 1:
                    merged.append(group[0])
                    continue
                detail = f"merging partial summaries, group {index} of {len(groups)}"
                self.report(0, detail)
                merged.append(await self.call(render_merge_request(group, "", self.instructions), detail))
            partials = merged
        return partials

    def finish(self, text: str, included: tuple[str, ...], cut: InputCut,
               chunks: int) -> SummaryResult:
        self.report(0, "summary received", force=True)
        return SummaryResult(ensure_template(text, self.start, self.cutoff), included, chunks, cut)

    # -- the model call -------------------------------------------------------------------------

    async def call(self, user_text: str, detail: str) -> str:
        request = ChatRequest(
            messages=[PromptMessage("system", self.system, "L1"), PromptMessage("user", user_text, "input")],
            model=self.owner.model, max_tokens=self.owner.output_reserve, stop=())
        text: list[str] = []
        stream = self.owner.provider.stream(request)
        # E2's deadline holds for each request to the summary model: at 200k a summary is one request, as the seed
        # has it; at a small window it is several (parts, merges), each of which may take the whole deadline on a
        # slow local model, so a deadline over all of them would turn every small-window summary into a fallback.
        deadline = asyncio.timeout(self.owner.timeout)
        cut = False
        try:
            async with deadline:
                await self._read(stream, text, detail)
        except ReplyTooLong:
            # A server ignoring max_tokens: the summary so far, cut to the budget, beats none (every compaction
            # fell back to cutting rounds without a summary)
            cut = True
        except TimeoutError as exc:
            if deadline.expired():
                raise SummaryTimeout(f"no answer from the summary model after {self.owner.timeout:g}s") from exc
            raise
        finally:
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()   # frees the connection now, also when the deadline cancels us
        reply = strip_thinking("".join(text))[0].strip()
        if not reply.strip():
            raise SummaryFailed("the summary model returned an empty reply")
        return _within(reply, self.owner.output_reserve) if cut else reply

    async def _read(self, stream: Any, text: list[str], detail: str) -> None:
        async for chunk in stream:
            if isinstance(chunk, (TextChunk, ReasoningChunk)):
                if isinstance(chunk, TextChunk):
                    text.append(chunk.text)
                self.report(count_tokens(chunk.text), detail)
            elif isinstance(chunk, RetryChunk):     # said as a turn's retry is: a summary late without a word
                if self.on_retry is not None:        # read as a hang
                    self.on_retry(chunk)
            elif isinstance(chunk, StreamDone):
                if chunk.stop_reason == "restart":   # the provider retries: what came so far is void
                    text.clear()
                    continue
                break

    def report(self, new_tokens: int, detail: str, force: bool = False) -> None:
        self.tokens += new_tokens
        if self.on_progress is None:
            return
        now = time.monotonic()
        if not force and new_tokens and now - self.last_report < self.owner.progress_interval:
            return
        self.last_report = now
        self.on_progress(STAGE, now - self.began, self.tokens, detail)


def cut_middle(text: str, max_tokens: int) -> str:
    """Head and tail of `text` within about max_tokens, with a marker saying how much was cut (seed 003)."""
    tokens = encoding().encode(text, disallowed_special=())
    if len(tokens) <= max_tokens:
        return text
    keep = max(2, max_tokens - 16)
    head, tail = keep // 2, keep - keep // 2
    cut = len(tokens) - head - tail
    return (encoding().decode(tokens[:head]) + f"\n[... {cut} tokens cut to fit the summary window ...]\n"
            + encoding().decode(tokens[-tail:]))


CUT_NOTE = "[the summary model did not stop: its summary is cut here]"


def _within(reply: str, budget: int) -> str:
    """The reply's whole lines that fit `budget` tokens, then a note saying it was cut."""
    kept: list[str] = []
    used = count_tokens(CUT_NOTE)
    for line in reply.splitlines():
        cost = count_tokens(line) + 1
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    return "\n".join(kept + [CUT_NOTE])
