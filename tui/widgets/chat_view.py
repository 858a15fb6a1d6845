"""Where the chat's view stands: at its end, kept there by Textual's anchor, until the reader scrolls up; scrolled
up, what the reader reads held in place as rows change above it; a row given the focus in view where the view comes
to rest. The chat (chat_log.py: ChatLog) owns one and hands it the calls Textual makes to the chat by name."""

from __future__ import annotations

from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.scrollbar import ScrollBar
from textual.widget import Widget


class ChatView:
    def __init__(self, chat: Widget) -> None:
        self._chat = chat
        self._read: tuple[Widget, int] | None = None      # scrolled up: the first widget in view, and where it was

    def laid_out(self, size: Size, arranged: DockArrangeResult) -> None:
        """Each layout of the chat: at the end, the end at the bottom of the view as laid out now; scrolled up, what
        is read where it was."""
        chat = self._chat
        if chat._anchor_released:
            self._hold_what_is_read(arranged)
            return
        # Textual's anchor puts the end at the bottom of the view as the last layout left it (a widget's container
        # size is set after the layout): the layout that made the chat shorter (the completion list opening above
        # the input, a taller input) drew its last rows below the view, one that made it taller blank rows past its
        # end, until the next layout. The height laid out now is the one the anchor reads.
        chat._container_size = chat._container_size.with_height(size.height + chat.scrollbar_size_horizontal)
        self._read = None

    def _hold_what_is_read(self, arranged: DockArrangeResult) -> None:
        """Scrolled up, the view moves with what changes above it, in the layout that changes it: the earlier turns
        of a resumed chat mounted above the recent ones (and their answers laid out after) moved what the reader had
        scrolled to."""
        chat = self._chat
        y = chat.scroll_y
        if self._read is not None:
            widget, was = self._read
            now = next((p.region.y for p in arranged.placements if p.widget is widget), was)
            if now != was:
                y = max(0, y + now - was)
                # as Textual's anchor sets them: not clamped to the height before this layout, nothing redrawn
                # while it is laid out
                chat.set_reactive(Widget.scroll_y, y)
                chat.set_reactive(Widget.scroll_target_y, y)
                chat.vertical_scrollbar.set_reactive(ScrollBar.position, y)
        top = next((p for p in arranged.placements if p.region.bottom > y), None)
        self._read = (top.widget, top.region.y) if top is not None else None

    def anchor_at_end(self) -> None:
        """After a scroll (each releases the anchor): a view still at the end holds the end again. An animated
        scroll (to a row given the focus) has only begun after the refresh: taken for one that stayed at the end,
        it was stopped there, and ↑ walked the rows off screen with the view left at the end."""
        chat = self._chat
        if chat.is_vertical_scroll_end and chat.scroll_target_y >= chat.max_scroll_y \
                and not chat.is_vertical_scrollbar_grabbed:
            chat.anchor()

    def show_focused(self, row: Widget) -> None:
        """Textual scrolls to a focused widget only when the frame on screen does not show it whole, and a scroll
        already under way goes on: tab then ↑ sent together, tab's newest row scrolled the chat toward its end, the
        row ↑ reached showed in a frame mid-way, and the view ended at the end with that row one line above it.
        Called after the refresh, behind every scroll asked for before this focus, it judges by where the view is
        going."""
        chat = self._chat
        if chat.screen.focused is not row or not row.is_attached:
            return              # the focus moved on: that row is judged in its turn
        child = next((node for node in row.ancestors_with_self if isinstance(node, Widget) and node.parent is chat),
                     None)
        if child is None:
            return
        # where the row is in the chat's whole height: both regions are the same frame's, whatever its scroll
        top, rows = child.virtual_region.y + row.region.y - child.region.y, row.region.height
        height = chat.scrollable_content_region.height
        going = chat.scroll_target_y
        if not height or going <= top and top + rows <= going + height:
            return              # not laid out yet (nothing to scroll), or in view where the view comes to rest
        # centred, as Textual's own focus scroll does; at once when a scroll is under way (it lands first, and its
        # end was never what the reader asked to see)
        flying = chat.app.animator.is_being_animated(chat, "scroll_y")
        chat.scroll_to(y=top - (height - rows) // 2, animate=not flying, immediate=True)
