"""Event-log trajectories (agents that log events, not prompts): how one tool call becomes a Step, for
core/replay/load_openhands.py, load_claude_code.py and load_codex.py (core/replay/loaders.py picks the family).

A call plays in the replay as one Bash command (the replay engine has only Bash):
- a shell call (`execute_bash`, Claude Code `Bash`, Codex `shell`/`exec_command`/`local_shell`) is its command
  line, so the Bash stored forms apply as they do to mini-swe-agent;
- any other tool is written the way SWE-agent writes its tools: `name [command] [path] --key 'value'…`, values
  shell-quoted (`str_replace_editor view /a.py --view_range '[1, 40]'`, `Read /a.py --offset 10`), multi-line
  values (a file's text, an old and a new string) as heredocs after the line, and a tool whose one argument is
  free text (Codex `apply_patch`) as a heredoc. JSON inside the Bash call's JSON
  would escape every newline and quote twice, a cost of the replay, not of the agent or of us;
  core/context/digest.py reads these as file views, searches and edits.
The step's `response` (what recall reads, and the baseline's assistant turn) stays the call as the agent sent
it: its text and `name {arguments as JSON}`.
"""

from __future__ import annotations

from typing import Any

import json
import shlex

from contextual.core.replay.trajectory import Step
from pathlib import Path

# The task of a log that does not record the user's prompt (Codex `exec --json`, Claude Code stream-json): the
# same placeholder on both sides, so the comparison stays like for like.
TASK_NOT_RECORDED = "(the user's task is not recorded in this log)"

SHELL_TOOLS = {"execute_bash", "bash", "Bash", "shell", "container.exec", "local_shell", "shell_command",
               "exec_command", "terminal", "execute_command", "run_shell_command"}
_POSITIONAL = ("command", "path", "file_path")     # written before the --options, in this order


def shell_command(tool: str, args: dict[str, Any]) -> str | None:
    """The command line of a shell call, or None when `tool` is not a shell or has no command."""
    if tool not in SHELL_TOOLS:
        return None
    command = args.get("command", args.get("cmd"))
    if isinstance(command, list):     # Codex: ["bash", "-lc", "<script>"]
        words = [str(w) for w in command]
        return words[-1] if len(words) >= 3 and words[1] in ("-lc", "-c") else shlex.join(words)
    return command if isinstance(command, str) else None


def _word(value: Any) -> str:
    """A shell word; double quotes when they spare escaping the single quotes of code."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if "'" in text and not any(c in text for c in '"$`\\!'):
        return f'"{text}"'
    return shlex.quote(text)


def _option(key: str) -> str:
    return key if key.startswith("-") else f"--{key}"


def _delimiter(key: str, text: str) -> str:
    word = key.upper() or "EOF"
    while word in text.splitlines():
        word += "_END"
    return word


def action_text(tool: str, args: dict[str, Any]) -> str:
    """One call as the Bash command the replay plays (see the module docstring). A multi-line value goes in a
    heredoc after the line (`--file_text <<'FILE_TEXT'`), as a shell user would write it: quoting code with
    shell quotes costs a `'"'"'` for every quote in it."""
    command = shell_command(tool, args)
    if command is not None:
        return command
    if set(args) == {"input"} and isinstance(args["input"], str):
        return f"{tool} <<'EOF'\n{args['input']}\nEOF"
    words = [tool] + [_word(args[key]) for key in _POSITIONAL if key in args]
    bodies: list[str] = []
    for key, value in args.items():
        if key in _POSITIONAL:
            continue
        if isinstance(value, str) and "\n" in value:
            end = _delimiter(key, value)
            words.append(f"{_option(key)} <<'{end}'")
            bodies.append(f"{value}\n{end}")
        else:
            words.append(f"{_option(key)} {_word(value)}")
    return "\n".join([" ".join(words)] + bodies)


def call_text(tool: str, args: dict[str, Any]) -> str:
    """The call as the agent sent it: a shell command as itself, any other tool as `name {arguments}`."""
    command = shell_command(tool, args)
    return command if command is not None else f"{tool} {json.dumps(args, ensure_ascii=False)}"


def parse_args(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError:
            return {"input": raw}
        return value if isinstance(value, dict) else {"input": value}
    return {}


def tool_step(thought: str, tool: str, args: dict[str, Any], output: str, error: bool = False,
              returncode: int | None = None) -> Step:
    """One tool call; `returncode` when the log has the exit code, else 1 for a call the log marks failed."""
    thought = thought.strip()
    code = returncode if returncode is not None else (1 if error else None)
    return Step(thought=thought, action=action_text(tool, args), output=output, returncode=code,
                response=f"{thought}\n{call_text(tool, args)}".strip())


def message_step(text: str, reply: str) -> Step:
    """A model call answered in words, not with a tool (the agent asking or reporting; `reply` is what the user
    answered, if anything): a call the agent made, so a step; it plays as a Bash comment whose output is the
    reply, so the call count and every word stay."""
    text = text.strip()
    return Step(thought=text, action="# the agent replied in words; no tool call", output=reply, returncode=None,
                response=text)


def stem(path: Path) -> str:
    """A trajectory's name from its file (an OpenHands V1 `events` folder: its conversation's folder)."""
    if path.name == "events" and path.parent.name:
        return path.parent.name
    return path.name.removesuffix(".jsonl").removesuffix(".json")


class Steps:
    """The steps of a trajectory as they are read. Tool calls of one model reply (the same `reply` key: a
    response id) are one call the agent made, so they become one step: their commands on separate lines, their
    outputs in order. Counting each as a call would bill the agent for prompts it never sent."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self._replies: list[object] = []

    def add(self, step: Step, reply: object = None) -> int:
        """Add `step` (merged into the last one when it answers the same reply); returns its index."""
        if reply is not None and self._replies and self._replies[-1] == reply:
            last = self.steps[-1]
            self.steps[-1] = Step(last.thought or step.thought, f"{last.action}\n{step.action}",
                                  "\n".join(o for o in (last.output, step.output) if o),
                                  step.returncode if step.returncode is not None else last.returncode,
                                  "\n".join(r for r in (last.response, step.response) if r))
        else:
            self.steps.append(step)
            self._replies.append(reply)
        return len(self.steps) - 1

    def reply_to_last(self, text: str) -> None:
        """What the user said after the last step: part of what the agent read next."""
        last = self.steps[-1]
        self.steps[-1] = Step(last.thought, last.action, f"{last.output}\n\n{text}".strip(), last.returncode,
                              last.response, last.format_error, last.timed_out)

    def __len__(self) -> int:
        return len(self.steps)

