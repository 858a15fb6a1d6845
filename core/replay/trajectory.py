"""The neutral shape every recorded trajectory is read into (core/replay/loaders.py picks the reader)."""

from __future__ import annotations

from typing import Any

from dataclasses import dataclass, field
from pathlib import Path

MINI_FORMAT = "mini-swe-agent-1"
SWE_AGENT_FORMAT = "swe-agent"
OPENHANDS_FORMAT = "openhands"
CLAUDE_CODE_FORMAT = "claude-code"
CODEX_FORMAT = "codex"


class TrajectoryError(Exception):
    """A file that is not a readable trajectory; the message is one line naming the file."""


@dataclass(frozen=True)
class Step:
    thought: str
    action: str                   # the bash command
    output: str                   # the recorded observation, as the agent saw it
    returncode: int | None
    response: str = ""            # the assistant turn exactly as recorded (what recall reads as "the action")
    format_error: bool = False
    timed_out: bool = False


@dataclass(frozen=True)
class Trajectory:
    instance_id: str
    task: str
    steps: list[Step]
    source_format: str
    path: Path | None = None
    # Everything the agent was given before its first action besides the task (system prompt, demonstrations).
    preamble: list[str] = field(default_factory=list)
    # The agent's own messages ({role, content}) exactly as it sent them, when the file records them
    # (mini-swe-agent, SWE-agent history); the baseline rebuilds its calls from them (core/replay/baseline.py).
    recorded: list[dict[str, Any]] | None = None
    # Whether the file holds the agent's system prompt. When it does not (Claude Code logs, most Codex rollouts,
    # OpenHands histories without a `system` event), figures are compared without L1 on both sides
    # (core/replay/baseline.py, "Like for like").
    system_prompt_recorded: bool = True
    # The prompts the agent itself sent, one per step, when the file records them (SWE-agent 1.x
    # `trajectory[].query`): the baseline uses them as they are, history processors and all.
    queries: list[list[dict[str, Any]]] | None = None
    # Where the agent's own context was condensed or compacted (OpenHands condensation, Codex `compacted`,
    # Claude Code /compact): its later prompts no longer held the steps it dropped.
    condensations: list[Condensation] = field(default_factory=list)


@dataclass(frozen=True)
class Condensation:
    """From step `before_step` on, the agent's prompts left out steps `dropped` (indices into `steps`) and
    carried `summary` (empty when the condenser dropped without summarising)."""
    before_step: int
    dropped: frozenset[int]
    summary: str = ""


def instance_id_of(data: dict[str, Any], path: Path) -> str:
    name = data.get("instance_id") or path.name.removesuffix(".json").removesuffix(".traj")
    return str(name)


def text_of(content: Any) -> str:
    """Message content as text: a string, or a list of {type: text, text} parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    raise TrajectoryError(f"message content is {type(content).__name__}, expected text")
