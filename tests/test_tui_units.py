"""Pure helpers of the TUI: observation alignment, answer extraction, commands, path completion."""

from __future__ import annotations

import json

import pytest

from contextual.tui import commands
from contextual.tui.format import call_label, tokens
from contextual.tui.observation import align, readable_lines
from contextual.tui.widgets.prompt_input import match_paths, project_paths


def test_readable_lines_expand_nested_multiline_strings():
    payload = json.dumps({"status": "success", "data": {"path": "a.py", "content": "x\ny"}, "stats": {}})
    assert readable_lines(payload) == ['status: "success"', "data:", '  path: "a.py"', "  content:", "    x", "    y",
                                       "stats: {}"]
    assert readable_lines("not json\nat all") == ["not json", "at all"]


def test_align_keeps_panes_the_same_height_and_marks_the_gap():
    full = [f"line {i}" for i in range(10)]
    stored = full[:3] + ["[7 lines cut]"] + full[-1:]
    result = align(stored, full)
    assert len(result.stored) == len(result.full)
    assert result.dropped_lines == 6
    gap = [r.text for r in result.stored if r.kind == "gap" and r.text]
    assert gap == ["┄┄ 6 lines not stored ┄┄"]
    assert [r.text for r in result.full if r.kind == "dropped"] == full[3:9]


def test_final_answer_is_read_by_the_react_parser_unless_the_engine_gave_it():
    from contextual.core.messages import Message
    from contextual.tui.format import final_answer
    reply = "Thought: done\nAction: Finish[`total()` returns euros while\n\n```python\nx = 1\n```\n]"
    answer = final_answer(Message("assistant", reply, meta={"final": True}))
    assert answer.startswith("`total()` returns euros while")
    assert final_answer(Message("assistant", reply, meta={"final": True, "answer": "given"})) == "given"


def test_commands_parse_and_complete():
    table = commands.CommandTable()
    command, argument = table.parse("/compact keep the API notes")
    assert command.name == "/compact" and argument == "keep the API notes"
    assert table.parse("/nope") is None and table.parse("hello") is None
    assert [c.name for c in table.complete("/comp")] == ["/compact", "/compactions"]
    found = table.complete("/c")
    width = max(len(f"{c.name} {c.usage}".strip()) for c in found)
    labels = [commands.completion_label(c, width) for c in found]
    assert len({label.index(c.help) for label, c in zip(labels, found)}) == 1      # descriptions aligned


def test_path_completion(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "cart.py").write_text("")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("")
    paths = project_paths(tmp_path)
    assert "src/" in paths and "src/cart.py" in paths and not any(p.startswith(".git") for p in paths)
    assert match_paths(paths, "cart") == ["src/cart.py"]
    assert match_paths(paths, "src/") == ["src/cart.py"]      # a folder just completed lists what is in it


def test_token_figures():
    assert [tokens(n) for n in (None, 12, 1234, 200_000)] == ["–", "12", "1.2k", "200k"]


def test_a_project_file_is_named_from_the_project_through_a_link_and_any_other_whole(tmp_path):
    """/permissions and /hooks name files one way: the project's from its folder, even where the folder was given
    through a link (the files are found resolved), a file elsewhere by its whole path."""
    from contextual.tui.format import project_path
    real = tmp_path / "real"
    (real / ".contextual").mkdir(parents=True)
    (tmp_path / "link").symlink_to(real)
    assert project_path(real / ".contextual" / "config.toml", tmp_path / "link") == ".contextual/config.toml"
    assert project_path(tmp_path / "home" / "config.toml", real) == str(tmp_path / "home" / "config.toml")


def test_a_fork_is_said_with_short_ids_in_one_wording():
    from contextual.tui.format import forked_line, short_id
    parent, child = "1a2b3c4d-0000-4000-8000-000000000001", "5e6f7a8b-0000-4000-8000-000000000002"
    assert short_id(parent) == "1a2b3c4d"
    assert forked_line(parent, child, "goes on") == "forked session 1a2b3c4d into 5e6f7a8b: goes on"


def test_a_read_line_shows_the_files_own_number_once():
    from contextual.tui.observation import file_numbered, gutter_width, numbered_line
    read_line = "    " + "  1482\tdef total_494(items):"
    assert file_numbered(read_line) == ("1482", "def total_494(items):")
    assert file_numbered("  content:") is None and file_numbered("12 apples\tand pears") is None
    width = gutter_width([read_line, "  content:"], rows=9)
    assert width == 4
    assert numbered_line(read_line, 1486, width).plain == "1482│def total_494(items):"     # no view row number
    assert numbered_line("  content:", 9, width).plain == "   9   content:"
    assert numbered_line("  content:", None, width).plain == "  content:"


def test_a_read_line_wider_than_the_scratchpad_wraps_under_its_code_not_under_the_line_numbers():
    """At 100x30 the scratchpad's "899│return sum(i.price for i in items) *" went on at column 0 with "299", under
    the numbers, as if it were a line of its own."""
    from rich.console import Console
    from contextual.tui.observation import HangingLines, gutter_width
    lines = ["[ok]", "   898\tdef total_299(items):", "   899\t    return sum(i.price for i in items) * 299",
             "a line that is not numbered wraps as it always did, from the start"]
    console = Console(width=30, record=True, color_system=None)
    console.print(HangingLines(lines, gutter_width(lines, rows=1)))
    assert [line.rstrip() for line in console.export_text().splitlines()] == [
        "[ok]",
        "898│def total_299(items):",
        "899│    return sum(i.price for",
        "   │i in items) * 299",
        "a line that is not numbered",
        "wraps as it always did, from",
        "the start"]


def _shown(messages, **figures):
    from contextual.tui.prompt_view import Shown
    defaults = dict(layers={"L1": 100, "L3": 50}, total=150, window=20_000, estimate=15_000, threshold=16_000,
                    due=False, warn_at=14_000)
    defaults.update(figures)
    return Shown(messages=tuple(messages), **defaults)


def test_context_view_reads_like_a_document():
    from rich.markdown import Markdown
    from rich.syntax import Syntax
    from contextual.tui.prompt_view import ShownMessage
    from contextual.tui.screens.context_view import first_change, render_content, totals
    a = ShownMessage("system", "L1", "You are…", 100)
    b = ShownMessage("user", "L3", "question", 20)
    c = ShownMessage("user", "L3", 'Observation: {"status": "success", "data": {"content": "x\\ny"}}', 30,
                     form="stored", source="m3", tool="Read", path="cart.py")
    assert first_change((a, b, c), (a, b)) == 2 and first_change((a, c), (a, b)) == 1
    assert first_change((a,), None) is None
    readable = render_content(c.content)
    assert isinstance(readable, Syntax) and "content:\n    x\n    y" in readable.code      # real newlines
    assert isinstance(render_content("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"), Syntax)
    assert isinstance(render_content("Done:\n\n```python\nx = 1\n```"), Markdown)
    sums = totals(_shown([a, b, c]))
    assert sums["layer"] == {"L1": 100, "L3": 50} and sums["tool"] == {"Read": 30} and sums["file"] == {"cart.py": 30}


def test_meter_names_both_figures_with_cache_and_cost():
    from contextual.tui.widgets.token_meter import meter_text
    text = meter_text(_shown([], cached_tokens=1200, cost=0.0123), 120).plain
    first, second = text.split("\n")
    assert "trigger estimate" in first and "15.0k of 16.0k trigger line (94%)" in first
    assert "compaction at the next message" not in first
    assert second.startswith(" next prompt 150 of 20.0k window") and "cached 1.2k" in second and "$0.0123" in second
    due = meter_text(_shown([], estimate=16_500, due=True), 120).plain
    assert "compaction at the next message" in due
    for width in (80, 90, 100, 200):      # each line fits the terminal: nothing wraps onto the next prompt's line
        lines = meter_text(_shown([], estimate=16_500, due=True, cached_tokens=1200, cost=0.0123), width).plain
        first = lines.split("\n")[0]
        assert len(first) <= width and "16.5k" in first and "(103%)" in first, (width, first)
        assert "compaction at the next message" in first or "compaction at next message" in first
    assert _shown([], estimate=14_000).level == "warn" and _shown([], estimate=13_000).level == "ok"


def test_the_meter_says_the_same_words_at_every_width_fewer_of_them_when_narrow():
    """At 80 columns the meter said "estimate … / 5.8k trigger" and "sending …", at 200 "trigger estimate … of
    160k trigger line" and "next prompt …" (user review): a narrow meter may drop words, never use others."""
    import re
    from contextual.tui.widgets.token_meter import meter_text

    def words(text: str) -> set[str]:
        return set(re.findall(r"[a-z]+", text.lower()))
    states = [_shown([]), _shown([], estimate=16_500, due=True, cached_tokens=1200, cost=0.0123),
              _shown([], estimate=17_000, compactable=False, total=12_000), _shown([], estimate=17_000),
              _shown([], basis="usage", server_factor=1.17)]
    for shown in states:
        wide = words(meter_text(shown, 200).plain)
        for width in (80, 90, 100, 120):
            narrow = meter_text(shown, width).plain
            assert words(narrow) <= wide, (width, words(narrow) - wide, narrow)
            assert narrow.split("\n")[1].startswith(" next prompt "), narrow


def test_the_one_line_meter_fits_and_says_the_two_lines_words_first_things_first():
    """Under 30 rows the meter is one line: the first line whole, then the next prompt's size and the cost while
    the bar keeps its columns; a compaction's hint before the next prompt's size, and no word the two lines do not
    say."""
    import re
    from contextual.tui.widgets.token_meter import ONE_LINE_BAR, meter_line, meter_text
    states = [_shown([]), _shown([], estimate=16_500, due=True, cached_tokens=1200, cost=0.0123),
              _shown([], estimate=17_000, compactable=False, total=12_000), _shown([], basis="usage", server_factor=1.17)]
    for shown in states:
        wide = set(re.findall(r"[a-z]+", meter_text(shown, 200).plain.lower()))
        for width in (40, 60, 80, 100, 120, 200):
            line, first = meter_line(shown, width).plain, meter_text(shown, width).plain.split("\n")[0]
            # no longer than the screen, or than the first line where that is cut (an ellipsis, as it was)
            assert "\n" not in line and len(line) <= max(width, len(first)), (width, line)
            assert set(re.findall(r"[a-z]+", line.lower())) <= wide, (width, line)
            assert line.startswith(first.split("▕")[0] + "▕") and first.split("▏")[1] in line, (width, line)
            if "next prompt" in line:
                assert line.index("▏") - line.index("▕") - 1 >= ONE_LINE_BAR, (width, line)
    assert "next prompt 150 of 20.0k window" in meter_line(_shown([]), 120).plain
    # at 80 columns the cost stays, as on the two lines: the size gives up "of … window" for it
    assert meter_line(_shown([], cost=0.0123), 80).plain.endswith("  next prompt 150  $0.0123")
    due = meter_line(_shown([], estimate=16_500, due=True), 80).plain
    assert "compaction at next message" in due and "(103%)" in due and "next prompt" not in due


def test_meter_says_when_counts_are_calibrated_to_the_server():
    from contextual.tui.widgets.token_meter import meter_text
    assert "calibrated" not in meter_text(_shown([]), 120).plain
    calibrated = meter_text(_shown([], server_factor=1.17), 160).plain
    # one unit on the line, ours (the window of 20,000 server tokens holds 17,094 of ours), and both figures again
    # in the server's (helper-133: "next prompt 4.5k of 8.2k window" compared ours with the server's)
    assert "next prompt 150 of 17.1k window" in calibrated
    assert "≈176 of 20.0k server tokens (×1.17)" in calibrated      # 150 counted × 1.17


async def test_the_router_refuses_an_event_kind_it_does_not_know():
    """Events are matched exhaustively (match + assert_never): a new kind the router forgot fails loudly."""
    from contextual.tui.router import EventRouter

    class Unknown:
        pass

    # nothing is touched before the match fails
    router = EventRouter(None, None, None, None)      # type: ignore[arg-type]
    with pytest.raises(AssertionError):
        await router.route(Unknown())      # type: ignore[arg-type]


def test_a_summary_row_has_its_compactions_number_even_after_a_cut_without_a_summary():
    from types import SimpleNamespace
    from contextual.core.messages import Message
    from contextual.tui.widgets.history_view import message_row, summary_numbers
    first, third = Message("summary", "## Summary\\nfirst"), Message("summary", "## Summary\\nthird")
    history = [first, third, Message("user", "go on")]
    log = [SimpleNamespace(fallback=None), SimpleNamespace(fallback="Summary cancelled"), SimpleNamespace(fallback=None)]
    numbers = summary_numbers(history, log)
    assert numbers == {first.id: 1, third.id: 3}
    assert "#3 " in message_row(third, 1, number=numbers[third.id]).plain


def test_the_queue_joins_lines_past_twenty_into_its_last_message():
    from contextual.tui.queued import MAX_QUEUED, Queued
    queued = Queued()
    for i in range(MAX_QUEUED + 30):          # a 50-line paste sent without bracketed paste: 50 enters
        queued.add(f"line {i}")
    assert len(queued.texts) == MAX_QUEUED
    assert queued.texts[-1].splitlines() == [f"line {i}" for i in range(MAX_QUEUED - 1, MAX_QUEUED + 30)]
    assert "line 0" == queued.texts[0]                                  # nothing lost


def test_a_paste_is_held_by_its_lines_whatever_ends_them_and_expanded_once():
    from contextual.tui.pasted import INLINE_CHARS, INLINE_LINES, Pastes, too_long
    assert not too_long("x" * INLINE_CHARS) and too_long("x" * (INLINE_CHARS + 1))
    assert not too_long("a\n" * INLINE_LINES) and too_long("a\r" * (INLINE_LINES + 1))   # a terminal's \r ends
    pastes = Pastes()
    tag = pastes.hold("one\rtwo\r\nthree")
    assert tag == "[pasted #1 · 3 lines]"
    sneaky = pastes.hold("[pasted #1 · 3 lines]" + "y" * INLINE_CHARS)   # a paste holding a tag's words
    assert sneaky.startswith("[pasted #2 · ")
    assert pastes.expand(f"see {tag} and {sneaky}") == ("see one\ntwo\nthree and [pasted #1 · 3 lines]"
                                                          + "y" * INLINE_CHARS)
    assert pastes.expand("[pasted #9 · 3 lines] typed") == "[pasted #9 · 3 lines] typed"   # not held: as typed


def test_remembered_inputs_stay_small_enough_to_read_at_every_input(tmp_path):
    from contextual.tui.remembered import MAX_INPUT_CHARS, MAX_INPUTS_CHARS, Remembered
    remembered = Remembered(tmp_path / "home", tmp_path)
    remembered.add_input("first")
    remembered.add_input("x" * (MAX_INPUT_CHARS + 1))            # a pasted log: this run's history only
    assert remembered.inputs() == ["first"]
    for i in range(15):
        remembered.add_input(f"{i:02d}" + "y" * (MAX_INPUT_CHARS - 2))
    kept = remembered.inputs()
    assert sum(map(len, kept)) <= MAX_INPUTS_CHARS and kept[-1].startswith("14") and "first" not in kept
    assert remembered.inputs_path.stat().st_size <= MAX_INPUTS_CHARS + 1_000


def test_undo_names_the_files_a_turn_edited_and_counts_its_commands():
    from contextual.core.messages import Message
    from contextual.tui.slash.undo import what_it_changed

    def call(tool: str, turn: str = "t1", **args) -> Message:
        return Message("assistant", "", meta={"turn": turn, "tool_name": tool, "args": args})
    record = [Message("user", "go", meta={"turn": "t1"}), call("Write", file_path="a.py"),
              call("Edit", file_path="a.py"), call("Bash", command="make"), call("Bash", command="make test"),
              call("Edit", turn="t0", file_path="old.py"), call("Read", file_path="b.py")]
    # what the commands changed unknown (no snapshot read): said so that it holds either way
    assert what_it_changed("t1", record) == "It edited a.py and ran 2 commands, whose changes, if any, go back too.\n"
    from contextual.core.snapshot.turn_diff import TurnDiff
    assert what_it_changed("t1", record, TurnDiff("git", ("a.py",))) == "It edited a.py and ran 2 commands.\n"
    assert what_it_changed("t1", record, TurnDiff("git", ("a.py", "out/b", "c"))) == (
        "It edited a.py and ran 2 commands, which changed out/b, c: they go back too.\n")
    assert what_it_changed("t1", record, TurnDiff("copy", ("a.py",))) == (
        "It edited a.py and ran 2 commands; what commands change outside git is not recorded, so it stays.\n")
    assert what_it_changed("t0", record) == "It edited old.py.\n"
    assert what_it_changed("t9", record) == ""
    many = [call("Write", file_path=f"f{i}.py") for i in range(8)]
    assert what_it_changed("t1", many) == "It edited f0.py, f1.py, f2.py, f3.py, f4.py, f5.py and 2 more.\n"


async def test_text_handed_back_with_a_paste_tag_in_it_keeps_the_paste():
    """A queued message handed back is joined to the input's text; a tag there went inside a new tag, never to be
    expanded again: the paste it stood for was lost."""
    from textual.app import App

    from contextual.tui.widgets.prompt_input import PromptInput

    class Host(App):
        def compose(self):
            yield PromptInput()

    async with Host().run_test() as pilot:
        prompt = pilot.app.query_one(PromptInput)
        tag = prompt.pastes.hold("p" * 5_000)
        prompt.put("queued " + "q" * 3_000 + "\n\nmine: " + tag)
        assert prompt.text.startswith("[pasted #2 · ")
        prompt.submit()
        await pilot.pause()
        assert prompt.past[-1] == "queued " + "q" * 3_000 + "\n\nmine: " + "p" * 5_000


def test_a_call_label_is_its_telling_argument_and_nothing_for_a_call_without_arguments():
    """The chat's trail read "LS {} · 2 entries" for a listing of the root."""
    assert call_label({}) == ""
    assert call_label({"path": "src"}) == "src"
    assert call_label({"command": "pytest -q", "timeout": 60}) == "pytest -q"
    assert call_label({"todos": []}) == '{"todos": []}'


def test_a_history_row_for_a_call_without_arguments_has_no_gap_where_they_would_be():
    """History read `▸ LS  · full 27` (two spaces) for a listing of the root."""
    from contextual.core.messages import Message
    from contextual.tui.widgets.history_view import message_row
    plain = message_row(Message("tool", "a.py\nb.py", meta={"args": {}, "tool_name": "LS"}), 0).plain
    assert "LS · " in plain and "  " not in plain, plain
    named = message_row(Message("tool", "x", meta={"args": {"path": "src"}, "tool_name": "LS"}), 0).plain
    assert "LS src · " in named, named
