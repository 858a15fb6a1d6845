"""A turn that ended without an answer, recorded and told: stopped by the user (Esc, Ctrl-C, a quit), failed (the
server, the step limit, the window, a hook) or crashed on a bug of ours. The record says why (a resumed chat and
the export read it: ``TurnEnd``); the model hears only the kind, with the next input (``INTERRUPTED_NOTE``,
``failed_note``), so two questions in a row do not read as unfinished business."""

from __future__ import annotations

from dataclasses import dataclass

from contextual.core import secrets
from contextual.core.context.pairing import aborted_result, unanswered
from contextual.core.engine.controls import ContextControls
from contextual.core.engine.prompt_state import PromptState
from contextual.core.engine.recorder import Recorder
from contextual.core.engine.model_call import Reply
from contextual.core.messages import Message
from contextual.core.react import visible_reply
from contextual.core.reminder import system_reminder
from contextual.core.session.schema import INTERRUPTED, STOPPED_BY_USER, TurnEnd
from contextual.core.textsafe import one_line, valid_unicode


@dataclass(frozen=True)
class Said:
    """A reply streaming when the turn stopped, and its step's number."""
    reply: Reply
    step: int

INTERRUPTED_NOTE = system_reminder("The user stopped your previous turn before it finished; what it did is above. "
                                   "Go on with it only if this message asks you to.")

# A failed turn's reason as recorded: the error's one line (a hook's stop reason is the hook's own text)
MAX_REASON_CHARS = 1000


def failed_note(kind: str) -> str:
    """What the model hears with the next input after a turn that failed: as after one the user stopped, two
    questions in a row would otherwise read as unfinished business (the reason itself is for the person)."""
    why = {"provider": "the model server failed", "step_limit": "it reached the step limit",
           "context_length": "its prompt did not fit the model's window", "hook": "a hook stopped it",
           "internal": "an internal error of the agent stopped it",
           "no_action": "your replies in a row had no `Action:` line"}
    return system_reminder(f"Your previous turn ended without an answer ({why.get(kind, 'it failed')}); what it "
                           "did is above. Go on with it only if this message asks you to.")


class TurnEnds:
    def __init__(self, prompt: PromptState, recorder: Recorder, controls: ContextControls) -> None:
        self._prompt = prompt
        self._recorder = recorder
        self._controls = controls

    def interrupted(self, turn_id: str, crashed: Exception | None = None, said: Said | None = None) -> None:
        """Esc/Ctrl-C or a crash mid-turn: give a dangling call its 'aborted' result, keep what the model had said of
        a reply cut off mid-stream (`said`), and mark the round, as stopped by the user or as failed on an internal
        error (it was recorded as the user's stop)."""
        prompt, recorder = self._prompt, self._recorder
        for call in unanswered(prompt.history.messages[prompt.turn_start or 0:]):
            recorder.append(aborted_result(call))
        if said is not None:
            self._cut_off(said, turn_id)
        if crashed is None:
            self.stopped(turn_id)
        else:
            self.failed(turn_id, "internal", f"internal error: {type(crashed).__name__}: {crashed}")

    def _cut_off(self, said: Said, turn_id: str) -> None:
        """The reply as far as it streamed, in history (as Claude Code keeps an interrupted message): the chat
        showed it, and "go on, but shorter" needs the model to see what it had said. Its thinking is not kept: the
        model's own notes, not said to the user. Never acted on: it has no call, so nothing pairs with it."""
        text = secrets.redact(visible_reply(valid_unicode("".join(said.reply.text))))
        text = text[:len(text) - secrets.key_start_at_end(text)].strip()    # a key's start at the cut, as streamed
        if text:
            self._recorder.append(Message("assistant", text, meta={"step": said.step, "turn": turn_id,
                                                                   "interrupted": True}))

    def failed(self, turn_id: str, kind: str, why: str) -> None:
        """The round is recorded as failed, with why (a resumed chat and the export say it), and the model hears
        the kind of failure with the next input (failed_note)."""
        self._recorder.turn_ended(TurnEnd(turn_id, kind, one_line(secrets.redact_shown(why), MAX_REASON_CHARS)))
        self._controls.remind(failed_note(kind))

    def stopped(self, turn_id: str) -> None:
        """The round is recorded as stopped by the user, and the model hears it with the next input: without it
        the next prompt holds two questions in a row and the model may answer the first as unfinished business
        (as Claude Code's "[Request interrupted by user]")."""
        self._recorder.turn_ended(TurnEnd(turn_id, INTERRUPTED, STOPPED_BY_USER))
        self._controls.remind(INTERRUPTED_NOTE)
