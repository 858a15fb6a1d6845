"""esc and ctrl+c, whose meaning depends on what runs: a compaction preview cancelled, a turn (or `!command`)
interrupted, a selection copied; idle, esc twice on an empty input opens /rewind and ctrl+c (or ctrl+d, there)
twice quits. Owned by the app (``ContextualApp.interrupt_keys``), with the times of the first press."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol

from textual.widgets import TextArea

from contextual.core.plural import plural
from contextual.tui import commands
from contextual.tui.textual_app import TextualApp
from contextual.tui.turn_runner import TurnRunner
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from contextual.tui.router import EventRouter

QUIT_AGAIN_WITHIN = 3.0            # seconds: a second ctrl+c when idle quits
REWIND_WITHIN = 1.5                # seconds: esc twice on an empty input when idle opens /rewind (as in Claude Code)


class KeysApp(TextualApp, Protocol):
    """What the two keys ask of the app (the app knows InterruptKeys; InterruptKeys knows only this)."""

    @property
    def router(self) -> EventRouter: ...
    async def run_command(self, command: commands.Command, argument: str) -> None: ...
    async def action_quit(self) -> None: ...


class InterruptKeys:
    def __init__(self, app: KeysApp, turns: TurnRunner) -> None:
        self.app = app
        self.turns = turns
        self._quit_armed_at = 0.0
        self._esc_at = 0.0

    def escape(self) -> None:
        router = self.app.router
        modal = router.compaction_modal
        if modal is not None and modal.result is None:
            router.cancel_compaction()
            return
        if self.stop_turn():
            return
        prompt = self.app.query_one(PromptInput)
        if self.leave_chat(prompt):
            return
        if prompt.text.strip():
            return
        now = time.monotonic()
        if now - self._esc_at > REWIND_WITHIN:
            self._esc_at = now
            # said while a second press would still open it: the first one had done nothing visible
            self.app.notify("esc again: /rewind", timeout=REWIND_WITHIN)
            return
        self._esc_at = 0.0
        self.app.call_later(self.app.run_command, commands.BY_NAME["/rewind"], "")

    def leave_chat(self, prompt: PromptInput) -> bool:
        """esc on a row of the chat (a tool call's, tab from the input) or on the chat itself: back to the input, and
        nothing else. It was the first esc toward /rewind ("esc again: /rewind"), as if pressed in the input."""
        focused = self.app.focused
        if focused is None or focused is prompt or self.app.screen is not self.app.screen_stack[0]:
            return False
        if not isinstance(focused, ChatLog) and not any(isinstance(node, ChatLog) for node in focused.ancestors):
            return False
        # at once, as the chat's other keys: focus() waits for the app's queue, behind the rest of a burst
        self.app.screen.set_focus(prompt)
        return True

    def stop_turn(self) -> bool:
        """Interrupt the running turn (or `!command`), said in a toast; False when none runs."""
        if not self.turns.running:
            return False
        shell = self.turns.shell_running()
        self.turns.stop()
        self.app.notify("Command stopped." if shell else "Turn interrupted: it is recorded as interrupted.", timeout=3)
        return True

    def ctrl_c(self) -> None:
        """Copy a selection (in the input, or dragged over in a pane); else cancel a compaction preview or
        interrupt a running turn; when idle, clear a draft, else twice quits."""
        app = self.app
        focused = app.focused
        if isinstance(focused, TextArea) and focused.selected_text:
            focused.action_copy()
            self.copied(focused.selected_text)
            return
        selected = app.screen.get_selected_text()
        if selected:                             # text dragged over in the chat: ctrl+c interrupted the turn instead
            app.screen.action_copy_text()
            app.screen.clear_selection()         # copied: the next ctrl+c interrupts or quits
            self.copied(selected)
            return
        from contextual.tui.screens.compaction_preview import CompactionPreviewScreen   # late: not at launch
        if isinstance(app.screen, CompactionPreviewScreen):     # the turn waits on its answer: cancel, as esc does
            app.screen.action_cancel()
            return
        if self.turns.running:
            self.escape()
            return
        if app.screen is app.screen_stack[0] and app.query_one(PromptInput).text.strip():
            app.query_one(PromptInput).set_aside()
            app.notify("Input cleared: ctrl+z or ↑ brings it back.", timeout=QUIT_AGAIN_WITHIN)
            return
        self.quit_twice("ctrl+c")

    def ctrl_d(self) -> None:
        """ctrl+d on an empty input: idle, twice quits, as ctrl+c does (either key arms the other); in a turn,
        nothing (ctrl+c and esc interrupt it)."""
        if not self.turns.running and self.app.screen is self.app.screen_stack[0]:
            self.quit_twice("ctrl+d")

    def quit_twice(self, key: str) -> None:
        now = time.monotonic()
        if now - self._quit_armed_at <= QUIT_AGAIN_WITHIN:
            self.app.call_later(self.app.action_quit)
            return
        self._quit_armed_at = now
        self.app.notify(f"Press {key} again to quit.", timeout=QUIT_AGAIN_WITHIN)

    def copied(self, text: str) -> None:
        """Said, as nothing on screen changed: the copy goes through the terminal (OSC 52), which may refuse it."""
        self.app.notify(f"Copied {plural(len(text), 'character', grouped=True)}.", timeout=2)
