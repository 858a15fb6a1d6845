"""Instruction files in sub-folders (issue 30.5): an `AGENTS.md` or `CLAUDE.md` below the project root is given
to the model as a reminder in L3 — appended to the result of the first tool call that touches a file in its
folder (or below) — so L2's cached prefix stays fixed. After a compaction every folder is announced again on its
next touch: the summary replaced the result that carried it. Bounded: each file's first MAX_CHARS characters;
only files that resolve inside the project are read.
"""

from __future__ import annotations

import json
from pathlib import Path

from contextual.core.reminder import system_reminder
from contextual.core.tools._codec import looks_binary

NAMES = ("agents.md", "claude.md")
MAX_CHARS = 8_000


class NestedRules:
    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._announced: set[Path] = set()

    def forget(self) -> None:
        """A compaction archived the results that carried them: give them again when work goes on there."""
        self._announced.clear()

    def reminder_for(self, path: str | None) -> str:
        """The reminders for the folders of `path` not yet announced, outermost first ("" when none)."""
        if not path:
            return ""
        try:
            target = (self.root / path).resolve() if not Path(path).is_absolute() else Path(path).resolve()
            start = target if target.is_dir() else target.parent
        except (OSError, RuntimeError, ValueError):    # a symlink loop, a NUL, a name too long: the tool says so
            return ""
        if self.root not in target.parents:
            return ""
        folders = [f for f in (start, *start.parents) if self.root in f.parents]
        parts = [self._one(f) for f in reversed(folders)]
        return "\n\n".join(p for p in parts if p)

    def _one(self, folder: Path) -> str:
        try:
            names = sorted(e.name for e in folder.iterdir() if e.name.lower() in NAMES and e.is_file())
        except OSError:
            return ""
        out = []
        for name in names:
            file = folder / name
            if file in self._announced:
                continue
            self._announced.add(file)
            try:
                real = file.resolve()
                if self.root not in real.parents:
                    continue
                with real.open("rb") as handle:
                    data = handle.read(4 * (MAX_CHARS + 1))
            except OSError:
                continue
            if looks_binary(data):        # not instructions: sent, it would be tokens of NULs
                continue
            text = data.decode("utf-8", errors="replace")[:MAX_CHARS + 1].strip()
            if len(text) > MAX_CHARS:
                text = text[:MAX_CHARS] + f"\n[… cut at {MAX_CHARS:,} characters: read {name} for the rest …]"
            rel = file.relative_to(self.root).as_posix()
            out.append(system_reminder(f"Instructions for work in {folder.relative_to(self.root).as_posix()}/ "
                                       f"(from {rel}); they apply to the files there:\n{text}"))
        return "\n\n".join(out)


def with_instructions(stored: str, reminder: str, key: str = "instructions") -> str:
    """A stored result carrying the reminder: as its JSON's `key` field (readers still parse it)."""
    try:
        data = json.loads(stored)
    except ValueError:
        data = None
    if isinstance(data, dict):
        return json.dumps({**data, key: reminder}, ensure_ascii=False)
    return f"{stored}\n\n{reminder}"
