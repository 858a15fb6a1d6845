"""One model call of a turn: the prompt built for the step sent, its reply streamed as events (text, the answer
as it forms, reasoning, a server's own tool-call field read as the `Action:` line, usage), and what the reply
was when it ended (``Reply``). A provider's restart drops the partial text; its retry is said (``Retrying``)."""

from __future__ import annotations

from contextlib import aclosing
from dataclasses import dataclass, field, replace
from typing import AsyncGenerator

from contextual.core.context.builder import Built
from contextual.core.context.compaction_review import Event
from contextual.core.engine.controls import ContextControls
from contextual.core.engine.fitted import Fitted
from contextual.core.engine.prompt_state import PromptState
from contextual.core.engine.recorder import Recorder
from contextual.core.engine.settings import Settings
from contextual.core.events import AnswerDelta, Notice, ReasoningDelta, Retrying, StreamRestarted, TextDelta
from contextual.core.providers.base import (CUT_AT_LIMIT, ChatRequest, ReasoningChunk, RetryChunk, StreamDone,
                                            TextChunk, ToolCallChunk, UsageChunk)
from contextual.core.react import AnswerStream, native_action


@dataclass
class Reply:
    """What one call streamed: the reply's text, the reasoning beside it, and why the server stopped."""
    text: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    stops: list[str | None] = field(default_factory=list)
    native: list[str] = field(default_factory=list)     # the names of tool calls sent in the server's own field

    @property
    def cut(self) -> bool:
        """The server stopped the reply at its max_tokens (a reply cut there is told so)."""
        return bool(self.stops) and self.stops[-1] in CUT_AT_LIMIT

    def restart(self) -> None:
        self.text.clear()
        self.thinking.clear()
        self.native.clear()


class ModelCall:
    def __init__(self, settings: Settings, prompt: PromptState, recorder: Recorder, controls: ContextControls,
                 fitted: Fitted) -> None:
        self._settings = settings
        self._prompt = prompt
        self._recorder = recorder
        self._controls = controls
        self._fitted = fitted

    async def stream(self, built: Built, step: int, reply: Reply, model: str = "") -> AsyncGenerator[Event, None]:
        """``model``: the turn's model (a custom command's `model:`), else the session's; the window stays."""
        config, provider = self._settings.config, self._settings.provider
        assert provider is not None         # the turn returned early without one
        if model:       # the request, its calibration and its price name the turn's model
            config = replace(config, model=model)
        request = ChatRequest(built.messages, config.model or "", max_tokens=config.reply_max_tokens)
        answer = AnswerStream()          # the final answer's text as it streams (the parser reads Finish)
        self._controls.sent.add(built.messages, config.model or "")      # /diff compares consecutive calls
        async with aclosing(provider.stream(request)) as chunks:
            async for chunk in chunks:
                if isinstance(chunk, TextChunk):
                    reply.text.append(chunk.text)
                    yield TextDelta(chunk.text, step)
                    delta = answer.feed(chunk.text)
                    if delta:
                        summary = self._fitted.summary()    # before the answer, so the answer is the last thing read
                        if summary is not None:
                            yield summary
                        yield AnswerDelta(delta, step)
                elif isinstance(chunk, ReasoningChunk):
                    reply.thinking.append(chunk.text)
                    yield ReasoningDelta(chunk.text, step)
                elif isinstance(chunk, ToolCallChunk):     # the server's own tool-call field: read as the Action
                    text = native_action(chunk.name, chunk.arguments)
                    reply.text.append(text)
                    reply.native.append(chunk.name)
                    yield TextDelta(text, step)
                    if chunk.others:
                        yield Notice(f"the model sent {chunk.others + 1:,} tool calls in one reply: only the first "
                                     "runs (one action a step)", "warning")
                elif isinstance(chunk, UsageChunk):
                    self._prompt.calibrate(built.total, chunk.input_tokens)
                    usage = self._prompt.usage.take(chunk, config, sent=built.total)
                    self._recorder.usage(usage)
                    yield usage
                elif isinstance(chunk, RetryChunk):
                    yield Retrying(step, chunk.attempt, chunk.attempts, chunk.reason, chunk.wait, chunk.retry_after)
                elif isinstance(chunk, StreamDone) and chunk.stop_reason == "restart":
                    reply.restart()
                    answer.reset()
                    yield StreamRestarted(step)
                elif isinstance(chunk, StreamDone):
                    reply.stops.append(chunk.stop_reason)
