"""A session of short turns, as recorded steps: each turn reads a 900-line file, runs the tests N-2 times and
answers (tests/test_cache_rule.py; scripts/short_turn_sessions.py measures it)."""

from __future__ import annotations

from contextual.core.replay.session_policies import RecordedStep, RecordedTurn

TEXT = "".join(f"def total_{n}(items):\n    return sum(i.price for i in items) * {n}\n\n" for n in range(300))
NUMBERED = "".join(f"{i + 1:6}\t{line}\n" for i, line in enumerate(TEXT.splitlines()))
READ = RecordedStep('Thought: read it.\nAction: Read[{"file_path": "cart.py"}]', "Read",
                    {"status": "success", "data": NUMBERED}, NUMBERED)
RAN = {"command": "pytest -q", "exit_code": 0, "stdout": "1 passed", "stderr": "", "timed_out": False}
BASH = RecordedStep('Thought: run them.\nAction: Bash[{"command": "pytest -q"}]', "Bash",
                    {"status": "success", "data": RAN}, "1 passed")


def session(calls: int, turns: int = 4) -> list[RecordedTurn]:
    """`turns` turns of `calls` model calls each: the Read, calls - 2 test runs, the answer."""
    return [RecordedTurn(f"question {k}", (READ, *[BASH] * (calls - 2),
                                           RecordedStep(f"Thought: ok\nAction: Finish[answer {k}]")))
            for k in range(turns)]
