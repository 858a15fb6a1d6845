"""Which region shows and which has the keys: the layout (``tui.layout.Regions``) applied to the main screen, the
tabs and f2–f4 moving the focus between the panes and the prompt, f6 the side's width, the chat paged from the
input, and a character typed into a pane sent to the prompt. Owned by the app (``ContextualApp.panes``)."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import App
from textual.widget import Widget
from textual.widgets import Footer, Tabs

from contextual.tui.layout import Regions
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.history_view import HistoryView
from contextual.tui.widgets.prompt_input import PromptInput
from contextual.tui.widgets.scratchpad import ScratchpadView
from contextual.tui.widgets.tool_trail import TrailTitle


class Panes:
    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.regions = Regions()

    @property
    def narrow(self) -> bool:
        return self.regions.narrow(self.app.size.width)

    def apply_layout(self) -> None:
        # The regions are the first screen's: a screen may be open on top of it, and at exit none is left
        stack = self.app.screen_stack
        main = stack[0] if stack else None
        if main is not None and main.query("#region-tabs"):
            self.regions.apply(main, self.narrow)

    def resized(self, width: int) -> None:
        self.regions.width = width
        self.apply_layout()

    def tab_activated(self, tab_id: str | None) -> None:
        if not self.app.screen_stack:       # the tabs' last message, as the app exits
            return
        chosen = (tab_id or "tab-chat").removeprefix("tab-")
        changed, self.regions.tab = chosen != self.regions.tab, chosen
        self.apply_layout()
        if not changed:                 # the tabs' own first activation at mount: the focus stays where it is
            return
        # The pane chosen has the keys (History's enter and p, the Scratchpad's [ ]); typing still reaches the
        # prompt (stray_key), and the Chat's tab gives the prompt the focus back.
        target: Widget = self.app.query_one(PromptInput)
        if self.regions.tab == "scratchpad":
            target = self.app.query_one(ScratchpadView)
        elif self.regions.tab == "history":
            target = self.app.query_one(HistoryView)
        # at once, as the keys below: focus() waits for the app's queue, behind the rest of a burst
        target.screen.set_focus(target)

    def toggle(self, region: str) -> None:
        if self.narrow:
            self.app.query_one("#region-tabs", Tabs).active = f"tab-{region}"
            # now, not at the tabs' message: that comes after the rest of a burst (f3 [ typed the [ in the input)
            self.tab_activated(f"tab-{region}")
            return
        # Wide, a shown pane without the focus gets it first: the Scratchpad's [ ] and History's enter and p
        # needed a click there, tab never reached them. Pressed again with the focus in it, it hides.
        # The chat's keys are the prompt's: f2 focuses the prompt, or hides the chat when the prompt has it.
        prompt = self.app.query_one(PromptInput)
        pane = self.app.query_one("#chat-pane" if region == "chat" else f"#{region}")
        target = prompt if region == "chat" else pane
        focused = self.app.focused
        inside = focused is not None and (focused is target or pane in focused.ancestors)
        # The focus moves at once (focus() waits for the app's queue): the rest of a burst, f3 [ or tmux send-keys,
        # reached the widget that had it
        if region not in self.regions.hidden and not inside:
            target.screen.set_focus(target)
            return
        self.regions.toggle(region)
        self.apply_layout()
        if region not in self.regions.hidden:          # shown again: its keys at hand
            target.screen.set_focus(target)
        elif inside:                                   # hidden with the focus in it: back to the prompt
            prompt.screen.set_focus(prompt)

    def show_chat(self) -> None:
        """The chat into sight for a reply to what the user asked (tui/widgets/chat_log.py: ChatLog.Replied): below 100
        columns its tab, from Scratchpad's or History's (`/model NAME`'s confirmation went to a chat not shown);
        wide, the chat the user hid. Nothing moves when it shows already."""
        stack = self.app.screen_stack
        if not stack or not stack[0].query("#region-tabs"):
            return
        if self.narrow:
            if self.regions.tab != "chat":
                stack[0].query_one("#region-tabs", Tabs).active = "tab-chat"
                self.tab_activated("tab-chat")
        elif "chat" in self.regions.hidden:
            self.regions.toggle("chat")
            self.apply_layout()

    def resize_side(self) -> None:
        self.regions.next_side_width()
        self.apply_layout()

    def page_chat(self, direction: int) -> bool:
        """pageup/pagedown in the input: a page of the chat, when it shows (narrow, another tab may)."""
        if not self.app.query_one("#chat-pane").display:
            return False
        chat = self.app.query_one(ChatLog)
        chat.action_page(direction)
        return True

    def input_rows(self) -> int:
        """The main screen's rows from the input's top border down to the footer (the input and the meter)."""
        main = self.app.screen_stack[0]
        return main.query_one(Footer).region.y - main.query_one("#prompt-box").region.y

    def to_chat(self) -> bool:
        """tab in the input: the newest "▶ N tool calls" row, when the chat shows one (↑ ↓ walk to the others; tab
        again: the chat), else the chat itself, where the arrows scroll it. The focus chain passed the chat (and,
        narrow, the tabs) first: stops that changed nothing visible, where the README promised the rows; the chat is
        one now, its border lit and its keys in the footer."""
        if not self.app.query_one("#chat-pane").display:
            return False
        chat = self.app.query_one(ChatLog)
        rows = chat.query(TrailTitle)
        # at once (focus() waits for the app's queue): a ↑ sent with the tab walks the rows, not past inputs. On the
        # chat's own screen: a ctrl+p typed after the tab (a priority key, read first) has the palette on top, whose
        # focus this took, and esc no longer closed it
        chat.screen.set_focus(rows.last() if rows else chat)
        return True

    def stray_key(self, event: events.Key) -> None:
        """A character typed while a pane has the focus (after tab or a click) goes to the prompt, as in any chat
        app, instead of being lost; keys a pane binds (the History's p, the Scratchpad's [ ]) stay the pane's."""
        app = self.app
        if app.screen is not app.screen_stack[0]:
            return
        if event.key == "enter" and isinstance(app.focused, PromptInput):
            # The prompt takes its own enter: this one was queued at the pane that had the focus when a burst
            # (`quick⏎`, a paste) arrived, before its first letter moved the focus here. It sends, as typed.
            app.focused.submit()
            event.stop()
            return
        if not (event.is_printable and event.character):
            return
        # A printable key that bubbles up here was typed into no text widget (they stop what they insert); in a
        # burst the rest arrive after the first moved the focus, so this does not ask who has the focus.
        if event.key in app.active_bindings:
            return
        prompt = app.query_one_optional(PromptInput)      # near the screen's top: not a walk of every chat row
        if prompt is None or prompt.disabled or not prompt.display:
            return
        app.screen.set_focus(prompt)   # at once (focus() waits a frame): the rest of a burst, `[` too, is typed
        prompt.insert(event.character)
        event.stop()
