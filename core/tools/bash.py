"""Bash: one command in the project root, in its own process group so a timeout or a cancel
takes every child with it; stdout and stderr kept apart, each capped in memory."""

from __future__ import annotations

from typing import Any, Callable

import asyncio
import os
import signal
import time

from contextual.core.tools._args import NUMBER, STR, Arg, ArgSpec
from contextual.core.tools.base import ToolContext, ToolError, fail, ok

DEFAULT_TIMEOUT = 120
MAX_TIMEOUT = 600
KEEP_HEAD = 32 * 1024
KEEP_TAIL = 32 * 1024
# The agent's own API keys stay out of commands' environment, so `env` cannot leak them into a session.
SECRET_ENV = ("CONTEXTUAL_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY")
# The process groups of the commands running now: a process that ends without its event loop (the app's hang-up
# deadline, tui/hangup.py) kills them as a cancel would have; each command has its own session, out of reach else.
_RUNNING: set[int] = set()


class CappedBuffer:
    """Keeps the first `head` and the last `tail` bytes of a stream and counts what fell in between."""

    def __init__(self, head: int = KEEP_HEAD, tail: int = KEEP_TAIL) -> None:
        self.head_limit, self.tail_limit = head, tail
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def feed(self, chunk: bytes) -> None:
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        self.tail += chunk
        overflow = len(self.tail) - self.tail_limit
        if overflow > 0:
            del self.tail[:overflow]
            self.dropped += overflow

    def text(self) -> str:
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if self.dropped:
            return f"{head}\n… [{self.dropped:,} bytes dropped] …\n{tail}"
        return (bytes(self.head) + bytes(self.tail)).decode("utf-8", errors="replace")


class _ExitAwareProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """Resolves `exited` when bash itself exits, even while background children still hold the pipes."""

    def __init__(self, exited: asyncio.Future[Any], loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=2 ** 16, loop=loop)
        self.exited = exited

    def process_exited(self) -> None:
        super().process_exited()
        if not self.exited.done():
            self.exited.set_result(None)


async def _spawn(command: str, ctx: ToolContext, env: dict[str, Any]) -> tuple[asyncio.subprocess.Process, asyncio.Future[Any]]:
    loop = asyncio.get_running_loop()
    exited = loop.create_future()
    transport, protocol = await loop.subprocess_exec(
        lambda: _ExitAwareProtocol(exited, loop), "/bin/bash", "-c", command, cwd=ctx.root, env=env,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        start_new_session=True)
    return asyncio.subprocess.Process(transport, protocol, loop), exited


async def _pump(stream: asyncio.StreamReader | None, buffer: CappedBuffer,
                on_output: Callable[[str], None] | None = None) -> None:
    if stream is None:
        return
    while chunk := await stream.read(65536):
        buffer.feed(chunk)
        if on_output is not None:
            on_output(chunk[-2048:].decode("utf-8", "replace"))


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_running() -> None:
    """SIGKILL every command still running, from any thread: the process is ending, no grace can be waited out."""
    for pgid in list(_RUNNING):
        _signal_group(pgid, signal.SIGKILL)


class BashTool:
    name = "Bash"
    description = "run a bash command in the project root, no stdin; timeout in seconds: 120 by default, at most 600."
    args = ArgSpec((Arg("command", STR), Arg("timeout", NUMBER, required=False, shown="int")))
    example = ""                # flat arguments: no example in L1 (it costs tokens on every call)
    needs_permission = True
    edits_files = False

    def __init__(self, kill_grace: float = 2.0, drain_grace: float = 1.0,
                 keep_head: int = KEEP_HEAD, keep_tail: int = KEEP_TAIL) -> None:
        self.kill_grace = kill_grace        # SIGTERM -> SIGKILL
        self.drain_grace = drain_grace      # after bash exits, how long background children may hold the pipes
        self.keep_head, self.keep_tail = keep_head, keep_tail

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        command = args["command"]
        if not command.strip():
            raise ToolError("invalid_argument", "command is empty")
        timeout = args.get("timeout", DEFAULT_TIMEOUT)
        if not 0 < timeout <= MAX_TIMEOUT:
            raise ToolError("invalid_argument",
                            f"timeout must be more than 0 and at most {MAX_TIMEOUT} seconds, got {timeout}")
        if ctx.cancel.is_set():
            raise ToolError("cancelled", "cancelled before the command started")
        if ctx.before_change is not None:
            await ctx.before_change([])          # a command may touch any file
        return await self._execute(command, timeout, ctx, dict(args))

    async def _execute(self, command: str, timeout: float, ctx: ToolContext, context: dict[str, Any]) -> dict[str, Any]:
        started = time.monotonic()
        env = {name: value for name, value in os.environ.items() if name not in SECRET_ENV}
        env.update(PAGER="cat", GIT_PAGER="cat")
        spawning = asyncio.ensure_future(_spawn(command, ctx, env))
        try:
            proc, exited = await asyncio.shield(spawning)
        except OSError as exc:
            return fail("io_error", f"cannot start /bin/bash: {exc.strerror or exc}", context=context)
        except asyncio.CancelledError:
            # Cancelled while bash was starting: it may already run children of its own, so let the start finish
            # and stop the group like any cancel (asyncio's own clean-up would kill bash alone and then wait until
            # whatever it started lets go of the pipes).
            try:
                proc, exited = await spawning
            except OSError:
                raise asyncio.CancelledError from None
            await self._terminate(proc.pid, exited)
            raise
        pgid = proc.pid                      # start_new_session: the child leads its own group
        _RUNNING.add(pgid)
        out = CappedBuffer(self.keep_head, self.keep_tail)
        err = CappedBuffer(self.keep_head, self.keep_tail)
        pumps = asyncio.gather(_pump(proc.stdout, out, ctx.on_output), _pump(proc.stderr, err, ctx.on_output))
        waiter = exited                      # proc.wait() would also wait for the pipes to close
        cancel_waiter = asyncio.ensure_future(ctx.cancel.wait())
        outcome = "done"
        try:
            finished, _ = await asyncio.wait({waiter, cancel_waiter}, timeout=timeout,
                                             return_when=asyncio.FIRST_COMPLETED)
            if waiter not in finished:
                outcome = "cancelled" if cancel_waiter in finished else "timeout"
                await self._terminate(pgid, waiter)
            try:
                await asyncio.wait_for(asyncio.shield(pumps), self.drain_grace)
            except asyncio.TimeoutError:
                # Background children still hold our pipes: stop them rather than wait for ever.
                await self._terminate(pgid, waiter)
                try:
                    await asyncio.wait_for(asyncio.shield(pumps), self.kill_grace + 1)
                except asyncio.TimeoutError:
                    pass                     # held by a process outside the group: keep what we have
        except asyncio.CancelledError:
            await asyncio.shield(self._terminate(pgid, waiter))
            raise
        finally:
            cancel_waiter.cancel()
            if not pumps.done():
                pumps.cancel()
            if not waiter.done():
                _signal_group(pgid, signal.SIGKILL)
            _RUNNING.discard(pgid)
        duration = round(time.monotonic() - started, 3)
        data = {"command": command, "exit_code": proc.returncode, "stdout": out.text(), "stderr": err.text(),
                "timed_out": outcome == "timeout", "stdout_dropped_bytes": out.dropped,
                "stderr_dropped_bytes": err.dropped, "duration": duration}
        stats = {"duration_ms": round(duration * 1000, 1), "stdout_bytes": len(out.head) + len(out.tail) + out.dropped,
                 "stderr_bytes": len(err.head) + len(err.tail) + err.dropped}
        if outcome == "timeout":
            return fail("timeout", f"command timed out after {timeout:g} s and was killed "
                                   "(output so far is in data)", context=context, data=data) | {
                "text": _render(data), "stats": stats}
        if outcome == "cancelled":
            return fail("cancelled", "command cancelled and killed (output so far is in data)",
                        context=context, data=data) | {"text": _render(data), "stats": stats}
        return ok(data, _render(data), stats=stats, context=context)

    async def _terminate(self, pgid: int, waiter: asyncio.Future[Any]) -> None:
        """SIGTERM the whole group, then SIGKILL whatever is left after the grace period."""
        _signal_group(pgid, signal.SIGTERM)
        deadline = time.monotonic() + self.kill_grace
        while time.monotonic() < deadline:
            if waiter.done() and not _group_alive(pgid):
                return
            await asyncio.sleep(0.02)
        _signal_group(pgid, signal.SIGKILL)
        try:
            await asyncio.wait_for(asyncio.shield(waiter), self.kill_grace)
        except asyncio.TimeoutError:
            pass


def _render(data: dict[str, Any]) -> str:
    parts = [f"$ {data['command']}"]
    if data["stdout"]:
        parts.append(data["stdout"].rstrip("\n"))
    if data["stderr"]:
        parts.append("[stderr]\n" + data["stderr"].rstrip("\n"))
    status = "timed out" if data["timed_out"] else f"exit code {data['exit_code']}"
    parts.append(f"[{status}, {data['duration']:.2f} s]")
    return "\n".join(parts)
