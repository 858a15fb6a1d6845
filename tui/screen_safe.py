"""What reaches the screen: every string of an engine event with known keys redacted and terminal control
sequences removed (issue 13). The router passes each event through here once, so no widget has to remember.
Streamed fragments go through ``StreamGuard``: a key split across two fragments never shows in part."""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Any

from core import events as ev
from core import secrets
from core.textsafe import strip_control

STREAMED = (ev.TextDelta, ev.ReasoningDelta, ev.AnswerDelta)
# Events after which a step's streamed text is over: what was held back is shown (it was not a key).
STREAM_ENDS = (ev.ThoughtEvent, ev.ActionEvent, ev.FormatErrorEvent, ev.ToolStarted, ev.FinalAnswer,
               ev.TurnFinished, ev.ErrorEvent)


def screen_text(text: str) -> str:
    return _screen_text(text, secrets.known())


@lru_cache(maxsize=4096)
def _screen_text(text: str, keys: tuple[str, ...]) -> str:
    # Every prompt view re-shows the same history strings: scan each once (keyed by the key set in force).
    return strip_control(secrets.redact(text, keys))


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return screen_text(value)
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_clean(v) for v in value)
    return value       # views, futures, numbers: the view's own text is read through the prompt view


def screen_safe(event: Any) -> Any:
    """The same event with its text fields made safe to show; events without text come back as they are."""
    if not dataclasses.is_dataclass(event) or isinstance(event, type):
        return event
    changes = {}
    for f in dataclasses.fields(event):
        if not f.init:
            continue
        old = getattr(event, f.name)
        new = _clean(old)
        if new is not old and new != old:
            changes[f.name] = new
    return dataclasses.replace(event, **changes) if changes else event


class StreamGuard:
    """Streamed text with its tail held back while it could be the start of a known key: the next fragment decides
    (a whole key is redacted, anything else is shown). One per router; ``reset`` at each turn."""

    def __init__(self) -> None:
        self._held: dict[tuple[type, int], str] = {}

    def reset(self) -> None:
        self._held.clear()

    def safe(self, event: Any) -> list[Any]:
        """The events to show for ``event``, made safe: a fragment without its held tail (none when all of it is
        held), or a stream's end preceded by what its streams held back."""
        if isinstance(event, STREAMED):
            return self._fragment(event)
        if isinstance(event, ev.StreamRestarted):      # the step's partial text is dropped: so is its tail
            self._held = {k: v for k, v in self._held.items() if k[1] != event.step}
        out = []
        if isinstance(event, STREAM_ENDS):
            for (kind, step), text in self._held.items():
                out.append(kind(screen_text(text), step))
            self._held.clear()
        return out + [screen_safe(event)]

    def _fragment(self, event: Any) -> list[Any]:
        where = (type(event), event.step)
        keys = secrets.known()
        text = secrets.redact(self._held.pop(where, "") + event.text, keys)
        hold = secrets.key_start_at_end(text, keys)
        if hold:
            self._held[where] = text[-hold:]
            text = text[:-hold]
        return [type(event)(strip_control(text), event.step)] if text else []
