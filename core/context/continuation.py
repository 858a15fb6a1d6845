"""A Stop hook's block goes on with the turn (Claude Code's Stop `decision: "block"` or exit 2; core/hooks.py).

The model answered with Finish and a Stop hook said why the turn must not end. Its reason reaches the model as a
user-role message of the same turn: recorded in history and the session with meta `stop_hook` (the reason), so it
starts no turn and no round (core/messages.py: Message.starts_turn) and a compaction keeps or archives it with
its round, as any message of the round; the summary model reads it as the hook's words. In the turn's prompt the
answer and that message are one more step of the scratchpad (scratchpad.step_of: the answer its action, the
message its observation),
so the next call reads them where the turn's own steps are, and every context policy sends them alike.

A turn goes on at most MAX_CONTINUATIONS times (a hook that always blocks cannot hold the turn forever: the next
block is said in one line and the turn ends with its answer); the step limit holds across continuations, and
esc / Ctrl-C stop the turn and the hook as they stop any step.
"""

from __future__ import annotations

from contextual.core.messages import Message
from contextual.core.textsafe import one_line

MAX_CONTINUATIONS = 5
LINE_CHARS = 200          # the user's one line holds this much of the reason (the model reads it whole)


def note(reason: str) -> str:
    """What the model reads: the hook's reason, and what it asks of the model."""
    return (f"Stop hook feedback: {reason}\n\nA Stop hook kept this turn from ending: go on with the task, and "
            "answer with Finish when it is done.")


def message(reason: str, turn: str, step: int) -> Message:
    """The user-role message of the turn that carries it (history, the session, the History pane)."""
    return Message("user", note(reason), meta={"turn": turn, "step": step, "stop_hook": reason})


def notice_line(reason: str) -> str:
    """The user's one line, the same in the live chat, a resumed chat and `-p`'s stderr."""
    return f"Stop hook: {one_line(reason, LINE_CHARS)} — continuing"


def cap_line(reason: str) -> str:
    """Said when a Stop hook blocks once more than a turn goes on for."""
    return (f"a Stop hook asked the turn to go on again ({one_line(reason, LINE_CHARS)}); it went on "
            f"{MAX_CONTINUATIONS} times already, the most one turn does: it ends with this answer")
