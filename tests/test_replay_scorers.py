"""The alternative scorers the measuring code uses beside the published one (core/replay/scorers.py), and the
re-read after an edit that the `newest` scorer checks (core/context/turn_forms.py)."""

import json

from contextual.core.context import compressor
from contextual.core.context.scratchpad import ScratchStep, shorten_action
from contextual.core.context.turn_forms import turn_stored
from contextual.core.replay.metrics import RecallPair, identifiers, measure, recall_pairs
from contextual.core.replay.scorers import (SCORERS, alternative_pairs, line_number, line_text, numbers_used,
                                            short_names, split_names)


def _step(command: str, output: str) -> ScratchStep:
    action = f"Thought: look\nAction: Bash[{json.dumps({'command': command})}]"
    data = {"command": command, "exit_code": 0, "stdout": output, "stderr": "", "timed_out": False,
            "stdout_dropped_bytes": 0, "stderr_dropped_bytes": 0, "duration": 0.0}
    result = {"status": "success", "data": data, "text": f"$ {command}\n{output}", "stats": {}, "context": {}}
    return ScratchStep(action, shorten_action(action), compressor.full_text(result),
                       compressor.stored_text("Bash", {"command": command}, result))


def msg(role, content):
    return {"role": role, "content": content}


def test_each_alternative_scorer_names_differently():
    text = "see pkg/util.py and df then run_tests"
    assert {"util", "run_tests"} <= split_names(text) and "pkg/util.py" not in split_names(text)
    assert {"df", "pkg/util.py"} <= short_names(text) and "df" not in identifiers(text)
    assert set(SCORERS) == {"split", "short", "newest", "numbers", "quoted"}


def test_newest_scorer_counts_only_the_newest_version_of_a_line():
    responses = ["cat a.py", "sed -i s/1/2/ a.py; cat a.py", "use limit_value"]
    outputs = ["limit_value = 1", "limit_value = 2", "ok"]
    published = recall_pairs([], "", responses, outputs)
    newest = [p for p in alternative_pairs([], "", responses, outputs) if p.scorer == "newest"]
    assert [p.lines for p in published if p.identifier == "limit_value"] == [("limit_value = 1", "limit_value = 2")]
    assert [p.lines for p in newest if p.identifier == "limit_value"] == [("limit_value = 2",)]
    # A prompt that still shows only the old line passes the published scorer and fails the newest one.
    stale = [msg("user", "t"), msg("assistant", responses[0]), msg("user", outputs[0]),
             msg("assistant", responses[1]), msg("user", "[output dropped]")]
    pairs = published + alternative_pairs([], "", responses, outputs)
    figures = measure([stale, stale, stale], [0, 1, 2], pairs).as_dict()
    assert figures["line_recall"] == 1.0 and figures["line_recall_newest"] == 0.0


CART = ["def total(cart, tax):", "    subtotal = sum(item.price for item in cart)",
        "    return subtotal * tax_rate(tax)", "", "def tax_rate(tax):"]
VIEW = "\n".join(f"{n:6d}\t{code}" for n, code in enumerate(CART, start=40))     # `nl -ba shop/cart.py`
TASK = "The cart total ignores the cart's own tax exemptions."


def _alt_figures(actions: list[str], outputs: list[str], prompt_outputs: list[str], responses: list[str] | None = None
                 ) -> dict:
    """One scorer run: each step's prompt is the task, then every earlier action and `prompt_outputs` (what a
    policy kept of each output)."""
    pairs = alternative_pairs([], TASK, responses or actions, outputs, actions)
    calls = []
    for step in range(len(actions)):
        shown = [msg("user", TASK)]
        for action, output in zip(actions[:step], prompt_outputs):
            shown += [msg("assistant", action), msg("user", output)]
        calls.append(shown)
    return measure(calls, list(range(len(actions))), pairs).as_dict()


def test_numbered_lines_and_the_numbers_a_command_uses():
    assert [line_number(line) for line in ["   123\tx = 1", "123:x = 1", "pkg/a.py:123:x = 1", "   123\u2192x = 1"]
            ] == [123] * 4
    assert line_number("   124\t") is None and line_number("version 3.10 ready") is None      # blank; no number
    assert line_text("    42\t    return subtotal") == "return subtotal" == line_text("  return subtotal  ")
    assert numbers_used("sed -i '607s/a/b/' x.py && head -5 y && sed -n 1280,1300p z; line_12 v3.10 x.py:88") == {
        607, 1280, 1300, 88}


def test_numbers_scorer_needs_the_line_a_command_names_by_its_number():
    actions = ["nl -ba shop/cart.py", "python -m pytest -q tests/test_cart.py",
               "sed -i '42s/tax_rate(tax)/tax_rate(tax, cart)/' shop/cart.py"]
    outputs = [VIEW, "1 failed", ""]
    [pair] = [p for p in alternative_pairs([], TASK, actions, outputs, actions) if p.scorer == "numbers"]
    assert (pair.step, pair.identifier) == (2, "42") and pair.lines == ("42\t    return subtotal * tax_rate(tax)",)
    kept = _alt_figures(actions, outputs, outputs)
    dropped = _alt_figures(actions, outputs, ["[output dropped]", outputs[1]])
    unnumbered = _alt_figures(actions, outputs, ["\n".join(CART), outputs[1]])     # the code, but not which line is 42
    assert kept["line_recall_numbers"] == 1.0
    assert dropped["line_recall_numbers"] == 0.0 and unnumbered["line_recall_numbers"] == 0.0


def test_numbers_scorer_skips_numbers_the_task_or_an_earlier_command_gave():
    actions = ["nl -ba shop/cart.py", "sed -n 41,44p shop/cart.py", "sed -i '41d;42d' shop/cart.py"]
    outputs = [VIEW, "\n".join(CART[1:5]), ""]

    def numbers(task: str) -> list[tuple[int, str]]:
        return [(p.step, p.identifier) for p in alternative_pairs([], task, actions, outputs, actions)
                if p.scorer == "numbers"]
    assert numbers(TASK) == [(1, "41"), (1, "44"), (2, "42")]          # 41 again at step 2: step 1 gave it
    assert numbers(TASK + " See line 42.") == [(1, "41"), (1, "44")]


def test_quoted_scorer_needs_the_line_a_command_copies():
    edit = ("python - <<'EOF'\nimport pathlib\np = pathlib.Path('shop/cart.py')\n"
            "p.write_text(p.read_text().replace('return subtotal * tax_rate(tax)', 'return subtotal * 0'))\nEOF")
    actions = ["nl -ba shop/cart.py", "python -m pytest -q tests/test_cart.py", edit]
    outputs = [VIEW, "1 failed", ""]
    [pair] = [p for p in alternative_pairs([], TASK, actions, outputs, actions) if p.scorer == "quoted"]
    assert (pair.step, pair.lines) == (2, ("return subtotal * tax_rate(tax)",))     # copied without its number
    assert _alt_figures(actions, outputs, outputs)["line_recall_quoted"] == 1.0
    assert _alt_figures(actions, outputs, ["[output dropped]", outputs[1]])["line_recall_quoted"] == 0.0


def test_quoted_scorer_reads_commands_not_thoughts_nor_what_the_agent_wrote_itself():
    actions = ["cat <<'EOF' > notes.txt\nsubtotal = sum(item.price for item in cart)\nEOF", "nl -ba shop/cart.py",
               "grep -n 'subtotal = sum(item.price for item in cart)' shop/*.py", "echo done"]
    outputs = ["", VIEW, "shop/cart.py:41:    subtotal = sum(item.price for item in cart)", "done"]
    thoughts = [f"Thought: {CART[2].strip()} looks wrong\n{action}" for action in actions]
    assert not [p for p in alternative_pairs([], TASK, thoughts, outputs, actions) if p.scorer == "quoted"]


def test_alternative_pairs_are_tagged_and_kept_apart_from_the_published_ones():
    pairs = alternative_pairs([], "fix it", ["grep x", "edit found_name"], ["found_name here", "ok"])
    assert pairs and all(isinstance(p, RecallPair) and p.scorer in SCORERS and p.kind == "observation"
                         for p in pairs)


def test_a_reread_after_an_edit_keeps_the_newest_version_of_a_line():
    src = "\n".join(f"row_{i} = compute(value_{i})" for i in range(300))
    edited = src.replace("row_150 = compute(value_150)", "row_150 = compute(value_150, strict=True)")
    steps = [_step("cat pkg/rows.py", src), _step("sed -i 's/value_150)/value_150, strict=True)/' pkg/rows.py", ""),
             _step("cat pkg/rows.py", edited), _step("echo done", "done")]
    forms = turn_stored(steps, 3)
    assert "row_150 = compute(value_150, strict=True)" in forms[2].observation


def test_a_view_after_an_edit_keeps_a_line_again_for_the_names_an_older_view_of_the_file_showed():
    """Renumbered lines: an edit that inserts lines moves every later line, so the re-read's lines are new text
    (not a re-read by `_changed`'s measure) while every name on them was shown before."""
    src = "\n".join(f"{i + 1:6d}\tfield_{i} = lookup_{i}(table)" for i in range(200))
    moved = "\n".join(f"{i + 4:6d}\tfield_{i} = lookup_{i}(table)" for i in range(200))
    view = "nl -ba pkg/fields.py"
    before = [_step(view, src), _step("echo unrelated", "unrelated"), _step(view, moved), _step("echo done", "done")]
    edited = [before[0], _step("sed -i '1i import os' pkg/fields.py", ""), before[2], before[3]]
    untouched_form = turn_stored(before, 3)[2].observation
    edited_form = turn_stored(edited, 3)[2].observation
    assert "field_120 = lookup_120(table)" not in untouched_form        # no edit: the names were shown, once
    assert "   124\tfield_120 = lookup_120(table)" in edited_form       # edited: the newest numbering is kept


def test_a_stored_form_does_not_repeat_a_line_an_earlier_form_shows():
    failing = "\n".join([f"collected {n} items" for n in range(30)]
                        + ["E   AssertionError: totals_by_region differ", "FAILED tests/test_totals.py::test_sum"])
    steps = [_step("python -m pytest tests/test_totals.py", failing), _step("echo again", "again"),
             _step("python -m pytest tests/test_totals.py", failing), _step("echo done", "done")]
    forms = turn_stored(steps, 3)
    assert "E   AssertionError: totals_by_region differ" in forms[0].observation
    assert "E   AssertionError: totals_by_region differ" not in forms[2].observation
    assert forms[2].observation.count("\n") < forms[0].observation.count("\n")


def test_a_view_of_one_file_keeps_a_line_for_a_name_only_a_view_of_another_file_showed():
    task = "alpha_total beta_total gamma_total"

    def view(path: str, line: str, at: int, first: int) -> ScratchStep:
        lines = [f"{first + i:6d}\t    alpha_total = beta_total(gamma_total)" for i in range(40)]
        lines[at] = f"{first + at:6d}\t{line}"
        return _step(f"nl -ba {path}", "\n".join(lines))
    query = view("pkg/query.py", "    cursor = None", 20, 1)
    subqueries = view("pkg/subqueries.py", "    if cursor:", 30, 101)
    steps = [query, subqueries, _step("echo done", "done")]
    assert "   131\t    if cursor:" in turn_stored(steps, 2, shown=task)[1].observation     # its own use of `cursor`
    grep = [_step("grep -rn cursor pkg", "pkg/a.py:3: cursor = None"), subqueries, _step("echo done", "done")]
    assert "if cursor:" not in turn_stored(grep, 2, shown=task)[1].observation       # a grep showed it: once
