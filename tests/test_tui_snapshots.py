"""SVG snapshots of the main views at 80×24, 100×30 and 200×50, from a fixed history (no clock, no spinner, no random ids).

Update them after a deliberate change with: python -m pytest tests/test_tui_snapshots.py --snapshot-update
"""

from __future__ import annotations

from pathlib import Path

import pytest

from contextual.core.agent import Engine
from contextual.core.session.schema import CompactionRecord
from contextual.core.config import load_config
from contextual.core.context import compressor
from contextual.core.events import AlwaysRules, CompactionFinished
from contextual.core.messages import Message
from contextual.tui.app import ContextualApp
from contextual.tui.host import Opened
from contextual.tui.screens.compaction import CompactionModal
from contextual.tui.screens.permission import PermissionModal
from contextual.tui.widgets.history_view import HistoryView

SIZE = (120, 40)
ROOT = Path("/tmp/contextual-snapshot-project")     # a fixed path: the top bar shows it


def cart_result(lines: int) -> dict:
    content = "".join(f"{n:>6}\tdef total_{n}(): return {n}\n" for n in range(1, lines + 1))
    return {"status": "success", "data": {"path": "cart.py", "content": content, "start_line": 1,
                                          "end_line": lines, "total_lines": lines},
            "text": content, "stats": {"lines": lines}, "context": {"file_path": "cart.py"}}


COMPACTED_AT = "2026-01-02T03:04:05.000Z"      # before the turn shown: the chat shows no line for it


def fixed_history() -> list[Message]:
    args = {"file_path": "cart.py"}
    result = cart_result(2600)
    return [
        Message("summary", "## Summary\nThe user is fixing totals in cart.py; tests/test_cart.py covers them.",
                id="m0"),
        Message("user", "why does total() return euros?", id="m1", meta={"timestamp": "2026-01-02T03:05:00.000Z"}),
        Message("assistant", 'Thought: read the cart\nAction: Read[{"file_path": "cart.py"}]',
                meta={"step": 1, "call_id": "c1", "tool_name": "Read", "args": args}, id="m2"),
        Message("tool", compressor.stored_text("Read", args, result), full=compressor.full_text(result),
                meta={"tool_name": "Read", "call_id": "c1", "args": args, "step": 1}, id="m3"),
        Message("assistant", "Thought: found it\nAction: Finish[`total()` divides by **100**: it returns euros.]",
                meta={"step": 2, "final": True}, id="m4"),
    ]


class FixedHost:
    """A host whose engine has no provider and a restored history: everything on screen is fixed."""

    def __init__(self) -> None:
        ROOT.mkdir(exist_ok=True)
        self.config = load_config(ROOT, {"model": "fake-model", "base_url": "http://127.0.0.1:9/v1"},
                                  env={"CONTEXTUAL_HOME": str(ROOT / ".home")})

    def new_engine(self) -> Opened:
        engine = Engine(self.config, None)
        engine.restore(fixed_history(), 4321, [], [CompactionRecord("auto", 161200, 24700, ("cart.py",),
                                                                    rounds_archived=2, timestamp=COMPACTED_AT)])
        return Opened(engine, transcript=fixed_history())

    def resume(self, session_id=None):
        raise LookupError("no sessions in snapshots")

    def list_sessions(self):
        return []

    def ensure_session(self, engine) -> None:
        pass

    async def undo(self, engine, confirm_overwrite=None, record=None) -> str:
        return "nothing to undo"

    async def close(self, engine) -> None:
        pass

    async def transcript(self, engine):
        return fixed_history()


def app() -> ContextualApp:
    return ContextualApp(FixedHost(), animate=False)


SIZES = pytest.mark.parametrize("size", [(80, 24), (100, 30), (200, 50)], ids=["80x24", "100x30", "200x50"])


@SIZES
def test_main_view(snap_compare, size):
    assert snap_compare(app(), terminal_size=size)


@SIZES
def test_stored_vs_full(snap_compare, size):
    async def open_tool(pilot):
        if pilot.app.panes.narrow:
            pilot.app.action_toggle_region("history")      # below 100 columns: the History tab
        history = pilot.app.query_one(HistoryView)
        history.focus()
        history.highlighted = 3
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("n")          # jump to the first gap
        await pilot.pause()
    assert snap_compare(app(), terminal_size=size, run_before=open_tool)


@SIZES
def test_compaction_result_card(snap_compare, size):
    async def show_card(pilot):
        modal = CompactionModal("manual", 161_200, 12, on_cancel=lambda: None, live_clock=False)
        await pilot.app.push_screen(modal)
        modal.progress("summarising", 3.2, 812)
        modal.finish(CompactionFinished("manual", 161_200, 24_700, 12, ("cart.py", "tests/test_cart.py"), "…"))
        await pilot.pause()
    assert snap_compare(app(), terminal_size=size, run_before=show_card)


@SIZES
def test_context_view(snap_compare, size):
    async def open_context(pilot):
        await pilot.press("ctrl+l")
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
    assert snap_compare(app(), terminal_size=size, run_before=open_context)


@SIZES
def test_permission_modal(snap_compare, size):
    async def ask(pilot):
        preview = "--- a/cart.py\n+++ b/cart.py\n@@ -1,2 +1,2 @@\n def total():\n-    return cents / 100\n+    return cents\n"
        await pilot.app.push_screen(PermissionModal("Edit", {"file_path": "cart.py"}, preview,
                                                       AlwaysRules(("Edit(cart.py)",))))
        await pilot.pause()
    assert snap_compare(app(), terminal_size=size, run_before=ask)
