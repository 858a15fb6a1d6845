"""The input: enter sends, ctrl+j (or shift+enter, or a backslash then enter) adds a line, up/down walk past
inputs, pageup/pagedown scroll the chat, '/' completes commands and '@' completes project paths (tab accepts, up/down
choose, esc closes)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import TextArea

from contextual.tui.pasted import Pastes, too_long
from contextual.tui.widgets.completion_list import CompletionList


SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache", ".contextual"}
MAX_PATHS = 20_000
MAX_SUGGESTIONS = 8
# `@src/ca` being typed, or `@"docs/user gu`: a path with a space is quoted (as Claude Code writes it), and the
# completion goes on inside the quotes
AT_TOKEN = re.compile(r'@(?:"([^"]*)|([^\s@"]*))$')


def at_fragment(match: re.Match[str]) -> str:
    return match.group(1) if match.group(1) is not None else match.group(2)


def at_inserted(path: str, quoted: bool) -> str:
    """What replaces the fragment after `@`: a folder stays open for its files, a file ends with a space; a path
    with a space (or typed after a quote) is quoted, a folder's quote left open."""
    if not (quoted or " " in path):
        return path + ("" if path.endswith("/") else " ")
    return '"' + path + ("" if path.endswith("/") else '" ')


def project_paths(root: Path, limit: int = MAX_PATHS) -> list[str]:
    """Files and folders under root (relative, folders with a trailing /), skipping VCS and caches."""
    found: list[str] = []
    for current, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        rel = os.path.relpath(current, root)
        prefix = "" if rel == "." else rel + "/"
        found.extend(prefix + d + "/" for d in dirs)
        found.extend(prefix + f for f in sorted(files))
        if len(found) >= limit:
            break
    return found[:limit]


def match_paths(paths: list[str], fragment: str, limit: int = MAX_SUGGESTIONS) -> list[str]:
    """Prefix matches first, then substring matches; case-insensitive."""
    low = fragment.lower()
    # a folder already completed (`@src/`) lists what is inside it, not itself again
    starts = [p for p in paths if p.lower().startswith(low) and not (low.endswith("/") and p.lower() == low)]
    if len(starts) >= limit:
        return starts[:limit]
    inside = [p for p in paths if low in p.lower() and p not in starts and p.lower() != low]
    return (starts + inside)[:limit]


class PromptInput(TextArea):
    # in the footer ("scroll": the chat's word too; "scroll chat" ran under the palette's key at 70 columns): the
    # one way the chat scrolled from here was said only in /help
    BINDINGS = [Binding("pageup", "chat_page(-1)", "scroll", key_display="pgup pgdn"),
                Binding("pagedown", "chat_page(1)", show=False),
                Binding("ctrl+d", "delete_right_or_end", show=False)]

    @dataclass
    class Submitted(Message):
        prompt_input: "PromptInput"
        text: str

        @property
        def control(self) -> "PromptInput":
            return self.prompt_input

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
        self.past: list[str] = []
        self._past_index: int | None = None
        self._draft = ""
        self._recalled = ""                      # the past input up/down put in, as it was put
        self.pastes = Pastes()
        # The app's queue (tui/queued.py): up on an empty input takes the newest queued message back to edit.
        self.take_queued: Callable[[], str | None] = lambda: None
        # The app's chat, paged from here (-1 up, 1 down); False when it is not shown: the input has the focus all
        # the time, and the chat scrolled only with the mouse
        self.page_chat: Callable[[int], bool] = lambda direction: False
        # The app's chat: tab (with no list open) goes to its newest "▶ N tool calls" row, else to the chat itself;
        # False when it is not shown
        self.to_chat: Callable[[], bool] = lambda: False
        # The app's quit, asked by ctrl+d on an empty input: a shell's end of input (twice, as ctrl+c)
        self.end_of_input: Callable[[], None] = lambda: None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # a dialog's backdrop shows this screen's footer: there the key is the dialog's, not named
        return action != "chat_page" or self.screen is self.app.screen

    def action_delete_right_or_end(self) -> None:
        """ctrl+d deletes the character at the cursor, as in a shell; on an empty input it is the end of input that
        leaves a shell, Claude Code, Codex and aider (here it did nothing)."""
        if self.text:
            self.action_delete_right()
        else:
            self.end_of_input()

    def action_chat_page(self, direction: int) -> None:
        """A page of the chat; where it is not shown (narrow, another tab), the input's own page."""
        if not self.page_chat(direction):
            (self.action_cursor_page_down if direction > 0 else self.action_cursor_page_up)()

    @property
    def completion(self) -> "CompletionList | None":
        box = self.parent
        return box.query_one(CompletionList) if box is not None and box.query(CompletionList) else None

    async def _on_key(self, event: events.Key) -> None:
        if self.screen.focused is not self:
            # sent with a key that took the focus away (tmux send-keys Tab Up Up, tab ⏎): Textual handed it here
            # before that key was read, and it walked past inputs or sent the input. It is what has the focus now:
            # the app reads that one's binding, and a character it does not bind is typed here still (stray_key)
            event.prevent_default()
            return
        completion = self.completion
        if completion is not None and event.key in ("enter", "tab") \
                and isinstance(self.parent, PromptBox) and self.parent.made_for != (self.text, self.cursor_location):
            # typed faster than the list followed: it must match the text now, shown or not yet (`/exp` and tab in
            # one burst: the list came after the tab, which went on to the chat, and no `/export ` was completed).
            # Only then: asked again, the list went back to its first row, and the row chosen with up/down was
            # never the one taken
            self.parent.update_completion()
        if completion is not None and completion.display:
            if event.key in ("up", "down") and not self.recalled_as_is:
                self._stop(event)
                completion.move(-1 if event.key == "up" else 1)
                return
            if event.key == "enter" and completion.current() == self.text.strip():
                completion.display = False          # the command is typed in full: enter runs it
            elif event.key in ("tab", "enter") and completion.highlighted is not None:
                self._stop(event)
                self.accept_completion(completion.current())
                return
            if event.key == "escape":
                self._stop(event)
                completion.display = False
                return
        if event.key == "enter":
            self._stop(event)
            row, col = self.cursor_location
            if col and col == len(self.document[row]) and self.document[row].endswith("\\"):
                # `\` then enter: a new line, as in Claude Code, where a terminal sends no shift+enter (most do not)
                self.replace("\n", (row, col - 1), (row, col))
                return
            self.submit()
            return
        if event.key in ("ctrl+j", "shift+enter"):
            self._stop(event)
            self.insert("\n")
            return
        if event.key == "tab" and self.to_chat():
            self._stop(event)
            return
        if event.key == "up" and not self.text:
            queued = self.take_queued()
            if queued is not None:
                self._stop(event)
                self.put(queued)
                return
        if event.key == "up" and self.cursor_at_first_line and self.past:
            self._stop(event)
            self.walk_history(-1)
            return
        if event.key == "down" and self.cursor_at_last_line and self._past_index is not None:
            self._stop(event)
            self.walk_history(1)
            return
        if await self._run_own_binding(event):
            return
        await super()._on_key(event)

    async def _run_own_binding(self, event: events.Key) -> bool:
        """The input's own editing keys (backspace, ←, ctrl+k …) run here, in the order typed: Textual runs a
        widget's binding once its key has come back up to the app, while a character is typed at once, so in a
        burst (keys piled up while the app was busy, a fast typist, tmux send-keys) `b a ⌫ c` gave `ba`, the
        backspace landing after the c (textual#6605). The same binding Textual would pick: priority ones were read
        before the key came here, and this widget is the first in the chain of the rest."""
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                self._stop(event)
                return True
        return False

    async def _on_paste(self, event: events.Paste) -> None:
        # Textual calls TextArea's own handler after this one (it walks the classes) unless the default is prevented
        if too_long(event.text) and not self.read_only:
            event.stop()
            event.prevent_default()
            self.paste(event.text)

    def paste(self, text: str) -> None:
        """A paste at the cursor, a long one as its tag: this input's own, and one made over a dialog that takes no
        text (the compaction card)."""
        self.insert(self.pastes.hold(text) if too_long(text) else text)

    @staticmethod
    def _stop(event: events.Key) -> None:
        event.stop()
        event.prevent_default()

    def submit(self) -> None:
        text = self.pastes.expand(self.text.strip())
        if not text.strip():
            return
        self.pastes.clear()
        if not self.past or self.past[-1] != text:
            self.past.append(text)
        self._past_index = None
        self.clear()
        # what was sent is gone from the input for good: ctrl+z on the empty input walked back into the messages
        # sent before; ↑ recalls them instead
        self.history.clear()
        self.post_message(self.Submitted(self, text))

    def pending(self) -> str:
        """What would be sent now: the pastes, not their tags (/context shows it)."""
        return self.pastes.expand(self.text)

    def set_aside(self) -> None:
        """ctrl+c on a draft empties the input, as in Claude Code and Codex (here it said "press again to quit",
        and a second press left with the draft). It stays one ctrl+z, or one ↑, away."""
        text = self.pastes.expand(self.text.strip())
        if not self.past or self.past[-1] != text:
            self.past.append(text)
        self._past_index = None
        self.clear()

    def put(self, text: str) -> None:
        """Text handed back to edit (a queued message, a rewound one): the cursor at its end, ready to go on. A long
        one stands as a paste's tag, as it did when it was pasted. Tags in it are read first: the app hands back a
        queued message joined to the input's text, which may hold one, and one-pass expansion never opens a tag
        inside another."""
        text = self.pastes.expand(text)
        self.load_text(self.pastes.hold(text) if too_long(text) else text)
        self.move_cursor(self.document.end)

    def walk_history(self, direction: int) -> None:
        if self._past_index is None:
            if direction > 0:
                return
            self._draft = self.text
            self._past_index = len(self.past) - 1
        else:
            self._past_index += direction
        if self._past_index < 0:
            self._past_index = 0
        if self._past_index >= len(self.past):
            self._past_index = None
            self.put(self._draft)
        else:
            self.put(self.past[self._past_index])
            self._recalled = self.text

    @property
    def recalled_as_is(self) -> bool:
        """A past input is shown, not edited since: up/down go on walking the past. A past `/help` opens the
        command list, and the list took up and down: neither an older input nor the draft could be reached, and
        what was typed next joined `/help` (`/export` then `/diff` typed wrote the transcript to /diff)."""
        return self._past_index is not None and self.text == self._recalled

    def accept_completion(self, value: str | None) -> None:
        completion = self.completion
        if completion is not None:
            completion.display = False
        if not value:
            return
        row, col = self.cursor_location
        line = self.document[row][:col]
        if value.startswith("/"):
            self.load_text(value + " ")
        else:
            match = AT_TOKEN.search(line)
            if match is None:
                return
            start = (row, match.start() + 1)              # after the @: an open quote is written again
            self.replace(at_inserted(value, match.group(1) is not None), start, (row, col))
        self.move_cursor(self.document.end if value.startswith("/") else self.cursor_location)


class PromptBox(Vertical):
    """The input and its completion list; reads project paths once, off the event loop."""

    DEFAULT_CSS = """
    PromptBox { height: auto; }
    PromptBox > CompletionList { height: auto; max-height: 8; border: none; text-wrap: nowrap; text-overflow: ellipsis; }
    PromptBox > PromptInput { height: auto; min-height: 3; max-height: 10; }
    """

    def __init__(self, root: Path, complete_command: Callable[[str], list[tuple[str, str]]], *,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.root = root
        self.complete_command = complete_command      # '/co' -> [(name, aligned row)]: the app's command table
        self.paths: list[str] | None = None
        self.made_for: tuple[str, tuple[int, int]] | None = None     # the text and cursor the list was made for

    def compose(self) -> ComposeResult:
        yield CompletionList()
        yield PromptInput(id="prompt")

    def on_mount(self) -> None:
        self.run_worker(self._load_paths, thread=True, exclusive=True, group="paths")

    def _load_paths(self) -> None:
        self.paths = project_paths(self.root)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.update_completion()

    def update_completion(self) -> None:
        """The list for the text as it is now (what is typed, the / command or the @path being written)."""
        area = self.query_one(PromptInput)
        completion = self.query_one(CompletionList)
        row, col = area.cursor_location
        line = area.document[row][:col]
        text = area.text
        self.made_for = (text, (row, col))
        if row == 0 and text.startswith("/") and " " not in text and "\n" not in text:
            completion.suggest(self.complete_command(text))
            return
        match = AT_TOKEN.search(line)
        if match and self.paths is not None:
            completion.suggest([(p, "@" + p) for p in match_paths(self.paths, at_fragment(match))])
            return
        completion.suggest([])
