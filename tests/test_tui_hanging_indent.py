"""Finding 15 of a user review: a wrapped line lost its indent (line 2 of a multi-line message started under "you",
the no-model welcome's bullets wrapped to the first column, a long result line in an expanded trail under "⎿").
Through the real app at 80x24, reading the lines each widget draws; and a selection still copies the text as
written, not the wrapped lines."""

from __future__ import annotations

from textual.app import App
from textual.geometry import Offset, Region
from textual.selection import Selection
from textual.widgets import Static

from contextual.tui.app import ContextualApp
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.hanging_text import HangingStatic
from contextual.tui.widgets.tool_trail import ToolTrail

from tests.tui_helpers import finish, make_host, run_turn, server, wait_for

SIZE = (80, 24)

LONG = "second line of the message, long enough that it has to wrap around at eighty columns for sure"
RULE = "=" * 30 + " short test summary info " + "=" * 30


def drawn(widget) -> list[str]:
    """The widget's lines as drawn (its padding included), trailing spaces dropped."""
    return [strip.text.rstrip() for strip in widget.render_lines(Region(0, 0, *widget.outer_size))]


def starts(line: str) -> int:
    return len(line) - len(line.lstrip())


async def test_a_multi_line_message_and_a_wrapped_result_row_keep_their_indent(tmp_path):
    bash = 'Thought: run it\nAction: Bash[{"command": "printf \'%s\\\\nFAILED a.py\\\\n\' \'' + RULE + '\'"}]'
    with server([finish("noted"), bash, finish("ran")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, permission_mode="bypass"), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, f"first line\n{LONG}")
            user = app.query_one(ChatLog).query(".user").last()
            lines = drawn(user)
            assert lines[0].startswith(" you  first line") and len(lines) >= 3     # line 2 wraps
            assert {starts(line) for line in lines[1:]} == {6}        # under "first", not under "you"
            assert " ".join(line.strip() for line in lines[1:]) == LONG

            await run_turn(pilot, "run it")
            trail = app.query_one(ChatLog).query(ToolTrail).last()
            trail.collapsed = False
            await pilot.pause()
            rows = drawn(trail.query_one(".trail-lines", Static))
            at = next(i for i, row in enumerate(rows) if "⎿" in row)
            rule, rest, failed = rows[at + 1:at + 4]
            assert rule.strip().startswith("===") and set(rest.strip()) == {"="} and failed.strip() == "FAILED a.py"
            # the rule's second part goes on under its first, as the result's other rows do, not at the row's start
            assert starts(rule) == starts(rest) == starts(failed) == rows[at].index("⎿") + 2
            assert starts(rows[1]) == 2 and rows[0].startswith("✓ Bash")     # a long call wraps under its tool


async def test_the_no_model_welcome_keeps_its_bullets_hanging(tmp_path):
    app = ContextualApp(make_host(tmp_path, None, model=None), animate=False)
    async with app.run_test(size=SIZE) as pilot:
        await app.startup.started()
        chat = app.query_one(ChatLog)
        await wait_for(pilot, lambda: any("Set a model" in str(w.render()) for w in chat.query(Static)))
        notice = next(w for w in chat.query(Static) if "Set a model" in str(w.render()))
        lines = drawn(notice)
        bullets = [i for i, line in enumerate(lines) if line.lstrip().startswith("• ")]
        assert len(bullets) == 3 and any(lines[i + 1].strip() and "•" not in lines[i + 1] for i in bullets)
        for i in bullets:                 # a bullet's wrapped lines start under its text
            for line in lines[i + 1:next((b for b in bullets if b > i), len(lines))]:
                if line.strip() and not line.lstrip().startswith(("model =", "base_url =")):
                    assert starts(line) == lines[i].index("•") + 2, line
                elif not line.strip():
                    break


async def test_a_selection_copies_the_text_as_written_not_the_wrapped_lines():
    text = f"you  first line\n{LONG}"

    class One(App):
        def compose(self):
            yield HangingStatic(text, 5, 5)

    app = One()
    async with app.run_test(size=(40, 10)):
        widget = app.query_one(HangingStatic)
        assert len(drawn(widget)) > 3
        assert widget.get_selection(Selection(None, None)) == (text, "\n")
        # from "second" (the second line drawn, under "first") to the end of the third line drawn
        third = drawn(widget)[2]
        chosen = widget.get_selection(Selection(Offset(5, 1), Offset(len(third), 2)))
        assert chosen is not None and chosen[0] == LONG[:LONG.index(third.strip()) + len(third.strip())]
