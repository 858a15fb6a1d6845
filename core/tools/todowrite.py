"""TodoWrite: the model's task list, replaced whole on every call; its recap closes every prompt."""

from __future__ import annotations

from typing import Any

from contextual.core.tools._args import LIST, STR, Arg, ArgSpec
from contextual.core.tools.base import Todo, ToolContext, ToolError, ok

STATUSES = ("pending", "in_progress", "completed")


def todo_recap(todos: list[Todo]) -> str:
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


def _clean(todos: list[dict[str, Any]]) -> list[Todo]:
    clean = []
    for number, todo in enumerate(todos, start=1):
        content = todo["content"].strip()
        if not content:
            raise ToolError("invalid_argument", f"todo {number}: content is empty")
        item: Todo = {"content": content, "status": todo["status"]}
        active = (todo.get("activeForm") or "").strip()
        if active:
            item["activeForm"] = active
        clean.append(item)
    return clean


def todos_sent(tool: str, args: Any) -> list[Todo] | None:
    """The list a call leaves when it is a TodoWrite the tool takes, as the tool cleans it; None for any other call
    (the live chat and a resumed one show it)."""
    if tool != TodoWriteTool.name:
        return None
    try:
        return _clean(TodoWriteTool.args.validate(args)["todos"])
    except ToolError:
        return None


class TodoWriteTool:
    name = "TodoWrite"
    example = ""                # the arguments speak for themselves: no example in L1
    description = "your task list for multi-step work: send the whole list each time."
    args = ArgSpec((Arg("todos", LIST, item_label="todo",
                        items=ArgSpec((Arg("content", STR), Arg("status", STR, choices=STATUSES),
                                       # Claude Code's form for the item in progress ("Running the tests"):
                                       # models trained on it send it; kept, never asked for
                                       Arg("activeForm", STR, required=False, listed=False)))),))
    needs_permission = False
    edits_files = False

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        todos = _clean(args["todos"])
        ctx.todos[:] = todos                 # in place: the engine and the context builder hold this list
        recap = todo_recap(todos)
        marks = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}
        lines = [f"{marks[todo['status']]} {todo['content']}" for todo in todos]
        stats = {"count": len(todos), **{status: sum(1 for t in todos if t["status"] == status)
                                         for status in STATUSES}}
        return ok({"todos": [dict(todo) for todo in todos], "recap": recap}, "\n".join([recap, *lines]), stats=stats)
