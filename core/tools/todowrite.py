"""TodoWrite: the model's task list, replaced whole on every call; its recap closes every prompt."""

from __future__ import annotations

from core.tools._fs import check_args
from core.tools.base import ToolContext, ToolError, fail, ok

STATUSES = ("pending", "in_progress", "completed")


def todo_recap(todos: list[dict]) -> str:
    """One short line: progress, what is in progress, what is pending."""
    if not todos:
        return "Todos: none"
    done = sum(1 for todo in todos if todo["status"] == "completed")
    parts = [f"Todos: {done}/{len(todos)} completed"]
    for status, label in (("in_progress", "in progress"), ("pending", "pending")):
        names = [todo["content"] for todo in todos if todo["status"] == status]
        if names:
            parts.append(f"{label}: {', '.join(names)}")
    return "; ".join(parts)


def _check_todos(todos: list) -> list[dict]:
    clean = []
    for number, todo in enumerate(todos, start=1):
        try:
            check_args(todo, {"content": str, "status": str}, {})
        except ToolError as exc:
            raise ToolError("invalid_argument", f"todo {number}: {exc}") from None
        content = todo["content"].strip()
        if not content:
            raise ToolError("invalid_argument", f"todo {number}: content is empty")
        if todo["status"] not in STATUSES:
            raise ToolError("invalid_argument",
                            f"todo {number}: status must be one of {', '.join(STATUSES)}, got {todo['status']!r}")
        clean.append({"content": content, "status": todo["status"]})
    return clean


class TodoWriteTool:
    name = "TodoWrite"
    needs_permission = False
    edits_files = False

    async def run(self, args: dict, ctx: ToolContext) -> dict:
        context = dict(args) if isinstance(args, dict) else {}
        try:
            check_args(args, {"todos": list}, {})
            todos = _check_todos(args["todos"])
        except ToolError as exc:
            return fail(exc.code, str(exc), context=context)
        ctx.todos[:] = todos                 # in place: the engine and the context builder hold this list
        recap = todo_recap(todos)
        marks = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}
        lines = [f"{marks[todo['status']]} {todo['content']}" for todo in todos]
        stats = {"count": len(todos), **{status: sum(1 for t in todos if t["status"] == status)
                                         for status in STATUSES}}
        return ok({"todos": [dict(todo) for todo in todos], "recap": recap},
                  "\n".join([recap, *lines]), stats=stats, context=context)
