"""What the chat opens with, a new session's first frame and every engine shown alike: how to start (an empty
session), a missing model, a pasted hook that does not run here, how the session was opened."""

from __future__ import annotations

from contextual.core.config import Config
from contextual.tui.slash.model import how_to_configure
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.welcome import Welcome


async def greet(chat: ChatLog, config: Config, empty: bool, notices: list[str]) -> None:
    if empty:
        await chat.mount(Welcome(classes="welcome"))
    if config.missing_model_message():
        await chat.add_notice(how_to_configure(config), "warning")
    for note in config.hooks.notes:       # a pasted Claude Code hook that does not run here is said, once
        await chat.add_notice(note, "warning")
    for note in notices:
        await chat.add_notice(note, "warning" if note.startswith(("read-only", "line", "skipped")) else "info")
