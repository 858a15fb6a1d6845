"""The agent's task list (TodoWrite) in the chat, as Claude Code and Codex show theirs: one list per turn, redrawn
in place at each TodoWrite, so the chat shows where the work stands without a JSON view."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

def todos_of(tool: str, args: Any) -> list[dict[str, Any]] | None:
    """The task list a TodoWrite call sends, None for any other call (the live chat and a resumed one ask)."""
    if tool != "TodoWrite" or not isinstance(args, dict) or not isinstance(args.get("todos"), list):
        return None
    return [t for t in args["todos"] if isinstance(t, dict)]


_MARKS = {"completed": ("✓ ", "dim"), "in_progress": ("▸ ", "bold"), "pending": ("○ ", "")}


def todo_text(todos: list[dict[str, Any]]) -> Text:
    done = sum(1 for t in todos if t.get("status") == "completed")
    out = Text(f"tasks · {done} of {len(todos)} done", style="dim")
    for todo in todos:
        mark, style = _MARKS.get(str(todo.get("status")), ("○ ", ""))
        out.append("\n" + mark, style=style or "")
        out.append(str(todo.get("content", "")), style=style + (" strike" if todo.get("status") == "completed" else ""))
    return out


class TodoList(Static):
    DEFAULT_CSS = """
    TodoList { height: auto; margin: 0 0 0 1; padding: 0 1; }
    """

    def show(self, todos: list[dict[str, Any]]) -> None:
        self.update(todo_text(todos))
