"""Issue 14: plain full observations, stored forms of whole lines (no bags of names), turn-aware forms."""

import json

from contextual.core.context import command_kind as ck, compressor, digest as dg
from contextual.core.context.names import name_set
from contextual.core.context.observation import header, render_full, split_header
from contextual.core.context.scratchpad import OBS, ScratchStep, ours, shorten_action
from contextual.core.context.turn_forms import action_forms, bash_command, edited_paths, turn_stored
from contextual.core.tokens import count


def _bash(stdout: str, command: str = "cat x.py", exit_code: int | None = 0, stderr: str = "") -> dict:
    data = {"command": command, "exit_code": exit_code, "stdout": stdout, "stderr": stderr, "timed_out": False,
            "stdout_dropped_bytes": 0, "stderr_dropped_bytes": 0, "duration": 0.0}
    return {"status": "success", "data": data, "text": f"$ {command}\n{stdout}", "stats": {}, "context": {}}


def _source(n: int = 300) -> str:
    body = []
    for i in range(n):
        if i % 30 == 0:
            body.append(f"class Widget{i}(Base):")
        else:
            body.append(f"    value_{i % 40} = compute(value_{(i - 1) % 40})  # keeps widget state")
    return "\n".join(body)


def test_full_observation_is_plain_text_under_one_status_line():
    out = render_full(_bash('a "quoted"\tline\nsecond', stderr="warn: x"))
    assert out == '[exit 0]\na "quoted"\tline\nsecond\n[stderr]\nwarn: x'      # nothing escaped, no $ echo
    failed = {"status": "error", "error": {"code": "not_found", "message": "no such file: y.py"}}
    assert render_full(failed) == "[error not_found: no such file: y.py]"
    read = {"status": "success", "data": {"content": "x"}, "text": "     1\tx"}
    assert render_full(read) == "[ok]\n     1\tx"
    stdout = "\n".join(f"line {i} with words" for i in range(200))
    full = compressor.full_text(_bash(stdout))
    as_json = json.dumps(_bash(stdout)["data"])
    assert count(full) < count(as_json)          # the framing the issue measured


def test_stored_digest_keeps_whole_numbered_lines_and_says_how_to_see_the_rest():
    src = _source()
    stored = dg.digest("sed -n '101,400p' pkg/widgets.py", src)
    header, *kept = stored.splitlines()
    assert header.startswith("[300 lines, ") and "`sed -n '" in header and "p' pkg/widgets.py` shows them" in header
    assert "[names" not in stored                                     # no bag of names
    lines = src.splitlines()
    for row in kept:                                                   # every kept row is a whole line, numbered
        number, _, text = row.partition(": ")                          # as in the file (the range starts at 101)
        assert lines[int(number) - 101] == text
    assert "131: class Widget30(Base):" in kept and "371: class Widget270(Base):" in kept   # all definitions
    names = name_set(src) - dg.KEYWORDS
    shown = name_set("\n".join(kept))
    assert names <= shown | name_set("sed -n '101,400p' pkg/widgets.py")   # each name keeps one line


def test_history_form_has_no_bag_of_names():
    stored = json.loads(compressor.stored_text("Bash", {"command": "cat pkg/widgets.py"},
                                               _bash(_source(), "cat pkg/widgets.py")))
    summary = stored["data"]["stdout_summary"]
    assert "[names" not in summary and "1: class Widget0(Base):" in summary


def test_swe_agent_and_openhands_file_commands_are_views():
    assert ck.kind_of("open django/forms.py 120") == "view" and ck.kind_of("goto 300") == "view"
    assert ck.kind_of('str_replace_editor {"command": "view", "path": "/x.py"}') == "view"
    assert ck.kind_of('search_file "def foo"') == "search" and ck.kind_of("find_file x.py") == "search"


def _step(command: str, output: str, thought: str = "look", exit_code: int | None = 0) -> ScratchStep:
    action = f"Thought: {thought}\nAction: Bash[{json.dumps({'command': command})}]"
    result = _bash(output, command, exit_code)
    return ScratchStep(action, shorten_action(action), compressor.full_text(result),
                       compressor.stored_text("Bash", {"command": command}, result))


def test_turn_forms_skip_names_the_turn_already_shows_and_never_change_once_made():
    src = _source()
    first, again = _step("cat a.py", src), _step("cat b.py", src)       # the same text read twice
    late = _step("echo hi", "hi")
    forms = turn_stored([first, again, late], 2)
    assert forms[0][1].startswith("[exit 0]\n[300 lines")
    assert len(forms[1][1]) < len(forms[0][1]) / 3                     # nothing new to cover the second time
    assert turn_stored([first, again], 1) == forms[:1]                 # a form depends only on steps up to it
    shown = turn_stored([first], 1, shown=src)                         # the turn's input already shows them
    assert len(shown[0][1]) < len(forms[0][1])


def test_long_thought_keeps_its_opening_and_sentences_that_name_something_new():
    opening = "Opening line about the plan, long enough (well past a hundred characters) to be the whole opening a stored thought keeps."
    thought = opening + "\n" + "\n".join(
        ["We already know Widget0 well."] * 20 + ["The helper lives in pkg/new_helper.py."]
        + ["We already know Widget0 well. Then pkg/other.py calls it. We already know Widget0 well."])
    action = f"Thought: {thought}\nAction: Bash[{json.dumps({'command': 'ls'})}]"
    short = action_forms(action, {"Widget0", "already", "know", "well"}).stored
    assert short.startswith(f"Thought: {opening}\n")
    assert "The helper lives in pkg/new_helper.py." in short
    assert "\nThen pkg/other.py calls it.\n" in short                 # one sentence of a paragraph line, whole
    assert short.count("We already know") == 0 and "[22 more sentences omitted]" in short
    assert short.endswith('Action: Bash[{"command": "ls"}]') and bash_command(short) == "ls"
    assert action_forms("Thought: short\nAction: Bash[{}]", set()).stored == "Thought: short\nAction: Bash[{}]"
    # a sentence whose only new name its own command shows says nothing the step does not already say
    command = "nl -ba pkg/new_helper.py | sed -n '1,40p'"
    restating = thought + "\nWe already know pkg/new_helper.py well."
    short = action_forms(f"Thought: {restating}\nAction: Bash[{json.dumps({'command': command})}]",
                         {"Widget0", "already", "know", "well"}).stored
    assert "We already know pkg/new_helper.py well." not in short and "Then pkg/other.py calls it." in short


def test_newest_action_sends_its_thought_shortened_and_its_command_whole():
    script = "\n".join(f"value_{i % 3} = compute(value_{i % 3})" for i in range(40))
    command = f"cat <<'EOF' > make_values.py\n{script}\nEOF"
    thought = "Write the script that computes the values again, a line long enough (past a hundred characters) to be the whole opening.\n" + " ".join(
        ["We already know Widget0 well."] * 10)
    action = f"Thought: {thought}\nAction: Bash[{json.dumps({'command': command})}]"
    forms = action_forms(action, {"Widget0", "already", "know", "well"})
    assert bash_command(forms.fresh) == command                        # the newest observation answers it
    assert bash_command(forms.stored) != command and "of this command:" in bash_command(forms.stored)
    assert "omitted; `cat make_values.py` shows the file]" in bash_command(forms.stored)   # how to see it again
    thought_part = forms.stored.partition("\nAction: ")[0]
    assert forms.fresh.startswith(thought_part) and "We already know" not in thought_part   # a switch keeps it


def test_a_step_without_a_thought_is_its_action_with_a_long_command_shortened_never_a_thought():
    """A step whose reply had no thought was read as a thought whole: a long command naming only what the turn
    had shown was sent as "[1 more sentences omitted]", its call gone, even as the newest step."""
    script = "\n".join(f"value_{i % 3} = compute(value_{i % 3})" for i in range(40))
    command = f"cat <<'EOF' > make_values.py\n{script}\nEOF"
    action = f"Action: Bash[{json.dumps({'command': command})}]"
    forms = action_forms(action, name_set(action))
    assert bash_command(forms.fresh) == command
    assert "of this command:" in (bash_command(forms.stored) or "") and forms.stored.startswith("Action: Bash[")


def test_ours_sends_the_newest_full_and_older_ones_stored():
    steps = [_step(f"cat f{i}.py", _source()) for i in range(3)]
    sent = ours(steps, count)
    observations = [m.content for m in sent if m.role == "user"]
    assert observations[-1] == OBS + steps[-1].observation_full
    assert all(o.startswith(OBS + "[exit 0]\n[300 lines") for o in observations[:-1])
    again = ours(steps + [_step("echo x", "x")], count)
    assert [m.content for m in again[:4]] == [m.content for m in sent[:4]]    # the cached prefix holds
    talk = " ".join(["We look again at the same widget file now."] * 12)
    chatty = [_step(f"cat f{i}.py", _source(), thought=f"Read f{i}.py next: it holds the widgets that the failing test builds, so it comes first, before the others.\n{talk}") for i in range(3)]
    first = ours(chatty[:2], count)
    then = ours(chatty, count)
    newest = [m.content for m in then if m.role == "assistant"][-1]
    assert "more sentences omitted]" in newest and bash_command(newest) == "cat f2.py"
    assert then[2].content == first[2].content                        # the newest thought never changes again


def test_cover_prefers_the_shorter_line_that_shows_the_same_name():
    filler = " ".join(f"word{i}" for i in range(40))
    lines = ([f"row_{i} = {i}" for i in range(10)] + [f"# {filler} special_name"]
             + [f"row_{i} = {i}" for i in range(10, 20)] + ["use(special_name)"] + ["row_20 = 20"] * 3)
    seen = name_set(filler) | {f"row_{i}" for i in range(21)} | {"cat", "x.py"}
    stored = dg.digest("cat x.py", "\n".join(lines), dg.Limits(2, 2, 0, 5, 4, 300), seen=seen)
    assert "22: use(special_name)" in stored and filler not in stored


def test_an_older_view_keeps_the_lines_the_next_step_acted_on():
    src = _source()
    view = _step("sed -n '101,400p' pkg/widgets.py", src)
    edit = _step("sed -i '207s/compute/recompute/' pkg/widgets.py", "", thought="Fix line 207.")
    look = _step("ls", "a\nb")
    before = turn_stored([view, look], 1)[0].observation
    after = turn_stored([view, edit, look], 1)[0].observation
    line = f"207: {src.splitlines()[106]}"
    assert line not in before and line in after          # its names were all shown; the edit names its number
    assert turn_stored([view, edit], 1) == turn_stored([view, edit, look], 1)   # known before it is first sent


def test_a_shortened_heredoc_says_which_files_show_the_omitted_lines():
    body = "\n".join(f"value_{i % 3} = compute(value_{i % 3})" for i in range(30))
    command = f"mkdir -p pkg && \\\ncat <<'EOF' > pkg/a.py\n{body}\nEOF\ncat > pkg/b.py <<EOF\n{body}\nEOF"
    action = f"Thought: write both\nAction: Bash[{json.dumps({'command': command})}]"
    stored = bash_command(action_forms(action, {"value_0", "value_1", "value_2", "compute"}).stored)
    assert "omitted; `cat pkg/a.py pkg/b.py` shows the files]" in stored


def test_each_call_of_ours_keeps_the_previous_prompt_up_to_the_newest_step():
    talk = " ".join(f"Sentence {i} mentions widget_{i % 4} again." for i in range(12))
    script = "\n".join(f"value_{i % 3} = compute(value_{i % 3})" for i in range(30))
    steps = [_step("sed -n '101,400p' pkg/widgets.py", _source(), thought=f"Read the widgets first.\n{talk}"),
             _step(f"cat <<'EOF' > check.py\n{script}\nEOF", "", thought=f"Write a check.\n{talk}"),
             _step("python check.py", "Traceback (most recent call last):\n" + _source(40), thought=talk),
             _step("sed -i '207s/compute/recompute/' pkg/widgets.py", "", thought=f"Fix line 207.\n{talk}"),
             _step("grep -n compute pkg/widgets.py", _source(60), thought=talk)]
    for n in range(1, len(steps)):
        now, then = ours(steps[:n], count), ours(steps[:n + 1], count)
        assert [m.content for m in then[:2 * n - 2]] == [m.content for m in now[:2 * n - 2]]
        thought = now[2 * n - 2].content.partition("\nAction: ")[0]
        assert then[2 * n - 2].content.startswith(thought)          # the newest thought was sent as it stays


def test_a_search_keeps_no_line_for_a_file_whose_match_shows_nothing_new():
    langs = [f"l{i:02d}" for i in range(40)]
    output = "\n".join([f"sphinx/ext/autodoc/__init__.py:    more_content = _('alias of %s') % restify(obj)"]
                       + [f"sphinx/locale/{lang}/LC_MESSAGES/sphinx.po:msgid \"alias of %s\"" for lang in langs])
    form = dg.digest('grep -r "alias of" sphinx', output, dg.Limits(1, 1, 8, 160, 4, 300))
    kept = form.splitlines()[1:]
    assert kept[0].startswith("sphinx/ext/autodoc/__init__.py:") and len(kept) <= 10
    assert form.startswith("[41 lines, ") and "run it again to see them" in form.splitlines()[0]


def test_the_ways_an_agent_edits_a_viewed_file_are_edits_and_views_are_not():
    viewed = ["src/main.py", "docs/a.md"]
    for command in ["sed -i 's/a/b/' src/main.py", "ed src/main.py <<EOF\n5a\nx\n.\nw\nq\nEOF",
                    "python3 -c 'open(\"src/main.py\", \"w\").writelines(lines)' < src/main.py",
                    "cp /tmp/fixed.py src/main.py", "git checkout src/main.py", "echo x >> src/main.py"]:
        assert edited_paths(command, viewed) == {"src/main.py"}, command
    for command in ["cat src/main.py", "nl -ba src/main.py | sed -n '1,9p'", "grep -n ed src/main.py",
                    "python -m pytest src/main.py"]:
        assert edited_paths(command, viewed) == set(), command


def test_every_bash_header_is_told_from_output_that_starts_with_a_bracket():
    results = [_bash("x", exit_code=0), _bash("x", exit_code=2), _bash("x", exit_code=-9),
               _bash("x") | {"data": _bash("x")["data"] | {"stdout_dropped_bytes": 30, "stderr_dropped_bytes": 4}},
               _bash("x") | {"status": "error", "data": _bash("x")["data"] | {"timed_out": True},
                             "error": {"code": "timeout", "message": "killed; output so far is in data"}},
               {"status": "error", "error": {"code": "invalid_argument", "message": "command must be a string"}}]
    for result in results:
        head = header(result)
        assert head and split_header(head + "\n[File: a.py (9 lines total)]\n1: x") == \
            (head, "[File: a.py (9 lines total)]\n1: x")
    for output in ("[File: a.py (9 lines total)]\n1: x", "[1, 2, 3]\n", "[ok] is a word here\n", "..F.\nFAILED"):
        assert split_header(output) == ("", output)


def test_a_replayed_command_without_an_exit_code_gets_the_in_turn_form_not_the_history_json():
    """A log that records no exit code (SWE-agent, Claude Code, Codex; mini-swe-agent's format errors) gives an
    observation with no header line: it is digested like any other output, not sent as history's JSON summary."""
    src = _source()
    bare, headed = _step("cat a.py", src, exit_code=None), _step("cat a.py", src)
    assert not bare.observation_full.startswith("[")
    form, form_headed = turn_stored([bare], 1)[0].observation, turn_stored([headed], 1)[0].observation
    assert not form.startswith("{") and '"status"' not in form
    assert form_headed == "[exit 0]\n" + form                    # the same digest, under the header when there is one
    assert len(form) < len(bare.observation_full)


def test_what_a_command_is_comes_from_the_commands_it_runs_not_from_words_in_paths():
    views = ["cat src/_pytest/main.py", "cat tox.ini", "cd /testbed && cat foo.py", "test -f x.py && cat x.py",
             "nl -ba src/_pytest/python.py | sed -n '559,650p'", "cat tests/checkers/unittest_similar.py"]
    tests = ["timeout 60 python -m pytest -q", "cd /testbed && python -m pytest x | tail -5", "./tests/runtests.py a",
             "python tests/runtests.py admin_views", "bin/test sympy/core", "go test ./...", "npm run test", "tox -e py",
             "python -m unittest tests.x", "sudo -u ci pytest", "python setup.py test"]
    others = ["pip install pytest-xdist", "cat <<'EOF' > check.py\nimport unittest\nEOF\npython check.py",
              "python reproduce.py", "python -c 'import pytest'"]
    assert [ck.kind_of(c) for c in views] == ["view"] * len(views)
    assert [ck.kind_of(c) for c in tests] == ["test"] * len(tests)
    assert [ck.kind_of(c) for c in others] == ["other", "other", "other", "other"]
    assert ck.kind_of("cd /testbed && grep -rn total src") == "search"


def test_a_program_that_can_also_run_a_command_is_still_what_the_line_is_about():
    """git, find, rg and fd are in the wrapper table (git's aliases, find -exec, rg --pre run commands), and the
    digests took every program of that table for a wrapper to look past: `git diff` and `rg foo` were "other"."""
    assert [ck.kind_of(c) for c in ("git diff", "git -C repo diff HEAD~1", "cd /testbed && git diff")] == ["diff"] * 3
    assert [ck.kind_of(c) for c in ("git grep -n x", "rg foo src", "find . -name '*.py'", "fd conf")] == ["search"] * 4
    assert ck.kind_of("git log -3") == "other"
    # a wrapper whose point is the command it runs is still looked past
    assert [ck.program_of(c) for c in ("sudo cat x", "timeout 5 rg x", "bash -c 'nl a.py'", "xargs grep y")] == [
        "cat", "rg", "nl", "grep"]


def test_a_view_is_numbered_as_the_file_is_or_not_at_all():
    lines = [f"value_{n} = compute_{n}(value_{n - 1})" for n in range(40, 121)]
    output = "\n".join(lines)
    assert ck.file_origin("cd /testbed && sed -n '40,120p' pkg/a.py") == ("pkg/a.py", 40)
    assert ck.file_origin("head -n 20 pkg/a.py") == ("pkg/a.py", 1)
    assert ck.file_origin("cat a.py b.py") is None and ck.file_origin("cat a.py > b.py") is None
    numbered = dg.digest("cd /testbed && sed -n '40,120p' pkg/a.py", output, dg.HARD)
    assert "\n40: value_40 = compute_40(value_39)" in numbered and "sed -n '" in numbered
    unknown = dg.digest("awk 'NR>=40 && NR<=120' pkg/a.py", output, dg.HARD)
    assert "\nvalue_40 = compute_40(value_39)" in unknown                # no number a later edit could misuse
    assert not any(line.startswith(("1: ", "40: ")) for line in unknown.splitlines())
    spaced = dg.digest("sed -n '40,120p' 'my pkg/a.py'", output, dg.HARD)
    assert "'my pkg/a.py'` shows them" in spaced


def test_a_range_the_agent_chose_is_kept_whole_up_to_its_bound():
    """Round 13: a later step quotes and edits the lines of a range the agent picked (`sed -n '966,1050p'`), by
    their numbers; a stored form that kept one line per new name dropped the statements made of known names."""
    from contextual.core.context.turn_forms import TURN
    body = "\n".join(f"    value_{i % 3} = compute(value_{(i + 1) % 3})" for i in range(60))
    seen = {"value_0", "value_1", "value_2", "compute"}
    for command in ("sed -n '120,179p' pkg/a.py", "nl -ba pkg/a.py | sed -n '120,179p'", "head -n 60 pkg/a.py",
                    "sed -n '/def total/,/return/p' pkg/a.py", "grep -n -C 30 total pkg/a.py"):
        assert dg.digest(command, body, TURN, seen=set(seen)) == body, command
    assert dg.digest("cat pkg/a.py", body, TURN, seen=set(seen)) != body          # a whole file: not chosen
    longer = "\n".join(f"    value_{i % 3} = compute(value_{(i + 1) % 3})" for i in range(TURN.chosen_lines + 1))
    assert dg.digest("sed -n '1,200p' pkg/a.py", longer, TURN, seen=set(seen)) != longer


def test_what_counts_as_a_range_the_agent_chose():
    chosen = ["sed -n '120,140p' a.py", "cd /testbed && nl -ba a.py | sed -n '90,120p'", "sed -n '10,$p' a.py",
              "sed -n '1,5p;20,30p' a.py", "tail -20 log.txt", "awk 'NR>=40 && NR<=60' a.py", "grep -A5 foo a.py",
              "rg -C 3 foo", "str_replace_editor view /a.py --view_range '[1, 40]'",
              # SWE-agent's window (public demonstrations, not ../shared: `edit 26:34` after the window that
              # showed line 34 had been shortened)
              "open src/a.py 120", "goto 240", "scroll_down", "edit 26:34\nprint(flag)\nend_of_edit"]
    not_chosen = ["cat a.py", "grep -rn foo .", "sed -i '5s/a/b/' a.py", "sed -n '/foo/p' a.py", "nl -ba a.py",
                  "python run.py", "ls -la", "opener a.py", "editor a.py"]
    assert [c for c in chosen if not ck.chosen_range(c)] == []
    assert [c for c in not_chosen if ck.chosen_range(c)] == []


def test_a_search_keeps_the_matches_it_asked_for_up_to_its_bound():
    """sympy-12489 (tune/): `grep -n "_af_new"` showed 22 matches, the form kept 8, and 37 steps later the agent ran
    `sed -i '2737s/_af_new/self._af_new/'` on one it no longer saw."""
    from contextual.core.context.turn_forms import TURN
    rows = [f"{100 + 37 * i}:        return _af_new(perm)" for i in range(22)]
    form = dg.digest('grep -n "_af_new" perm.py', "\n".join(rows), TURN, seen={"_af_new", "perm", "return"})
    assert all(row in form for row in rows)
    many = [f"{100 + 37 * i}:        return _af_new(perm)" for i in range(80)]
    form = dg.digest('grep -n "_af_new" perm.py', "\n".join(many), TURN, seen={"_af_new", "perm", "return"})
    assert sum(row in form.splitlines() for row in many) == TURN.matches + TURN.head + TURN.tail


def test_a_file_view_keeps_its_definitions_before_its_imports():
    imports = [f"from pkg.mod{i} import thing{i}" for i in range(12)]
    body = imports + [f"class Widget{i}(Base):\n    size = {i}" for i in range(6)]
    output = "\n".join(body)
    form = dg.digest("cat pkg/w.py", output, dg.Limits(0, 0, 6, 0, 4, 300))
    assert [line.split(": ", 1)[1] for line in form.splitlines()[1:]] == [f"class Widget{i}(Base):" for i in range(6)]


def test_an_output_keeps_a_line_for_each_code_name_the_task_or_the_plan_names():
    """Issue 28: stored forms cover "lines the task or plan names". The task's names count as shown, so a line
    whose only names the task gave (`apply_discount` in the log) was never kept."""
    log = "\n".join([f"step {i}: value_{i % 5} = compute(value_{(i + 1) % 5})" for i in range(40)]
                    + ["step 40: apply_discount(cart) returns 0.0"]
                    + [f"step {41 + i}: value_{i % 5} = compute(value_{(i + 2) % 5})" for i in range(40)])
    after = _step("ls", "a\nb")
    task = "Fix apply_discount: it returns 0.0 for every cart"
    with_task = turn_stored([_step("python run.py", log), after], 1, shown=task)[0].observation
    assert "step 40: apply_discount(cart) returns 0.0" in with_task
    # its English words are no names: `step` would keep a line in every output
    assert "step" not in {name for name in name_set(task)} and "compute" not in task
    plan = ('Thought: plan\nAction: TodoWrite[{"todos": [{"content": "fix apply_discount in cart.py", '
            '"status": "in_progress"}]}]')
    todo = ScratchStep(plan, shorten_action(plan), "[ok]", "[ok]")
    with_plan = turn_stored([todo, _step("python run.py", log), after], 2)[1].observation
    assert "step 40: apply_discount(cart) returns 0.0" in with_plan
