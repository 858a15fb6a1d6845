"""Replies without a readable Action, in a row (CONTRACT E1: each is a format error and the turn goes on).

A model that never writes an `Action:` line (it calls tools natively, or only talks) used up all 50 steps of a
turn, 76 s against a fast server. One slip is a format error the model reads and corrects; NO_ACTION_LIMIT
in a row end the turn, with a line naming what the model sent instead.
"""

from __future__ import annotations

from contextual.core import textsafe
from contextual.core.engine.model_call import Reply
from contextual.core.react import has_action_line, has_tool_call_block, strip_thinking, visible_reply

NO_ACTION_LIMIT = 3


class NoActionStreak:
    """One turn's count of replies in a row whose format error came from having no Action of their own."""

    def __init__(self, provider: str) -> None:
        self.provider = provider            # names the native field: Anthropic's tool_use blocks, else tool_calls
        self.count = 0

    def see(self, reply: Reply, format_error: bool, cut_at: int | None) -> str | None:
        """After a step: the turn's error line when this reply is the NO_ACTION_LIMIT-th in a row without an Action;
        a step that ran a tool or answered (or whose Action line was only malformed) starts the count again."""
        text = "".join(reply.text)
        if not format_error or (has_action_line(text) and not reply.native):
            self.count = 0
            return None
        self.count += 1
        if self.count < NO_ACTION_LIMIT:
            return None
        return (f"the model answered {NO_ACTION_LIMIT} times in a row without an Action line "
                f"({self.what_it_sent(reply, cut_at)}); the turn ends here")

    def what_it_sent(self, reply: Reply, cut_at: int | None) -> str:
        field = "tool_use blocks" if self.provider == "anthropic" else "tool calls in the tool_calls field"
        if reply.native:
            names = ", ".join(dict.fromkeys(textsafe.one_line(name, 40) for name in reply.native))
            return (f"it sent {field} ({names}) that do not read as a call of this agent's tools: this model may "
                    "need native tool calls, which Contextual does not offer")
        text = "".join(reply.text)
        if has_tool_call_block(text):
            return "it wrote <tool_call> blocks: this model may need native tool calls, which Contextual does not offer"
        if cut_at is not None:
            return f"its reply was cut off at the output limit ({cut_at:,} tokens) before any Action"
        said = visible_reply(text).strip()
        if said:
            return f"it sent prose: “{textsafe.one_line(said, 80)}”"
        return "it sent only reasoning" if reply.thinking or strip_thinking(text)[1] else "it sent empty replies"
