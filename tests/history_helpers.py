"""Shared helpers that build histories of real Messages for the engine's context tests."""

from __future__ import annotations

import json
from pathlib import Path

from contextual.core.context.compressor import full_text, stored_text
from contextual.core.messages import Message
from contextual.core.replay.loaders import load_trajectory
from contextual.core.replay.replay_model import bash_result, render_step


def tool_round(n: int) -> list[Message]:
    meta = {"step": 1, "call_id": f"c{n}", "tool_name": "Read", "args": {"file_path": f"src/m{n}.py"}}
    return [Message("user", f"task {n}"),
            Message("assistant", f'Thought: read m{n}\nAction: Read[{{"file_path": "src/m{n}.py"}}]', meta=meta),
            Message("tool", f'{{"status":"success","data":"stored {n}"}}', full=f'{{"data":"whole file {n}"}}',
                    meta=meta),
            Message("assistant", f"answer {n}", meta={"final": True})]


def rounds_of_reads(n: int = 4) -> list[Message]:
    return [m for i in range(n) for m in tool_round(i)]


class Session:
    """Builds the history messages a ReAct session stores: assistant step + tool result per call."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self._n = 0

    def user(self, text: str) -> "Session":
        self.messages.append(Message("user", text))
        return self

    def call(self, tool: str, args: dict, *, status: str = "success", data: object = None,
             result: bool = True, thought: str = "I will use a tool.") -> "Session":
        self._n += 1
        call_id = f"call_{self._n}"
        action = f"Thought: {thought}\nAction: {tool}[{json.dumps(args)}]"
        self.messages.append(Message("assistant", action, meta={"tool_name": tool, "args": args,
                                                                 "call_id": call_id, "step": self._n}))
        if result:
            stored = {"status": status, "data": data}
            if status == "error":
                stored["error"] = {"code": "failed", "message": "it failed"}
            self.messages.append(Message("tool", json.dumps(stored), meta={"tool_name": tool, "args": args,
                                                                           "call_id": call_id, "step": self._n}))
        return self


def write(root: Path, rel: str, text: str = "x = 1\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def tool_call(name: str, args: dict, data: dict, step: int) -> list[Message]:
    result = {"status": "success", "data": data, "text": "", "stats": {}, "context": {}}
    meta = {"tool_name": name, "args": args, "step": step, "call_id": f"c{step}"}
    action = Message("assistant", f"Thought: use {name}\nAction: {name}[{args}]", meta=meta)
    return [action, Message("tool", stored_text(name, args, result), full=full_text(result), meta=meta)]


def read_call(path: str, lines: list[str], step: int) -> list[Message]:
    numbered = "\n".join(f"{i:6}\t{line}" for i, line in enumerate(lines, start=1))
    return tool_call("Read", {"file_path": path}, {"path": path, "content": numbered, "start_line": 1,
                                               "end_line": len(lines), "total_lines": len(lines)}, step)


def ledger_session() -> tuple[list[Message], list[Message]]:
    archive = [Message("user", "Fix the retry logic. You must not change the public API of http_client.py. "
                               "Keep the timeout at 45 seconds."),
               *read_call("src/net/http_client.py", ["import time", "", "def fetch_with_retry(url, max_attempts):",
                                                  "    backoff_ms = 250", "    return _send(url)"], 1),
               *tool_call("Bash", {"command": "pytest -x tests/test_http.py"},
                      {"command": "pytest -x tests/test_http.py", "exit_code": 1,
                       "stdout": "tests/test_http.py:17: in test_retry\n"
                                 "E   ConnectionResetError: peer closed after 3 attempts\nFAILED tests/test_http.py::test_retry",
                       "stderr": ""}, 2)]
    kept = [Message("user", "Now add a changelog entry saying backoff_ms is configurable."),
            *tool_call("Bash", {"command": "cat CHANGES.md"}, {"command": "cat CHANGES.md", "exit_code": 0,
                                                            "stdout": "## 1.2\n- fetch_with_retry honours max_attempts",
                                                            "stderr": ""}, 3)]
    return archive, kept


def trajectory_history(path: Path) -> tuple[str, list[Message]]:
    """A real trajectory as a session's history, with its instance id: the task, then after half the steps the
    user says go on (a second round), every step an assistant action and its Bash observation in stored form."""
    traj = load_trajectory(path)
    out = [Message("user", traj.task)]
    for i, step in enumerate(traj.steps):
        if i == len(traj.steps) // 2:
            out.append(Message("user", "Go on with the task."))
        args = {"command": step.action}
        meta = {"step": i + 1, "tool_name": "Bash", "call_id": f"c{i}", "args": args}
        result = bash_result(step, step.action)
        out.append(Message("assistant", render_step(step), meta=meta))
        out.append(Message("tool", stored_text("Bash", args, result), full=full_text(result), meta=meta))
    return traj.instance_id, out
