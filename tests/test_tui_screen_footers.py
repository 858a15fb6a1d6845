"""A screen's keys are in its own footer, and the palette runs the slash commands from the main screen only.

/compactions, /ledger, /diff, /policies, /help and /mcp listed their keys in their titles only (cut at 80
columns: "Prompt diff: … (←/→ steps) · esc closes"), while the footer under them said only `^q quit`. Over
/help, the palette's /compact opened its dialog on top of it (a dialog over a dialog)."""

from __future__ import annotations

from textual.command import CommandPalette
from textual.widgets import Footer

from contextual.tui.app import ContextualApp
from contextual.tui.screens.compaction import CompactionModal
from contextual.tui.screens.info import InfoScreen
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.scripted_model import is_summary_request
from tests.tui_helpers import READ_CART, compact_through_preview, finish, make_host, run_turn, \
    type_and_send, wait_for

# each screen's box, and what its footer must name: its own keys, which its title used to list
KEYS = {"/compactions": ("#history-box", {"close", "its card", "what it lost"}),
        "/ledger": ("#ledger-box", {"close", "re-inject"}),
        "/diff": ("#diff-box", {"close", "older call", "newer call"}),
        "/policies": ("#policies-box", {"close", "make live"}),
        "/help": ("#info-box", {"close"}), "/mcp": ("#mcp-box", {"close"})}


def model(body: dict) -> str:
    if is_summary_request(body):
        return "## Summary\nThe user read cart.py."
    last = body["messages"][-1]
    return READ_CART if last.get("role") == "user" and "Observation" not in str(last.get("content")) \
        else finish("read it")


async def test_each_screen_names_its_own_keys_whole_in_its_footer_at_80_columns(tmp_path):
    with FakeLLMServer(kind="openai", responder=model) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, keep_rounds=1), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            for text in ("read the cart", "read it again", "once more"):
                await run_turn(pilot, text)
            await compact_through_preview(pilot)
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0])
            for command, (box_id, keys) in KEYS.items():
                await type_and_send(pilot, command)
                await wait_for(pilot, lambda: app.screen is not app.screen_stack[0])
                await pilot.pause()
                screen = app.screen
                shown = {k.description: k.region for k in screen.query_one(Footer).query("FooterKey")}
                assert keys <= shown.keys(), (command, shown)
                assert all(0 < region.right <= 80 for region in shown.values()), (command, shown)
                # the title is the screen's name, whole: the keys it listed are the footer's now
                box = screen.query_one(box_id)
                title = str(box.border_title)
                assert "esc" not in title and "enter" not in title and len(title) + 4 <= box.size.width, title
                if command == "/compactions":        # enter is the screen's (it was the table's, hidden)
                    await pilot.press("enter")
                    await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal))
                    await pilot.press("escape")
                    await wait_for(pilot, lambda: app.screen is screen)
                await pilot.press("escape")
                await wait_for(pilot, lambda: app.screen is app.screen_stack[0])


def rows_once_gathered(app) -> list[str] | None:
    """The palette's rows once its search has finished (None before)."""
    palette = app.screen
    if not isinstance(palette, CommandPalette) or not palette.has_class("-ready") or any(
            w.group == CommandPalette._GATHER_COMMANDS_GROUP and not w.is_finished for w in app.workers):
        return None
    options = palette.query_one("CommandList")
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_the_palette_over_another_screen_offers_no_slash_command_and_over_the_main_one_all(tmp_path):
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "hello")
            await type_and_send(pilot, "/help")
            await wait_for(pilot, lambda: isinstance(app.screen, InfoScreen))
            await pilot.press("ctrl+p")
            await wait_for(pilot, lambda: rows_once_gathered(app))
            rows = rows_once_gathered(app)
            assert rows and any(r.startswith("Quit") for r in rows), rows        # Textual's own stay
            assert not [r for r in rows if r.startswith("/")], rows
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, InfoScreen))
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0])
            await pilot.press("ctrl+p")
            await wait_for(pilot, lambda: rows_once_gathered(app))
            assert any(r.startswith("/compact") for r in rows_once_gathered(app) or [])
