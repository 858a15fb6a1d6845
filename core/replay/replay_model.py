"""A model and a Bash tool that play a recorded trajectory back through the real engine.

The ReplayProvider answers call k with recorded step k as a ReAct reply (`Thought: …` / `Action: Bash[{…}]`)
and, once every step is played, with `Action: Finish[…]`; it keeps every request it got, which is exactly
what the engine's ContextBuilder sent. The ReplayBash tool returns step k's recorded output in the real
Bash tool's result shape, so compression and storage see what a live session would.
"""

from __future__ import annotations

import json
from contextlib import aclosing
from typing import Any, AsyncGenerator

from contextual.core.prompt import as_wire_dicts
from contextual.core.providers.base import ChatRequest, ProviderError, StreamChunk, StreamDone, TextChunk, UsageChunk
from contextual.core.react import FINISH, inert_thought, render_action, step_text
from contextual.core.replay.trajectory import Step, Trajectory
from contextual.core.tokens import TokenCache, shared_cache
from contextual.core.tools._args import ANY, Arg, ArgSpec
from contextual.core.tools.base import ToolContext, fail, ok

from contextual.core.tools.bash import _render as _render_bash_text   # a replayed observation reads like a live one

async def recorded_reply(cache: TokenCache, request: ChatRequest, text: str) -> AsyncGenerator[StreamChunk, None]:
    """A recorded reply as a stream, with the usage a server would report for this request."""
    yield TextChunk(text)
    prompt = sum(cache.message(m["content"]) for m in as_wire_dicts(request.messages))
    yield UsageChunk(input_tokens=prompt, output_tokens=cache.count(text))
    yield StreamDone("stop")


def render_step(step: Step) -> str:
    return step_text(inert_thought(step.thought).strip(), render_action("Bash", {"command": step.action}))


def render_finish(traj: Trajectory) -> str:
    return step_text("the recorded trajectory has no more steps.",
                     f"{FINISH}[replay of {traj.instance_id} finished after {len(traj.steps)} recorded steps]")


class ReplayProvider:
    """Answers call k with step k of the trajectory, then Finish; anything more is an error."""

    name = "replay"

    def __init__(self, traj: Trajectory, steps: list[Step] | None = None, cache: TokenCache = shared_cache) -> None:
        self.traj = traj
        self.steps = list(traj.steps if steps is None else steps)
        self.cache = cache
        self.requests: list[ChatRequest] = []
        self.answers: list[str] = []

    @property
    def finished(self) -> bool:
        return len(self.requests) > len(self.steps)

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamChunk, None]:
        index = len(self.requests)
        if index > len(self.steps):
            raise ProviderError(f"replay of {self.traj.instance_id}: the engine asked for call {index + 1} "
                                f"but the recording has {len(self.steps)} steps and Finish was already sent")
        self.requests.append(request)
        text = render_step(self.steps[index]) if index < len(self.steps) else render_finish(self.traj)
        self.answers.append(text)
        async with aclosing(recorded_reply(self.cache, request, text)) as chunks:
            async for chunk in chunks:
                yield chunk

    async def aclose(self) -> None:
        return None


def bash_result(step: Step, command: str) -> dict[str, Any]:
    """The recorded output in the real Bash tool's C1 shape (merged stdout+stderr arrive as stdout)."""
    data = {"command": command, "exit_code": step.returncode, "stdout": step.output, "stderr": "",
            "timed_out": step.timed_out, "stdout_dropped_bytes": 0, "stderr_dropped_bytes": 0, "duration": 0.0}
    text = _render_bash_text(data)
    stats = {"duration_ms": 0.0, "stdout_bytes": len(step.output.encode("utf-8", "replace")), "stderr_bytes": 0}
    if step.timed_out:
        return fail("timeout", "command timed out and was killed (output so far is in data)",
                    context={"command": command}, data=data) | {"text": text, "stats": stats}
    return ok(data, text=text, stats=stats, context={"command": command})


class ReplayBash:
    """Returns the recorded output of the step the provider last answered with."""

    name = "Bash"
    description = "replays the recorded output of the trajectory's command"
    args = ArgSpec((Arg("command", ANY), Arg("timeout", ANY, required=False)))    # checked below, as recorded
    example = ""
    needs_permission = False
    edits_files = False

    def __init__(self, provider: ReplayProvider) -> None:
        self.provider = provider
        self.calls = 0

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        index = len(self.provider.requests) - 1
        self.calls += 1
        if not 0 <= index < len(self.provider.steps):
            return fail("replay_error", f"no recorded step for Bash call {self.calls}")
        command = args.get("command") if isinstance(args, dict) else None
        if not isinstance(command, str):
            return fail("invalid_argument", f"command must be a string, got {json.dumps(command)[:40]}")
        return bash_result(self.provider.steps[index], command)
