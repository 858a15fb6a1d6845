"""Waiting for a condition, the one way tests do it: poll until it holds, and fail (never hang) when it does not
within HANG_GUARD. The guard turns a hang into a failure; it is never a bound on how fast something ends (those
are benchmarks/)."""

from __future__ import annotations

import asyncio
import time
from typing import Callable

HANG_GUARD = 60.0


def until(condition: Callable[[], object], what: str, timeout: float = HANG_GUARD, every: float = 0.01) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {timeout:.0f} s"
        time.sleep(every)


async def until_async(condition: Callable[[], object], what: str, timeout: float = HANG_GUARD,
                      every: float = 0.01) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {timeout:.0f} s"
        await asyncio.sleep(every)


def alive(pid: int) -> bool:
    """The process runs (a zombie waiting for its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"
