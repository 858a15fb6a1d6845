"""Commands that open something to read: /context (ctrl+l), /mcp, /help, and a History row's text."""

from __future__ import annotations

from rich.text import Text

from contextual.core.messages import Message
from contextual.tui.format import final_answer
from contextual.tui.screen_safe import screen_text
from contextual.tui.slash.port import AppPort
from contextual.tui.widgets.prompt_input import PromptInput

KEYS = (("enter", "send · ctrl+j (shift+enter, \\ enter) new line · up/down past inputs (kept per project)"),
        ("pageup pagedown", "scroll the chat (scrolled up, it stays put while an answer streams)"),
        ("!command · # text", "run a shell command in the project and show its output · remember a line"),
        ("@path /cmd", "tab completes, up/down choose, esc closes"),
        ("shift+tab", "next permission mode: default, accept edits, plan (a plan-mode answer asks: y go on asking "
                      "before edits, a go on accepting them, esc keep planning)"),
        ("esc", "interrupt the running turn (recorded as interrupted) or the compaction; idle, twice: /rewind"),
        ("ctrl+c", "copy the selection (drag over chat text; the terminal must allow OSC 52, shift+drag uses its "
                   "own; /copy: the latest answer); else interrupt a running turn; when idle, empty the input "
                   "(ctrl+z or up brings it back), and on an empty one twice quits (ctrl+d there too)"),
        ("ctrl+a ctrl+e ctrl+k", "in the input: to the line's start, its end, cut to its end (on an empty input: "
                                 "compact) · ctrl+u ctrl+w cut to the start, the word before · ctrl+z undo"),
        ("tab", "from the input, on to the chat's newest \"▶ N tool calls\" row (↑ ↓ the others; enter opens one: "
                "each call and its result), then the chat itself (↑ ↓ pageup pagedown home end scroll it), then the "
                "panes"),
        ("enter in History", "open the row: stored vs full for tool results, the text for others"),
        ("[ ]", "browse past turns in the Scratchpad"),
        ("f2 f3 f4 · f6", "focus chat (the input), scratchpad, history; again: hide it (below 100 columns: the "
                          "tabs, each named with its key) · resize the side"),
        ("ctrl+p", "command palette"), ("ctrl+q", "quit"))


class Context:
    async def run(self, app: AppPort, argument: str) -> None:
        from contextual.tui.prompt_view import next_prompt
        from contextual.tui.screens.context_view import ContextScreen
        await app.startup.started()
        pending = app.query_one(PromptInput).pending()
        shown = next_prompt(app.engine, pending if not pending.startswith(("/", "!")) else "")
        app.push_screen(ContextScreen(shown, app.readouts.last_sent))


class MCP:
    async def run(self, app: AppPort, argument: str) -> None:
        from contextual.tui.screens.mcp import MCPScreen
        await app.mcp_changed()
        manager = app.engine.mcp
        listing = app.engine.mcp_listing
        said = [listing.summary()] if listing is not None else []
        said += [f"not approved, so not started: {item.what} (the next launch asks again)"
                 for item in (manager.unapproved if manager is not None else [])]
        shown = app.readouts.shown
        app.push_screen(MCPScreen(manager.rows() if manager is not None else [],
                                  shown.layers.get("L1", 0) if shown is not None else 0, "\n".join(said)))


class Help:
    """Every command of the app's table, then the keys."""

    async def run(self, app: AppPort, argument: str) -> None:
        from rich.table import Table
        from contextual.tui.screens.info import InfoScreen
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for c in app.command_table.all():
            # Text, not str: a project's own commands describe themselves, and a Rich table reads str as markup
            table.add_row(Text(c.with_usage), Text(c.help))
        table.add_row("", "")
        for keys, what in KEYS:
            table.add_row(keys, what)
        app.push_screen(InfoScreen("Help", table))


def open_text(app: AppPort, message: Message) -> None:
    from textual.widgets import Markdown
    from contextual.tui.screens.info import InfoScreen
    title = {"summary": "Summary", "user": "You",
             "assistant": "Agent"}.get(message.role, message.role)
    body = screen_text(final_answer(message) if message.meta.get("final") else message.content)   # as History
    app.push_screen(InfoScreen(title, Markdown(body) if message.role != "user" else Text(body)))


def open_message(app: AppPort, message: Message) -> None:
    """A History row opened: a tool result stored vs full, any other message's text."""
    if message.role == "tool":
        from contextual.tui.screens.stored_full import StoredFullScreen
        app.push_screen(StoredFullScreen(message, app.readouts.shown))
    else:
        open_text(app, message)


def open_tool_result(app: AppPort, messages: list[Message], index: int | None) -> None:
    """ctrl+o: the tool result at or above the selected History row, stored vs full."""
    if index is None or not messages:
        app.notify("Select a tool result in History first.", timeout=3)
        return
    tools = [m for m in messages[: index + 1] if m.role == "tool"]
    if not tools:
        app.notify("No tool result at or above the selected row.", timeout=3)
        return
    open_message(app, tools[-1])
