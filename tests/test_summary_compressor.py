"""SummaryCompressor (seed 002 A5, C2, E2; seed 001 8.8, 8.9) against an in-process scripted provider."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Union

import pytest

from contextual.core.context.file_analyzer import FileReport, IncludedFile, analyze_files
from contextual.core.context.summary import SummaryCompressor
from contextual.core.context.summary_job import render_message
from contextual.core.context.summary_outcome import (FALLBACK_TIMEOUT_MESSAGE, SummaryFailed, SummaryTimeout,
                                                     fallback_message)
from contextual.core.input_cut import InputCut
from contextual.core.messages import Message
from contextual.core.providers.base import (ChatRequest, ContextLengthExceeded, ProviderError, ReasoningChunk, StreamDone,
                                 TextChunk, UsageChunk)
from contextual.core.tokens import PER_MESSAGE_OVERHEAD, count
from contextual.core.window_budget import margin

START = datetime(2024, 1, 15, 10, 0, 0, tzinfo=timezone.utc)
CUTOFF = datetime(2024, 1, 15, 11, 30, 0, tzinfo=timezone.utc)
HEADINGS = [
    "## 📌 Archived Session Summary",
    "*(Contains context from 2024-01-15 10:00:00+00:00 to 2024-01-15 11:30:00+00:00)*",
    "### 🎯 Objectives & Status",
    "### 🏗️ Technical Context (Static)",
    '### ✅ Completed Milestones (The "Done" Pile)',
    "### 🧠 Key Insights & Decisions (Persistent Memory)",
    "### 📂 File System State (Snapshot)",
]
GOOD_SUMMARY = "\n\n".join(HEADINGS[:1] + ["*(Contains context from ? to ?)*"] + [
    f"{h}\n* item under {h[4:12]}" for h in HEADINGS[2:]])

Script = Union[str, Exception, list, Callable[[ChatRequest], Any]]


class ScriptedProvider:
    """A Provider that answers each stream() call with the next script item, in small text chunks."""

    name = "scripted"

    def __init__(self, script: list[Script] | None = None, *, chunk_delay: float = 0.0, chunk_size: int = 16,
                 default: str = GOOD_SUMMARY) -> None:
        self.script = list(script or [])
        self.chunk_delay = chunk_delay
        self.chunk_size = chunk_size
        self.default = default
        self.requests: list[ChatRequest] = []
        self.closed_streams = 0
        self.streaming = asyncio.Event()        # set when a stream() call has begun

    async def stream(self, request: ChatRequest):
        self.requests.append(request)
        self.streaming.set()
        item = self.script.pop(0) if self.script else self.default
        if callable(item):
            item = item(request)
        try:
            if isinstance(item, Exception):
                raise item
            if isinstance(item, list):
                for chunk in item:
                    yield chunk
                return
            for i in range(0, len(item), self.chunk_size):
                if self.chunk_delay:
                    await asyncio.sleep(self.chunk_delay)
                yield TextChunk(item[i:i + self.chunk_size])
            yield UsageChunk(input_tokens=100, output_tokens=count(item))
            yield StreamDone("stop")
        finally:
            self.closed_streams += 1

    async def aclose(self) -> None:
        pass


def history(n_rounds: int = 2, filler: str = "") -> list[Message]:
    messages: list[Message] = []
    for i in range(n_rounds):
        messages.append(Message("user", f"request {i} {filler}"))
        messages.append(Message("assistant", f'Thought: read it {i}\nAction: Read[{{"file_path": "f{i}.py"}}]',
                                meta={"tool_name": "Read", "call_id": f"c{i}", "args": {"file_path": f"f{i}.py"}}))
        messages.append(Message("tool", f'{{"status": "success", "data": "contents {i} {filler}"}}',
                                meta={"tool_name": "Read", "call_id": f"c{i}", "args": {"file_path": f"f{i}.py"}}))
        messages.append(Message("assistant", f"Finished {i}", meta={"final": True}))
    return messages


def request_tokens(request: ChatRequest) -> int:
    return sum(count(m.content) + PER_MESSAGE_OVERHEAD for m in request.messages)


def user_text(request: ChatRequest) -> str:
    return request.messages[-1].content


async def run(provider: ScriptedProvider, messages: list[Message], **kwargs: Any):
    settings = {k: kwargs.pop(k) for k in ("timeout", "window", "output_reserve") if k in kwargs}
    compressor = SummaryCompressor(provider, "summary-model", **settings)
    return await compressor.summarise(messages, start=START, cutoff=CUTOFF, **kwargs)


async def test_c2_separate_call_with_summary_prompt_and_serialized_history() -> None:
    provider = ScriptedProvider()
    messages = [Message("summary", "## 📌 Archived Session Summary\nOLD SUMMARY")] + history(2)
    result = await run(provider, messages, output_reserve=1234)
    assert len(provider.requests) == 1 and result.chunks == 1
    request = provider.requests[0]
    assert request.model == "summary-model" and request.stop == () and request.max_tokens == 1234
    assert [m.role for m in request.messages] == ["system", "user"]
    assert HEADINGS[1] in request.messages[0].content
    text = user_text(request)
    assert "[user] request 0" in text and "[tool] [ok]\ncontents 1 " in text      # stored forms as the prompt reads them
    assert "[assistant] Thought: read it 1" in text and "[assistant] Finished 1" in text
    assert text.index("request 0") < text.index("request 1")
    assert "OLD SUMMARY" not in text     # summaries are never compressed again (A4)


async def test_a5_result_has_the_template_headings_in_order_with_times_filled() -> None:
    result = await run(ScriptedProvider(), history(1))
    lines = result.text.splitlines()
    assert lines[:2] == HEADINGS[:2]
    found = [result.text.index(h) for h in HEADINGS]
    assert found == sorted(found)
    assert "? to ?" not in result.text


async def test_a5_reply_without_header_is_repaired_keeping_content() -> None:
    result = await run(ScriptedProvider(["### 🎯 Objectives & Status\n* **Original Goal**: ship it"]), history(1))
    assert result.text.splitlines()[:2] == HEADINGS[:2]
    assert "ship it" in result.text


async def test_manual_compact_instructions_reach_the_prompt() -> None:
    provider = ScriptedProvider()
    await run(provider, history(1), instructions="Keep every SQL query verbatim")
    assert "Keep every SQL query verbatim" in user_text(provider.requests[0])
    provider = ScriptedProvider()
    await run(provider, history(1), instructions=None)
    assert "User instructions" not in user_text(provider.requests[0])


async def test_e2_the_deadline_ends_a_slow_summary_and_closes_its_stream() -> None:
    provider = ScriptedProvider(chunk_delay=5.0)         # each chunk 5 s away: only the 0.2 s deadline can end it
    with pytest.raises(SummaryTimeout) as caught:
        await run(provider, history(1), timeout=0.2)
    assert fallback_message(caught.value) == "Summary generation timed out, keeping recent history only."
    assert provider.closed_streams == 1      # the stream was closed, not left hanging


async def test_e2_the_deadline_is_per_request_so_a_chunked_summary_on_a_slow_model_finishes() -> None:
    # issue 24: at 4,096 a summary is several requests; on a slow local model each took ~20 s and a deadline over
    # all of them turned every small-window summary into the fallback. Each request here takes 0.4 s, the deadline
    # is 1 s, and there are at least three requests: over the whole job the old deadline expired.
    def answer(request: ChatRequest) -> str:
        return GOOD_SUMMARY if "Merge them into ONE summary" in user_text(request) else "partial summary"
    provider = ScriptedProvider(chunk_delay=0.4, chunk_size=100_000)
    provider.default = answer  # type: ignore[assignment]
    result = await run(provider, history(12, filler="lorem ipsum dolor sit amet " * 12), window=2600,
                       output_reserve=300, timeout=1.0)
    assert len(provider.requests) >= 3 and result.chunks >= 2
    assert "Completed Milestones" in result.text


async def test_seed001_provider_failure_becomes_summary_failed_naming_the_error() -> None:
    with pytest.raises(SummaryFailed) as caught:
        await run(ScriptedProvider([ProviderError("HTTP 500: upstream exploded", status=500)]), history(1))
    assert "upstream exploded" in str(caught.value)
    message = fallback_message(caught.value)
    assert "upstream exploded" in message and message != FALLBACK_TIMEOUT_MESSAGE


async def test_unexpected_errors_and_empty_replies_become_summary_failed() -> None:
    with pytest.raises(SummaryFailed, match="RuntimeError: boom"):
        await run(ScriptedProvider([RuntimeError("boom")]), history(1))
    with pytest.raises(SummaryFailed, match="empty reply"):
        await run(ScriptedProvider(["  <think>only thoughts</think>  "]), history(1))


async def test_a_timeout_inside_the_provider_is_a_failure_not_the_deadline() -> None:
    with pytest.raises(SummaryFailed):
        await run(ScriptedProvider([TimeoutError("read timed out")]), history(1), timeout=5)


async def test_cancellation_propagates() -> None:
    provider = ScriptedProvider(chunk_delay=5.0)
    task = asyncio.create_task(run(provider, history(1)))
    await provider.streaming.wait()          # the summary call is under way: cancel it there
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_restart_discards_the_text_so_far() -> None:
    script = [[TextChunk("GARBAGE from a failed attempt"), StreamDone("restart"), TextChunk(GOOD_SUMMARY),
               StreamDone("stop")]]
    result = await run(ScriptedProvider(script), history(1))
    assert "GARBAGE" not in result.text and HEADINGS[2] in result.text


async def test_reasoning_is_counted_but_not_kept() -> None:
    seen: list[int] = []
    script = [[ReasoningChunk("thinking hard " * 20), TextChunk("<think>inline</think>" + GOOD_SUMMARY),
               StreamDone("stop")]]
    result = await run(ScriptedProvider(script), history(1), on_progress=lambda s, e, t, d: seen.append(t))
    assert "thinking hard" not in result.text and "inline" not in result.text
    assert seen[-1] >= count("thinking hard " * 20)


async def test_progress_reports_increasing_elapsed_and_tokens() -> None:
    reports: list[tuple[str, float, int, str]] = []
    provider = ScriptedProvider(chunk_delay=0.01, chunk_size=8)
    compressor = SummaryCompressor(provider, "m", progress_interval=0.0)
    await compressor.summarise(history(1), start=START, cutoff=CUTOFF, instructions=None, files=None,
                               on_progress=lambda *r: reports.append(r))
    assert len(reports) >= 5
    assert all(stage == "summarising" for stage, *_ in reports)
    elapsed = [r[1] for r in reports]
    tokens = [r[2] for r in reports]
    assert elapsed == sorted(elapsed) and elapsed[-1] > elapsed[0]
    assert tokens == sorted(tokens) and tokens[0] == 0 and tokens[-1] >= count(GOOD_SUMMARY) // 2


async def test_history_too_big_for_one_call_is_summarised_in_chunks_then_merged() -> None:
    window, reserve = 2600 + margin(2600), 300       # parts of the size this test was written for, past the margin
    messages = history(12, filler="lorem ipsum dolor sit amet " * 12)
    partial = "partial summary of a part"
    provider = ScriptedProvider(default=partial)
    provider.script = []     # every part answers `partial`; the merge call is recognised below

    def answer(request: ChatRequest) -> str:
        return GOOD_SUMMARY if "Merge them into ONE summary" in user_text(request) else partial
    provider.default = answer  # type: ignore[assignment]
    reports: list[str] = []
    result = await run(provider, messages, window=window, output_reserve=reserve,
                       on_progress=lambda s, e, t, d: reports.append(d))
    parts, merge = provider.requests[:-1], provider.requests[-1]
    assert result.chunks == len(parts) >= 2
    assert all(request_tokens(r) <= window - reserve for r in provider.requests)
    # every archived message is in exactly one part, whole, in order
    sent = [user_text(r).split("# Archived history (oldest first)\n\n", 1)[1].split("\n\n") for r in parts]
    assert [block for part in sent for block in part] == [render_message(m) for m in messages]
    assert all(sent)
    assert f"part 1 of {len(parts)}" in user_text(parts[0])
    assert user_text(merge).count(partial) == len(parts)
    assert any("part 2 of" in d for d in reports) and any("merging" in d for d in reports)
    assert result.text.splitlines()[:2] == HEADINGS[:2]


async def test_partial_summaries_too_big_to_merge_at_once_are_merged_in_groups() -> None:
    window, reserve = 2600, 300
    long_partial = "partial: " + "the parser handles nested brackets now. " * 100   # ~700 tokens
    provider = ScriptedProvider(default=long_partial)
    reports: list[str] = []
    result = await run(provider, history(40, filler="lorem ipsum dolor sit amet " * 10), window=window,
                       output_reserve=reserve, on_progress=lambda s, e, t, d: reports.append(d))
    assert all(request_tokens(r) <= window - reserve for r in provider.requests)
    merges = [r for r in provider.requests if "Merge them into ONE summary" in user_text(r)]
    assert len(merges) >= 2 and any("group" in d for d in reports)
    assert result.chunks == len(provider.requests) - len(merges)
    assert result.text.splitlines()[0] == HEADINGS[0]


async def test_a_single_message_bigger_than_the_window_is_cut_not_lost() -> None:
    huge = Message("tool", "HEAD " + "x y z " * 3000 + " TAIL", meta={"tool_name": "Bash"})
    provider = ScriptedProvider()
    result = await run(provider, [Message("user", "go"), huge], window=2000, output_reserve=200)
    assert all(request_tokens(r) <= 1800 for r in provider.requests)
    sent = "".join(user_text(r) for r in provider.requests)
    assert "HEAD" in sent and "TAIL" in sent and "tokens cut to fit the summary window" in sent
    assert result.input_cut == InputCut(messages=1)           # the card says it (tests/test_summary_input_cut.py)


async def test_long_results_share_a_part_instead_of_taking_one_each() -> None:
    """A small-window turn of long Reads: each action is followed by a result longer than a part. Each result keeps
    its head and tail within 30 % of a part, so three Reads go to one summary call: at 4,096 a part held one Read
    (or a lone action of ~30 tokens), and an 8-turn session asked the summary model 213 times (helper-58)."""
    messages = [Message("user", "review the modules")]
    for i in range(6):
        args = {"file_path": f"m{i}.py"}
        messages.append(Message("assistant", f"Thought: look at m{i}.py\nAction: Read[{{\"file_path\": \"m{i}.py\"}}]",
                                meta={"tool_name": "Read", "call_id": f"c{i}", "args": args}))
        messages.append(Message("tool", f"HEAD{i} " + "value = x * 3 + len('alpha')\n" * 600 + f" TAIL{i}",
                                meta={"tool_name": "Read", "call_id": f"c{i}", "args": args}))
    provider = ScriptedProvider()
    result = await run(provider, messages, window=4096, output_reserve=1024)
    parts = [r for r in provider.requests if "Merge them into ONE summary" not in user_text(r)]
    assert all(request_tokens(r) <= 4096 - 1024 for r in provider.requests)
    assert result.chunks == len(parts) == 2                       # three Reads a part, with their actions
    sent = "".join(user_text(r) for r in parts)
    assert all(f"HEAD{i}" in sent and f"TAIL{i}" in sent and f"m{i}.py" in sent for i in range(6))


async def test_a_summary_request_leaves_the_margin_the_agents_prompts_keep() -> None:
    """At 128k a summary request of 119,813 tokens with max_tokens 8,000 left 187 tokens of the window, nothing for a
    server that counts a little more than ours (a user review, helper-139). Its input is held to window − reserve −
    the trigger's margin (2 %), as the agent's prompts are: this history fit one request by the old budget."""
    window, reserve = 128_000, 8_000
    provider = ScriptedProvider()
    await run(provider, history(20, filler="lorem ipsum dolor sit amet " * 585), window=window, output_reserve=reserve)
    assert all(request_tokens(r) <= window - reserve - margin(window) for r in provider.requests)


def report_of(*entries: tuple[str, int, bool]) -> FileReport:
    files = [IncludedFile(path, modified, 1, "".join(f"{path} line {i}\n" for i in range(lines)), lines, False, lines)
             for path, lines, modified in entries]
    return FileReport(files, ["gone.py was deleted since; skipped"])


async def test_files_are_sent_in_rank_order_and_listed_as_included() -> None:
    provider = ScriptedProvider()
    files = report_of(("edited.py", 5, True), ("created.py", 3, True), ("read.py", 4, False))
    result = await run(provider, history(1), files=files)
    text = user_text(provider.requests[0])
    assert result.files_included == ("edited.py", "created.py", "read.py")
    assert text.index("edited.py line 4") < text.index("created.py line 2") < text.index("read.py line 3")
    assert "gone.py was deleted since; skipped" in text
    assert text.index("[user] request 0") < text.index("edited.py line 0")
    assert text.count("edited.py line 4") == 1 and text.count("## read.py (") == 1


async def test_files_are_cut_before_history_and_the_cut_is_said() -> None:
    window, reserve = 3000, 300
    messages = history(3, filler="alpha beta gamma " * 10)
    files = report_of(("edited.py", 400, True), ("read.py", 400, False))
    provider = ScriptedProvider()
    result = await run(provider, messages, files=files, window=window, output_reserve=reserve)
    request = provider.requests[0]
    assert len(provider.requests) == 1 and result.chunks == 1
    assert request_tokens(request) <= window - reserve
    text = user_text(request)
    assert all(render_message(m) in text for m in messages)               # history whole
    assert "edited.py line 0" in text and "edited.py line 399" not in text  # file cut
    assert "edited.py cut to its first" in text and "read.py omitted to fit the summary window" in text
    assert result.files_included == ("edited.py",)
    assert result.input_cut == InputCut(files_cut=1, files_left_out=1)


async def test_context_length_error_retries_once_with_a_smaller_input() -> None:
    provider = ScriptedProvider([ContextLengthExceeded("prompt is too long", status=400)])
    result = await run(provider, history(2))
    assert len(provider.requests) == 2 and HEADINGS[2] in result.text
    with pytest.raises(SummaryFailed, match="too long"):
        await run(ScriptedProvider([ContextLengthExceeded("prompt is too long")] * 2), history(2))


async def test_a_window_too_small_for_the_prompt_fails_clearly() -> None:
    with pytest.raises(SummaryFailed, match="cannot hold the summary prompt"):
        await run(ScriptedProvider(), history(1), window=700, output_reserve=100)


async def test_issue7_summary_request_carries_modified_files_first(tmp_path: Path) -> None:
    from tests.history_helpers import Session, write
    root = tmp_path / "p"
    for name in ("a.py", "b.py", "c.py"):
        write(root, name, f"{name} content\n")
    s = Session().user("tidy up")
    for name in ("a.py", "b.py", "c.py", "c.py"):
        s.call("Read", {"file_path": name})
    s.call("Edit", {"file_path": "a.py", "old_string": "x", "new_string": "y"})
    s.call("Edit", {"file_path": "b.py", "old_string": "x", "new_string": "y"})
    write(root, "new.py", "new.py content\n")
    s.call("Write", {"file_path": "new.py", "content": "new.py content\n"})
    write(root, "a.py", "a.py content NOW\n")
    (root / "b.py").unlink()
    provider = ScriptedProvider()
    result = await run(provider, s.messages, files=analyze_files(s.messages, root))
    text = user_text(provider.requests[0])
    assert result.files_included == ("a.py", "new.py", "c.py")
    files_part = text[text.index("# Current content of the files"):]
    assert files_part.index("a.py content NOW") < files_part.index("new.py content") < files_part.index("c.py content")
    assert "b.py was deleted since; skipped" in text
    assert [files_part.count(f"## {name} (") for name in ("a.py", "new.py", "c.py", "b.py")] == [1, 1, 1, 0]


from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sizes=st.lists(st.integers(min_value=1, max_value=900), min_size=1, max_size=30),
       file_lines=st.lists(st.integers(min_value=1, max_value=300), max_size=5),
       window=st.integers(min_value=1400, max_value=6000),
       instructions=st.sampled_from([None, "keep the numbers"]))
def test_no_summary_request_exceeds_the_window(sizes: list[int], file_lines: list[int], window: int,
                                               instructions: str | None) -> None:
    reserve = 250
    messages = [Message(("user", "assistant", "tool")[i % 3], f"m{i} " + "word " * n) for i, n in enumerate(sizes)]
    files = report_of(*[(f"f{i}.py", n, i % 2 == 0) for i, n in enumerate(file_lines)])
    provider = ScriptedProvider(chunk_size=4096)
    result = asyncio.run(run(provider, messages, window=window, output_reserve=reserve, files=files,
                             instructions=instructions))
    assert all(request_tokens(r) <= window - reserve - margin(window) for r in provider.requests)
    assert result.text.splitlines()[:2] == HEADINGS[:2]
    sent = "".join(user_text(r) for r in provider.requests)
    assert all(f"m{i} " in sent for i in range(len(sizes)))            # no message lost, at worst cut
    assert set(result.files_included) <= {f.path for f in files.files}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(window=st.integers(min_value=3000, max_value=20_000), factor=st.sampled_from([1.0, 1.3, 2.0, 3.0]),
       reply_share=st.floats(min_value=0.1, max_value=4.0), rounds=st.integers(min_value=4, max_value=40))
def test_merging_converges_whatever_the_replies_length(window: int, factor: float, reply_share: float,
                                                       rounds: int) -> None:
    """Replies up to four times max_tokens (a server ignoring it) under any calibration: one summary, every
    request within the window, every message sent (merging partials raised "do not fit", a summary-less fallback)."""
    reserve = window // 4
    assume((window - reserve) / factor >= 1800)          # below, the window cannot hold the prompts at all
    line = "- the parser handles nested brackets now\n"
    reply = line * max(1, int(reply_share * reserve / count(line)))
    provider = ScriptedProvider(default=reply, chunk_size=4096)
    compressor = SummaryCompressor(provider, "summary-model", window=window, output_reserve=reserve,
                                   token_factor=factor)
    messages = history(rounds, filler="lorem ipsum dolor sit amet " * (window // 400))
    result = asyncio.run(compressor.summarise(messages, start=START, cutoff=CUTOFF))
    assert all(request_tokens(r) * factor <= window - reserve for r in provider.requests)
    assert result.text.splitlines()[0] == HEADINGS[0] and line.strip() in result.text
    sent = "".join(user_text(r) for r in provider.requests)
    assert all(f"request {i} " in sent for i in range(rounds))


async def test_at_the_smallest_merge_budget_each_summary_is_cut_to_half_so_two_still_fit() -> None:
    """The half each summary is cut to had a floor of 32 tokens: at a merge budget under about 68 no two fit."""
    earlier = ["earlier summary:\n" + "- the lexer is done\n" * 200] * 3
    reserve = 200
    window = reserve
    while True:     # the smallest window whose merge request holds the prompt: its budget is the minimum
        window += 1
        try:
            await SummaryCompressor(ScriptedProvider(), "m", window=window, output_reserve=reserve).merge(
                earlier, start=START, cutoff=CUTOFF)
        except SummaryFailed as exc:
            if "cannot hold the summary prompt" in str(exc):
                continue
            raise
        break
    provider = ScriptedProvider(default=earlier[0])
    text = await SummaryCompressor(provider, "m", window=window, output_reserve=reserve).merge(
        earlier, start=START, cutoff=CUTOFF)
    assert text.splitlines()[0] == HEADINGS[0] and len(provider.requests) >= 2
    assert all(request_tokens(r) <= window - reserve for r in provider.requests)
