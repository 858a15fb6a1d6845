"""Trajectory files of each family `contextual replay` reads — mini-swe-agent, SWE-agent, OpenHands (with data in
../shared), Claude Code and Codex session logs (without) — written from one list of (thought, command, output)
steps, for tests that replay the same work through each family's loader."""

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


def write_claude_code(path: Path, steps: list[Step]) -> Path:
    """A Claude Code session (~/.claude/projects/…/<session>.jsonl): each step one reply, a text block and a Bash
    tool_use, answered by a user line holding its tool_result."""
    rows: list[dict] = [{"type": "user", "uuid": "u0", "parentUuid": None, "sessionId": "s1",
                         "message": {"role": "user", "content": TASK}}]
    for n, (thought, command, output) in enumerate(steps):
        parent = rows[-1]["uuid"]
        rows.append({"type": "assistant", "uuid": f"a{n}", "parentUuid": parent, "sessionId": "s1",
                     "message": {"id": f"msg{n}", "role": "assistant", "content": [
                         {"type": "text", "text": thought},
                         {"type": "tool_use", "id": f"call{n}", "name": "Bash", "input": {"command": command}}]}})
        rows.append({"type": "user", "uuid": f"r{n}", "parentUuid": f"a{n}", "sessionId": "s1",
                     "message": {"role": "user", "content": [
                         {"type": "tool_result", "tool_use_id": f"call{n}", "content": output}]}})
    rows.append({"type": "assistant", "uuid": "done", "parentUuid": rows[-1]["uuid"], "sessionId": "s1",
                 "message": {"id": "msg-done", "role": "assistant", "content": [{"type": "text", "text": "done"}]}})
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def write_codex(path: Path, steps: list[Step]) -> Path:
    """A Codex CLI rollout (~/.codex/sessions/…/rollout-*.jsonl): session_meta with its base instructions, the
    task as a user message, then per step the assistant's text, a shell function_call and its output."""
    def line(kind: str, payload: dict) -> str:
        return json.dumps({"timestamp": "2026-11-26T10:00:00Z", "type": kind, "payload": payload}) + "\n"
    out = [line("session_meta", {"id": "c1", "base_instructions": {"text": "You are Codex, a coding agent."}}),
           line("response_item", {"type": "message", "role": "user",
                                  "content": [{"type": "input_text", "text": TASK}]})]
    for n, (thought, command, output) in enumerate(steps):
        out.append(line("response_item", {"type": "message", "role": "assistant",
                                          "content": [{"type": "output_text", "text": thought}]}))
        out.append(line("response_item", {"type": "function_call", "name": "shell", "call_id": f"call{n}",
                                          "arguments": json.dumps({"command": ["bash", "-lc", command]})}))
        out.append(line("response_item", {"type": "function_call_output", "call_id": f"call{n}",
                                          "output": json.dumps({"output": output, "metadata": {"exit_code": 0}})}))
    out.append(line("response_item", {"type": "message", "role": "assistant",
                                      "content": [{"type": "output_text", "text": "done"}]}))
    path.write_text("".join(out))
    return path


WRITERS = {"mini-swe-agent": write_mini, "swe-agent": write_swe_agent, "openhands": write_openhands,
           "claude-code": write_claude_code, "codex": write_codex}
SUFFIXES = {"mini-swe-agent": ".traj.json", "swe-agent": ".traj", "openhands": ".json", "claude-code": ".jsonl",
            "codex": ".jsonl"}
