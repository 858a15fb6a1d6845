import asyncio
import time

import pytest

from contextual.core.tools.runner import run_tool
from contextual.core.tools.bash import BashTool, CappedBuffer
from tests.waits import alive, until_async


# The commands below leave a child sleeping 30 s: a call that waited for it would take that long. The bound only
# tells "did not wait for the child" from "waited" on a loaded machine; how fast is benchmarks/' business.
SOONER = 20


def fast_tool(**kwargs):
    return BashTool(kill_grace=kwargs.pop("kill_grace", 0.3), drain_grace=kwargs.pop("drain_grace", 0.3), **kwargs)


async def gone(pid: int) -> None:
    await until_async(lambda: not alive(pid), f"process {pid} ending")


async def wait_for_pid(path) -> int:
    await until_async(lambda: path.exists() and path.read_text().strip(), "the command writing its child's pid")
    return int(path.read_text())


async def test_runs_in_the_root_with_stdout_stderr_apart(ctx):
    result = await run_tool(fast_tool(), {"command": "pwd; echo oops >&2; cat; exit 3"}, ctx)
    assert result["status"] == "success"
    data = result["data"]
    assert data["stdout"] == f"{ctx.root}\n"          # cat got /dev/null: no hang, no input
    assert data["stderr"] == "oops\n"
    assert data["exit_code"] == 3 and data["timed_out"] is False
    assert (data["stdout_dropped_bytes"], data["stderr_dropped_bytes"]) == (0, 0)
    assert "[stderr]\noops" in result["text"] and "exit code 3" in result["text"]
    assert BashTool.needs_permission and not BashTool.edits_files


async def test_output_is_capped_and_dropped_bytes_counted(ctx):
    tool = fast_tool(keep_head=100, keep_tail=50)
    result = await run_tool(tool, {"command": "head -c 1000 /dev/zero | tr '\\0' a; printf END; "
                                        "head -c 300 /dev/zero | tr '\\0' e >&2"}, ctx)
    data = result["data"]
    assert data["stdout_dropped_bytes"] == 1003 - 150
    assert data["stdout"].startswith("a" * 100 + "\n… [853 bytes dropped] …\n")
    assert data["stdout"].endswith("a" * 47 + "END")
    assert data["stderr_dropped_bytes"] == 150
    assert data["stderr"] == "e" * 100 + "\n… [150 bytes dropped] …\n" + "e" * 50


def test_capped_buffer_keeps_small_streams_whole_and_decodes_across_the_seam():
    buffer = CappedBuffer(head=4, tail=10)
    for piece in ("hé", "llo"):
        buffer.feed(piece.encode())
    assert buffer.dropped == 0 and buffer.text() == "héllo"


async def test_timeout_kills_the_whole_process_group(ctx):
    pidfile = ctx.root / "child.pid"
    started = time.monotonic()
    result = await run_tool(fast_tool(), 
        {"command": "echo before; sleep 30 & echo $! > child.pid; wait", "timeout": 0.5}, ctx)
    assert time.monotonic() - started < SOONER
    assert result["status"] == "error" and result["error"]["code"] == "timeout"
    assert result["data"]["timed_out"] is True
    assert result["data"]["stdout"] == "before\n"        # output so far is kept
    await gone(int(pidfile.read_text()))


async def test_children_that_ignore_sigterm_get_sigkill(ctx):
    pidfile = ctx.root / "child.pid"
    command = "bash -c 'trap \"\" TERM; echo $$ > child.pid; while :; do sleep 0.05; done' & wait"
    result = await run_tool(fast_tool(kill_grace=0.2), {"command": command, "timeout": 0.5}, ctx)
    assert result["error"]["code"] == "timeout"
    await gone(int(pidfile.read_text()))


async def test_task_cancellation_kills_the_group(ctx):
    pidfile = ctx.root / "child.pid"
    task = asyncio.create_task(run_tool(fast_tool(), {"command": "sleep 30 & echo $! > child.pid; wait"}, ctx))
    pid = await wait_for_pid(pidfile)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await gone(pid)


@pytest.mark.parametrize("turns", [1, 2, 3, 4, 6, 10])
async def test_a_cancel_while_bash_is_starting_stops_its_group_at_once(ctx, turns):
    """Cancelled a few event-loop turns in, i.e. while the process is being started: the call ends at once and
    takes the group with it, instead of waiting for a background child to let go of the pipes (30 s here)."""
    task = asyncio.create_task(run_tool(fast_tool(), {"command": "sleep 30 & echo $! > child.pid; wait"}, ctx))
    for _ in range(turns):
        await asyncio.sleep(0)
    task.cancel()
    started = time.monotonic()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < SOONER
    pidfile = ctx.root / "child.pid"
    if pidfile.exists() and pidfile.read_text().strip():         # bash got as far as starting its child
        await gone(int(pidfile.read_text()))


async def test_cancel_event_kills_the_group(ctx):
    pidfile = ctx.root / "child.pid"
    task = asyncio.create_task(run_tool(fast_tool(), {"command": "sleep 30 & echo $! > child.pid; wait"}, ctx))
    pid = await wait_for_pid(pidfile)
    ctx.cancel.set()
    result = await asyncio.wait_for(task, SOONER)
    assert result["error"]["code"] == "cancelled"
    await gone(pid)


async def test_background_child_holding_the_pipes_does_not_hang_the_call(ctx):
    started = time.monotonic()
    result = await run_tool(fast_tool(), {"command": "sleep 30 & echo $! > child.pid; echo started"}, ctx)
    assert time.monotonic() - started < SOONER
    assert result["status"] == "success" and result["data"]["stdout"] == "started\n"
    await gone(int((ctx.root / "child.pid").read_text()))


async def test_before_change_is_called_with_unknown_paths(ctx):
    calls = []

    async def snapshot(paths):
        calls.append(paths)

    ctx.before_change = snapshot
    await run_tool(fast_tool(), {"command": "true"}, ctx)
    assert calls == [[]]


async def test_invalid_utf8_output_is_replaced(ctx):
    result = await run_tool(fast_tool(), {"command": "printf 'ok \\377\\n'"}, ctx)
    assert result["data"]["stdout"] == "ok \ufffd\n"


@pytest.mark.parametrize("args, needle", [
    ({}, "missing required argument: command"),
    ({"command": 5}, "command must be a string"),
    ({"command": "   "}, "command is empty"),
    ({"command": "true", "timeout": 0}, "timeout must be"),
    ({"command": "true", "timeout": -3}, "timeout must be"),
    ({"command": "true", "timeout": 601}, "at most 600"),
    ({"command": "true", "timeout": "10"}, "timeout must be a number"),
    ({"command": "true", "timeout": True}, "timeout must be"),
    ({"command": "true", "cwd": "/"}, "unknown argument(s): cwd"),
])
async def test_bad_arguments(ctx, args, needle):
    result = await run_tool(fast_tool(), args, ctx)
    assert result["error"]["code"] == "invalid_argument"
    assert needle in result["error"]["message"]


async def test_api_keys_are_not_passed_to_commands(ctx, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    monkeypatch.setenv("CONTEXTUAL_API_KEY", "ctx-secret")
    monkeypatch.setenv("HARMLESS_SETTING", "visible")
    result = await run_tool(fast_tool(), {"command": "env"}, ctx)
    assert "secret" not in result["data"]["stdout"]
    assert "HARMLESS_SETTING=visible" in result["data"]["stdout"]


from hypothesis import given, strategies as st  # noqa: E402


@given(chunks=st.lists(st.binary(max_size=40), max_size=20), head=st.integers(0, 30), tail=st.integers(0, 30))
def test_capped_buffer_keeps_head_and_tail_and_counts_the_rest(chunks, head, tail):
    buffer = CappedBuffer(head=head, tail=tail)
    for chunk in chunks:
        buffer.feed(chunk)
    whole = b"".join(chunks)
    assert bytes(buffer.head) == whole[:head]
    assert len(buffer.head) + len(buffer.tail) + buffer.dropped == len(whole)
    assert whole.endswith(bytes(buffer.tail)) and len(buffer.tail) <= tail
