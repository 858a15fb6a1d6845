"""What reaches the screen: every string of an engine event with known keys redacted and terminal control
sequences removed (issue 13). The router passes each event through here once, so no widget has to remember.
Streamed fragments go through ``core.stream_guard.StreamGuard``: a key split across two fragments never shows in part."""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from contextual.core import secrets
from contextual.core.textsafe import strip_control

if TYPE_CHECKING:      # the guard (and every event type) loads with the router, after the first frame
    from contextual.core.stream_guard import StreamGuard


def screen_text(text: str) -> str:
    return _screen_text(text, secrets.known())


@lru_cache(maxsize=4096)
def _screen_text(text: str, keys: tuple[str, ...]) -> str:
    # Every prompt view re-shows the same history strings: scan each once (keyed by the key set in force).
    return secrets.redact_shown(text, keys)


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


def stream_guard() -> StreamGuard:
    """The router's guard: released fragments lose terminal controls, every other event passes ``screen_safe``."""
    from contextual.core.stream_guard import StreamGuard
    return StreamGuard(clean_text=strip_control, clean_event=screen_safe)
