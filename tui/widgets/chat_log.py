"""The chat: user inputs and the agent's answers (Markdown), the answer streaming in without flicker."""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownStream

from core.messages import Message

# Older exchanges stay in history-as-stored; the chat mounts only the recent ones so a long session opens fast.
MAX_RESTORED_MESSAGES = 60


class ChatLog(VerticalScroll):
    DEFAULT_CSS = """
    ChatLog > .user { margin: 1 0 0 0; padding: 0 1; background: $boost; }
    ChatLog > .agent { margin: 0 0 0 0; padding: 0 1; }
    ChatLog > .notice { padding: 0 1; color: $text-muted; }
    ChatLog > .notice.-warning { color: $warning; }
    ChatLog > .notice.-error { color: $error; }
    ChatLog Markdown { margin: 0; padding: 0; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._answer: Markdown | None = None
        self._stream: MarkdownStream | None = None
        self._streamed = ""

    async def add_user(self, text: str) -> None:
        line = Text.assemble(("you  ", "bold cyan"), text)
        await self.mount(Static(line, classes="user"))
        self.scroll_end(animate=False)

    async def add_answer(self, markdown: str) -> None:
        await self.mount(Markdown(markdown, classes="agent"))
        self.scroll_end(animate=False)

    async def add_notice(self, message: str, level: str = "info") -> None:
        await self.mount(Static(Text(message), classes=f"notice -{level}"))
        self.scroll_end(animate=False)

    async def stream_answer(self, fragment: str) -> None:
        """Append to the answer being streamed; MarkdownStream batches fragments between paints."""
        if not fragment:
            return
        if self._answer is None:
            self._answer = Markdown("", classes="agent streaming")
            await self.mount(self._answer)
            self._stream = Markdown.get_stream(self._answer)
        self._streamed += fragment
        assert self._stream is not None
        await self._stream.write(fragment)
        self.scroll_end(animate=False)

    async def finish_answer(self, answer: str | None) -> None:
        """Close the stream; the engine's final answer wins over what was streamed."""
        stream, widget, streamed = self._stream, self._answer, self._streamed
        self._stream, self._answer, self._streamed = None, None, ""
        if stream is not None:
            await stream.stop()
        if widget is not None:
            widget.remove_class("streaming")
            if answer is not None and answer.strip() != streamed.strip():
                await widget.update(answer)
        elif answer:
            await self.add_answer(answer)
        self.scroll_end(animate=False)

    @property
    def streaming_text(self) -> str:
        return self._streamed

    async def show_history(self, messages: list[Message]) -> None:
        """Rebuild from a stored history: user inputs, final answers and summaries."""
        await self.remove_children()
        shown = [m for m in messages if m.role in ("user", "summary") or (m.role == "assistant" and m.meta.get("final"))]
        hidden = len(shown) - MAX_RESTORED_MESSAGES
        widgets = []
        if hidden > 0:
            widgets.append(Static(Text(f"… {hidden} earlier messages: see History as stored"), classes="notice -info"))
            shown = shown[hidden:]
        for message in shown:
            if message.role == "user":
                typed = message.meta.get("raw", message.content)   # what the user typed, before @file reminders
                widgets.append(Static(Text.assemble(("you  ", "bold cyan"), typed), classes="user"))
            elif message.role == "summary":
                widgets.append(Static(Text(f"◆ summary of earlier work ({len(message.content)} chars): see History"),
                                      classes="notice -info"))
            else:
                widgets.append(Markdown(_final_text(message), classes="agent"))
        if widgets:
            await self.mount_all(widgets)
        self.scroll_end(animate=False)


def _final_text(message: Message) -> str:
    answer = message.meta.get("answer")
    if isinstance(answer, str):
        return answer
    text = message.content
    marker = "Action: Finish["
    if marker in text:
        text = text.split(marker, 1)[1]
        if text.endswith("]"):
            text = text[:-1]
    return text
