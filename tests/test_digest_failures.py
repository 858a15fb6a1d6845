"""Stored forms of failing runs keep what a later step reads: the exception, the innermost project frames with
their source line, pytest's E / > / location lines and the summary (core/context/failures.py, digest.py)."""

from contextual.core.context import command_kind, digest as dg
from contextual.core.context.failures import ranked

TRACEBACK = """Traceback (most recent call last):
  File "/usr/lib/python3.11/unittest/case.py", line 57, in testPartExecutor
    yield
  File "/usr/lib/python3.11/unittest/case.py", line 623, in run
    self._callTestMethod(testMethod)
  File "/repo/tests/test_forms.py", line 3094, in test_optional_subfields
    self.assertIsNone(field.clean(''))
  File "/repo/pkg/forms/fields.py", line 1062, in clean
    raise ValidationError(errors)
  File "/repo/pkg/core/exceptions.py", line 140, in __init__
    super().__init__(message, code, params)
    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
pkg.core.exceptions.ValidationError: ['Enter a complete value.']"""

PYTEST = """=================================== FAILURES ===================================
_____________________________ test_update _____________________________

    def test_update():
        rc = Params({'size': (3.5, 42)})
>       rc.update({'size': (3.5, 42, 1)})
E       ValueError: Key size: Expected 2 values, but there are 3

lib/pkg/tests/test_params.py:112: ValueError
=========================== short test summary info ============================
FAILED lib/pkg/tests/test_params.py::test_update - ValueError: Key size: Expec...
========================= 1 failed, 204 passed in 2.63s ========================="""


def _noise(n: int) -> str:
    return "\n".join(f"Cloning test database number_{i} for alias 'default_{i}'..." for i in range(n))


def test_a_traceback_ranks_the_exception_then_the_innermost_project_frames_with_their_source():
    lines = TRACEBACK.splitlines()
    order = [lines[i] for i in ranked(lines)]
    assert order[0].startswith("pkg.core.exceptions.ValidationError")
    inner = order[1:7]                                             # three frames, each with its source line
    assert inner[0].strip().startswith('File "/repo/pkg/core/exceptions.py"')     # where it was raised
    assert inner[1].strip() == "super().__init__(message, code, params)"
    assert inner[2].strip().startswith('File "/repo/pkg/forms/fields.py"') and inner[3].strip().startswith("raise")
    assert any("unittest/case.py" in line for line in order[7:])  # the runner's own frames come last
    assert ranked(["all good", "3 passed"]) == []
    assert ranked(["DeprecationWarning: old", "ValueError: bad"]) == [1]     # a warning is no failure


def test_an_older_failing_run_keeps_its_exception_innermost_frames_and_summary():
    output = "\n".join([_noise(40), TRACEBACK, _noise(30), PYTEST])
    stored = dg.digest("python -m pytest lib/pkg/tests/test_params.py", output,
                       dg.Limits(head=2, tail=2, keep=8, cover=0, whole_lines=4, whole_chars=300))
    for line in ("pkg.core.exceptions.ValidationError: ['Enter a complete value.']",
                 'File "/repo/pkg/core/exceptions.py", line 140, in __init__',
                 "E       ValueError: Key size: Expected 2 values, but there are 3",
                 "FAILED lib/pkg/tests/test_params.py::test_update - ValueError: Key size: Expec..."):
        assert line in stored
    assert "unittest/case.py" not in stored                        # the budget went to the inner end
    assert stored.startswith("[") and "omitted; run it again to see them]" in stored.splitlines()[0]


def test_pytest_report_keeps_the_failing_line_and_its_location():
    output = "\n".join([_noise(40), PYTEST])
    stored = dg.digest("pytest lib/pkg/tests/test_params.py", output,
                       dg.Limits(head=2, tail=2, keep=8, cover=0, whole_lines=4, whole_chars=300))
    assert ">       rc.update({'size': (3.5, 42, 1)})" in stored
    assert "lib/pkg/tests/test_params.py:112: ValueError" in stored


def test_grep_n_of_one_file_keeps_its_matches():
    lines = [f"{10 * i}:    value_{i} = other_{i}" for i in range(1, 30)]
    stored = dg.digest('grep -n "value" pkg/mod.py', "\n".join(lines),
                       dg.Limits(head=1, tail=1, keep=40, cover=0, whole_lines=4, whole_chars=300))
    assert all(line in stored for line in lines)                   # N: lines are matches, not a listing


def test_the_lines_a_command_grepped_for_come_first_even_when_their_names_are_known():
    lines = [f"{100 + i}\t    value_{i} = other(value_{i - 1})" for i in range(60)]
    lines[30] = "130\t        if self.can_delete and (self.can_delete_extra or index < count):"
    command = 'nl -ba pkg/formsets.py | grep -C 30 "can_delete_extra"'
    assert command_kind.grep_pattern(command).pattern == "can_delete_extra"
    assert command_kind.grep_pattern('grep -rn "def foo\\|class Bar" src').pattern == "def foo|class Bar"
    assert command_kind.grep_pattern("ls -la") is None
    assert command_kind.grep_pattern("rg -t py -C 2 'def clean' src").pattern == "def clean"
    seen = {"self", "can_delete", "can_delete_extra", "index", "count"}
    stored = dg.digest(command, "\n".join(lines),
                       dg.Limits(head=2, tail=2, keep=3, cover=0, whole_lines=4, whole_chars=300), seen=seen)
    assert lines[30] in stored
