"""Text from outside (a title the user typed, a project's command descriptions, tool names and paths, errors) is
shown as written: never read as markup, where `[/]` crashed the app and `[@click=…]` would run an action."""

from __future__ import annotations

from rich.console import Console
from textual.widgets._toast import Toast

from contextual.tui.app import ContextualApp
from contextual.tui.prompt_view import Shown, ShownMessage
from contextual.tui.screens.context_view import totals_table
from contextual.tui.screens.info import InfoScreen
from tests.fakes.llm_server import FakeLLMServer
from tests.tui_helpers import finish, make_host, run_turn, type_and_send, wait_for

HOSTILE = "a [/] b [@click=app.quit]c[/] list[str]"


def rendered(renderable) -> str:
    console = Console(width=200, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


async def test_a_notice_and_a_project_commands_help_line_show_brackets_as_written(tmp_path):
    folder = tmp_path / "proj" / ".contextual" / "commands"
    folder.mkdir(parents=True)
    (folder / "odd.md").write_text(f"---\ndescription: {HOSTILE}\n---\nsay hi\n")
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await run_turn(pilot, "hello")
            await type_and_send(pilot, f"/title {HOSTILE}")
            await wait_for(pilot, lambda: any(HOSTILE in n.message for n in app._notifications))
            notice = next(n for n in app._notifications if HOSTILE in n.message)
            assert HOSTILE in str(Toast(notice).render())       # it raised MarkupError and ended the app
            await type_and_send(pilot, "/help")
            await wait_for(pilot, lambda: isinstance(app.screen, InfoScreen))
            assert HOSTILE in rendered(app.screen.body)
            assert app.is_running


def test_the_context_totals_show_a_tool_name_and_a_path_as_written():
    message = ShownMessage("user", "L3", "Observation: [ok]", 12, form="full", tool=HOSTILE, path=f"src/{HOSTILE}.py")
    shown = Shown(messages=(message,), layers={"L3": 12}, total=12, window=8000, estimate=12, threshold=6000,
                  due=False)
    text = rendered(totals_table(shown))
    assert f"{HOSTILE} 12" in text and f"src/{HOSTILE}.py 12" in text


async def test_a_confirm_modals_buttons_show_their_keys(tmp_path):
    """"No [n]" given as a str was read as markup: "[n]" vanished and the buttons showed no key."""
    from textual.widgets import Button
    from contextual.tui.screens.confirm import ConfirmModal
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test() as pilot:
            app.push_screen(ConfirmModal("Undo", "Undo the last turn's file changes?", yes="Undo"))
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal) and len(app.screen.query(Button)) == 2)
            labels = {b.id: str(b.label) for b in app.screen.query(Button)}
            assert labels == {"no": "No [n]", "yes": "Undo [y]"}, labels


async def test_a_tool_result_whose_arguments_hold_brackets_opens_with_them_as_written(tmp_path):
    """The stored-vs-full screen's header names the call's arguments: `[/]` in a Glob pattern ended the app."""
    from contextual.tui.screens.stored_full import StoredFullScreen
    from contextual.tui.widgets.history_view import HistoryView
    from tests.tui_helpers import open_history_row
    glob = 'Thought: find\nAction: Glob[{"pattern": "**/*[/]*"}]'
    with FakeLLMServer(kind="openai", script=[glob, finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await run_turn(pilot, "find files")
            row = next(i for i, m in enumerate(app.query_one(HistoryView).messages) if m.role == "tool")
            screen = await open_history_row(pilot, row)
            assert isinstance(screen, StoredFullScreen) and app.is_running
            assert "**/*[/]*" in str(screen.query_one("#stored-full-header").render())


# Brackets no escape() can make safe: textual.markup.escape only escapes a whole tag (`[b]`), so a tag left open,
# as typed (`[/`) or by a cut at the label's width (`[@click=app.qu…`), still reached Textual's markup parser.
OPEN_TAGS = ("[/ what is this", "[x=1 hi", "[@click=app.bell")


async def test_a_queued_message_with_an_open_tag_shows_on_the_inputs_border(tmp_path):
    """Typed during a turn, `[/` and enter ended the app: the queue's line on the input's border was markup."""
    from tests.fakes.llm_server import Reply
    slow = Reply("Thought: " + "thinking very slowly " * 100 + "\nAction: Finish[done]", chunk_size=20, chunk_delay=0.2)
    with FakeLLMServer(kind="openai", script=[slow]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await type_and_send(pilot, "take your time")
            await wait_for(pilot, lambda: app.turns.running)
            prompt = app.query_one("#prompt")
            for text in OPEN_TAGS:
                await type_and_send(pilot, text)
                await pilot.pause()
                assert app.is_running and app._exception is None, text
            assert app.turns.running and OPEN_TAGS[0] in prompt._border_title.plain
            app.turns.stop()


async def test_the_palette_lists_a_project_command_whose_description_holds_markup(tmp_path):
    """ctrl+p read each command's line as markup: a project command's argument hint `[/path/to/file]` (or `[/]` in its
    description) ended the app at the one key, and a hint such as `[message]` vanished."""
    from textual.command import CommandPalette
    from textual.widgets import OptionList
    folder = tmp_path / "proj" / ".contextual" / "commands"
    folder.mkdir(parents=True)
    (folder / "odd.md").write_text(f"---\ndescription: {HOSTILE} {OPEN_TAGS[0]}\n"
                                   "argument-hint: [/path/to/file] [message]\n---\nhi\n")
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            def listed() -> str:
                if not isinstance(app.screen, CommandPalette):
                    return ""
                options = app.screen.query_one(OptionList)
                return "\n".join(str(options.get_option_at_index(i).prompt) for i in range(options.option_count))
            await pilot.press("ctrl+p")
            await wait_for(pilot, lambda: "/odd" in listed() or app._exception is not None)
            assert app._exception is None
            assert f"{HOSTILE} {OPEN_TAGS[0]}" in listed() and "[/path/to/file] [message]" in listed()
            await pilot.press(*"odd")                      # the search's highlighted lines too
            await wait_for(pilot, lambda: listed().startswith("/odd") or app._exception is not None)
            assert app._exception is None and "[message]" in listed()


async def test_the_context_screen_titles_a_message_with_an_open_tag(tmp_path):
    """ctrl+l titles each message with its first 60 columns: a message `[/ what is this` ended the app."""
    from textual.widgets import Collapsible
    from contextual.tui.screens.context_view import ContextScreen
    with FakeLLMServer(kind="openai", script=[finish("ok")] * 3) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            for text in OPEN_TAGS:
                await run_turn(pilot, text)
            await pilot.press("ctrl+l")
            await wait_for(pilot, lambda: isinstance(app.screen, ContextScreen) or app._exception is not None)
            assert app._exception is None
            titles = " ".join(str(c.title) for c in app.screen.query(Collapsible))
            assert all(text in titles for text in OPEN_TAGS), titles


async def test_an_answer_nested_past_the_markdown_limit_keeps_everything_after_it(tmp_path):
    # markdown-it stops at twenty levels of nesting (a list ten deep) and skipped the rest of the answer, the
    # table and code after it included, without a word: the answer ended at "level 8".
    from textual.widgets._markdown import MarkdownFence
    deep = "".join("  " * i + f"- level {i}\n" for i in range(12))
    answer = deep + "\n| name | value |\n|---|---|\n| tail-cell | 2 |\n\n```\nunterminated fence\n"
    with FakeLLMServer(kind="openai", script=[finish(answer)]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "nest it")
            shown = "\n".join(fence.code for fence in app.query(MarkdownFence))
            assert "level 11" in shown and "tail-cell" in shown and "unterminated fence" in shown, shown


async def test_an_escape_sequence_typed_or_pasted_into_a_message_never_reaches_the_terminal(tmp_path):
    # The chat's "you" line and the Scratchpad showed the message as typed: a pasted coloured log's ESC[31m and an
    # OSC title went to the terminal, which acted on them (colours, a new window title, a cleared screen).
    import re
    with FakeLLMServer(kind="openai", script=[finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_turn(pilot, "see \x1b[31mred\x1b[0m \x1b]0;title\x07 漢字\x1b[2J")
            lines = [w.render_line(y).text for w in app.screen.query("*") for y in range(w.size.height)]
            assert any("see red" in line and "漢字" in line for line in lines), lines
            assert not [line for line in lines if re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", line)]
            assert app.query_one("ScratchpadView").turns[-1].prompt == "see red  漢字"


async def test_stored_text_with_escape_sequences_reaches_no_screen_as_written(tmp_path):
    # History's rows, stored vs full (and its raw text), an opened message, /rewind and the compaction preview
    # showed messages and tool output as stored: a coloured log's ESC[31m went to the terminal, which acted on it.
    import re
    from contextual.tui.screens.compaction_preview import CompactionPreviewScreen
    from contextual.tui.screens.stored_full import StoredFullScreen
    from tests.tui_helpers import open_history_row

    def leaks() -> list[str]:
        lines = [w.render_line(y).text for w in app.screen.query("*") for y in range(w.size.height)]
        return [line for line in lines if re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", line)]

    root = tmp_path / "proj"
    root.mkdir()
    (root / "build.log").write_text("".join(f"step {i} \x1b[31mFAILED\x1b[0m\x07\n" for i in range(5)))
    script = ['Thought: read\nAction: Read[{"file_path": "build.log"}]', finish("done \x1b[32mgreen"),
              finish("two"), "SUMMARY: the log"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await run_turn(pilot, "read \x1b[31mbuild.log")
            await run_turn(pilot, "and then")
            assert not leaks()                                          # History's rows
            for row in (0, 3):                                          # a message opened from History
                await open_history_row(pilot, row)
                assert not leaks()
                await pilot.press("escape")
            assert isinstance(await open_history_row(pilot, 2), StoredFullScreen)
            assert not leaks() and "step 0 FAILED" in "\n".join(r.text for r in app.screen.query_one("#full").rows)
            await pilot.press("r")                                      # its raw text
            await pilot.pause()
            assert not leaks()
            await pilot.press("escape", "escape")
            app.query_one("#prompt").focus()
            await type_and_send(pilot, "/rewind")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "RewindPicker")
            assert not leaks()
            await pilot.press("escape")
            await type_and_send(pilot, "/compact")
            await wait_for(pilot, lambda: type(app.screen).__name__ in ("CompactChoice", "CompactionPreviewScreen"))
            if not isinstance(app.screen, CompactionPreviewScreen):
                await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionPreviewScreen))
            await pilot.pause()
            assert not leaks()


# Sequences a terminal acts on: a window title (OSC 0, ended by ST), then SGR 8, which hides what follows it.
TERMINAL = "\x1b]0;pwned\x1b\\\x1b[8mhidden\x1b[28m"


def control_lines(app) -> list[str]:
    """The lines the current screen draws that still hold a control character (the terminal would act on it)."""
    import re
    lines = [w.render_line(y).text for w in app.screen.query("*") for y in range(w.size.height)]
    return [line for line in lines if re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", line)]


async def test_a_checkouts_config_and_a_servers_model_names_reach_the_terminal_without_escape_sequences(
        tmp_path, monkeypatch):
    """Shown outside the events the router cleans, a cloned repository's .mcp.json set the terminal's title from the
    trust modal — before anything was approved — and SGR 8 hid part of the command it would run; its config.toml's
    model name did the same from the top bar and the welcome line (now from the trust modal: a checkout's model
    waits for approval, so the top bar's is the user's file's, the same name), its command's description from
    /help, the server's model names from /model, and the "not approved" lines from the chat (helper77)."""
    import json
    from contextual.core.config import load_config
    from contextual.tui.host import RealHost
    from contextual.tui.screens.model_picker import ModelPicker
    from contextual.tui.screens.trust import TrustModal
    from tests.fakes.server_flavors import Flavor
    monkeypatch.delenv("CONTEXTUAL_TRUST_PROJECT", raising=False)
    root = tmp_path / "proj"
    (root / ".contextual" / "commands").mkdir(parents=True)
    servers = {f"s{TERMINAL}": {"command": f"echo{TERMINAL} rm -rf ~"}}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    (root / ".contextual" / "config.toml").write_text(f"model = {json.dumps('m' + TERMINAL)}\n")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "config.toml").write_text(f"model = {json.dumps('m' + TERMINAL)}\n")
    (root / ".contextual" / "commands" / "odd.md").write_text(f"---\ndescription: d{TERMINAL}\n---\nhi\n")
    flavor = Flavor("vllm", n_ctx=32_768, others=((f"other{TERMINAL}", 65_536),))
    with FakeLLMServer(kind="openai", script=[finish("ok")], flavor=flavor) as srv:
        config = load_config(root, {"base_url": srv.base_url, "api_key": "sk-test"},
                             env={"CONTEXTUAL_HOME": str(tmp_path / "home")})
        app = ContextualApp(RealHost(config), animate=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, TrustModal))
            shown = str(app.screen.query_one("#trust-question").render())
            assert "echohidden rm -rf ~" in shown                # what would run, whole, as the terminal shows it
            assert "mhidden" in shown                            # the checkout's model, asked about
            assert not control_lines(app)
            await pilot.press("n")
            await wait_for(pilot, lambda: any("not approved" in str(n.render()) for n in app.query(".notice")))
            assert not control_lines(app)                        # the chat's lines, the top bar, the welcome
            assert "mhidden" in app.query_one("#topbar").render().plain
            await type_and_send(pilot, "/help")
            await wait_for(pilot, lambda: isinstance(app.screen, InfoScreen))
            assert "dhidden" in rendered(app.screen.body) and not control_lines(app)
            await pilot.press("escape")
            app.query_one("#prompt").focus()
            await type_and_send(pilot, "/model")
            await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker))
            await pilot.pause()
            assert not control_lines(app)
            await pilot.press("escape")
            app.query_one("#prompt").focus()
            await run_turn(pilot, "hello")                         # the session gets its file: it can be titled
            await type_and_send(pilot, f"/title t{TERMINAL}")      # a toast quotes what it was given
            await wait_for(pilot, lambda: any("title: t" in n.message for n in app._notifications))
            assert all("\x1b" not in n.message for n in app._notifications)
