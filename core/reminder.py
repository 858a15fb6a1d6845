"""The one wrapper for text the system adds to a user message (L1 tells the model what it means).

Claude Code's convention: a `<system-reminder>` block in a user message is from the system, not the user. Every
note Contextual adds (a permission mode, a folder's instructions, an @file, a fact brought back, a stopped turn,
rounds cut without a summary, the task list) goes through `system_reminder`, so the model reads one shape.
"""

from __future__ import annotations


def system_reminder(text: str) -> str:
    return f"<system-reminder>\n{text}\n</system-reminder>"
