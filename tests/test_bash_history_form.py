"""Seed 002 A3, Bash row (issue 28.5): in history, stdout is only a summary — counts, first and last lines, the
error and failure lines, what changed — and stderr its last 20 lines. The summary's size does not grow with the
output or with how many different names it shows."""

import json
import re

from contextual.core.context import compressor
from contextual.core.context.bash_summary import NORMAL, summary
from contextual.core.tokens import count


def _stored(command: str, stdout: str, stderr: str = "", exit_code: int = 0) -> dict:
    data = {"command": command, "exit_code": exit_code, "stdout": stdout, "stderr": stderr, "timed_out": False}
    result = {"status": "success", "data": data, "text": stdout}
    return json.loads(compressor.stored_text("Bash", {"command": command}, result))["data"]


def _distinct(n: int, offset: int = 0) -> list[str]:
    return [f"record_{offset + i}: module_{offset + i}.handler_{offset + i} -> target_{offset + i}" for i in range(n)]


def test_5000_distinct_lines_keep_a_bounded_summary():
    small = "\n".join(_distinct(500))
    large = "\n".join(_distinct(5_000))
    huge = "\n".join(_distinct(20_000))
    forms = [_stored("python dump.py", out)["stdout_summary"] for out in (small, large, huge)]
    assert forms[1].startswith("[stdout: 5000 lines, ") and "4994 lines not kept" in forms[1]
    assert len({len(form.splitlines()) for form in forms}) == 1          # as many lines however many names
    assert count(forms[2]) < 1.25 * count(forms[0])   # only the numbers in it grow longer
    assert count(forms[1]) < 400
    body = forms[1].splitlines()
    assert body[1:5] == ["first:", *_distinct(3)] and body[-4:] == ["last:", *_distinct(3, 4_997)]


def test_an_error_line_in_the_middle_survives():
    lines = _distinct(5_000)
    lines[2_500] = "ERROR: could not connect to database at db.internal:5432"
    lines[3_100] = "Traceback (most recent call last):"
    lines.insert(3_101, '  File "app/db.py", line 40, in connect')
    lines.insert(3_102, "    raise ConnectionError(host)")
    lines.insert(3_103, "ConnectionError: db.internal")
    form = _stored("python run.py", "\n".join(lines), exit_code=1)["stdout_summary"]
    assert "ERROR: could not connect to database at db.internal:5432" in form
    assert "ConnectionError: db.internal" in form and 'File "app/db.py", line 40, in connect' in form
    assert form.index("errors:") < form.index("ERROR: could not") < form.index("last:")


def test_errors_are_capped_however_many_fail():
    lines = [f"FAILED tests/test_{i}.py::test_case_{i} - AssertionError: value_{i}" for i in range(3_000)]
    form = summary("pytest", "\n".join(lines))
    kept = form.split("errors:\n", 1)[1].split("\nlast:", 1)[0].splitlines()
    assert len(kept) == NORMAL.errors and f"{3000 - 3 - 3 - NORMAL.errors} more distinct error/failure lines" in form


def test_the_header_says_what_was_left_out_for_one_line_and_many():
    """A single 5,000-character line was "1 lines … 0 lines not kept; run the command again": the plural wrong, and
    nothing said about the 4,800 characters cut off the one line it kept (user review)."""
    one = summary("python gen.py", "x" * 5_000)
    assert one.splitlines()[0] == ("[stdout: 1 line, 5,000 chars; 4,800 chars cut off the end of the line; "
                                   "run the command again to see them]")
    assert one.splitlines()[2] == "x" * NORMAL.line_chars + "…[4800 chars]"
    many = summary("python gen.py", "\n".join(["y" * 300, *_distinct(20), "z" * 250]))
    assert many.splitlines()[0].startswith("[stdout: 22 lines, ") and many.splitlines()[0].endswith(
        "; 16 lines not kept, 150 chars cut off the end of 2 long lines; run the command again to see them]")
    lost_one = summary("make", "\n".join(f"line {i} " + "w" * 150 for i in range(7)))       # past whole_chars
    assert "; 1 line not kept; run the command" in lost_one
    failed = [f"FAILED tests/test_{i}.py::test_case_{i} - AssertionError: value_{i}" for i in range(NORMAL.errors + 3)]
    errors = summary("pytest", "\n".join(["start", *failed, *"abc"]))       # 2 shown first, 1 past the cap
    assert "; 1 line not kept, 1 more distinct error/failure line; run the command" in errors


def test_an_output_the_summary_would_keep_whole_stays_as_it_is():
    """Six lines of 190 characters are past `whole_chars` yet all kept whole: a header saying "0 lines not kept;
    run the command again" added words and told the model it missed something."""
    stdout = "\n".join(_distinct(6, 1_000)).replace("->", "-" * 130 + ">")
    assert len(stdout) > NORMAL.whole_chars and all(len(line) <= NORMAL.line_chars for line in stdout.splitlines())
    assert summary("python gen.py", stdout) == stdout


def test_a_repeated_error_line_is_kept_once_with_its_count():
    lines = ["step ok"] * 40 + ["WARNING: deprecated call in pkg/io.py"] * 500 + ["step ok"] * 40
    form = summary("make", "\n".join(lines))
    assert form.count("WARNING: deprecated call in pkg/io.py") == 1 and "[x500]" in form


def test_what_changed_counts_a_diff_per_file_and_is_capped():
    diff = []
    for f in range(40):
        diff += [f"diff --git a/pkg/m{f}.py b/pkg/m{f}.py", f"--- a/pkg/m{f}.py", f"+++ b/pkg/m{f}.py", "@@ -1,3 +1,4 @@",
                 " keep", "-old line", "+new line", "+another line"]
    form = _stored("git diff", "\n".join(diff))["stdout_summary"]
    assert "changed: 40 files: pkg/m0.py (+2 -1), pkg/m1.py (+2 -1)" in form and "and 30 more" in form
    assert "pkg/m10.py" not in form


def test_stderr_keeps_its_last_20_lines_and_short_stdout_stays_whole():
    stderr = "\n".join(f"warn {i}" for i in range(100))
    data = _stored("make", "built ok\n2 targets", stderr=stderr, exit_code=2)
    assert data["stdout_summary"] == "built ok\n2 targets" and data["exit_code"] == 2
    assert data["stderr_tail"].splitlines() == [f"warn {i}" for i in range(80, 100)]
    assert data["stderr_omitted_lines"] == 80


def test_a_file_view_numbers_its_lines_as_the_file_does():
    src = "\n".join(f"line {i}" for i in range(1, 301))
    form = summary("sed -n '101,400p' a.py", src)
    assert "101: line 1" in form and "400: line 300" in form


def test_the_history_form_and_the_in_turn_digest_number_a_view_by_one_rule():
    """Whether a view's lines get the file's numbers (and whose) is one decision, `digest.view_numbering`: the
    history form and the in-turn digest each had their own copy of it, and of the long-line clip."""
    from contextual.core.context import bash_summary, digest
    assert not hasattr(bash_summary, "_OWN_NUMBER") and not hasattr(bash_summary, "_clip")
    src = "\n".join(f"line {i} " + "x" * 250 for i in range(1, 301))
    numbered = "\n".join(f"{i:6}\tline {i}" for i in range(101, 401))
    for command, output, first in (("sed -n '101,400p' a.py", src, "101: line 1 "), ("cat -n a.py", numbered, "   101\t")):
        history, in_turn = summary(command, output), digest.digest(command, output)
        assert f"\n{first}" in history and f"\n{first}" in in_turn       # the file's numbers, or the output's own
    long = "\n".join(f"line {i} " + "x" * 500 for i in range(1, 301))
    for form in (summary("python run.py", long), digest.digest("python run.py", long)):   # its start, and how much went
        assert re.search(r"\nline 1 x+…\[\d+ chars\]\n", form)


def test_the_lines_the_task_names_are_kept_a_few_and_no_more():
    """Issue 28: history forms cover "lines the task or plan names". A run's summary kept its first and last lines
    and its errors; the line showing the function the user asked about went, however the task named it."""
    lines = _distinct(300) + ["apply_discount(cart) returns 0.0 for cart_7"] + _distinct(300, 300)
    data = {"command": "python run.py", "exit_code": 0, "stdout": "\n".join(lines), "stderr": "", "timed_out": False}
    result = {"status": "success", "data": data, "text": data["stdout"]}

    def kept(focus: frozenset[str]) -> str:
        return json.loads(compressor.stored_text("Bash", {"command": "python run.py"}, result, focus=focus))["data"][
            "stdout_summary"]
    assert "apply_discount(cart) returns 0.0" not in kept(frozenset())
    assert "named by the task:\napply_discount(cart) returns 0.0 for cart_7" in kept(frozenset({"apply_discount"}))
    many = frozenset(f"module_{i}.handler_{i}" for i in range(0, 600, 7))    # a task naming 86 of its names
    assert sum(f"module_{i}.handler_{i} ->" in kept(many) for i in range(3, 597)) == NORMAL.named


async def test_a_turn_records_its_bash_results_with_the_lines_its_question_names(tmp_path):
    from contextual.core.session import load_session
    from tests.cli_helpers import cli_env, contextual
    from tests.fakes.llm_server import FakeLLMServer
    project = tmp_path / "p"
    project.mkdir()
    (project / "log.txt").write_text("\n".join(_distinct(300) + ["apply_discount(cart) returns 0.0"] + _distinct(300, 300)))
    script = ['Thought: look\nAction: Bash[{"command": "cat log.txt"}]', "Thought: ok\nAction: Finish[seen]"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        env = cli_env(tmp_path / "home", srv.base_url)
        done = contextual(["-p", "why does apply_discount return 0.0?", "--permission-mode", "bypass"], project, env)
    assert done.returncode == 0, done.stderr
    from contextual.core.session import latest_session
    tool = next(m for m in load_session(latest_session(tmp_path / "home", project)).history if m.role == "tool")
    assert "apply_discount(cart) returns 0.0" in json.loads(tool.content)["data"]["stdout_summary"]
