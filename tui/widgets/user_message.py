"""The user's message in the chat. A long one (what the input would stand as `[pasted #1 · 500 lines]`) shows its
first lines and the rest collapsed (`… 497 more lines · enter/click expands`): a 500-line paste filled the chat
with its first 200 lines. Live and resumed alike: both are made from the message's text."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Collapsible, Static

from contextual.core.plural import plural
from contextual.tui.pasted import too_long
from contextual.tui.widgets.hanging_text import HangingStatic

HEAD_LINES = 3           # shown before the fold
HEAD_CHARS = 500         # ... and at most this much of them (a megabyte on one line)
# What the expanded part holds at most, as a `!command`'s tail (SHELL_LINES): a pasted 1 MB log was wrapped again at
# each layout (9 s to send it, 8 s every resize after). History opens it whole.
USER_LINES = 200
USER_CHARS = 20_000
YOU = ("you  ", "bold cyan")
UNDER = len(YOU[0])      # every line of a message starts under its first, after "you  "


def _more(rest: str) -> str:
    """The lines left out, counted as lines; the end of one long line, in characters."""
    rest = rest.strip("\n")
    return plural(rest.count("\n") + 1, "more line") if "\n" in rest else plural(len(rest), "more character")


def _cut(text: str, lines: int, chars: int) -> tuple[str, str]:
    head = "\n".join(text[:chars].split("\n")[:lines])
    return head, text[len(head):]


class UserMessage(Vertical):
    DEFAULT_CSS = """
    UserMessage { height: auto; }
    UserMessage > Static { height: auto; }
    UserMessage > Collapsible { padding: 0; margin: 0; border-top: none; background: transparent; }
    UserMessage > Collapsible:ansi { border-top: none; background: transparent; }
    UserMessage > Collapsible > Contents { padding: 0; }
    UserMessage CollapsibleTitle { padding: 0; color: $text-muted; }
    """

    def __init__(self, head: str, rest: str) -> None:
        super().__init__(classes="user")
        self.head, self.rest = head, rest

    def compose(self) -> ComposeResult:
        yield HangingStatic(Text.assemble(YOU, self.head), UNDER, UNDER, classes="user-head")
        body, beyond = _cut(self.rest.lstrip("\n"), USER_LINES, USER_CHARS)
        more = f"\n… {_more(beyond)}: History opens the whole message" if beyond.strip("\n") else ""
        # made collapsed: its text is never laid out until asked for
        yield Collapsible(HangingStatic(Text.assemble(body.rstrip("\n"), (more, "dim")), UNDER, classes="user-rest"),
                          title=f"… {_more(self.rest)} · enter/click expands", collapsed=True)


def user_line(text: str) -> Static | UserMessage:
    if not too_long(text):
        return HangingStatic(Text.assemble(YOU, text), UNDER, UNDER, classes="user")
    head, rest = _cut(text, HEAD_LINES, HEAD_CHARS)
    if not rest.strip("\n"):
        return HangingStatic(Text.assemble(YOU, text), UNDER, UNDER, classes="user")
    return UserMessage(head.rstrip("\n"), rest)
