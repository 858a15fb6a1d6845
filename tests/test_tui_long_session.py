"""A long session keeps the app as quick as a short one: the chat holds its newest turns only (live as resumed),
and no style rule depends on a widget's place among its siblings (Textual restyles every sibling of every widget
mounted when one does). How quick, early and late: benchmarks/bench_tui_long_session.py."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from textual.app import App
from textual.css.stylesheet import Stylesheet
from textual.widget import Widget

import contextual.tui
from contextual.tui.app import ContextualApp
from contextual.tui.widgets import chat_log
from contextual.tui.widgets.chat_log import ChatLog
from tests.fakes.llm_server import FakeLLMServer
from tests.tui_helpers import app_with_history, finish, long_session, make_host, run_turn, type_and_send, wait_for

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
            for n in range(4):
                await run_turn(pilot, f"question {n}")
            chat = app.query_one(ChatLog)
            assert _user_lines(chat) == ["you  question 2", "you  question 3"]
            assert str(chat.children[0].render()) == "… 2 earlier turns: /export writes the whole transcript"
            assert [m.source for m in chat.query("Markdown")] == ["answer 2", "answer 3"]
            assert "answer 3" in app.export_screenshot().replace("&#160;", " ")
            await type_and_send(pilot, "/export all.md")              # as the line says
            exported = tmp_path / "proj" / "all.md"
            await wait_for(pilot, exported.exists)
            assert all(f"question {n}" in exported.read_text() for n in range(4))


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
