"""A long session keeps the app as quick as a short one: the chat holds its newest turns only (live as resumed),
and no style rule depends on a widget's place among its siblings (Textual restyles every sibling of every widget
mounted when one does). How quick, early and late: benchmarks/bench_tui_long_session.py."""

from __future__ import annotations

import importlib
import pkgutil
import threading
from pathlib import Path

from textual import events
from textual.app import App
from textual.css.model import RuleSet, Selector, SelectorType
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.widget import Widget
from textual.widgets import Footer, Markdown

import contextual.tui
from contextual.tui import startup
from contextual.tui.app import ContextualApp
from contextual.tui.shell_output import JOINS
from contextual.tui.widgets import chat_log
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.chat_pane import ChatPane
from contextual.tui.widgets.prompt_input import PromptInput
from contextual.tui.widgets.tool_trail import TrailTitle
from tests.fakes.llm_server import FakeLLMServer
from tests.tui_helpers import (app_with_history, chat_text, finish, held, long_session, make_host, resumed_app, run_turn,
                               type_and_send, until_shown, wait_for)

ORDER_PSEUDO_CLASSES = {"first-child", "last-child", "first-of-type", "last-of-type", "odd", "even", "empty"}


def _user_lines(chat: ChatLog) -> list[str]:
    return [str(w.render()) for w in chat.children if w.has_class("user")]


async def test_the_chat_holds_its_newest_turns_and_counts_the_rest_resumed_and_live(tmp_path, monkeypatch):
    """A resumed session of 12 turns with room for 10: 2 counted above them. Three turns sent: the three oldest
    held leave as they come, counted on the same line."""
    monkeypatch.setattr(chat_log, "MAX_SHOWN_TURNS", 10)
    script = [finish(f"live answer {n}") for n in range(3)]
    with FakeLLMServer(kind="openai", script=script) as srv:
        app = app_with_history(tmp_path, srv.base_url, long_session(12))
        async with app.run_test(size=(120, 30)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            chat = app.query_one(ChatLog)
            assert _user_lines(chat) == [f"you  question {i}" for i in range(2, 12)]
            assert str(chat.children[0].render()).startswith("… 2 earlier turns")
            for n in range(3):
                await run_turn(pilot, f"live question {n}")
            held = [f"you  question {i}" for i in range(5, 12)] + [f"you  live question {n}" for n in range(3)]
            assert _user_lines(chat) == held
            notices = [str(w.render()) for w in chat.children if "earlier turns" in str(w.render())]
            assert notices == ["… 5 earlier turns: /export writes the whole transcript"]
            assert chat.children[0] is chat.query_one(".notice")           # above the oldest turn held
            assert "answer 4" not in "\n".join(m.source for m in chat.query("Markdown"))   # its answer left too


async def test_a_live_session_past_the_limit_says_how_many_turns_it_no_longer_holds(tmp_path, monkeypatch):
    monkeypatch.setattr(chat_log, "MAX_SHOWN_TURNS", 2)
    with FakeLLMServer(kind="openai", script=[finish(f"answer {n}") for n in range(4)]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            for n in range(3):
                await run_turn(pilot, f"question {n}")
            chat = app.query_one(ChatLog)
            assert str(chat.children[0].render()) == "… 1 earlier turn: /export writes the whole transcript"
            await run_turn(pilot, "question 3")
            assert _user_lines(chat) == ["you  question 2", "you  question 3"]
            assert str(chat.children[0].render()) == "… 2 earlier turns: /export writes the whole transcript"
            assert [m.source for m in chat.query("Markdown")] == ["answer 2", "answer 3"]
            assert "answer 3" in app.export_screenshot().replace("&#160;", " ")
            await type_and_send(pilot, "/export all.md")              # as the line says
            exported = tmp_path / "proj" / "all.md"
            await wait_for(pilot, exported.exists)
            assert all(f"question {n}" in exported.read_text() for n in range(4))


PASSES = ("The **parser** reads it in two passes:\n\n```python\ndef parse(text):\n    return tree(tokens(text))\n```"
          "\n\nNothing else changes.")


async def _written_session(tmp_path: Path, turns: int) -> str:
    """A session file of ``turns`` turns, each a Read and an answer of several lines."""
    from contextual.core.messages import Message
    from contextual.core.session.writer import SessionWriter
    from tests.tui_helpers import make_project
    writer = SessionWriter.create(tmp_path / "home", make_project(tmp_path).resolve(), session_id="long")
    for message in long_session(turns):
        if message.meta.get("final"):
            message.meta["answer"] += "\n\n" + PASSES
        writer.append_message(message)
    await writer.close()
    return "long"


def _frames_at_the_end(app: ContextualApp) -> list[tuple[int, bool]]:
    """Each frame the app writes from now on: how many widgets the chat holds, and whether its view is at the end,
    its last widget laid out in sight (a resumed session's first frame is drawn before its answers are)."""
    frames: list[tuple[int, bool]] = []
    display = app._display                  # Textual's one door to the driver

    def spy(screen, update) -> None:
        if update is not None and screen is app.screen_stack[0]:
            chat = app.query_one(ChatLog)
            laid_out = [widget.region for widget in chat.children if widget.region]
            seen = bool(laid_out) and laid_out[-1].overlaps(chat.content_region)
            frames.append((len(chat.children), seen and chat.is_vertical_scroll_end))
        display(screen, update)
    app._display = spy
    return frames


async def test_a_chat_rebuilt_shows_its_end_from_the_first_frame_through_every_mount(tmp_path):
    """A resumed session's first frame, then /fork of it: the chat showed its top, then its middle, then its end
    over 2.5 s (/fork of 35 turns at 200x50): its scroll to the end came after the frame that laid the turns out,
    the earlier turns mounted above moved what was in view, and each answer laid out grew the chat under the view.
    Each frame now shows the end: no frame of the chat emptied either."""
    session_id = await _written_session(tmp_path, 12)
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = resumed_app(tmp_path, srv.base_url, session_id)
        frames = _frames_at_the_end(app)
        async with app.run_test(size=(80, 24)) as pilot:
            await until_shown(pilot, app)
            await app.workers.wait_for_complete()
            chat = app.query_one(ChatLog)
            await wait_for(pilot, lambda: len(_user_lines(chat)) == 12 and chat.max_scroll_y > 100)
            await pilot.pause()
            opened = [at_end for held, at_end in frames if held]
            assert opened and all(opened), frames
            frames.clear()
            await type_and_send(pilot, "/fork")
            await wait_for(pilot, lambda: "forked session" in chat_text(app) and len(_user_lines(chat)) == 12)
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert frames and all(at_end for held, at_end in frames), frames


async def test_the_chat_keeps_its_end_in_sight_in_the_frame_its_pane_grows_or_shrinks(tmp_path):
    """The completion list opening above the input made the chat a row shorter, and Textual's anchor, reckoning with
    the height the chat had before that layout, drew its last row below the view; closing, a blank row past its
    end. The next layout put it right, but that frame was drawn: a /fork sent under load drew one off the end."""
    session_id = await _written_session(tmp_path, 4)
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = resumed_app(tmp_path, srv.base_url, session_id)
        frames = _frames_at_the_end(app)
        async with app.run_test(size=(80, 24)) as pilot:
            await until_shown(pilot, app)
            await app.workers.wait_for_complete()
            chat = app.query_one(ChatLog)
            await wait_for(pilot, lambda: len(_user_lines(chat)) == 4 and chat.max_scroll_y > 20)
            await pilot.pause()
            height = chat.container_size.height
            frames.clear()
            await pilot.press("/", "f", "o")          # the completion list opens: the chat a row shorter
            await wait_for(pilot, lambda: chat.container_size.height < height)
            await pilot.pause()
            await pilot.press("backspace", "backspace", "backspace")
            await wait_for(pilot, lambda: chat.container_size.height == height)
            app.query_one(PromptInput).load_text("one\ntwo\nthree\nfour")          # a taller input
            await wait_for(pilot, lambda: chat.container_size.height < height - 2)
            await pilot.pause()
            assert len(frames) >= 3 and all(at_end for _, at_end in frames), frames


async def test_a_reader_scrolled_up_keeps_what_they_read_in_place_as_the_earlier_turns_mount_above():
    """Scrolled up in a resumed chat's first second, the turns held back from its first frame, mounted above the
    recent ones, and their answers laid out after, moved what the reader read down out of sight."""
    class Alone(App):
        def compose(self):
            yield ChatLog()

    record = long_session(chat_log.FIRST_TURNS + 6)
    for message in record:
        if message.meta.get("final"):
            message.meta["answer"] += "\n\n" + PASSES
    app = Alone()
    seen: list[int] = []
    async with app.run_test(size=(80, 24)) as pilot:
        chat = app.query_one(ChatLog)
        await chat.show_transcript(record)
        await wait_for(pilot, lambda: chat.max_scroll_y > 60)
        await pilot.pause()
        chat.scroll_lines(-30)
        await pilot.pause()
        read = next(w for w in chat.children if w.region.y >= chat.content_region.y)
        row = read.region.y
        display = app._display

        def spy(screen, update) -> None:
            seen.append(read.region.y)
            display(screen, update)
        app._display = spy
        await chat.mount_earlier()
        await wait_for(pilot, lambda: len(_user_lines(chat)) == chat_log.FIRST_TURNS + 6)
        await pilot.pause()
        assert seen and set(seen) == {row}, (row, seen)
        chat.scroll_lines(-1)                # its keys go on from what it shows
        await pilot.pause()
        assert read.region.y == row + 1 and not chat.is_vertical_scroll_end


def _rules_with_order(css: str, path: str) -> list[str]:
    sheet = Stylesheet(variables=App().get_css_variables())      # the default theme's names ($primary, …)
    sheet.add_source(css, read_from=(path, ""))
    sheet.parse()
    return [rule.css.split("{")[0].strip() for rule in sheet.rules if rule.pseudo_classes & ORDER_PSEUDO_CLASSES]


def test_no_style_of_ours_depends_on_a_widgets_place_among_its_siblings():
    """`ChatLog Markdown > *:last-child` marked every widget of the app (the rule is filed under `*`) as having an
    order-dependent style, and Textual restyles every sibling of a mounted widget, with all beneath it, when they
    have one: each turn restyled the whole chat (a turn took 2.5 s by the 60th)."""
    found: list[str] = []
    for module in pkgutil.walk_packages(contextual.tui.__path__, "contextual.tui."):
        loaded = importlib.import_module(module.name)
        for value in vars(loaded).values():
            if isinstance(value, type) and issubclass(value, Widget) and value.__module__ == module.name \
                    and "DEFAULT_CSS" in vars(value):
                found += _rules_with_order(value.DEFAULT_CSS, f"{module.name}.{value.__name__}")
    tcss = list(Path(contextual.tui.__file__).parent.rglob("*.tcss"))
    assert tcss
    for path in tcss:
        found += _rules_with_order(path.read_text(), str(path))
    assert not found


async def test_no_widget_on_the_main_screen_carries_an_order_dependent_style(tmp_path):
    """Textual's own widgets included, as the app styles them after a turn with a tool call and a Markdown
    answer."""
    read = 'Thought: look\nAction: Read[{"file_path": "src/module.py"}]'
    with FakeLLMServer(kind="openai", script=[read, finish("**one**\n\n- two\n\n| a |\n|---|\n| 3 |")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(120, 30)) as pilot:
            await run_turn(pilot, "read it")
            assert app.query_one(ChatLog).query("MarkdownTable")
            ordered = [type(w).__name__ for w in app.screen.walk_children(with_self=True)
                       if w._has_order_style or w._has_odd_or_even]
            assert not ordered


async def test_the_command_output_a_message_carried_leaves_with_its_turn_live_as_resumed(tmp_path, monkeypatch):
    """A `!command` run before a turn is that turn's (its message carried the output): it stays above it while the
    turn is held, as a resumed chat shows it, and leaves with it, not with the turn before (the oldest turn held
    lost what its message carried)."""
    monkeypatch.setattr(chat_log, "MAX_SHOWN_TURNS", 2)
    monkeypatch.setattr(startup, "FIRST_TURNS", 1)           # a resumed chat's first frame: under the 2 held
    monkeypatch.setattr(chat_log, "FIRST_TURNS", 1)
    with FakeLLMServer(kind="openai", script=[finish(f"answer {n}") for n in range(4)]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "question 0")
            await type_and_send(pilot, "!echo carried-by-1")
            await wait_for(pilot, lambda: JOINS in chat_text(app))
            for n in (1, 2):
                await run_turn(pilot, f"question {n}")
            live = _items(app.query_one(ChatLog))
            assert live[:5] == ["… 1 earlier turn: /export writes the whole transcript", "$ echo carried-by-1",
                                "```text\ncarried-by-1\n```", JOINS, "you  question 1"]
            session_id = app.engine.session_id
            await app.host.close(app.engine)
        resumed = resumed_app(tmp_path, srv.base_url, session_id)
        async with resumed.run_test(size=(80, 24)) as pilot:
            await until_shown(pilot, resumed)
            await pilot.pause()
            chat = resumed.query_one(ChatLog)
            assert _items(chat)[:len(live)] == live
            await run_turn(pilot, "question 3")
            assert "carried-by-1" not in chat_text(resumed)
            assert _items(chat)[:2] == ["… 2 earlier turns: /export writes the whole transcript", "you  question 2"]


def _items(chat: ChatLog) -> list[str]:
    return [widget.source if isinstance(widget, Markdown) else str(widget.render()) for widget in chat.children]


READ = 'Thought: look\nAction: Read[{"file_path": "cart.py"}]'


async def test_a_focused_row_whose_turn_leaves_hands_the_focus_back_to_the_input(tmp_path, monkeypatch):
    """↑ to the oldest row while a queued message waits: when it is sent that row's turn leaves. The focus went to
    the oldest row held, off screen once the view is at the new message (↑ ↓ and enter acted out of sight; before
    that Textual gave it to the chat, where they scroll): it goes back to the input, the view at the new message,
    and tab reaches the newest row again."""
    monkeypatch.setattr(chat_log, "MAX_SHOWN_TURNS", 2)
    gate = threading.Event()
    script = [READ, finish("answer 0"), READ, finish("answer 1"), READ, held(gate, "answer 2"),
              READ, finish("answer 3")]
    try:
        with FakeLLMServer(kind="openai", script=script) as srv:
            app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
            async with app.run_test(size=(80, 24)) as pilot:
                for n in range(2):
                    await run_turn(pilot, f"question {n}")
                chat, prompt = app.query_one(ChatLog), app.query_one(PromptInput)
                await type_and_send(pilot, "question 2")
                await wait_for(pilot, lambda: len(srv.requests) == 6)         # its answer held at the gate
                await type_and_send(pilot, "question 3")                      # queued
                await pilot.press("tab", "up")
                rows = list(chat.query(TrailTitle))
                assert len(rows) == 2 and app.focused is rows[0]              # question 1's, the oldest held
                gate.set()
                await wait_for(pilot, lambda: "answer 3" in chat_text(app))
                await app.workers.wait_for_complete()
                await pilot.pause()
                assert "you  question 1" not in chat_text(app)
                assert app.focused is prompt and chat.is_vertical_scroll_end
                await pilot.press("x")
                assert prompt.text == "x"
                await pilot.press("backspace", "tab")
                assert app.focused is list(chat.query(TrailTitle))[-1]
    finally:
        gate.set()


ANSWER = "The **parser**:\n\n| step | what |\n|---|---|\n| 1 | tokens |\n\n```python\nparse(text)\n```\n\n- done"


async def test_moving_the_focus_in_and_out_of_the_chat_restyles_no_answer_and_keeps_the_footer(tmp_path):
    """Textual restyles the whole subtree of the outermost `:focus-within` ancestor at every focus change, and of a
    widget whose focus changes, and makes its footer again: `#chat-pane:focus-within` restyled every answer of the
    chat at each tab, ↑ ↓ between its rows and letter typed there (0.9 s a key at the 30th turn, 0.1 s at the
    first). The pane is still lit while the focus is inside it."""
    with FakeLLMServer(kind="openai", script=[READ, finish(ANSWER), READ, finish(ANSWER)]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(120, 30)) as pilot:
            for n in range(2):
                await run_turn(pilot, f"question {n}")
            chat, pane = app.query_one(ChatLog), app.query_one(ChatPane)
            answers = {node for node in chat.walk_children() if isinstance(node, Markdown) or
                       isinstance(node.parent, Markdown)}
            restyled: set[DOMNode] = set()
            update_nodes = app.stylesheet.update_nodes

            def counted(nodes, animate=False):
                nodes = list(nodes)
                restyled.update(nodes)
                return update_nodes(nodes, animate=animate)
            app.stylesheet.update_nodes = counted
            await pilot.press("tab")
            assert isinstance(app.focused, TrailTitle) and pane.has_class("-lit")
            keys = list(app.screen.query_one(Footer).query("FooterKey"))
            await pilot.press("up")
            await pilot.pause()
            assert isinstance(app.focused, TrailTitle)
            assert list(app.screen.query_one(Footer).query("FooterKey")) == keys    # the same keys, not made again
            await pilot.press("tab")
            assert app.focused is chat and pane.has_class("-lit")
            assert list(app.screen.query_one(Footer).query("FooterKey")) != keys    # the chat's keys
            # which rests on this: no rule reads the chat's or its pane's state above another widget (they restyle
            # only themselves when it changes: widgets/chat_pane.py)
            assert not [rule.css for rule in app.stylesheet.rules if _reads_state_of(rule, (chat, pane))]
            await pilot.press("x")
            await pilot.pause()
            assert app.focused is app.query_one("#prompt") and not pane.has_class("-lit")
            assert restyled and not restyled & answers


def _reads_state_of(rule: RuleSet, nodes: tuple[DOMNode, ...]) -> bool:
    """Whether a compound before the last in one of the rule's selectors matches one of ``nodes`` (as they are, the
    pane lit) and reads a class or pseudo-class (a compound's selectors all advance 0 but its last)."""
    for selector_set in rule.selector_set:
        compounds: list[list[Selector]] = [[]]
        for selector in selector_set.selectors:
            compounds[-1].append(selector)
            if selector.advance:
                compounds.append([])
        for compound in [c for c in compounds if c][:-1]:
            if any(s.pseudo_classes or s.type == SelectorType.CLASS for s in compound) and any(
                    all(s._check(node) for s in compound) for node in nodes):
                return True
    return False


async def test_pageup_pressed_again_and_again_moves_a_page_each_time(tmp_path):
    """Textual's page scroll waits for the next refresh and reads the position then: a held pageup (keys faster than
    frames) read the same position each time, and 40 presses moved the chat three pages. From the input and in the
    chat, by pages and by lines."""
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = app_with_history(tmp_path, srv.base_url, long_session(30))
        async with app.run_test(size=(80, 24)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            chat = app.query_one(ChatLog)
            await wait_for(pilot, lambda: chat.max_scroll_y > 0 and chat.scroll_y == chat.max_scroll_y)
            page, end = chat.scrollable_content_region.height, chat.scroll_y
            app.query_one("#prompt").focus()
            for _ in range(3):             # three keys before the screen is drawn again
                app.post_message(events.Key("pageup", None))
            await wait_for(pilot, lambda: chat.scroll_y < end)
            await pilot.pause()
            assert chat.scroll_y == end - 3 * page
            chat.focus()
            for _ in range(4):
                app.post_message(events.Key("up", None))
            await wait_for(pilot, lambda: chat.scroll_y < end - 3 * page)
            await pilot.pause()
            assert chat.scroll_y == end - 3 * page - 4
