"""`/policies` (issue 19.5): the current session replayed under each context policy, side by side.

The session's own record (every user input, every reply the model gave, every tool result) is played back
through a fresh Engine per policy, exactly as `contextual replay` plays a trajectory: the model answers with
the recorded replies in order and each tool returns its recorded result, so only the policy differs. The
figures are replay's own (tokens, billed with a prompt cache, recall), on the same recall pairs for every
policy. Like `contextual replay`, the window is lifted: what is measured is the policy, not compaction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from contextlib import aclosing
from typing import Any, AsyncGenerator, Callable, Iterable, Sequence

from contextual.core.config import Config
from contextual.core.hooks import Hooks
from contextual.core.messages import Message
from contextual.core.prompt import as_wire_dicts
from contextual.core.providers.base import ChatRequest, StreamChunk
from contextual.core.react import FINISH, step_text
from contextual.core.replay.metrics import Figures, measure, recall_pairs
from contextual.core.replay.replay_model import recorded_reply
from contextual.core.replay.runner import POLICIES, REPLAY_WINDOW
from contextual.core.tokens import TokenCache, shared_cache
from contextual.core.tools._args import ArgSpec
from contextual.core.tools.base import Tool, ToolContext, fail

ENDED = step_text("the recording ends here.", f"{FINISH}[(the recorded turn ended without an answer)]")


@dataclass(frozen=True)
class RecordedStep:
    reply: str                  # what the model answered, verbatim
    tool: str | None = None     # the tool it called
    result: dict[str, Any] | None = None  # what the tool returned (None: a Finish or a format error)
    observation: str = ""       # the observation's text as recorded (full form): what recall lines are read from


@dataclass(frozen=True)
class RecordedTurn:
    text: str                   # the user's input as typed
    steps: tuple[RecordedStep, ...]


def recorded_turns(record: Iterable[Message]) -> list[RecordedTurn]:
    """The session's turns from its full record (summaries skipped: they are not what the user or model said)."""
    turns: list[tuple[str, list[RecordedStep]]] = []
    by_call: dict[str, int] = {}
    for m in record:
        if m.role == "user":
            turns.append((str(m.meta.get("raw") or m.content), []))
        elif not turns or m.role == "summary":
            continue
        elif m.role == "assistant":
            steps = turns[-1][1]
            if m.call_id:
                by_call[m.call_id] = len(steps)
            steps.append(RecordedStep(m.full or m.content, m.tool_name))
        elif m.role == "tool" and m.call_id in by_call and by_call[m.call_id] < len(turns[-1][1]):
            steps = turns[-1][1]
            index = by_call[m.call_id]
            steps[index] = replace(steps[index], result=_result(m), observation=m.full or m.content)
    out = []
    for text, steps in turns:
        if not steps or FINISH + "[" not in steps[-1].reply:
            steps = [*steps, RecordedStep(ENDED)]
        out.append(RecordedTurn(text, tuple(steps)))
    return out


_HEADER = re.compile(r"^\[(?P<head>[^\]\n]*)\]\n?")


def _result(m: Message) -> dict[str, Any]:
    """The tool's result as far as the record gives it back. The record keeps the observation as text (a status
    line and the body), not the tool's structured data, so the result is rebuilt from that text: the full
    observation replays exactly; a stored form is recomputed from the text, so it can differ from the live one."""
    text = m.full or m.content
    match = _HEADER.match(text)
    head, body = (match.group("head"), text[match.end():]) if match else ("ok", text)
    if head.startswith("exit ") or head.startswith("timed out"):
        out, _, err = body.partition("[stderr]\n") if body.startswith("[stderr]\n") or "\n[stderr]\n" in body \
            else (body, "", "")
        code = head.split()[1].split(";")[0] if head.startswith("exit ") else None
        data = {"command": (m.meta.get("args") or {}).get("command", ""), "exit_code": int(code) if code and
                code.lstrip("-").isdigit() else None, "stdout": out.rstrip("\n"), "stderr": err,
                "timed_out": head.startswith("timed out")}
        return {"status": "success" if code == "0" else "error", "data": data}
    if head.startswith("error "):
        code, _, message = head[len("error "):].partition(": ")
        return {"status": "error", "error": {"code": code, "message": message}, "data": body or None}
    return {"status": "success", "data": body}


class RecordedModel:
    """Answers call k with recorded reply k; keeps every request (what the engine really sent)."""

    name = "session-replay"

    def __init__(self, steps: Sequence[RecordedStep], cache: TokenCache = shared_cache) -> None:
        self.steps = list(steps)
        self.cache = cache
        self.requests: list[ChatRequest] = []

    def current(self) -> RecordedStep | None:
        index = len(self.requests) - 1
        return self.steps[index] if 0 <= index < len(self.steps) else None

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamChunk, None]:
        self.requests.append(request)
        step = self.current()
        text = step.reply if step is not None else ENDED
        async with aclosing(recorded_reply(self.cache, request, text)) as chunks:
            async for chunk in chunks:
                yield chunk

    async def aclose(self) -> None:
        return None


class RecordedTool:
    """Any tool of the session: returns the result recorded for the step the model just replayed."""

    needs_permission = False
    edits_files = False

    def __init__(self, name: str, model: RecordedModel, real: object | None = None) -> None:
        self.name = name
        self.description = getattr(real, "description", f"{name} (replayed)")
        # The live tool's argument spec, so a call it refused is refused the same way; any arguments otherwise.
        self.args = getattr(real, "args", None) or ArgSpec(extra_allowed=True)
        self.example = getattr(real, "example", "")
        self.model = model

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        step = self.model.current()
        if step is None or step.result is None:
            return fail("replay_error", f"no recorded result for this {self.name} call")
        return step.result

    call = run


def _tool_names(record_steps: Iterable[RecordedStep]) -> set[str]:
    return {s.tool for s in record_steps if s.tool and s.result is not None}


@dataclass(frozen=True)
class PolicyRun:
    policy: str
    calls: list[list[dict[str, Any]]]     # every request as on the wire (OpenAI-compatible rendering)
    figures: Figures


async def replay_session(turns: Sequence[RecordedTurn], policy: str, config: Config) -> PolicyRun:
    """The session played under `policy`: its requests and figures."""
    from contextual.core.agent import Engine   # late: the engine pulls in the whole product
    steps = [s for t in turns for s in t.steps]
    model = RecordedModel(steps)
    from contextual.core.agent import FORMAT_ERROR_TOOL
    from contextual.core.tools.registry import default_tools
    real = default_tools()
    tools: dict[str, Tool] = {name: RecordedTool(name, model, real.get(name))
                              for name in _tool_names(steps) - {FORMAT_ERROR_TOOL}}
    # No hook runs again: what the session's hooks said is in its record (a Stop hook's block is the turn its
    # reason starts here), and a replay must not run the user's commands a second time.
    replay = replace(config, context_window=REPLAY_WINDOW, max_steps=len(steps) + 5, permission_mode="bypass",
                     auto_compact=False, hooks=Hooks())
    # The live engine described every built-in tool in L1; the replay has only the recorded ones but must
    # send the same L1 (R: Engine's default L1 now describes only the tools it is given).
    from contextual.core.l1 import system_prompt as build_system_prompt
    engine = Engine(replay, provider=model, tools=tools, session=None, policy=policy, interactive=False,
                    system_prompt=build_system_prompt())
    for turn in turns:
        async with aclosing(engine.run_turn(turn.text)) as events:
            async for _ in events:
                pass
    calls = [as_wire_dicts(r.messages) for r in model.requests]
    # Recall pairs read the observation's own lines, as `contextual replay` reads a trajectory's output: the
    # result's JSON is one line no prompt holds verbatim, which made line recall 0 for every policy.
    outputs = [s.observation for s in steps]
    pairs = recall_pairs([t.text for t in turns[1:]], turns[0].text if turns else "",
                         [s.reply for s in steps], outputs)
    return PolicyRun(policy, calls, measure(calls, list(range(len(calls))), pairs))


async def compare_policies(record: Iterable[Message], config: Config, policies: Sequence[str] = POLICIES,
                           on_result: Callable[[str, Figures], None] | None = None) -> dict[str, Figures]:
    """Every policy's figures for the session, in order; `on_result` hears each as soon as it is known."""
    turns = recorded_turns(record)
    out: dict[str, Figures] = {}
    for policy in policies:
        out[policy] = (await replay_session(turns, policy, config)).figures
        if on_result is not None:
            on_result(policy, out[policy])
    return out
