"""Eight things a user's hour with the app found on its screens, each driven through the real app against the fake
server: a command's reply in sight at 80 columns, a manual compaction's result in the chat instead of a dialog
waiting for enter, empty tables said in one line with no keys that do nothing, stored vs full numbering each
pane's own lines, notices clear of a dialog's head, one blank row above an answer's heading, esc on a tool-call
row going back to the input, and tab completing a command typed in the same burst."""

from __future__ import annotations

import json

from textual import events
from textual.app import App, ComposeResult
from textual.keys import _character_to_key
from textual.widgets import DataTable, Footer
from textual.widgets._markdown import MarkdownH1, MarkdownH2, MarkdownParagraph
from textual.widgets._toast import Toast

from contextual.core.context.ledger import Ledger
from contextual.tui.app import ContextualApp
from contextual.tui.screens.compaction import CompactionModal
from contextual.tui.screens.compaction_history import CompactionHistoryScreen
from contextual.tui.screens.compaction_preview import CompactionPreviewScreen
from contextual.tui.screens.loss_ledger import LossLedgerScreen
from contextual.tui.screens.session_picker import SessionPicker
from contextual.tui.screens.stored_full import StoredFullScreen
from contextual.tui.widgets.aligned_pane import AlignedPane
from contextual.tui.widgets.answer_markdown import AnswerMarkdown
from contextual.tui.widgets.history_view import HistoryView
from contextual.tui.widgets.prompt_input import PromptInput
from contextual.tui.widgets.tool_trail import TrailTitle
from tests.fakes.llm_server import FakeLLMServer
from tests.tui_helpers import (READ_CART, chat_text, finish, make_host, resumed_app, run_turn, shown_screen,
                               type_and_send, until_shown, wait_for)

NARROW = (80, 24)
WIDE = (200, 50)


def footer_keys(screen) -> set[str]:
    return {str(key.description) for key in screen.query_one(Footer).query("FooterKey")}


def toasts(app) -> list[str]:
    return [n.message for n in app._notifications]


async def test_a_commands_reply_brings_the_chat_into_sight_from_another_tab_or_hidden(tmp_path):
    """At 80 columns `/model NAME`'s confirmation went to the chat while History was the tab shown: never seen.
    A reply in the chat shows the chat's tab; wide, a chat the user hid shows again."""
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            chat = app.query_one("#chat-pane")
            for tab in ("f4", "f3"):
                await pilot.press(tab)
                await wait_for(pilot, lambda: not chat.display)
                await pilot.press(*"/cost", "enter")      # typed on the pane: the input takes it
                await wait_for(pilot, lambda: chat.display and app.panes.regions.tab == "chat")
                assert "nothing used yet" in chat_text(app) and app.focused is app.query_one(PromptInput)
            await pilot.resize_terminal(*WIDE)
            await wait_for(pilot, lambda: not app.panes.narrow)
            await pilot.press("f2")                     # the input has the focus: f2 hides the chat
            await wait_for(pilot, lambda: not chat.display)
            await type_and_send(pilot, "/cost")
            await wait_for(pilot, lambda: chat.display)


def _rounds_then_summary() -> list[str]:
    # three rounds reading cart.py; the summary names it, so it keeps every fact the probe checks
    return [READ_CART, finish("first"), READ_CART, finish("second"), READ_CART, finish("third"),
            "## Summary\nThe user read cart.py three times.", finish("after")]


async def test_a_manual_compactions_result_is_the_chats_card_and_no_dialog_waits_for_enter(tmp_path):
    """/compact ended on a result dialog that needed enter every time, though the summary had just been approved in
    the preview. The dialog closes as it ends; the chat's line holds what its card said (how much smaller, the
    files the summary was given), live and resumed alike; /compactions still opens the card. A preview whose
    summary loses nothing names no key for what it would lose; the ledger of such a compaction is one line."""
    with FakeLLMServer(kind="openai", script=_rounds_then_summary()) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, keep_rounds=1), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            for text in ("read the cart", "again", "once more"):
                await run_turn(pilot, text)
            await pilot.press("f3")                     # the Scratchpad's tab shows as the command is sent
            await pilot.press(*"/compact", "enter")
            await wait_for(pilot, lambda: shown_screen(app, CompactionPreviewScreen))
            await pilot.pause()
            assert "loses nothing" in str(app.screen.query_one("#preview-loss").render())
            assert {"accept", "retry", "cancel"} <= footer_keys(app.screen)
            assert not {"what it loses", "add missing"} & footer_keys(app.screen)
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: "compacted (manual)" in chat_text(app))
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0] and not app.turns.running)
            assert not any(isinstance(screen, CompactionModal) for screen in app.screen_stack)
            assert app.panes.regions.tab == "chat" and app.query_one("#chat-pane").display
            live = chat_text(app)
            record = app.engine.compactions[-1]
            assert "% smaller · files the summary was given: cart.py" in live, live
            await type_and_send(pilot, "/ledger")
            await wait_for(pilot, lambda: shown_screen(app, LossLedgerScreen))
            await pilot.pause()
            assert not app.screen.query(DataTable) and "re-inject" not in footer_keys(app.screen)
            assert str(app.screen.query_one("#ledger-count").render()).startswith("Nothing lost")
            await pilot.press("escape")
            await type_and_send(pilot, "/compactions")
            await wait_for(pilot, lambda: shown_screen(app, CompactionHistoryScreen))
            await pilot.press("enter")                  # the card, when asked for
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal) and app.screen.result is not None)
            assert app.screen.result.files_included == record.files_included
            session_id = app.engine.session_id
            await app.host.close(app.engine)
        resumed = resumed_app(tmp_path, srv.base_url, session_id, keep_rounds=1)
        async with resumed.run_test(size=NARROW) as pilot:
            await until_shown(pilot, resumed)
            line = next(line for line in live.split("\n") if line.startswith("compacted (manual)"))
            await wait_for(pilot, lambda: "% smaller · files the summary was given: cart.py" in chat_text(resumed))
            assert line in chat_text(resumed)


async def test_no_compaction_yet_and_nothing_lost_are_one_line_with_no_keys_that_do_nothing(tmp_path):
    """`/compactions` with none listed a table of headers only, with enter and l in the footer; the ledger of a
    summary losing nothing, its columns and re-inject."""
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            await type_and_send(pilot, "/compactions")
            await wait_for(pilot, lambda: shown_screen(app, CompactionHistoryScreen))
            await pilot.pause()
            screen = app.screen
            assert not screen.query(DataTable) and footer_keys(screen) == {"close"}
            said = screen.query_one("#history-count")
            assert str(said.render()).startswith("No compaction in this session yet") and said.size.height == 1
            await pilot.press("enter", "l")            # nothing opens
            await pilot.pause()
            assert app.screen is screen
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0])
            for for_summary in (False, True):
                app.push_screen(LossLedgerScreen(Ledger((), {}, 4), for_summary=for_summary))
                await wait_for(pilot, lambda: shown_screen(app, LossLedgerScreen))
                await pilot.pause()
                said = app.screen.query_one("#ledger-count")
                assert not app.screen.query(DataTable) and footer_keys(app.screen) == {"close"}
                assert said.size.height == 1, str(said.render())
                await pilot.press("escape")
                await wait_for(pilot, lambda: app.screen is app.screen_stack[0])


def _bash(command: str) -> str:
    return "Thought: run it\nAction: Bash[" + json.dumps({"command": command}) + "]"


async def test_stored_vs_full_numbers_each_panes_own_lines_not_its_rows(tmp_path):
    """"full · 13 lines" was numbered up to 16: the gap rows that line it up with the stored form counted. Each
    pane numbers its own lines, 1 to the count its title gives."""
    with FakeLLMServer(kind="openai", script=[_bash("seq 101 130"), finish("ran")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="bypass"), animate=False)
        async with app.run_test(size=(160, 60)) as pilot:
            await run_turn(pilot, "count")
            history = app.query_one(HistoryView)
            history.focus()
            history.highlighted = next(i for i in range(len(history.rows)) if history.newest(i).role == "tool")
            await pilot.press("enter")
            await wait_for(pilot, lambda: shown_screen(app, StoredFullScreen))
            await pilot.pause()
            screen = app.screen
            for pane, lines in ((screen.query_one("#stored", AlignedPane), screen.stored_lines),
                                (screen.query_one("#full", AlignedPane), screen.full_lines)):
                assert len(pane.rows) <= pane.scrollable_content_region.height      # every row in view
                shown = [pane.render_line(y).text.split() for y in range(len(pane.rows))]
                numbers = [int(words[0]) for words, row in zip(shown, pane.rows) if row.kind != "gap"]
                assert numbers == list(range(1, len(lines) + 1)), (pane.id, numbers)
                assert f" · {len(lines)} lines · " in str(pane.border_title)
            assert any(row.kind == "gap" for row in screen.query_one("#full", AlignedPane).rows)


async def test_a_notice_on_a_dialog_stands_clear_of_its_title_and_column_heads(tmp_path):
    """A notice raised just before /resume opened stood over its title and column heads for seconds (they stood
    under the top bar on every screen). On a dialog they stand at its foot."""
    for size in (NARROW, WIDE):
        (tmp_path / str(size[0])).mkdir()
        with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
            app = ContextualApp(make_host(tmp_path / str(size[0]), srv.base_url), animate=False)
            async with app.run_test(size=size, notifications=True) as pilot:
                await run_turn(pilot, "hello")
                await app.engine.session.flush()
                app.notify("title: A good title", timeout=30)          # as /title says it
                await type_and_send(pilot, "/resume")
                await wait_for(pilot, lambda: shown_screen(app, SessionPicker))
                await wait_for(pilot, lambda: app.screen.query(Toast) and app.screen.query_one(Toast).region.height)
                toast, box = app.screen.query_one(Toast).region, app.screen.query_one("#picker-box").region
                assert not toast.overlaps(box), (size, toast, box)          # its title, column heads and rows
                footer = app.screen.query_one(Footer).region
                assert not toast.overlaps(footer), (size, toast, footer)    # and its keys


class AnswerApp(App[None]):
    def compose(self) -> ComposeResult:
        yield AnswerMarkdown("Some text first.\n\n## A heading\n\nMore text.\n\n# Top heading\n\nLast.")


async def test_an_answers_heading_has_one_blank_row_above_it_not_two():
    app = AnswerApp()
    async with app.run_test(size=NARROW) as pilot:
        await pilot.pause()
        blocks = list(app.query_one(AnswerMarkdown).children)
        assert [type(b) for b in blocks] == [MarkdownParagraph, MarkdownH2, MarkdownParagraph, MarkdownH1,
                                             MarkdownParagraph]
        for above, heading, below in (blocks[0:3], blocks[2:5]):
            assert heading.region.y - above.region.bottom == 1, (heading, heading.region, above.region)
            assert below.region.y - heading.region.bottom == 1, (heading, heading.region, below.region)


async def test_esc_on_a_tool_call_row_goes_back_to_the_input_and_does_not_arm_rewind(tmp_path):
    """tab to a turn's "▶" row, then esc: it was the first esc toward /rewind ("esc again: /rewind"), and the next
    esc opened /rewind. It only leaves the row; the input's own esc twice still opens /rewind."""
    with FakeLLMServer(kind="openai", script=[READ_CART, finish("read")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW, notifications=True) as pilot:
            await run_turn(pilot, "read the cart")
            prompt = app.query_one(PromptInput)
            await pilot.press("tab")
            await wait_for(pilot, lambda: isinstance(app.focused, TrailTitle))
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.focused is prompt)
            assert "esc again: /rewind" not in toasts(app)
            await pilot.press("tab", "escape", "escape")         # to the row and back, then the input's first esc
            await wait_for(pilot, lambda: "esc again: /rewind" in toasts(app))
            assert app.screen is app.screen_stack[0] and app.focused is prompt


async def test_tab_in_the_same_burst_as_the_letters_completes_the_command_with_a_space(tmp_path):
    """`/exp`, tab and the argument sent together (as a terminal hands on fast typing or a paste of keys): the list
    had not followed the letters when tab came, so tab went on to the chat and nothing was completed."""
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=NARROW) as pilot:
            prompt = app.query_one(PromptInput)
            for text, typed_after in (("/exp", "notes.md"), ("/mod", "x")):
                prompt.clear()
                await pilot.pause()
                for char in text:
                    app.post_message(events.Key(_character_to_key(char), char))
                app.post_message(events.Key("tab", None))
                for char in typed_after:
                    app.post_message(events.Key(_character_to_key(char), char))
                completed = {"/exp": "/export", "/mod": "/model"}[text]
                await wait_for(pilot, lambda: prompt.text == f"{completed} {typed_after}")
                assert app.focused is prompt
