"""A tool call that shows signs of life: run it as a task and yield the tail of its output while it runs.

The tool reports output through ``ToolContext.on_output`` (Bash does); at most one event every ``EVERY`` seconds
carries the newest ``TAIL`` characters. Cancelling the caller cancels the tool and waits for its own clean-up
(Bash kills its process group) before the cancellation goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any, AsyncGenerator, Awaitable, Callable, TypeVar

from contextual.core.tools.base import ToolContext

TAIL = 400
EVERY = 0.25
T = TypeVar("T")

async def run_live(call: Awaitable[dict[str, Any]], ctx: ToolContext, output_event: Callable[[str], T],
                   outcome: list[dict[str, Any]]) -> AsyncGenerator[T, None]:
    """Runs ``call``; yields ``output_event(tail)`` as output arrives; appends the result to ``outcome``."""
    pieces: asyncio.Queue[str] = asyncio.Queue()
    ctx.on_output = pieces.put_nowait
    task = asyncio.ensure_future(call)
    getter: asyncio.Future[str] | None = None
    tail, last = "", 0.0
    try:
        while True:
            getter = asyncio.ensure_future(pieces.get())
            done, _ = await asyncio.wait({task, getter}, return_when=asyncio.FIRST_COMPLETED)
            if getter not in done:
                break
            tail = (tail + getter.result())[-TAIL:]
            getter = None
            if not task.done() and time.monotonic() - last >= EVERY:
                last = time.monotonic()
                yield output_event(tail)
    finally:
        ctx.on_output = None
        if getter is not None and not getter.done():
            getter.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
    outcome.append(task.result())
