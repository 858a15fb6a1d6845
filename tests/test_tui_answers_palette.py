"""What issue 29.7 found on screen, through the real app, engine and fake server: a fenced ```diff in an answer
is drawn in colour (deleted lines in the error colour, inserted in the success colour); the palette has no
second Theme entry beside /theme, and its Screenshot writes under $CONTEXTUAL_HOME/screenshots and says where."""

from __future__ import annotations

from textual.command import CommandPalette
from textual.widgets import Label, OptionList

from contextual.tui.app import ContextualApp
from contextual.tui.widgets.answer_markdown import AnswerFence

from tests.tui_helpers import READ_CART, SIZE, finish, make_host, run_turn, server, wait_for

DIFF_ANSWER = "Changed it:\n\n```diff\n@@ -1 +1 @@\n-return euros\n+return cents\n```"


def styles_of(content, text: str, line: str) -> set[str]:
    start = text.index(line)
    return {str(span.style) for span in content.spans if span.start <= start and span.end >= start + len(line)}


async def test_a_fenced_diff_in_an_answer_is_coloured(tmp_path):
    with server([finish(DIFF_ANSWER)]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "fix it")
            await wait_for(pilot, lambda: bool(app.query(AnswerFence)))
            fence = app.query_one(AnswerFence)
            shown = fence.query_one("#code-content", Label).render()
            text = str(shown)
            assert "-return euros" in text and "+return cents" in text
            assert "$text-error" in styles_of(shown, text, "-return euros")
            assert "$text-success" in styles_of(shown, text, "+return cents")


async def test_the_palette_has_one_theme_entry_and_a_screenshot_that_says_where(tmp_path):
    with server([]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            titles = [c.title for c in app.get_system_commands(app.screen)]
            assert "Theme" not in titles and "Screenshot" in titles and "Quit" in titles
            await pilot.press("ctrl+p")
            await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
            await pilot.press(*"Screenshot")
            hits = app.screen.query_one(OptionList)
            await wait_for(pilot, lambda: hits.option_count > 0
                           and "Screenshot" in str(hits.get_option_at_index(0).prompt))
            await pilot.press("enter")
            folder = app.config.home / "screenshots"
            await wait_for(pilot, lambda: folder.is_dir() and any(folder.glob("*.svg")))
            written = next(folder.glob("*.svg"))
            await wait_for(pilot, lambda: any(str(written) in str(n.message) for n in app._notifications))
            assert not list(app.config.project_root.glob("*.svg"))        # nothing left in the project


async def test_a_trail_wider_than_the_chat_ends_in_an_ellipsis(tmp_path):
    from textual.widgets._collapsible import CollapsibleTitle
    from contextual.tui.widgets.tool_trail import ToolTrail
    grep = 'Thought: g\nAction: Grep[{"pattern": "total_1", "path": "."}]'
    calls = [READ_CART] * 3 + [grep, 'Thought: g\nAction: Glob[{"pattern": "**/*.py"}]',
                               'Thought: g\nAction: LS[{"path": "."}]', grep, 'Thought: g\nAction: TodoWrite[{"todos": []}]']
    with server(calls + [finish("done")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=(100, 30)) as pilot:        # the chat is 47 columns: the title is 54
            await run_turn(pilot, "look around")
            trail = app.query_one(ToolTrail)
            assert trail.title == "8 tool calls · Read ×3, Grep ×2, Glob, LS, TodoWrite"
            title = trail.query_one(CollapsibleTitle)
            shown = title.render_line(0).text.rstrip()
            assert title.size.width <= trail.size.width
            assert shown.endswith("…") and "8 tool calls · Read ×3" in shown


HEADINGS = "\n\n".join(f"{'#' * level} Heading {level}\n\nText under {level}." for level in range(1, 7))


async def test_headings_in_an_answer_start_at_the_left_edge_and_stay_distinct(tmp_path):
    """A `# heading` was centred (Textual's default for H1), where Claude Code and Codex put every heading at the
    left edge, as the text under it (user review)."""
    from textual.widgets._markdown import MarkdownHeader, MarkdownParagraph
    with server([finish(HEADINGS)]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "show headings")
            await wait_for(pilot, lambda: len(app.query(MarkdownHeader)) == 6)
            await pilot.pause()
            headers = list(app.query(MarkdownHeader))
            text_x = app.query(MarkdownParagraph).first().content_region.x
            for level, header in enumerate(headers, 1):
                line = header.render_line(0).text
                assert line.startswith(f"Heading {level}"), (level, line)
                assert header.content_region.x == text_x
            looks = {(str(h.styles.color), str(h.styles.text_style)) for h in headers[:2]}
            assert len(looks) == 2             # H1 and H2 still read apart (colour or weight), not as plain text
