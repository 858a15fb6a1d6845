import pytest

from contextual.core.tools.runner import run_tool
from contextual.core.tools.todowrite import TodoWriteTool, todo_recap


async def test_stores_in_place_and_recaps(ctx):
    held = ctx.todos
    todos = [{"content": "Read code", "status": "completed"},
             {"content": "Fix bug", "status": "in_progress"},
             {"content": "Add test", "status": "pending"},
             {"content": "Docs", "status": "pending"}]
    result = await run_tool(TodoWriteTool(), {"todos": todos}, ctx)
    assert result["status"] == "success"
    assert ctx.todos is held and ctx.todos == todos
    recap = "Todos: 1/4 completed; in progress: Fix bug; pending: Add test, Docs"
    assert result["data"] == {"todos": todos, "recap": recap}
    assert result["text"].splitlines()[0] == recap
    second = await run_tool(TodoWriteTool(), {"todos": [{"content": "Only", "status": "completed"}]}, ctx)
    assert ctx.todos is held and ctx.todos == [{"content": "Only", "status": "completed"}]
    assert second["data"]["recap"] == "Todos: 1/1 completed"


async def test_claude_codes_active_form_is_taken_and_kept_but_not_offered_in_the_prompt(ctx):
    """Models trained on Claude Code send `activeForm`; it was refused as an unknown argument."""
    todos = [{"content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests"},
             {"content": "Fix bug", "status": "pending", "activeForm": ""}]
    result = await run_tool(TodoWriteTool(), {"todos": todos}, ctx)
    assert result["status"] == "success"
    assert ctx.todos == [todos[0], {"content": "Fix bug", "status": "pending"}]
    assert "activeForm" not in TodoWriteTool.args.render()
    refused = await run_tool(TodoWriteTool(), {"todos": [{"content": "x", "status": "pending", "owner": "me"}]}, ctx)
    assert refused["status"] == "error" and "owner" in refused["error"]["message"]


def test_recap_of_an_empty_list():
    assert todo_recap([]) == "Todos: none"


@pytest.mark.parametrize("args, needle", [
    ({}, "missing required argument: todos"),
    ({"todos": "do it"}, "todos must be an array"),
    ({"todos": [{"content": "x", "status": "done"}]}, "todo 1: status must be one of pending, in_progress, completed"),
    ({"todos": [{"content": "x"}]}, "todo 1: missing required argument: status"),
    ({"todos": [{"content": "ok", "status": "pending"}, {"content": "  ", "status": "pending"}]}, "todo 2: content is empty"),
    ({"todos": [{"content": 3, "status": "pending"}]}, "todo 1: argument content must be a string"),
])
async def test_bad_todos_change_nothing(ctx, args, needle):
    ctx.todos.append({"content": "keep", "status": "pending"})
    result = await run_tool(TodoWriteTool(), args, ctx)
    assert result["error"]["code"] == "invalid_argument"
    assert needle in result["error"]["message"]
    assert ctx.todos == [{"content": "keep", "status": "pending"}]
