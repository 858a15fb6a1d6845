"""The ReAct parser (seed 002 E1) as the only reader of `Finish[...]`: hostile and Markdown-rich replies."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings, strategies as st

from contextual.core.react import AnswerStream, ReactFormatError, finish_so_far, parse_reply, step_text, stored_action

TOOLS = frozenset({"Read", "Bash", "Grep"})


def test_finish_followed_by_another_action_answers_with_the_finish_text_only():
    reply = 'Thought: done\nAction: Finish[All good.]\nAction: Bash[{"command": "rm -rf /"}]\n'
    parsed = parse_reply(reply, TOOLS)
    assert parsed.tool == "Finish" and parsed.args == "All good."
    assert "Bash" not in parsed.text


def test_code_fences_and_inner_spacing_in_a_final_answer_are_kept():
    answer = "Here:\n\n```python\ndef f(x):\n    return [x,  x]\n```\n\n| a |  b |\n|---|---|"
    parsed = parse_reply(f"Thought: ok\nAction: Finish[{answer}]", TOOLS)
    assert parsed.args == answer


def test_an_action_line_inside_a_fenced_answer_is_part_of_the_answer():
    answer = "Write it like this:\n```\nAction: Read[{\"file_path\": \"a.py\"}]\n```\nthen wait."
    assert parse_reply(f"Action: Finish[{answer}]", TOOLS).args == answer


def test_a_reply_wrapped_in_a_fence_still_parses():
    parsed = parse_reply("```\nThought: t\nAction: Finish[the answer]\n```", TOOLS)
    assert parsed.args == "the answer" and parsed.thought == "t"
    fenced_action = parse_reply('Thought: t\n```\nAction: Bash[{"command": "ls"}]\n```', TOOLS)
    assert fenced_action.thought == "t" and fenced_action.args == {"command": "ls"}


def test_a_code_block_inside_the_thought_keeps_its_fences():
    thought = "The field is:\n\n```python\nclass Field:\n    pass\n```\n\nI will read the rest."
    parsed = parse_reply(f'Thought: {thought}\nAction: Bash[{{"command": "ls"}}]', TOOLS)
    assert parsed.thought == thought
    assert parse_reply(f"```\nThought: {thought}\nAction: Finish[ok]\n```", TOOLS).thought == thought


def test_a_3000_deep_nested_action_is_a_format_error_not_a_crash():
    deep = '{"a": ' * 3000 + "1" + "}" * 3000
    with pytest.raises(ReactFormatError, match="nested"):
        parse_reply(f"Thought: x\nAction: Read[{deep}]", TOOLS)


def test_brackets_inside_json_strings_do_not_count_as_nesting():
    args = '{"pattern": "' + "[" * 500 + '"}'
    assert parse_reply(f"Action: Grep[{args}]", TOOLS).args == {"pattern": "[" * 500}


ANSWER = st.lists(st.sampled_from(list("ab ]\n`[x") + ["```", "\n```\n", "\nAction: Read[{}]"]), max_size=30).map("".join)


@given(ANSWER, st.sampled_from(["", "\nAction: Bash[{\"command\": \"ls\"}]", "\n```"]))
@settings(max_examples=150, deadline=None)
def test_streamed_answer_is_always_a_prefix_of_the_final_answer(answer, tail):
    reply = f"Thought: t\nAction: Finish[{answer}]{tail}"
    try:
        final = parse_reply(reply, TOOLS).args
    except ReactFormatError:
        return
    for cut in range(len(reply) + 1):
        so_far = finish_so_far(reply[:cut])
        assert so_far is None or final.startswith(so_far), (reply[:cut], so_far, final)


def test_streaming_names_no_answer_for_a_tool_step():
    assert finish_so_far('Thought: x\nAction: Read[{"file_path": "a"}]') is None
    assert finish_so_far("Thought: still thinking") is None
    assert finish_so_far("Thought: x\nAction: Finish[Hello wor") == "Hello wor"


@given(ANSWER, st.integers(1, 7))
@settings(max_examples=100, deadline=None)
def test_the_answer_stream_sends_a_prefix_of_the_final_answer_in_any_chunking(answer, size):
    reply = f"Thought: t\nAction: Finish[{answer}]"
    stream = AnswerStream()
    sent = "".join(stream.feed(reply[i:i + size]) for i in range(0, len(reply), size))
    try:
        final = parse_reply(reply, TOOLS).args
    except ReactFormatError:
        return
    assert final.startswith(sent) and len(final) - len(sent.rstrip()) <= len(final) - len(final.rstrip("] \n"))


def test_the_answer_stream_stops_reading_a_tool_step():
    stream = AnswerStream()
    assert stream.feed('Thought: write\nAction: Write[{"file_path": "a", ') == ""
    assert stream._tool_step
    assert stream.feed('"content": "Action: Finish[no]"}]') == ""


def test_a_hermes_tool_call_block_is_a_format_error_that_gives_the_action_line_it_means():
    """CONTRACT.md: anything but `Action:` is a format error; the error names the line to write instead."""
    tools = frozenset({"Read", "LS"})
    with pytest.raises(ReactFormatError) as said:
        parse_reply('<think>first</think>Let me look.\n<tool_call>\n{"name": "Read", "arguments": '
                    '"{\\"file_path\\": \\"a.py\\"}"}\n</tool_call>', tools)
    assert str(said.value).endswith('Write that call as:\nAction: Read[{"file_path": "a.py"}]')
    assert parse_reply('Thought: x\nAction: LS[{}]\n<tool_call>{"name": "Read", "arguments": {}}</tool_call>',
                       tools).tool == "LS", "an Action line comes first"
    for broken, told in [('<tool_call>{"name": "Read", "arguments": {"file_pa', "`Action: <Tool>[<one JSON object>]` (LS, Read)"),
                         ('<tool_call>{"name": "Finish", "arguments": {"answer": "x"}}</tool_call>', "end with `Action: Finish["),
                         ('<tool_call>{"name": "Nope", "arguments": {}}</tool_call>', "(LS, Read)")]:
        with pytest.raises(ReactFormatError, match=re.escape(told)):
            parse_reply(broken, tools)


def test_action_lines_after_the_first_are_counted_not_run():
    tools = frozenset({"Read", "LS"})
    two = 'Thought: both\nAction: Read[{"file_path": "a"}]\nAction: LS[{}]\nThought: and\nAction: Read[{"file_path": "b"}]'
    parsed = parse_reply(two, tools)
    assert (parsed.tool, parsed.args, parsed.more_actions) == ("Read", {"file_path": "a"}, 2)
    assert parse_reply('Thought: one\nAction: LS[{}]', tools).more_actions == 0
    invented = 'Thought: x\nAction: LS[{}]\nObservation: made up\nAction: Read[{"file_path": "b"}]'
    assert parse_reply(invented, tools).more_actions == 0, "what follows an invented Observation is not the model's"


# thought lines that quote the protocol: the parser takes none of them for the step's Action
QUOTING = st.sampled_from(["That Action: failed.", "Action: read it again", "  Action: Read next", "Action:",
                           "see `Action: Bash[{}]` above", "**Action**: look", "Thought: again", "```", ""])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(QUOTING, st.text(max_size=12)), max_size=6),
       st.dictionaries(st.text(max_size=4), st.text(max_size=8), max_size=2), st.sampled_from(sorted(TOOLS)))
def test_a_stored_step_reads_back_as_it_was_parsed_whatever_its_thought_quotes(lines, args, tool):
    """History keeps the step text parse_reply wrote; every module reads it back through stored_action (the turn's
    forms, the fold, the summary's facts and files, the history screen), so all read the Action parse_reply ran."""
    reply = "Thought: " + "\n".join(lines) + f"\nAction: {tool}[{json.dumps(args)}]"
    try:
        parsed = parse_reply(reply, TOOLS)
    except ReactFormatError:        # a quoted line the parser reads as the Action, cut short: no step is stored
        return
    found = stored_action(parsed.text)
    assert found is not None and (found.thought, found.tool, found.args) == (parsed.thought, parsed.tool, parsed.args)
    assert step_text(found.thought, found.call) == parsed.text


def test_a_stored_step_with_a_quoting_thought_reads_its_real_action():
    parsed = parse_reply('Thought: That Action: failed.\nAction: read a.py again\nAction: Read[{"file_path": "a.py"}]',
                         TOOLS)
    found = stored_action(parsed.text)
    assert found is not None and found.tool == "Read" and found.args == {"file_path": "a.py"}
    assert found.thought == "That Action: failed.\nAction: read a.py again"
    assert stored_action("I will read it. Action: later") is None      # a reply that was no action
