"""At 80×24 the lines a small window brings — the turn's "context adjusted" line and /context's summary — are
read whole, not cut at the border (issue 29: nothing cut without an ellipsis)."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from textual.widgets import Collapsible, Static, Tab, Tabs

from contextual.tui.app import ContextualApp
from contextual.tui.screens.context_view import ContextScreen
from tests.fakes.llm_server import FakeLLMServer
from tests.tui_helpers import finish, make_host, open_adjusted_row, run_turn, shown_screen, type_and_send, wait_for


def five_reads(tmp_path: Path) -> list[str]:
    """Five modules of 240 lines and a script that reads them all: at an 8k window the turn must be fitted."""
    root = tmp_path / "proj"
    root.mkdir()
    for i in range(5):
        (root / f"m{i}.py").write_text("".join(f"def f{i}_{k}(x):\n    return x * {k} + {i}\n" for k in range(120)))
    return [f'Thought: read m{i}\nAction: Read[{{"file_path": "m{i}.py"}}]' for i in range(5)] + [finish("read them")]


async def test_a_fitted_turn_and_its_context_read_whole_at_80_columns(tmp_path: Path):
    with FakeLLMServer(kind="openai", script=five_reads(tmp_path)) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=8192), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "read the five modules")
            adjusted = app.query_one("Collapsible.adjusted", Collapsible)
            # what gave way, in words (it read "fitted to the window at 5 points": helper-130)
            assert re.fullmatch(r"context adjusted: .+ to fit the 8,192-token window", str(adjusted.title))
            assert len(str(adjusted.title)) + 4 <= 78                     # its arrow and the chat's borders
            adjusted.collapsed = False
            await pilot.pause()
            body = " ".join(str(w.render()) for w in adjusted.query(Static))
            assert "to fit the 8,192-token window" in body and "tokens" in body
            await type_and_send(pilot, "/context")
            await wait_for(pilot, lambda: isinstance(app.screen, ContextScreen))
            summary = app.screen.query_one("#context-summary", Static)
            await pilot.pause()
            # It wrapped mid-phrase ("trigger estimate 14.7k of" over "5.8k"); in the meter's shorter words it fits
            lines = str(summary.render()).splitlines()
            assert len(lines) == summary.size.height == 1 and len(lines[0]) <= 80, lines
            assert re.search(r" · estimate \S+ / \S+ trigger$", lines[0]), lines
            # The blocks' titles ran past the border mid-word: each is cut to the screen with an ellipsis
            titles = list(app.screen.query("CollapsibleTitle"))
            shown = [t.render_line(0).text.rstrip() for t in titles]
            assert all(t.region.right <= 80 for t in titles), shown
            assert sum(line.endswith("…") for line in shown) >= 5, shown
            await pilot.resize_terminal(200, 50)
            await pilot.pause()
            header = str(summary.render())
            assert header.startswith(" next prompt · ") and "· trigger estimate " in header and "\n" not in header
            wide = [t.render_line(0).text.rstrip() for t in titles]          # a wide screen shows more of each
            assert all(len(w) > len(n) for w, n in zip(wide, shown) if n.endswith("…")), wide


async def test_the_top_bar_keeps_session_and_compactions_at_80_columns(tmp_path: Path):
    deep = tmp_path / "a-rather-long-folder-name" / "with-another-long-folder-below-it"
    deep.mkdir(parents=True)
    (deep / "proj").mkdir()
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(deep, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            bar = str(app.query_one("#topbar", Static).render()).splitlines()[0]
            assert "…/proj" in bar and "session new" in bar and "0 compactions" in bar, bar
            assert len(bar) <= 80
            await pilot.resize_terminal(60, 24)
            await pilot.pause()
            bar = str(app.query_one("#topbar", Static).render()).splitlines()[0]
            assert bar.rstrip().endswith("…") and len(bar.rstrip()) <= 60, bar
            await pilot.resize_terminal(200, 24)
            await pilot.pause()
            bar = str(app.query_one("#topbar", Static).render()).splitlines()[0]
            assert str(deep / "proj") in bar or "~/" in bar, bar


async def test_the_context_adjusted_line_ends_in_an_ellipsis_where_the_chat_is_narrower(tmp_path: Path):
    with FakeLLMServer(kind="openai", script=five_reads(tmp_path)) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=8192), animate=False)
        async with app.run_test(size=(100, 30)) as pilot:          # chat and the side panes side by side
            await run_turn(pilot, "read the five modules")
            await pilot.pause()
            title = app.query_one("Collapsible.adjusted CollapsibleTitle")
            shown = title.render_line(0).text.rstrip()
            assert len(str(app.query_one("Collapsible.adjusted", Collapsible).title)) + 2 > title.size.width
            assert shown.endswith("…") and shown.startswith("▶ context adjusted"), shown


async def test_choosing_a_tab_at_80_columns_and_quitting_ends_cleanly(tmp_path: Path):
    """The region tabs' last message arrives after the app's screen is gone: it once ended the app with
    NoMatches('#region-tabs') at exit, and a tab change under an open screen must not touch that screen."""
    with FakeLLMServer(kind="openai", responder=lambda body: finish("ok")) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.query("#region-tabs") and app.focused is not None)
            await pilot.press("f4")                      # narrow: f4 chooses the History tab
            await wait_for(pilot, lambda: app.panes.regions.tab == "history")
            await pilot.press(*"/help", "enter")       # the prompt shows under every tab
            assert app.panes.regions.tab == "history"
            await wait_for(pilot, lambda: len(app.screen_stack) > 1)
            app.panes.apply_layout()                           # as a resize under the open screen does
            await pilot.press("escape")
            await wait_for(pilot, lambda: len(app.screen_stack) == 1)
            assert app.query_one("#history").display and not app.query_one("#chat-pane").display
            tabs = app.query_one("#region-tabs", Tabs)
            late = Tabs.TabActivated(tabs, tabs.query_one("#tab-chat", Tab))
        # The tabs' message for a tab chosen just before the app ends can arrive after its screen is gone (the walk
        # of every key met it): handled then, it must change nothing and raise nothing.
        assert app._exception is None and not app.screen_stack
        app.tab_activated(late)
        app.panes.apply_layout()


async def test_an_idle_scratchpad_alone_fills_its_region_and_beside_history_stays_a_hint(tmp_path: Path):
    """At 80 columns the Scratchpad's tab showed its one-line idle hint in a box over twelve empty rows."""
    with FakeLLMServer(kind="openai", responder=lambda body: finish("ok")) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.query("#region-tabs") and app.focused is not None)
            await pilot.press("f3")
            await wait_for(pilot, lambda: app.panes.regions.tab == "scratchpad")
            pad, side = app.query_one("#scratchpad"), app.query_one("#side")
            await wait_for(pilot, lambda: pad.has_class("-idle") and pad.outer_size.height == side.size.height)
            await pilot.resize_terminal(200, 50)
            await wait_for(pilot, lambda: app.query_one("#history").display and pad.region.width > 0)
            assert pad.outer_size.height <= 8 < side.size.height    # over History it is a hint, not a box


async def test_every_list_screen_survives_a_terminal_a_few_columns_wide(tmp_path: Path):
    """/rewind's rows wrapped, and at 8x4 rich's wrap divided by a width of 0 and ended the app."""
    with FakeLLMServer(kind="openai", script=[finish("one"), finish("two")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "a first message long enough to wrap in a narrow box, and then some more words")
            await run_turn(pilot, "second")
            for command in ("/rewind", "/model", "/resume", "/permissions"):
                await type_and_send(pilot, command)
                await pilot.pause()
                for size in ((8, 4), (3, 2), (80, 24)):
                    await pilot.resize_terminal(*size)
                    await pilot.pause()
                    assert app._exception is None and app.is_running, (command, size)
                while len(app.screen_stack) > 1:
                    await pilot.press("escape")
                    await pilot.pause()


async def test_history_pages_on_a_screen_too_short_to_show_a_row(tmp_path: Path):
    """At 40x8 History's tab has no row of room (at 40x10 before short screens lost the boxes' bottom rows): pgdn
    read where its rows are, never worked out there, and ended the app (KeyError; found by a monkey at 60x15)."""
    from contextual.tui.widgets.history_view import HistoryView
    with FakeLLMServer(kind="openai", script=[finish("one"), finish("two")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "first")
            await run_turn(pilot, "second")
            history = app.query_one(HistoryView)
            await pilot.press("f4")                      # narrow: the History tab, its rows have the keys
            await wait_for(pilot, lambda: app.focused is history and history.highlighted == 3)
            await pilot.resize_terminal(40, 8)
            await wait_for(pilot, lambda: history.scrollable_content_region.height == 0)
            await pilot.press("pagedown", "pageup")
            await pilot.pause()
            assert app._exception is None and app.is_running
            assert history.highlighted == 3 and app.focused is history


async def test_the_palette_pages_on_a_screen_too_short_to_list_a_command(tmp_path: Path):
    """In a terminal 4 rows tall the palette's list has no row: pgdn ended the app there too (KeyError in
    Textual's OptionList; found by a monkey at 8x4, the palette opened from the footer)."""
    from textual.command import CommandList, CommandPalette
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 4)) as pilot:
            await pilot.press("ctrl+p")
            await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette)
                           and app.screen.query_one(CommandList).option_count > 0)
            assert not app.screen.query_one(CommandList).scrollable_content_region
            await pilot.press("pagedown", "pageup")
            await pilot.pause()
            assert app._exception is None and isinstance(app.screen, CommandPalette)
            await pilot.resize_terminal(80, 24)          # with room, the keys page through the commands
            await wait_for(pilot, lambda: app.screen.query_one(CommandList).scrollable_content_region.height > 0)
            await pilot.press("pagedown")
            await wait_for(pilot, lambda: (app.screen.query_one(CommandList).highlighted or 0) > 0)



async def test_the_theme_picker_holds_where_the_palette_does(tmp_path: Path):
    """/theme opened Textual's own palette, not ours: on a screen 4 rows tall its pgdn ended the app (KeyError),
    and at 4 columns its list wrapped at width 0 (ValueError) — both fixed in the palette already (monkey round 4).
    Its list is still the themes, and enter on one sets it."""
    from textual.command import CommandList, CommandPalette
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await type_and_send(pilot, "/theme")
            await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette)
                           and app.screen.query_one(CommandList).option_count > 0)
            for size in ((80, 4), (4, 5), (80, 24)):
                await pilot.resize_terminal(*size)
                await pilot.pause()
                await pilot.press("pagedown", "down", "pageup")
                await pilot.pause()
                assert app._exception is None and isinstance(app.screen, CommandPalette), size
            await pilot.press(*"gruvbox", "enter")
            await wait_for(pilot, lambda: app.theme == "gruvbox")

async def test_the_chat_follows_the_newest_message_through_resizes(tmp_path: Path):
    """After 80x24 -> 200x50 -> 80x24 the chat stayed scrolled to an older turn, the last answer hidden below."""
    from contextual.tui.widgets.chat_log import ChatLog
    answers = [finish("\n\n".join(f"answer {i}, paragraph {k}" for k in range(6))) for i in range(6)]
    with FakeLLMServer(kind="openai", script=answers) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            for i in range(6):
                await run_turn(pilot, f"question {i}")
            chat = app.query_one(ChatLog)
            for size in ((200, 50), (80, 24), (120, 30), (80, 24)):
                await pilot.resize_terminal(*size)
                await wait_for(pilot, lambda: chat.max_scroll_y > 0 or size[1] >= 50)
                await pilot.pause()
                assert chat.is_vertical_scroll_end, (size, chat.scroll_y, chat.max_scroll_y)


async def test_a_notice_stands_clear_of_the_meter_and_the_keys(tmp_path: Path):
    from textual.widgets._toast import Toast
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:   # run_test hides them by default
            app.notify("a notice of two lines at eighty columns, long enough to wrap", timeout=30)
            await wait_for(pilot, lambda: bool(app.screen.query(Toast)) and app.screen.query_one(Toast).region.height)
            toast = app.screen.query_one(Toast).region
            for below in (app.query_one("#meter").region, app.query_one("Footer").region, app.query_one("#topbar").region):
                assert not toast.overlaps(below), (toast, below)


async def test_a_dialog_spans_a_narrow_screen_and_stands_clear_of_the_borders_on_a_wide_one(tmp_path: Path):
    """A box two columns in from the chat's border sat on it and read as overflow (tmux at 80x24)."""
    from contextual.tui.screens.info import InfoScreen
    from contextual.tui.screens.policies import PoliciesScreen
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            for command, screen in (("/help", InfoScreen), ("/policies", PoliciesScreen)):
                await type_and_send(pilot, command)
                await wait_for(pilot, lambda: isinstance(app.screen, screen))
                await pilot.pause()
                box = app.screen.children[0].region
                assert (box.x, box.width) == (0, 80), (command, box)
                await pilot.resize_terminal(200, 50)
                await pilot.pause()
                box = app.screen.children[0].region
                assert box.x >= 10 and box.right <= 190, (command, box)
                await pilot.resize_terminal(80, 24)
                await pilot.press("escape")
                await wait_for(pilot, lambda: not isinstance(app.screen, screen))


async def test_the_palette_key_holds_the_footers_last_column(tmp_path: Path):
    """Where the key list runs under the palette key, its last column showed a stray letter of it (below 70 columns
    the palette key goes: the next test)."""
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(70, 14)) as pilot:
            for width in (70, 80, 100):
                await pilot.resize_terminal(width, 14)
                await pilot.pause()
                key = app.query_one("FooterKey.-command-palette")
                assert key.region.right == width, (width, key.region)


async def test_at_80_columns_every_footer_key_stands_whole_beside_the_palette_key_whatever_has_the_focus(tmp_path):
    """With History or the Scratchpad focused their keys come first, and the app's last ones ran under the palette
    key, cut mid-word ("^r res"). The idle footer said "esc interrupt" with nothing to interrupt; a running turn's
    status line says "esc to interrupt", so the footer no longer does."""
    from textual.widgets import Footer
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "hello")
            for key in ("f2", "f3", "f4"):
                await pilot.press(key)
                await pilot.pause()
                keys = list(app.screen.query_one(Footer).query("FooterKey"))
                palette = next(k for k in keys if k.has_class("-command-palette"))
                others = [k for k in keys if k is not palette]
                assert "interrupt" not in {k.description for k in others}, key
                assert others and all(k.region.right <= palette.region.x for k in others), \
                    (key, [(k.description, k.region) for k in others], palette.region)


async def test_the_tool_trail_draws_no_rule_in_the_ansi_themes(tmp_path: Path):
    """Textual's Collapsible draws a blue rule above itself in the ansi themes; in the chat it sat above every
    tool trail as a stray line."""
    from contextual.tui.widgets.tool_trail import ToolTrail
    (tmp_path / "proj").mkdir()
    script = ['Thought: look\nAction: Bash[{"command": "ls"}]', finish("ok")]
    with FakeLLMServer(kind="openai", script=script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="bypass"), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "look")
            for theme in ("ansi-dark", "ansi-light", "textual-dark"):
                app.theme = theme
                await pilot.pause()
                trail = app.query_one(ToolTrail)
                assert trail.styles.border_top[0] in ("", "none"), (theme, trail.styles.border_top)


async def test_the_resume_list_shows_each_sessions_whole_id_at_80_columns(tmp_path):
    """The title took what the other columns left, two columns too many: the id showed 6 of its 8 characters. With
    a list long enough for a scrollbar (any daily user's), still two too many: the table scrolled sideways and
    `end` moved the view right. The title fits what is left, whole where it can."""
    from textual.app import App
    from textual.widgets import DataTable

    from contextual.core.session.index import SessionInfo
    from contextual.tui.screens.session_picker import SessionPicker
    this_year = datetime.now().year          # shown without its year, five more columns for the title
    sessions = [SessionInfo(f"5f0c2a9be1d34c{n:02}", tmp_path / f"s{n}.jsonl",
                            first_prompt="refactor the cart module " * 4, updated=f"{this_year}-11-27T07:36:00.000Z",
                            rounds=123, compactions=12, last_tokens=184_000)
                for n in range(40)]
    app = App()
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(SessionPicker(sessions, current=sessions[0].id))
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        await wait_for(pilot, lambda: _fits(table))
        assert str(table.get_row_at(0)[-1]) == "5f0c2a9b"
        title = str(table.get_row_at(0)[1])
        assert title.startswith("● refactor the cart") and title.endswith("…"), title
        await pilot.press("end")
        assert table.scroll_x == 0
    app = App()
    async with app.run_test(size=(200, 50)) as pilot:
        await app.push_screen(SessionPicker(sessions))
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        await wait_for(pilot, lambda: str(table.get_row_at(0)[1]) == sessions[0].first_prompt.strip())


async def test_typing_in_the_resume_list_filters_it_and_ctrl_t_still_renames(tmp_path):
    """/resume had no filter: with forty sessions, finding one meant paging. Letters filter (title, first request or
    id, any case), backspace edits, esc clears first and closes next; ctrl+t renames, t being a letter now. A paste
    filters too (tmux QA: a pasted id was dropped)."""
    from textual import events
    from textual.app import App
    from textual.widgets import DataTable, Input

    from contextual.core.session.index import SessionInfo
    from contextual.tui.screens.session_picker import SessionPicker
    from contextual.tui.remembered import Remembered
    sessions = [SessionInfo(f"{n:02}0c2a9be1d34c", tmp_path / f"s{n}.jsonl", first_prompt=f"task {n} of the cart",
                            updated="2025-11-27T07:36:00.000Z", rounds=3, compactions=0, last_tokens=1_000)
                for n in range(40)]
    sessions[7] = SessionInfo("070c2a9be1d34c", tmp_path / "s7.jsonl", first_prompt="Fix the Checkout bug",
                              updated="2025-11-27T07:36:00.000Z", rounds=3, compactions=0, last_tokens=1_000)
    remembered = Remembered(tmp_path / "home", tmp_path)
    app = App()
    async with app.run_test(size=(80, 24)) as pilot:
        picker = SessionPicker(sessions, remembered)
        await app.push_screen(picker)
        await pilot.pause()
        table = picker.query_one(DataTable)
        line = picker.query_one("#picker-filter")
        assert table.row_count == 40 and not line.display
        await pilot.press(*"CHECKO")
        assert table.row_count == 1 and line.display and "1 of 40" in str(line.render())
        await pilot.press("escape", *"task 3x", "backspace")          # 3, 30 … 39
        ids = [str(table.get_row_at(i)[-1])[:2] for i in range(table.row_count)]
        assert ids == ["03", *map(str, range(30, 40))] and picker.filter == "task 3"
        await pilot.press("down", "ctrl+t")                  # renames the highlighted row of the filtered list
        title = picker.query_one("#picker-title", Input)
        assert title.has_focus and title.value == "task 30 of the cart"
        await pilot.press("ctrl+u", *"tidy", "enter")
        assert remembered.titles() == {sessions[30].id: "tidy"} and picker.filter == "task 3"
        await pilot.press("escape")                          # clears the filter, the list stays open
        assert app.screen is picker and table.row_count == 40 and not line.display
        await pilot.press(*"0c2a9x")                         # by id; nothing matches: the line says so
        assert table.row_count == 0 and "no session matches" in str(line.render())
        await pilot.press("backspace", "enter")
        assert app.screen is not picker and picker.filter == "0c2a9"     # enter picked the highlighted row
        # A paste filters as typing does (it was dropped): an id copied with its newline and a colour
        await app.push_screen(picker := SessionPicker(sessions, remembered))
        await pilot.pause()
        picker.query_one(DataTable).post_message(events.Paste("\x1b[1m070c2a9b\x1b[0m\n"))
        await pilot.pause()
        assert picker.filter == "070c2a9b" and picker.query_one(DataTable).row_count == 1
        await pilot.press("ctrl+t", "ctrl+u")                # renaming: the paste is the title's
        title = picker.query_one("#picker-title", Input)
        title.post_message(events.Paste("pasted title"))
        await pilot.pause()
        assert title.value == "pasted title" and picker.filter == "070c2a9b"
    app = App()
    async with app.run_test(size=(30, 8)) as pilot:            # a tiny terminal: the filter's line still fits
        picker = SessionPicker(sessions, remembered)
        await app.push_screen(picker)
        await pilot.pause()
        await pilot.press(*"fix")
        assert picker.query_one(DataTable).row_count == 1 and picker.query_one("#picker-filter").region.height
        await pilot.press("escape", "escape")
        assert app.screen is not picker


def _fits(table) -> bool:
    return sum(column.get_render_width(table) for column in table.columns.values()) <= \
        table.scrollable_content_region.width


async def test_a_tables_free_text_gives_way_with_an_ellipsis_at_80_columns_and_shows_whole_at_200():
    """/compactions, /diff and the ledger scrolled sideways past their border: at 80 columns the last column was cut
    mid-word with no ellipsis ("files inclu", /diff's tokens "1."). Their free-text columns give way instead."""
    from textual.app import App
    from textual.widgets import DataTable

    from contextual.core.context.ledger import loss_ledger
    from contextual.core.context.prompt_diff import diff_prompts
    from contextual.core.prompt import PromptMessage, Source
    from contextual.core.session.schema import CompactionRecord
    from contextual.tui.screens.compaction_history import CompactionHistoryScreen
    from contextual.tui.screens.loss_ledger import LossLedgerScreen
    from contextual.tui.screens.prompt_diff import PromptDiffScreen
    from tests.history_helpers import ledger_session
    files = ("src/package/module_0_with_a_long_name.py", "src/package/module_1_with_a_long_name.py")
    source = Source("m2", "Read", "src/package/a_module_with_a_rather_long_name.py")
    diff = diff_prompts([PromptMessage("user", "Observation: " + "x " * 300, "L3", source=source)],
                        [PromptMessage("user", "Observation: short", "L3", source=source)])
    archive, kept = ledger_session()
    ledger = loss_ledger(archive, "", kept)
    cases = [(CompactionHistoryScreen([CompactionRecord("auto", 9100, 881, files, None, 1)]), 0, -1),  # files
             (PromptDiffScreen(diff), 0, 2), (LossLedgerScreen(ledger), 3, -1)]         # message; from
    wholes = [", ".join(files), "Read " + source.path, ledger.facts[3].source.label]
    app = App()
    async with app.run_test(size=(80, 24)) as pilot:
        for (screen, row, column), whole in zip(cases, wholes):
            await app.push_screen(screen)
            table = screen.query_one(DataTable)

            def cell() -> str:
                return str(table.get_row_at(row)[column])
            await wait_for(pilot, lambda: table.size.width and cell().endswith("…"), timeout=5)
            assert whole.startswith(cell()[:-1]) and _fits(table), (column, cell())
            await pilot.resize_terminal(200, 50)
            await wait_for(pilot, lambda: cell() == whole)
            assert _fits(table)
            await pilot.resize_terminal(80, 24)
            await wait_for(pilot, lambda: cell().endswith("…") and _fits(table))
            screen.dismiss(None)
            await pilot.pause()


async def test_the_compaction_previews_keys_are_in_its_footer_at_80_columns(tmp_path: Path):
    """Its keys were listed in its border title, cut at 80 columns ("ctrl+t a…"), and its footer said only ^q quit:
    the footer lists every key it binds now, whole, and the title is the screen's name; the input's hint is whole."""
    from textual.widgets import Footer

    from contextual.tui.screens.compaction_preview import CompactionPreviewScreen
    with FakeLLMServer(kind="openai", responder=lambda body: finish("ok")) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, keep_rounds=1), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "first")
            await run_turn(pilot, "second")
            await type_and_send(pilot, "/compact")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionPreviewScreen))
            await pilot.pause()
            screen = app.screen
            keys = {key.description: key.region for key in screen.query_one(Footer).query("FooterKey")}
            # every key it binds that does something here (nothing lost: no list to open, nothing to append)
            assert {b.description for b in screen.BINDINGS if b.show and screen.check_action(b.action, ())} \
                <= keys.keys(), keys
            assert all(region.right <= 80 for region in keys.values()), keys
            box = screen.query_one("#preview-box")
            assert len(str(box.border_title)) + 4 <= box.size.width
            entry = screen.query_one("#preview-instructions")        # its placeholder lost "messages" here
            assert entry.render_line(0).text.rstrip() == entry.placeholder
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, CompactionPreviewScreen))


async def test_every_region_and_the_palette_settle_at_every_width_from_twelve_columns_to_two(tmp_path: Path, monkeypatch):
    """At 5-6 columns the chat's scrollbar took a column, its text re-wrapped shorter, the bar went, the text
    re-wrapped taller: a new layout thirty times a second, for ever. At 4 columns the palette's list wrapped at
    width 0 and ended the app (ValueError). Each width must settle: once laid out, frames ask for no new layout."""
    from textual.widget import Widget
    layouts: list[str] = []
    refresh = Widget.refresh

    def counting(self, *regions, layout=False, **kwargs):
        if layout:
            layouts.append(type(self).__name__)
        return refresh(self, *regions, layout=layout, **kwargs)

    monkeypatch.setattr(Widget, "refresh", counting)
    with FakeLLMServer(kind="openai", script=[finish("one"), finish("two")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "a first message long enough to wrap in a narrow box, and then some more words")
            await run_turn(pilot, "second")
            for key in ("f2", "f3", "f4", "ctrl+p"):
                await pilot.press(key)
                await pilot.pause()
                for width in range(12, 1, -1):
                    await pilot.resize_terminal(width, 24)
                    await pilot.pause()
                    await pilot.pause()
                    layouts.clear()
                    for _ in range(3):                   # each pause paints a frame
                        await pilot.pause()
                    assert app._exception is None and app.is_running, (key, width)
                    assert not layouts, (key, width, layouts)
                await pilot.resize_terminal(80, 24)
                await pilot.pause()


async def test_a_chat_of_one_row_shows_the_newest_answer_not_a_blank_row(tmp_path: Path):
    # The answer's last paragraph kept its bottom margin: the chat's one row at 40x12 (40x8 since short screens lost
    # the boxes' rows) showed that blank row. Blocks before it keep theirs (said by a class the streamed blocks
    # move, not by an order-dependent rule).
    from contextual.tui.widgets.chat_log import ChatLog
    answer = "a first paragraph\n\n- a listed point\n\nthe last answer line"
    with FakeLLMServer(kind="openai", script=[finish(answer)]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(40, 8)) as pilot:
            await run_turn(pilot, "hello")
            assert app.query_one(ChatLog).content_region.height == 1
            assert "the last answer line" in app.export_screenshot().replace("&#160;", " ")
            blocks = app.query_one(ChatLog).query_one("AnswerMarkdown").children
            assert [block.styles.margin.bottom for block in blocks] == [1, 1, 0]


async def test_the_footer_keys_never_lie_over_each_other(tmp_path: Path):
    """At 40 columns the palette's key, docked right, covered `^l context`: a click there opened the palette (a
    monkey's mouse round). Below 70 columns it goes, and at every width each key shown has its own cells."""
    from textual.widgets._footer import FooterKey
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(40, 12)) as pilot:
            for width in (40, 55, 69, 70, 80, 200):
                await pilot.resize_terminal(width, 12)
                await pilot.pause()
                shown = [k for k in app.screen.query(FooterKey) if k.display and k.region.width]
                palette = any("palette" in str(k.description) for k in shown)
                assert shown and palette == (width >= 70), width
                spans = sorted((k.region.x, k.region.right) for k in shown)
                assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:])), (width, spans)


async def test_the_permission_buttons_stay_on_a_40x12_screen(tmp_path: Path):
    """At 40x12 the dialog's buttons were laid out past the screen's edge (to column 70, row 24): only the keys
    answered it. Two by two, with the gaps gone on a short screen, each is on the screen and a click answers."""
    from textual.widgets import Button

    from contextual.tui.screens.permission import PermissionModal
    bash = 'Thought: run it\nAction: Bash[{"command": "echo hi-from-bash && ls -la src tests docs"}]'
    with FakeLLMServer(kind="openai", script=[bash, bash, finish("done")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(40, 12)) as pilot:
            await type_and_send(pilot, "run echo")
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            await pilot.pause()
            screen = app.screen
            for button in screen.query(Button):
                region = button.region
                assert region.width and 0 <= region.x and region.right <= 40 and region.bottom <= 12, button.id
            screen._opened_at = -10.0                     # past the guard against a press meant for the screen below
            await pilot.click("#deny")
            await wait_for(pilot, lambda: isinstance(app.screen, PermissionModal) and app.screen is not screen)
            tool = [m for m in app.engine.history.messages if m.role == "tool"][-1]
            assert "denied" in tool.full.lower()
            app.screen._opened_at = -10.0
            await pilot.press("t")                        # the note typed after t is on the screen too
            note = app.screen.query_one("#permission-note")
            await wait_for(pilot, lambda: note.display and note.region.height > 0)
            assert note.region.bottom <= 12 and note.region.right <= 40
            await pilot.press(*"use make", "enter")
            await wait_for(pilot, lambda: not isinstance(app.screen, PermissionModal) and not app.turns.running)
            assert "use make" in [m for m in app.engine.history.messages if m.role == "tool"][-1].full


async def test_the_permission_dialog_survives_every_width_under_twenty_columns(tmp_path: Path):
    """At 6 to 11 columns the dialog's buttons, two a row, had no room inside their padding: a label wrapped at
    width 0 and ended the app (monkey round 4), also when the screen shrank there from 40 columns at once (Textual
    lays out before it sets the new width's classes). Under 20 columns they stand one a row; a key still answers."""
    from textual.widgets import Button

    from contextual.tui.screens.permission import PermissionModal
    bash = 'Thought: run it\nAction: Bash[{"command": "echo hi"}]'
    with FakeLLMServer(kind="openai", script=[bash, finish("done")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await type_and_send(pilot, "run echo")
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            screen = app.screen
            # the band that crashed (6-11) and its edges, low and not; every width 2-19 was swept when it was found
            for width, height in ((19, 12), (11, 12), (9, 12), (7, 12), (6, 12), (3, 12), (11, 4), (6, 4), (2, 4)):
                for size in ((width, height), (40, height), (width, height)):          # from two a row too
                    await pilot.resize_terminal(*size)
                    assert app._exception is None and app.is_running, size
            await pilot.resize_terminal(12, 12)
            await pilot.pause()
            rows = {button.region.y for button in screen.query(Button)}
            assert len(rows) == 4, rows                     # one a row
            screen._opened_at = -10.0                       # past the guard against a press meant for the screen below
            await pilot.press("y")
            await wait_for(pilot, lambda: not app.turns.running)
            assert "hi" in [m for m in app.engine.history.messages if m.role == "tool"][-1].full


async def test_the_context_adjusted_row_is_reached_from_the_tool_calls_row_by_keys(tmp_path: Path):
    """↓ from the turn's tool-call row went nowhere: the "context adjusted" row had no key to reach or open it."""
    from contextual.tui.widgets.tool_trail import TrailTitle
    with FakeLLMServer(kind="openai", script=five_reads(tmp_path)) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=8192), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "read the five modules")
            adjusted = await open_adjusted_row(pilot, app)
            await pilot.press("up")
            await wait_for(pilot, lambda: isinstance(app.focused, TrailTitle))
