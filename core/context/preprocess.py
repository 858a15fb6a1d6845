"""InputPreprocessor (seed 002 A7, C3, E4): @file mentions become reminders, never file content."""

from __future__ import annotations

import os
import re
from pathlib import Path

from contextual.core.reminder import system_reminder

MENTION = re.compile(r"@([a-zA-Z0-9/._-]+(?:\.[a-zA-Z0-9]+)?)")   # the seed's MVP regex, verbatim
# A path with a space, quoted as @ completion writes it (Claude Code's form): the seed's regex stops at the space.
QUOTED = re.compile(r'@"([^"\n]+)"')
MAX_REMINDERS = 5
REMINDER = system_reminder("The user mentioned @{path}.\nYou MUST read this file with the Read tool before answering.")


def mentioned_paths(text: str, project_root: Path) -> list[str]:
    """Paths in order of appearance, de-duplicated, files inside the project only (a folder cannot be Read)."""
    root = Path(os.path.realpath(project_root))
    seen: list[str] = []
    # CONTRACT: a trailing . or , is not part of the path (a quoted path ends at its quote)
    found = [(m.start(), m.group(1).rstrip(".,")) for m in MENTION.finditer(text)]
    found += [(m.start(), m.group(1)) for m in QUOTED.finditer(text)]
    for start, path in sorted(found):
        if start > 0 and _word_letter(text[start - 1]):   # e.g. user@example.com is not a mention
            continue
        if not path or path in seen:
            continue
        resolved = Path(os.path.realpath(root / path))
        if resolved != root and root not in resolved.parents:
            continue
        if resolved.is_file():
            seen.append(path)
    return seen


def _word_letter(char: str) -> bool:
    """A letter or digit as the seed's regex writes them ([a-zA-Z0-9]): a Chinese character is not one, so
    "请看@a.py" mentions a.py (str.isalnum is true of every CJK character)."""
    return char.isascii() and char.isalnum()


def preprocess(text: str, project_root: Path) -> str:
    """Append one reminder per mentioned file (max 5), then `(and N more…)`, inside the user message."""
    paths = mentioned_paths(text, project_root)
    if not paths:
        return text
    parts = [text, *(REMINDER.format(path=p) for p in paths[:MAX_REMINDERS])]
    if len(paths) > MAX_REMINDERS:
        parts.append(f"(and {len(paths) - MAX_REMINDERS} more…)")
    return "\n\n".join(parts)
