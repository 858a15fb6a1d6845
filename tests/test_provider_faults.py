"""Both providers against their fake server: streaming, retries, timeouts, errors, cancellation."""

from __future__ import annotations

import asyncio
import socket

import pytest

from contextual.core.providers.base import ContextLengthExceeded, ProviderError, StreamDone, TextChunk, UsageChunk
from contextual.core.providers.retry import RESTART
from contextual.core.tokens import count
from tests.fakes.llm_helpers import (RecordingSleep, collect, make_provider, reasoning_text, restarts, simple_request,
                                     stream_once, usages, visible_text)
from tests.fakes.llm_server import Fault, FakeLLMServer, Reply
from tests.fakes.server_flavors import Flavor
from tests.waits import until_async

ANSWER = "Thought: the tests pass.\nAction: Finish[all good]"
KEY = "sk-test-key-123456"




async def test_streams_small_deltas_and_ends_with_usage_and_done(kind):
    chunks, srv = await stream_once(kind, [ANSWER])
    texts = [c for c in chunks if isinstance(c, TextChunk)]
    assert len(texts) > 5, "the answer arrives in many small deltas"
    assert visible_text(chunks) == ANSWER
    assert isinstance(chunks[-1], StreamDone) and chunks[-1].stop_reason != RESTART
    (usage,) = usages(chunks)
    assert usage.input_tokens == srv.token_counts[0] > 0
    assert usage.output_tokens == count(ANSWER)
    assert len(srv.requests) == 1 and not srv.exhausted


async def test_reasoning_is_kept_apart_from_text(kind):
    chunks, _ = await stream_once(kind, [Reply(ANSWER, reasoning="Let me think about <b>this</b> first.")])
    assert reasoning_text(chunks) == "Let me think about <b>this</b> first."
    assert visible_text(chunks) == ANSWER


async def test_explicit_usage_numbers_pass_through(kind):
    chunks, _ = await stream_once(kind, [Reply(ANSWER, usage_input=5000, usage_output=42, cached_tokens=4000)])
    (usage,) = usages(chunks)
    assert (usage.input_tokens, usage.output_tokens, usage.cached_tokens) == (5000, 42, 4000)


async def test_429_waits_for_retry_after_then_succeeds(kind):
    sleep = RecordingSleep()
    chunks, srv = await stream_once(kind, [Fault("429", retry_after=3), ANSWER], sleep=sleep)
    assert visible_text(chunks) == ANSWER
    assert len(srv.requests) == 2
    assert sleep.delays and sleep.delays[0] >= 3.0
    assert restarts(chunks) == 0, "nothing was shown before the failure, so the retry is invisible"


async def test_retry_after_longer_than_the_time_budget_gives_up_without_waiting(kind):
    sleep = RecordingSleep()
    error, srv = await stream_once(kind, [Fault("429", retry_after=120), ANSWER], sleep=sleep, total_time=5.0)
    assert isinstance(error, ProviderError) and "429" in str(error)
    assert "the server asked to wait 120 s (Retry-After), past the 5 s retries may take" in str(error), str(error)
    assert len(srv.requests) == 1 and sleep.delays == []


@pytest.mark.parametrize("status", ["500", "502", "503", "529"])
async def test_one_server_error_is_retried(kind, status):
    chunks, srv = await stream_once(kind, [Fault(status), ANSWER])
    assert visible_text(chunks) == ANSWER
    assert len(srv.requests) == 2 and restarts(chunks) == 0


async def test_retries_are_bounded_in_count(kind):
    error, srv = await stream_once(kind, [Fault("500")] * 6 + [ANSWER], max_retries=2)
    assert isinstance(error, ProviderError)
    assert len(srv.requests) == 3
    assert "500" in str(error) and "gave up after 3 attempts" in str(error)
    assert "\n" not in str(error)


async def test_backoff_grows_with_jitter(kind):
    sleep = RecordingSleep()
    await stream_once(kind, [Fault("500")] * 3 + [ANSWER], sleep=sleep, base_delay=1.0, max_delay=100.0, total_time=100.0)
    assert len(sleep.delays) == 3
    for n, delay in enumerate(sleep.delays):
        assert 2 ** n / 2 <= delay <= 2 ** n


async def test_stream_dropped_after_text_restarts_visibly(kind):
    chunks, srv = await stream_once(kind, [Fault("drop_mid_stream", text="Thought: I was about to"), ANSWER])
    assert len(srv.requests) == 2
    assert restarts(chunks) == 1
    marker = next(i for i, c in enumerate(chunks) if isinstance(c, StreamDone))
    before = "".join(c.text for c in chunks[:marker] if isinstance(c, TextChunk))
    assert before == "Thought: I was about to"
    assert visible_text(chunks) == ANSWER
    assert chunks[-1].stop_reason != RESTART


async def test_error_event_mid_stream_is_retried(kind):
    chunks, srv = await stream_once(kind, [Fault("error_event"), ANSWER])
    assert visible_text(chunks) == ANSWER and len(srv.requests) == 2


@pytest.mark.parametrize("wire, error_type, code", [
    ("openai", "invalid_request_error", None), ("anthropic", "invalid_request_error", None),
    ("openai", "BadRequestError", 400), ("openai", "server_error", 403), ("openai", "server_error", "invalid_api_key")])
async def test_an_in_stream_refusal_is_final_and_not_retried(wire, error_type, code):
    """A refused request refused again is no news: one request, no backoff, the server's words in one line."""
    error, srv = await stream_once(wire, [Fault("error_event", message="no such model", error_type=error_type,
                                                error_code=code), ANSWER])
    assert isinstance(error, ProviderError) and not error.retryable
    assert "no such model" in str(error) and len(srv.requests) == 1


async def test_an_in_stream_rate_limit_or_server_error_is_retried():
    for code in (429, 500, None):
        chunks, srv = await stream_once("openai", [Fault("error_event", error_code=code), ANSWER])
        assert visible_text(chunks) == ANSWER and len(srv.requests) == 2, code


async def test_one_malformed_chunk_is_retried(kind):
    chunks, srv = await stream_once(kind, [Fault("malformed_chunk"), ANSWER])
    assert visible_text(chunks) == ANSWER and len(srv.requests) == 2


async def test_persistent_malformed_chunks_end_in_one_line_error(kind):
    error, srv = await stream_once(kind, [Fault("malformed_chunk")] * 10, max_malformed_retries=2)
    assert isinstance(error, ProviderError)
    assert "malformed" in str(error) and "\n" not in str(error)
    assert len(srv.requests) == 3


async def test_wrong_content_type_is_retried_then_reported(kind):
    chunks, _ = await stream_once(kind, [Fault("wrong_content_type"), ANSWER])
    assert visible_text(chunks) == ANSWER
    error, srv = await stream_once(kind, [Fault("wrong_content_type")] * 10, max_malformed_retries=1)
    assert isinstance(error, ProviderError) and "text/html" in str(error)
    assert len(srv.requests) == 2


async def test_slow_first_byte_within_read_timeout_succeeds(kind):
    chunks, srv = await stream_once(kind, [Fault("slow_first_byte", seconds=0.3, text=ANSWER)], read_timeout=1.5)
    assert visible_text(chunks) == ANSWER and len(srv.requests) == 1


async def test_first_byte_slower_than_read_timeout_is_retried(kind):
    chunks, srv = await stream_once(kind, [Fault("slow_first_byte", seconds=2.0), ANSWER], read_timeout=0.3)
    assert visible_text(chunks) == ANSWER and len(srv.requests) == 2


async def test_a_reply_may_begin_later_than_a_stream_may_stall(kind):
    """A local model reads the whole prompt before its first token (factory.LOCAL_FIRST_BYTE_TIMEOUT): the wait
    for the reply to begin is its own bound, and the silence allowed once it streams stays short."""
    chunks, srv = await stream_once(kind, [Fault("slow_first_byte", seconds=1.0, text=ANSWER)], read_timeout=0.3,
                                    first_byte_timeout=5.0)
    assert visible_text(chunks) == ANSWER and len(srv.requests) == 1
    error, srv = await stream_once(kind, [Fault("slow_first_byte", seconds=3.0)], read_timeout=0.3,
                                   first_byte_timeout=0.6, max_retries=0)
    assert isinstance(error, ProviderError) and "timed out" in str(error) and len(srv.requests) == 1


async def test_endless_keep_alives_end_in_a_stall_error(kind):
    # The server keeps the stream alive for 5 s per attempt: a "stalled" error means the keep-alives did not
    # reset the stall timer (had they, each attempt would end with the server's close, not a stall).
    error, srv = await stream_once(kind, [Fault("endless", seconds=5, interval=0.05)] * 3, read_timeout=0.4, max_retries=1)
    assert isinstance(error, ProviderError)
    assert "stalled" in str(error) and "gave up after 2 attempts" in str(error)
    assert len(srv.requests) == 2


@pytest.mark.parametrize("status", ["400", "401", "403", "404"])
async def test_client_errors_raise_at_once_with_status_and_message(kind, status):
    error, srv = await stream_once(kind, [Fault(status, message="the server explains why"), ANSWER])
    assert type(error) is ProviderError
    assert len(srv.requests) == 1
    assert status in str(error) and "the server explains why" in str(error)
    assert error.status == int(status) and "\n" not in str(error)


async def test_api_key_never_appears_in_errors(kind):
    error, _ = await stream_once(kind, [Fault("401", message=f"Incorrect API key provided: {KEY}. Check it.")])
    assert KEY not in str(error) and "[redacted]" in str(error)
    error, _ = await stream_once(kind, [Fault("500", message=f"leaked {KEY}")] * 3, max_retries=1)
    assert KEY not in str(error)


async def test_context_length_error_is_its_own_type(kind):
    error, srv = await stream_once(kind, [Fault("400_context_length"), ANSWER])
    assert isinstance(error, ContextLengthExceeded) and len(srv.requests) == 1


async def test_server_token_limit_records_violation(kind):
    with FakeLLMServer(kind, [ANSWER], max_context_tokens=40) as srv:
        provider = make_provider(kind, srv.base_url)
        with pytest.raises(ContextLengthExceeded):
            await collect(provider, simple_request("word " * 50))
        assert srv.violations and srv.violations[0]["tokens"] > 40
        assert srv.remaining == 1, "a rejected request uses no script item"
        assert visible_text(await collect(provider, simple_request("hi"))) == ANSWER
        await provider.aclose()


async def test_connection_refused_is_retried_then_reported(kind):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}" + ("/v1" if kind == "openai" else "")
    sleep = RecordingSleep()
    provider = make_provider(kind, base, sleep=sleep, max_retries=2)
    with pytest.raises(ProviderError) as caught:
        await collect(provider)
    await provider.aclose()
    # nothing ever answered there: tried once more, not max_retries times (tests/test_retries_shown.py)
    assert "connection" in str(caught.value) and len(sleep.delays) == 1
    assert "gave up after 2 attempts: nothing has answered at this address yet" in str(caught.value)
    assert KEY not in str(caught.value)
    assert "is the server (llama-server, Ollama, vLLM…) running there?" in str(caught.value), "local: say why"


async def test_cancelling_mid_stream_closes_the_connection(kind):
    with FakeLLMServer(kind, [Reply("x" * 2000, chunk_delay=0.02, chunk_size=2)]) as srv:
        provider = make_provider(kind, srv.base_url)
        first = asyncio.Event()

        async def consume() -> None:
            async for chunk in provider.stream(simple_request()):
                if isinstance(chunk, TextChunk):
                    first.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(first.wait(), 5)
        assert srv.active_streams == 1
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The server notices the hang-up at its next write: the stream is not left running.
        await until_async(lambda: srv.active_streams == 0, "the server seeing the hang-up")
        pool = provider._client._transport._pool
        assert pool.connections == [], "the cut connection is closed, not returned to the pool"
        assert len(srv.requests) == 1, "a cancel is not retried"
        await provider.aclose()


async def test_usage_chunk_comes_before_done(kind):
    chunks, _ = await stream_once(kind, [ANSWER])
    kinds = [type(c) for c in chunks]
    assert kinds[-2:] == [UsageChunk, StreamDone]



async def test_list_models_reads_the_servers_listing_and_a_missing_one_is_an_error(kind):
    """The /model picker's source: GET /v1/models on both wires (openai's base URL already ends in /v1)."""
    with FakeLLMServer(kind, [], flavor=Flavor("vllm", n_ctx=4096)) as srv:
        provider = make_provider(kind, srv.base_url)
        try:
            assert [(m.id, m.window) for m in await provider.list_models()] == [(srv.model, 4096)]
        finally:
            await provider.aclose()
    with FakeLLMServer(kind, []) as srv:                      # no flavor: the server has no listing (404)
        provider = make_provider(kind, srv.base_url)
        try:
            with pytest.raises(Exception, match="404"):           # the picker shows it as one line
                await provider.list_models()
        finally:
            await provider.aclose()
