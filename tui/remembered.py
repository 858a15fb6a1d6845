"""What the app remembers between runs: past inputs (per project), session titles (per project) and the theme.

Small JSON files beside the sessions, written whole and atomically; an unreadable file is treated as empty, and
one that cannot be written (a read-only or full home) is said once, through ``on_problem``: remembering is a
convenience, never worth the input being typed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from contextual.core.atomic import atomic_write
from contextual.core.session.paths import sessions_dir
from contextual.core.textsafe import valid_json_value

MAX_INPUTS = 500
# The file is read and written whole at every input: a pasted log is remembered for this run only (the session
# keeps it), and the oldest inputs go once all of them pass a megabyte
MAX_INPUT_CHARS = 100_000
MAX_INPUTS_CHARS = 1_000_000


def _read(path: Path, default: Any) -> Any:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return default
    return value if isinstance(value, type(default)) else default


def _write_json(path: Path, value: Any) -> str | None:
    """Writes the file; returns why it could not be (one line), else None."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # as the session file does: a name Python could not decode (a project file's, completed by @) is a lone
        # surrogate in the text, which UTF-8 cannot encode
        atomic_write(path, json.dumps(valid_json_value(value), ensure_ascii=False).encode("utf-8"))
    except OSError as exc:
        return f"cannot write {exc.filename or path}: {exc.strerror or exc}"
    return None


class Remembered:
    def __init__(self, home: Path, project_root: Path, on_problem: Callable[[str], None] | None = None) -> None:
        self.home = Path(home)
        project = sessions_dir(home, project_root)
        self.inputs_path = project / ".inputs.json"
        self.titles_path = project / ".titles.json"
        self.ui_path = self.home / "tui.json"
        self.on_problem = on_problem
        self._said = False            # the first problem is said; the same home fails alike at every input

    def _write(self, path: Path, value: Any) -> None:
        problem = _write_json(path, value)
        if problem is not None and not self._said and self.on_problem is not None:
            self._said = True
            self.on_problem(problem)

    def inputs(self) -> list[str]:
        return [x for x in _read(self.inputs_path, []) if isinstance(x, str)]

    def add_input(self, text: str) -> None:
        past = self.inputs()
        if (past and past[-1] == text) or len(text) > MAX_INPUT_CHARS:
            return
        kept = (past + [text])[-MAX_INPUTS:]
        while sum(map(len, kept)) > MAX_INPUTS_CHARS:
            kept.pop(0)
        self._write(self.inputs_path, kept)

    def titles(self) -> dict[str, str]:
        return {k: v for k, v in _read(self.titles_path, {}).items() if isinstance(v, str)}

    def set_title(self, session_id: str, title: str) -> None:
        titles = self.titles()
        if title.strip():
            titles[session_id] = title.strip()
        else:
            titles.pop(session_id, None)
        self._write(self.titles_path, titles)

    def theme(self) -> str | None:
        value = _read(self.ui_path, {}).get("theme")
        return value if isinstance(value, str) else None

    def set_theme(self, theme: str) -> None:
        state = _read(self.ui_path, {})
        if state.get("theme") != theme:
            state["theme"] = theme
            self._write(self.ui_path, state)
