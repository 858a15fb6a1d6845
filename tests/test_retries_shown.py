"""A call tried again is said, each time: which attempt of how many, why, and how long until it starts (a 429's
Retry-After too) — in the provider's stream, on `-p`'s stderr (one line per retry) and in the app's status line.
Before, a refused connection was a spinner running ~10 s in silence, then "gave up after 5 attempts" (a user
review, finding 2)."""

from __future__ import annotations

import socket
from pathlib import Path

from contextual.core.events import Retrying
from contextual.core.providers.base import ProviderError, RetryChunk
from contextual.tui.app import ContextualApp
from contextual.tui.widgets.status_line import StatusLine
from tests.cli_helpers import cli_env, contextual, home_of
from tests.fakes.llm_helpers import RecordingSleep, collect, make_provider, simple_request, stream_once, visible_text
from tests.fakes.llm_server import Fault, FakeLLMServer
from tests.tui_helpers import chat_text, finish, make_host, type_and_send, wait_for

ANSWER = "Thought: fine\nAction: Finish[recovered]"


async def test_each_retry_is_a_chunk_with_its_attempt_limit_reason_and_wait(kind):
    sleep = RecordingSleep()
    chunks, srv = await stream_once(kind, [Fault("503"), Fault("429", retry_after=7), ANSWER], sleep=sleep,
                                    max_retries=3, total_time=60.0)
    assert visible_text(chunks) == ANSWER and len(srv.requests) == 3
    retries = [c for c in chunks if isinstance(c, RetryChunk)]
    assert [(r.attempt, r.attempts, r.reason) for r in retries] == [
        (2, 4, "HTTP 503 Service Unavailable"), (3, 4, "HTTP 429 Too Many Requests")]
    assert [r.wait for r in retries] == sleep.delays, "the wait said is the wait slept"
    assert retries[0].retry_after is None and retries[1].retry_after == 7 and retries[1].wait >= 7


def test_the_words_count_down_and_name_a_wait_the_server_asked_for():
    refused = Retrying(1, 2, 5, "connection refused", 1.4)
    assert refused.words() == "retrying 2/5 in 2s: connection refused"
    assert refused.words(0.3) == "retrying 2/5 in 1s: connection refused"
    assert refused.words(-0.2) == "retrying 2/5: connection refused", "the wait is over: the attempt runs"
    limited = Retrying(1, 3, 5, "HTTP 429 Too Many Requests", 30.0, retry_after=30.0)
    assert limited.words() == "retrying 3/5 in 30s (Retry-After): HTTP 429 Too Many Requests"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_print_mode_says_at_once_that_nothing_listens_where_no_server_ever_answered(project: Path):
    """Nothing listening at the first call was ~14 s of backoff (1+2+4+8 s) before `-p` said so: a refused
    connection to a server that has not answered once this run is tried once more, its line said, then the error."""
    base = f"http://127.0.0.1:{_closed_port()}/v1"
    env = cli_env(home_of(project), base, CONTEXTUAL_MAX_RETRIES="4")
    result = contextual(["-p", "hi"], project, env)
    assert result.returncode == 1 and result.stdout == ""
    retries = [line for line in result.stderr.splitlines() if line.startswith("retrying ")]
    assert [line.split(" in ")[0] for line in retries] == ["retrying 2/2"], result.stderr
    assert all(line.endswith("s: connection refused") for line in retries), result.stderr
    last = result.stderr.splitlines()[-1]
    assert "is the server" in last and "gave up after 2 attempts: nothing has answered at this address yet" in last


async def test_a_server_that_answered_once_is_retried_max_retries_times_when_it_refuses_later(kind):
    """A refused connection is only cut short before the server has ever answered: one that answered and then
    refuses (restarting) gets every retry max_retries allows, each said."""
    sleep = RecordingSleep()
    with FakeLLMServer(kind, [ANSWER]) as srv:
        provider = make_provider(kind, srv.base_url, sleep=sleep, max_retries=3)
        assert visible_text(await collect(provider)) == ANSWER
    chunks: list = []                       # the server is gone now: nothing listens on its port
    try:
        async for chunk in provider.stream(simple_request()):
            chunks.append(chunk)
    except ProviderError as exc:
        error = exc
    finally:
        await provider.aclose()
    retries = [c for c in chunks if isinstance(c, RetryChunk)]
    assert [(r.attempt, r.attempts, r.reason) for r in retries] == [
        (2, 4, "connection refused"), (3, 4, "connection refused"), (4, 4, "connection refused")]
    assert "gave up after 4 attempts)" in str(error)


async def test_a_refused_connection_before_any_answer_is_tried_once_more_whatever_max_retries_allows(kind):
    sleep = RecordingSleep()
    provider = make_provider(kind, f"http://127.0.0.1:{_closed_port()}", sleep=sleep, max_retries=4)
    chunks: list = []
    try:
        async for chunk in provider.stream(simple_request()):
            chunks.append(chunk)
    except ProviderError as exc:
        error = exc
    finally:
        await provider.aclose()
    assert [(c.attempt, c.attempts) for c in chunks if isinstance(c, RetryChunk)] == [(2, 2)]
    assert len(sleep.delays) == 1 and "gave up after 2 attempts: nothing has answered at this address yet" in str(error)
    never = make_provider(kind, f"http://127.0.0.1:{_closed_port()}", sleep=sleep, max_retries=0)
    try:
        await collect(never)
    except ProviderError as exc:
        assert "gave up after 1 attempt)" in str(exc)       # max_retries 0 still means none
    finally:
        await never.aclose()


def test_print_mode_says_a_429s_retry_after(project: Path):
    with FakeLLMServer("openai", [Fault("429", retry_after=1), ANSWER]) as srv:
        result = contextual(["-p", "hi"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0 and result.stdout == "recovered\n"
    assert "retrying 2/5 in 1s (Retry-After): HTTP 429 Too Many Requests" in result.stderr.splitlines()


async def test_the_status_line_says_the_retry_while_it_waits_then_thinks_again(tmp_path):
    with FakeLLMServer("openai", [Fault("429", retry_after=2), finish("recovered")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.startup.started()
            status = app.query_one(StatusLine)
            await type_and_send(pilot, "hello")
            await wait_for(pilot, lambda: status.state == "retrying")
            shown = str(status.render())
            # whole at 80 columns: the esc hint gives way (it cut the reason to "HTTP 429 Too Many Requests · esc to")
            assert shown.strip() == "… retrying 2/5 in 2s (Retry-After): HTTP 429 Too Many Requests", shown
            await wait_for(pilot, lambda: not app.turns.running)      # the second attempt answered
            assert status.state == "idle" and len(srv.requests) == 2 and "recovered" in chat_text(app)
