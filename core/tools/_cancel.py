"""Work in a worker thread that still ends when the turn is cancelled (Esc/Ctrl-C) or runs out of time.

A thread cannot be killed, and asyncio.run waits for the default executor's threads at exit, so a thread that
never looks up would keep the process alive: the work checks a `Stop` between small steps."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, Callable, TypeVar

from contextual.core.tools.base import ToolError

T = TypeVar("T")


class Stopped(Exception):
    """Raised inside the worker when the awaiting task was cancelled; nobody is waiting for its result."""


class Stop:
    def __init__(self, budget_s: float | None = None, cancel: asyncio.Event | None = None,
                 what: str = "the tool") -> None:
        self._flag = threading.Event()
        self._cancel = cancel
        self.budget_s = budget_s
        self.deadline = None if budget_s is None else time.monotonic() + budget_s
        self.what = what

    def set(self) -> None:
        self._flag.set()

    def check(self) -> None:
        """Raise when the work must end: Stopped on cancel, ToolError("time_limit") past the budget."""
        if self._flag.is_set() or (self._cancel is not None and self._cancel.is_set()):
            raise Stopped()
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise ToolError("time_limit", f"{self.what} stopped after its {self.budget_s:g} s time limit; "
                                          "narrow the path, glob or pattern")


async def in_thread(fn: Callable[..., T], *args: Any, stop: Stop) -> T:
    """fn(*args) in a worker thread; cancelling the caller sets `stop` so the thread ends soon after."""
    try:
        return await asyncio.to_thread(fn, *args)
    except asyncio.CancelledError:
        stop.set()
        raise
    except Stopped:
        raise ToolError("cancelled", f"{stop.what} was cancelled") from None
