"""Slash commands and what the app remembers, on the real app, engine and fake server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_helpers import session_files
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.fakes.server_flavors import Flavor
from tests.tui_helpers import chat_text, SIZE, finish, make_host, run_turn, type_and_send, wait_for
from contextual.tui.app import ContextualApp
from contextual.tui.screens.compact_choice import CompactChoice
from contextual.tui.screens.compaction_preview import CompactionPreviewScreen
from contextual.tui.screens.model_picker import ModelPicker
from contextual.tui.screens.session_picker import SessionPicker
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.prompt_input import PromptInput
from contextual.tui.widgets.scratchpad import ScratchpadView
from contextual.tui.widgets.tool_trail import ToolTrail


async def test_shell_export_history_theme_title_and_models(tmp_path):
    reply = finish("Here:\n\n```python\nprint(1)\n```")
    with FakeLLMServer(kind="openai", script=[reply], flavor=Flavor("vllm")) as srv:      # it lists its models
        host = make_host(tmp_path, srv.base_url)
        root = host.config.project_root
        (root / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "!echo shell-said-hi && exit 3")
            await wait_for(pilot, lambda: "shell-said-hi" in chat_text(app))
            assert "exit 3" in chat_text(app) and not srv.requests          # the agent was not involved
            await run_turn(pilot, "print one")
            assert "```python\nprint(1)\n```" in app.query_one(ChatLog).query("Markdown").last().source   # fences kept
            await type_and_send(pilot, "/export notes.md")
            await wait_for(pilot, lambda: (root / "notes.md").exists())
            exported = (root / "notes.md").read_text()
            assert "## User" in exported and "print one" in exported and "print(1)" in exported
            await type_and_send(pilot, "/export")                       # no path: under $CONTEXTUAL_HOME, not here
            exports = app.config.home / "exports"
            await wait_for(pilot, lambda: exports.is_dir() and any(exports.glob("*.md")))
            assert "print one" in next(exports.glob("*.md")).read_text()
            await type_and_send(pilot, "/title Printing one")
            await type_and_send(pilot, "/title")              # bare: says the title (it wiped it: tmux QA)
            await wait_for(pilot, lambda: any("title: Printing one · /title TEXT renames it" in str(n.message)
                                              for n in app._notifications))
            await type_and_send(pilot, "/theme no-such-theme")          # a name: set at once, or listed
            await wait_for(pilot, lambda: "no theme 'no-such-theme'; there are:" in chat_text(app))
            assert "gruvbox" in chat_text(app) and app.theme != "gruvbox"
            await type_and_send(pilot, "/theme Gruvbox")
            await wait_for(pilot, lambda: app.theme == "gruvbox")
            await type_and_send(pilot, "/model")
            await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker))
            assert app.screen.names == ["fake-model"] and not app.screen.problem
            await pilot.press("escape")
            await type_and_send(pilot, "/resume")
            await wait_for(pilot, lambda: isinstance(app.screen, SessionPicker))
            assert "Printing one" in str(app.screen.query_one("DataTable").get_row_at(0)[1])
            await pilot.press("enter")                                   # the session we are in
            await pilot.pause()
            assert any("That is the session you are in" in str(n.message) for n in app._notifications)
        # A new run: past inputs and the theme are remembered.
        app2 = ContextualApp(host, animate=False)
        async with app2.run_test(size=SIZE) as pilot:
            past = app2.query_one(PromptInput).past
            assert past[-6:] == ["/title Printing one", "/title", "/theme no-such-theme", "/theme Gruvbox", "/model",
                                "/resume"] and "print one" in past
            assert app2.theme == "gruvbox"


async def test_compact_with_few_rounds_offers_to_keep_n_and_resume_rebuilds_the_chat(tmp_path):
    read = 'Thought: look\nAction: Read[{"file_path": "cart.py"}]'
    summary = Reply("## Summary\nTwo questions about the cart were answered.", chunk_delay=0.01)
    with FakeLLMServer(kind="openai", script=[read, finish("first answer"), finish("second answer"), summary,
                                              finish("third answer")]) as srv:
        host = make_host(tmp_path, srv.base_url)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "first question")
            await type_and_send(pilot, "/compact keep the cart notes")    # one round: nothing to compact yet,
            await pilot.pause()                                           # and the instructions stay typed
            assert app.query_one("#prompt").text == "/compact keep the cart notes"
            app.query_one("#prompt").load_text("")
            await run_turn(pilot, "second question")
            await type_and_send(pilot, "/compact")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactChoice))
            choice = app.screen
            assert "Will archive 1 round and keep the last round." in str(choice.query_one("#choice-plan").render())
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionPreviewScreen))   # issue 19.1's preview
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: app.engine.compactions and app.screen is app.screen_stack[0])
            assert app.engine.compactions[0].rounds_archived == 1
            assert app.engine.history.messages[0].role == "summary"
            session_id = app.engine.session_id
            await pilot.press("ctrl+q")
        # Resumed: the chat shows what was said (the archived round too), not the summary; turns number on.
        app2 = ContextualApp(host, host.resume(session_id), animate=False)
        async with app2.run_test(size=SIZE) as pilot:
            text = chat_text(app2)
            assert "first question" in text and "first answer" in text and "second answer" in text
            assert "summary of earlier work" not in text
            assert [c[:3] for c in app2.query_one(ToolTrail).calls] == [("Read", "cart.py", "success")]
            await run_turn(pilot, "third question")
            assert app2.query_one(ScratchpadView).turns[-1].number == 3


async def test_compact_choice_at_80x24_shows_its_placeholder_whole_and_one_choice_is_no_range(tmp_path):
    """At 80x24 the emptied input read "rounds to " (16 columns for a 14-letter placeholder), and with two rounds
    the plan said "Keep between 1 and 1 rounds" (sweep, helper-90)."""
    with FakeLLMServer(kind="openai", script=[finish("first answer"), finish("second answer")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "first question")
            await run_turn(pilot, "second question")
            await type_and_send(pilot, "/compact")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactChoice))
            choice, entry = app.screen, app.screen.query_one("#choice-keep")
            plan = choice.query_one("#choice-plan")
            assert str(plan.render()) == "Will archive 1 round and keep the last round."
            entry.value = ""
            await pilot.pause()
            assert entry.render_line(0).text.strip() == "rounds to keep"                # the placeholder, whole
            assert str(plan.render()) == ("1 is the only choice here: keep the last round and archive the one "
                                          "before it.")
            entry.value = "5"
            await pilot.pause()
            assert "between 1 and 1" not in str(plan.render()) and "only choice" in str(plan.render())
            await pilot.press("escape")


async def test_compact_at_a_small_window_archives_what_does_not_fit_without_asking_for_n(tmp_path):
    """Two rounds, fewer than keep_rounds, but at a 4k window they do not both fit: /compact plans as the
    automatic compaction would (keeping what fits), so it goes straight to the preview."""
    big = "x " * 800
    summary = Reply("## Summary\nThe first question was answered.", chunk_delay=0.01)
    with FakeLLMServer(kind="openai", script=[finish(f"first {big}"), finish(f"second {big}"), summary]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=4096), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "first question")
            await run_turn(pilot, "second question")
            assert app.engine.prompt.archive_plan() is not None
            await type_and_send(pilot, "/compact")
            await wait_for(pilot, lambda: isinstance(app.screen, (CompactionPreviewScreen, CompactChoice)))
            assert isinstance(app.screen, CompactionPreviewScreen)


def test_the_init_starter_is_headed_with_the_file_it_is_for_and_finds_tests_at_the_top(tmp_path):
    """/init for AGENTS.md gave the model a starter headed `# CODE_LAW.md`, and `(say how to run the tests)` beside
    a test_calc.py at the root (tmux QA)."""
    from contextual.tui.starter import starter_code_law
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (tmp_path / "test_calc.py").write_text("from calc import add\n")
    draft = starter_code_law(tmp_path, "AGENTS.md")
    assert draft.startswith("# AGENTS.md\n") and "CODE_LAW" not in draft
    assert "Run the tests with `python -m pytest -q` (they live in test_calc.py, at the top level)" in draft


async def test_a_mistyped_command_with_arguments_is_not_sent_and_names_the_nearest_but_a_path_is_sent(tmp_path):
    # `/compcat 3` and `/foo bar` went to the model as prompts; only a bare `/foo` got the notice
    with FakeLLMServer(kind="openai", script=[finish("it is python"), finish("noted")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "/compcat 3")
            await wait_for(pilot, lambda: "unknown command /compcat: did you mean /compact?" in chat_text(app))
            await type_and_send(pilot, "/zzqx keep going")
            await wait_for(pilot, lambda: "unknown command /zzqx Not sent" in chat_text(app))
            assert not srv.requests
            await run_turn(pilot, "/usr/bin/env python3 -V fails here: why?")        # a path, not a command
            assert srv.requests[0]["messages"][-1]["content"].startswith("/usr/bin/env python3 -V")
            top = next(Path("/").iterdir())              # a path with one slash that exists: `/tmp is full`
            await run_turn(pilot, f"{top} is full")
            assert len(srv.requests) == 2 and "unknown command /usr" not in chat_text(app)


async def test_resume_lists_a_session_whose_line_holds_brackets_as_written(tmp_path):
    """The picker's table read its str cells as markup: a session line whose time read `[/]…` (a damaged or
    hand-edited file) ended the app as /resume opened (MarkupError)."""
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "hello")
            await app.engine.session.flush()
        [path] = session_files(tmp_path / "home")
        last = json.loads(path.read_text().splitlines()[-1])
        with path.open("a") as out:
            out.write(json.dumps({**last, "uuid": "hand-edited", "timestamp": "[/]damaged"}) + "\n")
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "/resume")
            await wait_for(pilot, lambda: isinstance(app.screen, SessionPicker))
            await pilot.pause()
            table = app.screen.query_one("DataTable")
            assert str(table.get_row_at(0)[0]) == "[/]damaged"
            assert app.is_running and app._exception is None
