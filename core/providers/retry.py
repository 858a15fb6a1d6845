"""Bounded retries shared by the providers, and the restart contract the engine relies on.

Chunks stream live: the consumer sees text as it arrives. When an attempt fails with a transient error
(429, 5xx, a cut or stalled stream, a malformed chunk), the stream is opened again after a backoff:

* if the failed attempt had yielded nothing the consumer could show (no text, no reasoning), the retry is
  invisible;
* if it had, a ``StreamDone(stop_reason="restart")`` chunk is yielded first. It means "discard everything
  this stream gave you so far and start again"; the chunks of the new attempt follow.

Either way a ``RetryChunk`` (the attempt, the limit, why, the wait) comes before the wait: a front end says why the
answer is late instead of a spinner that runs on in silence.

A final ``StreamDone`` with any other stop reason ends a complete answer. Errors that retrying cannot fix
(400/401/403/404, context length) raise at once. Retries are bounded in count and in total time, and a
``Retry-After`` header is honoured. A refused connection to a server that has not answered once this run (nothing
listens there: a local server not started) is tried ``refused_retries`` more times, not ``max_retries``: it was
~14 s of backoff before a `-p` said so. Once the server has answered, a refusal is retried like any transient
failure (a server restarting).

tenacity is not used: its attempt context swallows every exception (GeneratorExit and CancelledError
included), which breaks an async generator that yields from inside the attempt.
"""

from __future__ import annotations

import asyncio
import random
import time
from contextlib import aclosing
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from http import HTTPStatus
from typing import AsyncGenerator, Awaitable, Callable

from contextual.core.plural import plural
from contextual.core.providers.base import (ProviderError, ReasoningChunk, ReplyTooLong, RetryChunk, StreamChunk,
                                           StreamDone, TextChunk)
from contextual.core.textsafe import one_line

RESTART = "restart"


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4              # attempts after the first
    total_time: float = 60.0          # no retry is started once this much time went by (or would by its delay)
    base_delay: float = 1.0           # first backoff, doubled each retry
    max_delay: float = 20.0           # one backoff never waits longer (a Retry-After may, within total_time)
    max_malformed_retries: int = 2    # a server that keeps answering garbage is not worth 4 retries
    refused_retries: int = 1          # a refused connection before the server ever answered (within max_retries)
    connect_timeout: float = 10.0
    read_timeout: float = 60.0        # longest silence (no content) accepted from a stream once it has begun
    first_byte_timeout: float = 60.0  # longest wait for the reply to begin (a local model reads the prompt first)
    max_reply_seconds: float = 1800.0 # wall-clock cap on one streamed reply, however lively (slow CPUs: generous)
    reply_chars_per_token: int = 16   # text cap = this × max_tokens (4× a typical 4 characters per token)


class TransientError(ProviderError):
    """A failure worth another attempt."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None,
                 malformed: bool = False, reason: str = "", refused: bool = False) -> None:
        super().__init__(message, status=status, retryable=True)
        self.retry_after = retry_after
        self.malformed = malformed
        self.refused = refused           # the connection was refused: nothing listens at that address
        self._reason = reason            # a few words for a status line; else made from the status or message

    @property
    def reason(self) -> str:
        """Why the attempt failed, in a few words: "connection refused", "HTTP 429 Too Many Requests"."""
        if self._reason:
            return self._reason
        if self.status is not None:
            try:
                return f"HTTP {self.status} {HTTPStatus(self.status).phrase}"
            except ValueError:      # 529, Anthropic's "overloaded", is no standard status
                return f"HTTP {self.status}"
        return one_line(str(self).split(": ", 1)[-1], 60)     # "openai: stream ended …" without the provider


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date; None if absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def backoff_delay(retry_number: int, policy: RetryPolicy, retry_after: float | None,
                  rng: Callable[[], float] = random.random) -> float:
    """Exponential backoff with jitter (half fixed, half random), or the server's Retry-After if longer."""
    ceiling = min(policy.max_delay, policy.base_delay * 2 ** (retry_number - 1))
    delay: float = ceiling / 2 + rng() * ceiling / 2
    if retry_after is not None:
        delay = max(delay, retry_after)
    return delay


@dataclass
class Contact:
    """Whether a provider's server has answered once this run (any answer: a reply, an error status, a stream cut
    after it began). One per provider, kept across its calls."""
    made: bool = False


def retry_limit(policy: RetryPolicy, error: TransientError, contact: Contact) -> int:
    """The retries this error allows: fewer for a refused connection to a server that has never answered."""
    if error.refused and not contact.made:
        return min(policy.max_retries, policy.refused_retries)
    return policy.max_retries


def reply_char_cap(policy: RetryPolicy, max_tokens: int) -> int:
    return max(1, max_tokens) * policy.reply_chars_per_token


def too_long(name: str, policy: RetryPolicy, max_tokens: int) -> ReplyTooLong:
    """A reply that passed ``reply_char_cap``: a server ignoring max_tokens would do it again, so it is not retried."""
    return ReplyTooLong(f"{name}: the reply passed {reply_char_cap(policy, max_tokens):,} characters "
                        f"({policy.reply_chars_per_token} per token of max_tokens {max_tokens:,}) without ending: "
                        "stopped")


async def stream_with_retries(open_attempt: Callable[[], AsyncGenerator[StreamChunk, None]], policy: RetryPolicy, *,
                              sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                              name: str = "provider", max_tokens: int | None = None,
                              contact: Contact | None = None) -> AsyncGenerator[StreamChunk, None]:
    """Run ``open_attempt()`` until one attempt completes, following the restart contract above.

    With ``max_tokens``, an attempt whose text outgrows ``reply_char_cap`` ends the stream with one error
    (not retried: a server that ignores max_tokens would do it again). ``contact``: whether the server has answered
    this run (the provider's; a refused connection before it has is retried ``refused_retries`` times)."""
    contact = Contact() if contact is None else contact
    started = time.monotonic()
    retries = 0
    malformed = 0
    cap = reply_char_cap(policy, max_tokens) if max_tokens is not None else None
    while True:
        shown = False
        size = 0
        try:
            async with aclosing(open_attempt()) as chunks:
                async for chunk in chunks:
                    if isinstance(chunk, (TextChunk, ReasoningChunk)):
                        shown = True
                        size += len(chunk.text)
                        if cap is not None and max_tokens is not None and size > cap:
                            raise too_long(name, policy, max_tokens)
                    contact.made = True
                    yield chunk
            contact.made = True           # an answer with no chunk at all is an answer too
            return
        except TransientError as exc:
            error = exc
        except ProviderError as exc:
            contact.made = contact.made or exc.status is not None      # refused with a status: it answered
            raise
        contact.made = contact.made or error.status is not None or error.malformed or shown
        retries += 1
        malformed += error.malformed
        delay = backoff_delay(retries, policy, error.retry_after)
        limit = retry_limit(policy, error, contact)
        out_of_retries = retries > limit or malformed > policy.max_malformed_retries
        if out_of_retries or time.monotonic() - started + delay > policy.total_time:
            # a Retry-After of ten years was "gave up after 1 attempt", not why
            asked = error.retry_after
            why = (f": the server asked to wait {asked:,.0f} s (Retry-After), past the {policy.total_time:g} s retries "
                   "may take" if not out_of_retries and asked is not None and asked >= delay else
                   ": nothing has answered at this address yet" if limit < policy.max_retries else "")
            raise ProviderError(f"{error} (gave up after {plural(retries, 'attempt')}{why})",
                                status=error.status) from None
        if shown:
            yield StreamDone(stop_reason=RESTART)
        yield RetryChunk(retries + 1, limit + 1, error.reason, delay, error.retry_after)
        await sleep(delay)
