"""The status line of a full observation says only what is known."""

from contextual.core.context.observation import header, render_full


def _bash(exit_code, timed_out=False) -> dict:
    data = {"command": "ls", "exit_code": exit_code, "stdout": "a.py", "stderr": "", "timed_out": timed_out}
    return {"status": "success", "data": data, "text": "$ ls\na.py"}


def test_a_recorded_command_without_an_exit_code_gets_no_status_line():
    assert "None" not in render_full(_bash(None))
    assert render_full(_bash(None)) == "a.py"
    assert render_full(_bash(2)) == "[exit 2]\na.py"
    assert header(_bash(None, timed_out=True)) == "[timed out]"
