"""SummaryCompressor over the wire: a real provider against the fake OpenAI/Anthropic servers on 127.0.0.1."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from contextual.core.config import Config
from contextual.core.context.compaction import summariser
from contextual.core.context.file_analyzer import FileReport, IncludedFile
from contextual.core.context.summary import SummaryCompressor
from contextual.core.context.summary_outcome import SummaryFailed, SummaryTimeout, fallback_message
from contextual.core.messages import Message
from contextual.core.providers.factory import make_provider
from contextual.core.tokens import count as count_tokens
from tests.fakes.llm_server import Fault, FakeLLMServer, Reply

START = datetime(2024, 3, 1, 9, 0, 0, tzinfo=timezone.utc)
CUTOFF = datetime(2024, 3, 1, 9, 45, 0, tzinfo=timezone.utc)
SPAN = "*(Contains context from 2024-03-01 09:00:00+00:00 to 2024-03-01 09:45:00+00:00)*"
SUMMARY = ("## 📌 Archived Session Summary\n" + SPAN + "\n\n### 🎯 Objectives & Status\n* **Original Goal**: a parser\n\n"
           "### 🏗️ Technical Context (Static)\n* **Stack**: Python 3.11\n\n"
           '### ✅ Completed Milestones (The "Done" Pile)\n* [✓] tokenizer - done\n\n'
           "### 🧠 Key Insights & Decisions (Persistent Memory)\n* **Decisions**: recursive descent\n\n"
           "### 📂 File System State (Snapshot)\n*(Modified files in this archive segment)*\n* `parser.py`: new\n")


def archived(rounds: int, filler: str = "") -> list[Message]:
    out: list[Message] = []
    for i in range(rounds):
        out += [Message("user", f"step {i}: extend the parser {filler}"),
                Message("assistant", f'Thought: edit\nAction: Edit[{{"file_path": "parser.py", "n": {i}}}]',
                        meta={"tool_name": "Edit", "call_id": f"c{i}", "args": {"file_path": "parser.py"}}),
                Message("tool", f'{{"status": "success", "data": "edited parser.py ({i}) {filler}"}}',
                        meta={"tool_name": "Edit", "call_id": f"c{i}", "args": {"file_path": "parser.py"}})]
    return out


def compressor_for(srv: FakeLLMServer, tmp_path: Path, kind: str = "openai", **settings) -> SummaryCompressor:
    config = Config(project_root=tmp_path, home=tmp_path / "home", provider=kind, base_url=srv.base_url,
                    model="fake-model", api_key="sk-test-key-123456")
    provider = make_provider(config, base_delay=0.01, max_delay=0.05, total_time=5.0)
    compressor = summariser(provider, config)
    for name, value in settings.items():
        setattr(compressor, name, value)
    return compressor


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_summary_call_over_the_wire(tmp_path: Path, kind: str) -> None:
    files = FileReport([IncludedFile("parser.py", True, 3, "def parse():\n    return 1\n", 2, False, 2)], [])
    with FakeLLMServer(kind=kind, script=[Reply(SUMMARY, chunk_size=7)]) as srv:
        compressor = compressor_for(srv, tmp_path, kind)
        try:
            result = await compressor.summarise(archived(2), start=START, cutoff=CUTOFF,
                                                instructions="mention the grammar", files=files)
        finally:
            await compressor.provider.aclose()
    body = srv.requests[0]
    assert not body.get("stop") and not body.get("stop_sequences")
    wire = str(body)
    assert "[user] step 1: extend the parser" in wire and "def parse():" in wire and "mention the grammar" in wire
    assert "Archived Session Summary" in wire
    assert result.text == SUMMARY and result.files_included == ("parser.py",) and result.chunks == 1


async def test_every_chunked_request_fits_the_window_counted_by_the_server(tmp_path: Path) -> None:
    window, reserve = 2600, 300

    def answer(body: dict) -> str:
        return SUMMARY if "Merge them into ONE summary" in str(body["messages"]) else "partial: edits 0-5 done"
    with FakeLLMServer(kind="openai", responder=answer, max_context_tokens=window - reserve) as srv:
        compressor = compressor_for(srv, tmp_path, window=window, output_reserve=reserve)
        try:
            result = await compressor.summarise(archived(14, "lorem ipsum dolor sit amet " * 10), start=START,
                                                cutoff=CUTOFF, instructions=None, files=None)
        finally:
            await compressor.provider.aclose()
    assert srv.violations == []
    assert result.chunks >= 2 and len(srv.requests) == result.chunks + 1
    assert max(srv.token_counts) <= window - reserve
    assert result.text.startswith("## 📌 Archived Session Summary\n" + SPAN)


async def test_a_slow_server_hits_the_summary_deadline(tmp_path: Path) -> None:
    with FakeLLMServer(kind="openai", script=[Fault("slow_first_byte", seconds=1.0, text=SUMMARY)]) as srv:
        compressor = compressor_for(srv, tmp_path, timeout=0.2)      # the server's first byte comes after 1 s
        try:
            with pytest.raises(SummaryTimeout) as caught:
                await compressor.summarise(archived(1), start=START, cutoff=CUTOFF, instructions=None, files=None)
        finally:
            await compressor.provider.aclose()
    assert fallback_message(caught.value) == "Summary generation timed out, keeping recent history only."


async def test_a_server_error_becomes_summary_failed(tmp_path: Path) -> None:
    with FakeLLMServer(kind="openai", script=[Fault("401", message="invalid api key")]) as srv:
        compressor = compressor_for(srv, tmp_path)
        try:
            with pytest.raises(SummaryFailed) as caught:
                await compressor.summarise(archived(1), start=START, cutoff=CUTOFF, instructions=None, files=None)
        finally:
            await compressor.provider.aclose()
    assert "401" in str(caught.value) or "invalid api key" in str(caught.value)
    assert fallback_message(caught.value).startswith("Summary generation failed (")


@pytest.mark.parametrize("window, factor, endless", [(4096, 1.0, False), (16384, 1.0, False),
                                                     (4096, 2.0, True), (16384, 3.0, True)])
async def test_summaries_longer_than_max_tokens_still_merge_into_one(tmp_path: Path, window: int, factor: float,
                                                                     endless: bool) -> None:
    """A server that ignores max_tokens (small-window red team): each summary ends three times past it, or never
    ends and is cut to max_tokens (ReplyTooLong) while the calibration leaves the merge request less room than that.
    Either way a merge's reply outgrew what a merge request holds, and the last one left was "the partial summaries
    do not fit": a fallback with no summary."""
    reserve, rounds = window // 4, 16 * window // 1024
    line = "- the parser keeps nested brackets, and the tests pass again\n"
    long_reply = line * (3 * reserve // count_tokens(line))         # three times max_tokens, under the text cap

    def answer(body: dict) -> Reply | Fault:
        tag = f"[reply {len(srv.requests)}]\n"                     # which request this answers
        if endless:
            return Fault("endless_text", text=tag + line * 200, interval=0.001)
        return Reply(tag + long_reply, chunk_size=4000)
    with FakeLLMServer(kind="openai", responder=answer, max_context_tokens=window - reserve) as srv:
        compressor = compressor_for(srv, tmp_path, window=window, output_reserve=reserve, token_factor=factor)
        try:
            result = await compressor.summarise(archived(rounds, "lorem ipsum dolor sit amet " * 10), start=START,
                                                cutoff=CUTOFF, instructions=None, files=None)
        finally:
            await compressor.provider.aclose()
    assert srv.violations == [] and result.chunks >= 3
    asked = "".join(str(body["messages"]) for body in srv.requests)
    assert all(f"step {i}: extend the parser" in asked for i in range(rounds))      # no round lost
    assert f"[reply {len(srv.requests)}]" in result.text          # the summary is the model's last answer
    assert ("the summary model did not stop" in result.text) == endless
    assert result.text.startswith("## 📌 Archived Session Summary\n" + SPAN)
