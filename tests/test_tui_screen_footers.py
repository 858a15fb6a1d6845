"""A screen's keys are in its own footer, and the palette runs the slash commands from the main screen only.

/compactions, /ledger, /diff, /policies, /help and /mcp listed their keys in their titles only (cut at 80
columns: "Prompt diff: … (←/→ steps) · esc closes"), while the footer under them said only `^q quit`. Over
/help, the palette's /compact opened its dialog on top of it (a dialog over a dialog), and then, offered none,
said "No matches found" with no reason. The screens that had a footer still said their keys in their titles too
("Model · enter switches for the next turns", "Resume · type to filter · enter picks · ctrl+t renames"), and
their enter, the list's own, was not in the footer."""

from __future__ import annotations

from textual.command import CommandPalette
from textual.widgets import Footer

from contextual.tui.app import ContextualApp
from contextual.tui.screens.compaction import CompactionModal
from contextual.tui.screens.info import InfoScreen
from contextual.tui.screens.model_picker import ModelPicker
from contextual.tui.screens.permission import PermissionModal
from contextual.tui.palette import NOT_HERE
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.server_flavors import Flavor
from tests.fakes.scripted_model import is_summary_request
from tests.tui_helpers import READ_CART, compact_through_preview, finish, make_host, run_turn, \
    type_and_send, wait_for, shown_screen

# each screen's box, and what its footer must name: its own keys, which its title used to list
KEYS = {"/compactions": ("#history-box", {"close", "its card", "what it lost"}),
        # the summary lost nothing: no row to re-inject, so no key for it (tests/test_context_screens.py has one)
        "/ledger": ("#ledger-box", {"close"}),
        "/diff": ("#diff-box", {"close", "older call", "newer call"}),
        "/policies": ("#policies-box", {"close", "make live"}),
        "/help": ("#info-box", {"close"}), "/mcp": ("#mcp-box", {"close"}), "/hooks": ("#hooks-box", {"close"})}


# the screens that had a footer: their box, and the keys it names (enter's own description among them)
PICKERS = {"/model": ("#model-box", {"switch for the next turns", "close"}),
           "/permissions": ("#rules-box", {"add a rule", "close"}),
           "/resume": ("#picker-box", {"resume", "rename", "close"}),
           "/rewind": ("#rewind-box", {"go back there", "files too", "fork instead", "cancel"}),
           "# keep the cart small": ("#memory-box", {"project", "yours", "cancel"})}
ECHO = 'Thought: greet\nAction: Bash[{"command": "echo hi"}]'


def footer_keys(screen) -> dict:
    return {k.description: k.region for k in screen.query_one(Footer).query("FooterKey")}


def keyless(title: str) -> bool:
    """A title that names no key: the footer does."""
    return not any(key in title for key in ("esc", "enter", "ctrl+", ": back", " k:", " f:", "a adds"))


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


async def test_the_screens_that_had_a_footer_name_their_keys_there_and_not_in_their_titles(tmp_path):
    flavor = Flavor("vllm", n_ctx=32_768, others=(("other-model", 65_536),))
    with FakeLLMServer(kind="openai", script=[finish("ok"), ECHO], model="fake-model", flavor=flavor) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "hello")
            await app.engine.session.flush()
            for command, (box_id, keys) in PICKERS.items():
                await type_and_send(pilot, command)
                await wait_for(pilot, lambda: app.screen is not app.screen_stack[0] and (
                    not isinstance(app.screen, ModelPicker) or app.screen.names))
                await pilot.pause()
                screen = app.screen
                shown = footer_keys(screen)
                assert keys <= shown.keys(), (command, shown)
                assert all(0 < region.right <= 80 for region in shown.values()), (command, shown)
                box = screen.query_one(box_id)
                title = str(box.border_title)
                assert keyless(title) and len(title) + 4 <= box.size.width, title
                await pilot.press("escape")
                await wait_for(pilot, lambda: app.screen is app.screen_stack[0])
            await type_and_send(pilot, "run echo")
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            await pilot.pause()
            shown = footer_keys(app.screen)
            assert {"allow once", "always", "deny", "deny + tell", "stop the turn"} <= shown.keys(), shown
            assert all(0 < region.right <= 80 for region in shown.values()), shown
            assert str(app.screen.query_one("#permission-box").border_title) == "Permission"
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0] and not app.turns.running)


async def test_enter_in_the_footer_resumes_the_highlighted_session(tmp_path):
    """enter is the screen's now (priority over the table's): it still picks the row, and a title being typed
    still takes it (enter saves the title)."""
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "hello")
            await app.engine.session.flush()
            await type_and_send(pilot, "/resume")
            await wait_for(pilot, lambda: app.screen is not app.screen_stack[0])
            picker = app.screen
            await pilot.press("ctrl+t")
            await wait_for(pilot, lambda: picker.query_one("#picker-title").display)
            assert not picker.active_bindings["enter"].enabled     # typing a title: enter saves it
            await pilot.press("x", "enter")
            await wait_for(pilot, lambda: not picker.query_one("#picker-title").display)
            assert app.screen is picker and picker.title_of(picker.shown[0]).endswith("x")
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0])


def rows_once_gathered(app) -> list[str] | None:
    """The palette's rows once its search has finished (None before)."""
    palette = app.screen
    if not isinstance(palette, CommandPalette) or not palette.has_class("-ready") or any(
            w.group == CommandPalette._GATHER_COMMANDS_GROUP and not w.is_finished for w in app.workers):
        return None
    options = palette.query_one("CommandList")
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_the_palette_over_another_screen_runs_no_slash_command_and_says_so_and_over_the_main_one_all(tmp_path):
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
            assert any(r.startswith(NOT_HERE) for r in rows), rows              # and says why
            # typed, a slash command is not "No matches found" there: the one row says where it runs
            await pilot.press(*"/compact")
            await wait_for(pilot, lambda: (rows_once_gathered(app) or [""])[0].startswith(NOT_HERE))
            assert len(rows_once_gathered(app) or []) == 1
            await pilot.press("enter")                                          # it runs nothing
            await wait_for(pilot, lambda: isinstance(app.screen, InfoScreen))
            await pilot.press("ctrl+p")
            await wait_for(pilot, lambda: rows_once_gathered(app))
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, InfoScreen))
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0])
            await pilot.press("ctrl+p")
            await wait_for(pilot, lambda: rows_once_gathered(app))
            assert any(r.startswith("/compact") for r in rows_once_gathered(app) or [])
