"""The replay sends exactly what a live session sends for the same steps: same engine, same builder,
same compressor, same history; only the model's answers and the tool's outputs come from a recording."""

import re

import pytest

from contextual.core.agent import Engine
from contextual.core.events import ToolFinished, TurnFinished
from contextual.core.prompt import as_wire_dicts
from contextual.core.replay.loaders import Step, Trajectory
from contextual.core.replay.replay_model import render_finish, render_step
from contextual.core.replay.runner import replay_config, replay_one
from contextual.core.providers.base import StreamDone, TextChunk, UsageChunk
from contextual.core.tools.bash import BashTool

TIMING = re.compile(r'(\\?"duration(?:_ms)?\\?": )[0-9.]+')


class ScriptedModel:
    """A live model stand-in: fixed replies, every request kept."""
    name = "scripted"

    def __init__(self, replies):
        self.replies = list(replies)
        self.requests = []

    async def stream(self, request):
        self.requests.append(request)
        yield TextChunk(self.replies[len(self.requests) - 1])
        yield UsageChunk(1, 1)
        yield StreamDone("stop")

    async def aclose(self):
        return None


def _commands():
    out = []
    for i in range(16):
        if i == 0:
            out.append("seq 1000 1300")                          # bulky, and only this step prints 1150
        elif i % 3 == 0:
            out.append(f"seq 1 {200 + i}")                       # bulky: the policy must store it later
        elif i % 3 == 1:
            out.append(f"printf 'src/mod_{i}.py:{i}: def handler_{i}()\\n'")
        else:
            out.append(f"echo failing test_case_{i}; exit {i % 2}")
    return out


@pytest.mark.parametrize("policy", ["ours", "mask"])
async def test_replay_sends_what_a_live_session_sends(tmp_path, policy):
    planned = [Step(thought=f"step {i}", action=cmd, output="", returncode=None) for i, cmd in enumerate(_commands())]
    shell = Trajectory("live-1", "find the failing test", planned, "live")
    model = ScriptedModel([render_step(s) for s in planned] + [render_finish(shell)])
    config = replay_config(tmp_path.resolve(), len(planned))
    live = Engine(config, provider=model, tools={"Bash": _Unprompted(BashTool())}, session=None, policy=policy)
    results = []
    async for ev in live.run_turn(shell.task):
        if isinstance(ev, ToolFinished):
            results.append(ev.result["data"])
        assert not isinstance(ev, TurnFinished) or len(results) == len(planned)

    recorded = Trajectory("live-1", shell.task, [
        Step(thought=s.thought, action=s.action, output=data["stdout"], returncode=data["exit_code"])
        for s, data in zip(planned, results)], "live")
    run = await replay_one(recorded, policy, {"project_root": tmp_path.resolve()})

    live_calls = [_timeless(as_wire_dicts(r.messages)) for r in model.requests]
    assert len(live_calls) == len(run.calls) == len(planned) + 1
    assert live_calls == [_timeless(c) for c in run.calls]
    # The policy did act: the first (bulky) output is no longer sent in full at the end of the turn.
    assert "\n1150\n" in "".join(m["content"] for m in run.calls[1])      # newest: full, plain text
    assert "\n1150\n" not in "".join(m["content"] for m in run.calls[-1])


class _Unprompted:
    """The real Bash tool, run without a permission prompt (as `--permission-mode bypass` would)."""
    name = "Bash"
    needs_permission = False
    edits_files = False

    def __init__(self, tool):
        self.tool = tool
        self.description, self.args, self.example = tool.description, tool.args, tool.example

    async def call(self, args, ctx):
        return await self.tool.call(args, ctx)


def _timeless(messages):
    """Live commands take time; the recording replays them in 0 s. Everything else must be equal."""
    out = []
    for m in messages:
        content = TIMING.sub(r"\g<1>0", m["content"])
        content = re.sub(r"exit code (\d+), [0-9.]+ s\]", r"exit code \1, 0 s]", content)
        out.append({"role": m["role"], "content": content})
    return out
