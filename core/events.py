"""Typed, immutable engine events: the only thing front ends consume.

The headless printer and the TUI both read this stream; the engine never knows which.
A front end answers questions (permissions) by resolving the future a request carries.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Literal, Union

from contextual.core.input_cut import InputCut
from contextual.core.prompt import Adjustment, PromptView
from contextual.core.messages import Message

CompactionTrigger = Literal["auto", "manual"]
# accept_edits: an edit's dialog answered with shift+tab, allowed by the accept-edits mode it turns on for the run
PermissionDecision = Literal["allow_once", "allow_session", "allow_always", "accept_edits", "deny"]


@dataclass(frozen=True)
class PermissionAnswer:
    """A front end's answer to a PermissionRequest (the result of its future)."""
    decision: PermissionDecision
    note: str = ""             # with "deny": what the user wants the agent to do instead


@dataclass(frozen=True)
class TextDelta:
    """A fragment of the model's visible answer text as it streams."""
    text: str
    step: int


@dataclass(frozen=True)
class ReasoningDelta:
    """Thinking / reasoning_content, kept apart from the answer."""
    text: str
    step: int


@dataclass(frozen=True)
class StreamRestarted:
    """The stream was cut after some text arrived and is being retried: drop this step's partial text."""
    step: int


@dataclass(frozen=True)
class Retrying:
    """The step's call, or a compaction's summary request (``call``), failed transiently and is tried again after
    ``wait`` seconds (core/providers/retry.py): the answer is late, and this says why (a spinner running on in
    silence read as a hang)."""
    step: int                         # the turn's step; 0 for a summary request (a compaction's, not a step's)
    attempt: int                      # the attempt about to start: 2 is the first retry
    attempts: int                     # the most there will be
    reason: str                       # why the last one failed, in a few words
    wait: float                       # seconds until it starts
    retry_after: float | None = None  # the server's Retry-After, when it sent one
    call: Literal["step", "summary"] = "step"

    def words(self, left: float | None = None) -> str:
        """`retrying 2/5 in 4s: connection refused` (a summary request's: `retrying the summary 2/5 …`);
        ``left``: the seconds still to wait (none left: the attempt runs, `retrying 2/5: …`); a wait the server
        asked for says so: `in 30s (Retry-After)`."""
        left = self.wait if left is None else left
        when = f" in {math.ceil(left)}s" if left > 0 else ""
        asked = " (Retry-After)" if when and self.retry_after is not None and self.retry_after >= self.wait else ""
        what = " the summary" if self.call == "summary" else ""
        return f"retrying{what} {self.attempt}/{self.attempts}{when}{asked}: {self.reason}"


@dataclass(frozen=True)
class ThoughtEvent:
    text: str
    step: int


@dataclass(frozen=True)
class ActionEvent:
    tool: str
    args: Any
    raw: str
    step: int


@dataclass(frozen=True)
class FormatErrorEvent:
    """The model's reply did not parse; the message went back to it as an observation."""
    message: str
    raw: str
    step: int


@dataclass(frozen=True)
class ToolStarted:
    tool: str
    args: Any
    step: int
    call_id: str


@dataclass(frozen=True)
class ToolOutput:
    """The tail of a running tool's output so far: a sign of life for the screen (the result is ToolFinished's)."""
    tool: str
    text: str
    step: int
    call_id: str


@dataclass(frozen=True)
class ToolFinished:
    tool: str
    args: Any
    step: int
    call_id: str
    result: dict[str, Any]          # the C1-shaped result the model sees this turn
    full_text: str        # its serialisation, as sent (the tool message's ``full``)
    stored: str           # the compressed form written to history
    status: str


@dataclass(frozen=True)
class UsageEvent:
    input_tokens: int          # prompt tokens, cached ones included
    output_tokens: int
    cached_tokens: int = 0
    cache_creation_tokens: int = 0
    model: str = ""            # the model the call named: a resumed session prices each call at its own model's
    sent: int | None = None    # our count of the prompt it sent: a resumed session rebases A6's basis on it
    purpose: str = ""          # "" the agent's own call; "summary" a compaction's (it costs, it is not A6's basis)

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class AlwaysRules:
    """What "allow always" would write (core/permissions.always_rules): the rules, or none and why — then the
    call is allowed once only."""
    rules: tuple[str, ...]
    why: str = ""


@dataclass(frozen=True)
class PermissionRequest:
    tool: str
    args: Any
    preview: str              # a diff for edits, the command for Bash
    future: asyncio.Future[PermissionAnswer] = field(compare=False, repr=False)
    always: AlwaysRules = AlwaysRules(())   # what "allow always" would write, shown before it is chosen
    edits_files: bool = False  # a file edit: the dialog may switch the session to accept-edits (Claude Code's offer)


@dataclass(frozen=True)
class PermissionDecided:
    tool: str
    decision: PermissionDecision
    rules: tuple[str, ...] = ()   # what "allow always" wrote (.contextual/config.local.toml)
    once_only: str = ""           # "always" was asked for, but no rule could match the call again: why
    note: str = ""                # with "deny": what the user told the agent to do instead


@dataclass(frozen=True)
class PromptChanged:
    """The next prompt changed (a recorded message, a builder adjustment, a compaction, MCP tools). ``view`` is
    computed when first read, from the engine's state then: a front end that shows no prompt (`-p`) never pays for
    it, and one that does reads it while handling the event (the engine waits for that)."""
    compute: Callable[[], PromptView] = field(repr=False, compare=False)

    @cached_property
    def view(self) -> PromptView:
        return self.compute()


@dataclass(frozen=True)
class MessageRecorded:
    """A message entered history (as stored)."""
    message: Message


@dataclass(frozen=True)
class AnswerDelta:
    """A fragment of the final answer (the text of `Finish[...]`) as it streams; FinalAnswer is authoritative."""
    text: str
    step: int


@dataclass(frozen=True)
class FinalAnswer:
    """The turn's final answer, parsed once by the ReAct parser."""
    text: str
    step: int


@dataclass(frozen=True)
class TurnAdjustments:
    """At turn end, at most once: what the builder did to fit the window during the turn, summed up."""
    adjustments: tuple[Adjustment, ...]
    summary: str
    headline: str = ""        # the summary's gist on one short line (the app's collapsible title)

    def title(self) -> str:
        """The turn's "context adjusted" line: the chat's row title (live and resumed) and the export's line."""
        return f"context adjusted: {self.headline or self.summary.split(' (', 1)[0]}"


@dataclass(frozen=True)
class BudgetWarning:
    message: str
    estimated: int
    window: int


@dataclass(frozen=True)
class CompactionStarted:
    trigger: CompactionTrigger
    pre_tokens: int
    rounds_to_archive: int


@dataclass(frozen=True)
class CompactionProgress:
    stage: Literal["choosing", "summarising", "rebuilding"]
    elapsed: float
    tokens_received: int
    detail: str = ""


@dataclass(frozen=True)
class CompactionFinished:
    trigger: CompactionTrigger
    pre_tokens: int
    post_tokens: int
    rounds_archived: int
    files_included: tuple[str, ...]
    summary: str
    fallback: str | None = None     # set when the summary failed or timed out / was cancelled
    refused: str | None = None      # set when nothing was done and why
    parts: tuple[int, int] | None = None   # ended with parts finished: (kept, in all); their summary is kept
    rounds_truncated: int = 0       # then, of rounds_archived, those the kept parts did not reach
    ended: str = ""                 # and how: "" the user stopped it, else a timeout or failure (compaction_words)
    input_cut: InputCut = InputCut()   # what the summary's input lost to fit the summary model's window


@dataclass(frozen=True)
class Notice:
    """Something the user should read (warnings, resumed-session notes, skipped lines)."""
    message: str
    level: Literal["info", "warning", "error"] = "info"


@dataclass(frozen=True)
class ToolsChanged:
    """An MCP server came up or went away: the tool set, and with it L1, changed (the prompt cache restarts)."""
    added: tuple[str, ...]
    removed: tuple[str, ...]
    l1_tokens: int


@dataclass(frozen=True)
class StopHookContinued:
    """A Stop hook did not let the turn end at the answer of `step` (core/context/continuation.py): the model reads
    `reason` and goes on; `count`: the turn's continuations so far."""
    reason: str
    step: int
    count: int


@dataclass(frozen=True)
class TurnFinished:
    """The turn's answer. A turn that is interrupted ends by cancellation instead (the consumer's task is
    cancelled; the engine records the round as interrupted), so there is no interrupted TurnFinished."""
    answer: str
    steps: int


@dataclass(frozen=True)
class ErrorEvent:
    message: str               # one line, no traceback
    kind: str = "error"        # "provider", "context_length", "step_limit", "config", ...


EngineEvent = Union[
    TextDelta, ReasoningDelta, StreamRestarted, Retrying, ThoughtEvent, ActionEvent, FormatErrorEvent, ToolStarted,
    ToolOutput, ToolFinished, UsageEvent, PermissionRequest, PermissionDecided, PromptChanged,
    MessageRecorded, AnswerDelta, FinalAnswer, TurnAdjustments,
    BudgetWarning, CompactionStarted, CompactionProgress, CompactionFinished, Notice, ToolsChanged,
    StopHookContinued, TurnFinished, ErrorEvent,
]
