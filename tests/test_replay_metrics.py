import json

import pytest

from contextual.core.replay.metrics import (Figures, RecallPair, billed_tokens, call_figures, identifiers, lines_recalled,
                                 measure, prompt_common_prefix, recall_pairs, recalled)
from contextual.core.tokens import count


def msg(role, content):
    return {"role": role, "content": content}


def test_identifiers_follow_the_readme_regex():
    assert identifiers("see ./foo/bar.py. then x_y- and abc, run_tests") == {"foo/bar.py", "then", "x_y", "run_tests"}
    assert identifiers("a1 b2c") == set()


def test_billed_prices_the_common_prefix_share_at_a_tenth():
    assert count("hello world") == 2 and count("hello there") == 2
    first = [msg("user", "hello world")]                                   # "userhello world": 15 chars
    second = first + [msg("assistant", "hello there")]                     # 35 chars, 15 shared
    changed = [msg("user", "hello World"), msg("assistant", "hello there")]  # 35 chars, "userhello " shared
    figures = call_figures([first, second, changed])
    assert figures.calls == 3
    assert figures.prompt_tokens == 6 + 12 + 12
    assert figures.peak_prompt == 12
    expected = 6 + 12 * (1 - 0.9 * 15 / 35) + 12 * (1 - 0.9 * 10 / 35)
    assert figures.billed_tokens == pytest.approx(expected)


def test_common_prefix_crosses_message_boundaries_like_the_concatenated_text():
    # "user"+"ab" then "user"+"c"  vs  "user"+"abuserc": the concatenations are equal.
    a = [msg("user", "ab"), msg("user", "c")]
    b = [msg("user", "abuserc")]
    assert prompt_common_prefix(a, b) == len("userabuserc")
    assert prompt_common_prefix(a, a) == len("userabuserc")
    assert billed_tokens(10, 0, 0) == 10


PREAMBLE = ["system prompt mentions sys_ident"]
TASK = "fix thing_in_task"
RESPONSES = ["run grep foo_bar",
             "edit path/to/file.py secret_name thing_in_task foo_bar sys_ident",
             "cat path/to/file.py"]
OUTPUTS = ["found secret_name in path/to/file.py", "done", "contents"]


def test_recall_pairs_classify_by_first_appearance():
    pairs = recall_pairs(PREAMBLE, TASK, RESPONSES, OUTPUTS)
    line = ("found secret_name in path/to/file.py",)
    assert pairs == [RecallPair(1, "foo_bar", "action"),
                     RecallPair(1, "path/to/file.py", "observation", line),
                     RecallPair(1, "secret_name", "observation", line)]
    # Step 2's path first appeared in an observation, then in an action: neither kind (README wording).


def test_line_recall_needs_a_whole_line_not_a_bag_of_names():
    pairs = [p for p in recall_pairs(PREAMBLE, TASK, RESPONSES, OUTPUTS) if p.kind == "observation"]
    head = [msg("system", PREAMBLE[0]), msg("user", TASK), msg("assistant", RESPONSES[0])]
    names_only = head + [msg("user", "[names] secret_name path/to/file.py")]
    whole_line = head + [msg("user", "12:   found secret_name in path/to/file.py  ")]
    escaped = head + [msg("user", '{"out": "x\\nfound secret_name in path/to/file.py\\n"}')]
    assert recalled(pairs, {1: names_only}) == [True, True]
    assert lines_recalled(pairs, {1: names_only}) == [False, False]
    assert lines_recalled(pairs, {1: whole_line}) == [True, True]       # a line-number prefix is fine
    assert lines_recalled(pairs, {1: escaped}) == [True, True]          # JSON escapes decoded
    figures = measure([names_only, names_only], [0, 1], pairs)
    assert (figures.recall, figures.line_recall) == (1.0, 0.0)


def test_recall_counts_what_the_context_for_that_action_still_holds():
    pairs = recall_pairs(PREAMBLE, TASK, RESPONSES, OUTPUTS)
    head = [msg("system", PREAMBLE[0]), msg("user", TASK), msg("assistant", RESPONSES[0])]
    dropped = head + [msg("user", "[Old observation omitted]")]
    kept = head + [msg("user", "Observation: " + json.dumps({"stdout": "found\nsecret_name\npath/to/file.py"}))]
    lost = measure([head, dropped], [0, 1], pairs)
    assert (lost.recall_hits, lost.recall_total, lost.action_hits, lost.action_total) == (0, 2, 1, 1)
    assert lost.recall == 0.0 and lost.action_recall == 1.0
    # JSON-escaped newlines ("\nsecret_name") still count as the identifier.
    found = measure([head, kept], [0, 1], pairs)
    assert found.recall == 1.0


def test_figures_pool_by_sums_not_by_mean_of_ratios():
    one = Figures(calls=1, prompt_tokens=10, recall_hits=1, recall_total=1, peak_prompt=10)
    two = Figures(calls=2, prompt_tokens=30, recall_hits=0, recall_total=3, peak_prompt=20)
    pooled = one + two
    assert pooled.recall == 0.25 and pooled.prompt_tokens == 40 and pooled.peak_prompt == 20
    assert Figures().recall is None
    assert pooled.as_dict()["recall"] == 0.25
