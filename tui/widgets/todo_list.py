"""The agent's task list (TodoWrite) in the chat, as Claude Code and Codex show theirs: one list per turn, redrawn
in place at each TodoWrite, so the chat shows where the work stands without a JSON view."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

if TYPE_CHECKING:
    from contextual.core.tools.base import Todo

_MARKS = {"completed": ("✓ ", "dim"), "in_progress": ("▸ ", "bold"), "pending": ("○ ", "")}


def todo_text(todos: list[Todo]) -> Text:
    done = sum(1 for t in todos if t["status"] == "completed")
    out = Text(f"tasks · {done} of {len(todos)} done", style="dim")
    for todo in todos:
        mark, style = _MARKS.get(todo["status"], ("○ ", ""))
        out.append("\n" + mark, style=style or "")
        out.append(todo["content"], style=style + (" strike" if todo["status"] == "completed" else ""))
    return out


class TodoList(Static):
    DEFAULT_CSS = """
    TodoList { height: auto; margin: 0 0 0 1; padding: 0 1; }
    """

    def show(self, todos: list[Todo]) -> None:
        self.update(todo_text(todos))
