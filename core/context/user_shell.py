"""The user's own `!command` (typed in the app's input, not called by the model): its result joins the user's
next message, as a Bash call's result would join the history — in its stored form (seed 002 A3: a bounded
summary of long output) when that is smaller, the whole text kept beside it (``Message.full``)."""

from __future__ import annotations

from typing import Any

from contextual.core.context import compressor
from contextual.core.context.forms import not_larger
from contextual.core.context.stored_render import sent_text


def shell_block(command: str, result: dict[str, Any]) -> tuple[str, str]:
    """(as sent, whole): a line saying who ran what, then the result as a Bash observation."""
    head = f"[the user ran `{command}` in the project; its result:]"
    full = compressor.full_text(result)
    sent = not_larger(sent_text(compressor.stored_text("Bash", {"command": command}, result)), full)
    return f"{head}\n{sent}", f"{head}\n{full}"
