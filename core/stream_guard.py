"""Streamed text with its tail held back while it could be the start of a known key (issue 13): the next fragment
decides — a whole key is redacted, anything else is passed on. The TUI's router and the headless stream-json
printer each keep one, so no reader of either ever sees part of a key split across two fragments."""

from __future__ import annotations

from typing import Any, Callable

from contextual.core import events as ev
from contextual.core import secrets

STREAMED = (ev.TextDelta, ev.ReasoningDelta, ev.AnswerDelta)
# Events after which a step's streamed text is over: what was held back is passed on (it was not a key).
STREAM_ENDS = (ev.ThoughtEvent, ev.ActionEvent, ev.FormatErrorEvent, ev.ToolStarted, ev.FinalAnswer,
               ev.TurnFinished, ev.ErrorEvent)


def _unchanged(value: Any) -> Any:
    return value


class StreamGuard:
    """``safe(event)`` gives the events to pass on for one engine event; ``reset`` at each turn.

    ``clean_text`` finishes a released fragment (the TUI strips terminal controls); ``clean_event`` finishes every
    other event (the TUI's screen filter); both default to leaving things as they are."""

    def __init__(self, clean_text: Callable[[str], str] = _unchanged,
                 clean_event: Callable[[Any], Any] = _unchanged) -> None:
        self._held: dict[tuple[type, int], str] = {}
        self._clean_text, self._clean_event = clean_text, clean_event

    def reset(self) -> None:
        self._held.clear()

    def safe(self, event: Any) -> list[Any]:
        """A fragment without its held tail (nothing when all of it is held), or a stream's end preceded by what
        its streams held back."""
        if isinstance(event, STREAMED):
            return self._fragment(event)
        if isinstance(event, ev.StreamRestarted):      # the step's partial text is dropped: so is its tail
            self._held = {k: v for k, v in self._held.items() if k[1] != event.step}
        out = []
        if isinstance(event, STREAM_ENDS):
            for (kind, step), text in self._held.items():
                out.append(kind(self._clean_text(text), step))
            self._held.clear()
        return out + [self._clean_event(event)]

    def _fragment(self, event: Any) -> list[Any]:
        where = (type(event), event.step)
        keys = secrets.known()
        text = secrets.redact(self._held.pop(where, "") + event.text, keys)
        hold = secrets.key_start_at_end(text, keys)
        if hold:
            self._held[where] = text[-hold:]
            text = text[:-hold]
        return [type(event)(self._clean_text(text), event.step)] if text else []
