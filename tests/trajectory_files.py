"""Trajectory files of each family with data in ../shared (mini-swe-agent, SWE-agent, OpenHands), written from one
list of (thought, command, output) steps, for tests that replay the same work through each family's loader."""

from __future__ import annotations

import json
from pathlib import Path

Step = tuple[str, str, str]       # thought, shell command, its output
TASK = "Fix the failing totals in pkg/ledger.py"


def write_mini(path: Path, steps: list[Step]) -> Path:
    messages = [{"role": "system", "content": "You are a helpful assistant that can interact with a computer."},
                {"role": "user", "content": f"<pr_description>\n{TASK}\n</pr_description>"}]
    for thought, command, output in steps:
        messages.append({"role": "assistant", "content": f"THOUGHT: {thought}\n\n```bash\n{command}\n```"})
        messages.append({"role": "user", "content": f"<returncode>0</returncode>\n<output>\n{output}\n</output>"})
    messages.append({"role": "assistant", "content": "THOUGHT: done\n\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```"})
    path.write_text(json.dumps({"info": {"exit_status": "Submitted"}, "messages": messages}))
    return path


def write_swe_agent(path: Path, steps: list[Step]) -> Path:
    history = [{"role": "system", "content": "SETTING: You are an autonomous programmer."},
               {"role": "user", "content": TASK}]
    trajectory = []
    for thought, command, output in steps:
        response = f"{thought}\n```\n{command}\n```"
        trajectory.append({"action": command, "observation": output, "thought": thought, "response": response})
        history += [{"role": "assistant", "content": response, "action": command},
                    {"role": "user", "content": output}]
    trajectory.append({"action": "submit", "observation": "", "thought": "done", "response": "done\n```\nsubmit\n```"})
    path.write_text(json.dumps({"trajectory": trajectory, "history": history, "info": {}}))
    return path


def write_openhands(path: Path, steps: list[Step]) -> Path:
    events: list[dict] = [{"id": 0, "source": "agent", "action": "system", "message": "You are OpenHands agent.",
                           "args": {"content": "You are OpenHands agent."}},
                          {"id": 1, "source": "user", "action": "message", "message": TASK, "args": {"content": TASK}}]
    for thought, command, output in steps:
        n = len(events)
        events.append({"id": n, "source": "agent", "action": "run", "message": f"Running command: {command}",
                       "args": {"command": command, "thought": thought, "is_input": False}})
        events.append({"id": n + 1, "source": "agent", "observation": "run", "cause": n, "content": output,
                       "message": f"Command `{command}` executed with exit code 0.",
                       "extras": {"command": command, "metadata": {"exit_code": 0}}})
    events.append({"id": len(events), "source": "agent", "action": "finish", "message": "done",
                   "args": {"final_thought": "done", "thought": ""}})
    path.write_text(json.dumps(events))
    return path


WRITERS = {"mini-swe-agent": write_mini, "swe-agent": write_swe_agent, "openhands": write_openhands}
