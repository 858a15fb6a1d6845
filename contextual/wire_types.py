"""stream-json's `"type"` for each event the engine's streams yield, written out: renaming an event's class never
changes the wire (a script reads these names). None: not streamed (a permission question headless answers itself,
the prompt's view, a command's live output)."""

from __future__ import annotations

from contextual.core import events as ev
from contextual.core.context.compaction_review import CompactionReview, Event

WIRE_TYPES: dict[type[Event], str | None] = {
    ev.TextDelta: "text_delta",
    ev.ReasoningDelta: "reasoning_delta",
    ev.StreamRestarted: "stream_restarted",
    ev.Retrying: "retrying",
    ev.ThoughtEvent: "thought",
    ev.ActionEvent: "action",
    ev.FormatErrorEvent: "format_error",
    ev.ToolStarted: "tool_started",
    ev.ToolOutput: None,
    ev.ToolFinished: "tool_finished",
    ev.UsageEvent: "usage",
    ev.PermissionRequest: None,
    ev.PermissionDecided: "permission_decided",
    ev.PromptChanged: None,
    ev.MessageRecorded: "message_recorded",
    ev.AnswerDelta: "answer_delta",
    ev.FinalAnswer: "final_answer",
    ev.TurnAdjustments: "turn_adjustments",
    ev.BudgetWarning: "budget_warning",
    ev.CompactionStarted: "compaction_started",
    ev.CompactionProgress: "compaction_progress",
    ev.CompactionFinished: "compaction_finished",
    ev.Notice: "notice",
    ev.ToolsChanged: "tools_changed",
    ev.StopHookContinued: "stop_hook_continued",
    ev.TurnFinished: "turn_finished",
    ev.ErrorEvent: "error",
    CompactionReview: "compaction_review",
}
