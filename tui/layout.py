"""Which of the app's regions show: wide, the chat beside the side (scratchpad over history), each hideable;
below 100 columns, the tab's region alone."""

from __future__ import annotations

from textual.dom import DOMNode

SIDE_WIDTHS = ("50%", "62%", "38%")
NARROW_BELOW = 100                 # columns: below this, one region at a time
REGIONS = ("chat", "scratchpad", "history")


class Regions:
    def __init__(self) -> None:
        self.side_width = 0            # index into SIDE_WIDTHS
        self.hidden: set[str] = set()  # wide: the regions the user hid
        self.tab = "chat"              # narrow: the region shown
        self.width = 0                 # the last resize's width (0 before the first)

    def narrow(self, screen_width: int) -> bool:
        return (self.width or screen_width) < NARROW_BELOW

    def toggle(self, region: str) -> None:
        self.hidden ^= {region}
        if self.hidden >= set(REGIONS):        # never an empty screen
            self.hidden = {region} ^ set(REGIONS)

    def next_side_width(self) -> None:
        self.side_width = (self.side_width + 1) % len(SIDE_WIDTHS)

    def apply(self, root: DOMNode, narrow: bool) -> None:
        shown = {self.tab} if narrow else set(REGIONS) - self.hidden
        root.query_one("#region-tabs").display = narrow
        # app.tcss: under 30 rows, less of a box under a tab. On the panes, not on #main: a class of #main restyles
        # every turn of the chat (the pane restyles alone: widgets/chat_pane.py)
        for pane in ("#chat-pane", "#side"):
            root.query_one(pane).set_class(narrow, "-tabbed")
        root.query_one("#chat-pane").display = "chat" in shown
        root.query_one("#scratchpad").display = "scratchpad" in shown
        root.query_one("#history").display = "history" in shown
        side = root.query_one("#side")
        side.display = bool(shown & {"scratchpad", "history"})
        side.set_class("history" not in shown, "-scratchpad-alone")   # an idle hint alone fills its region
        side.styles.width = "1fr" if "chat" not in shown else SIDE_WIDTHS[self.side_width]
