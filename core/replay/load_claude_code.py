"""Claude Code session JSONL (``~/.claude/projects/<project>/<session>.jsonl``) into the neutral shape of
core/replay/trajectory.py.

Lines are ``{"type": "user"|"assistant", "message": {"role", "content"}, "uuid", "parentUuid", "isSidechain",
"sessionId", ...}``; one API reply is often split over several assistant lines (one content block each).
- The first user prompt (text, not ``isMeta``) is the task; a later prompt is the reply to the step before it.
- Only the branch that ends the session counts (``parentUuid`` links; a prompt edited and sent again leaves the
  abandoned branch in the file).
- ``tool_use`` blocks are steps, answered by the ``tool_result`` block with their id (its text parts are what
  the model read; ``toolUseResult`` only restates them for the UI); the calls of one reply (one
  ``message.id``) are one step. Text blocks before a call are its thought;
  text with no call after it is a step of its own (the agent answered in words).
- ``isCompactSummary`` prompts (after /compact or an automatic compaction) are recorded as condensations:
  the agent's later prompts held the summary, not the steps before it.
- Skipped on purpose: sidechains (a subagent's own calls: ``isSidechain``; a file of nothing else is a subagent's
  own session, read as one), ``thinking`` blocks, assistant
  lines Claude Code made up itself (``isApiErrorMessage``, model ``<synthetic>``), ``summary``,
  ``system``, ``file-history-snapshot`` and ``queue-operation`` lines, and any type we do not know.
``claude -p --output-format stream-json`` output has the same lines without the prompt: its task is a
placeholder. The log records neither the system prompt nor the tool schemas (compared without L1: core/replay/baseline.py).
"""

from __future__ import annotations

from typing import Any

from pathlib import Path

from contextual.core.replay.load_events import TASK_NOT_RECORDED, Steps, message_step, parse_args, stem, tool_step
from contextual.core.replay.trajectory import CLAUDE_CODE_FORMAT, Condensation, Trajectory, TrajectoryError


def is_claude_code(rows: list[dict[str, Any]]) -> bool:
    return any(r.get("type") in ("user", "assistant") and isinstance(r.get("message"), dict) for r in rows)


def _block_text(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content
                         if isinstance(part, dict) and part.get("type", "text") == "text")
    return "" if content is None else str(content)


def _blocks(row: dict[str, Any]) -> list[dict[str, Any]]:
    content = row["message"].get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _synthetic(row: dict[str, Any]) -> bool:
    """An assistant line Claude Code wrote itself (an API error shown to the user), not a model reply."""
    return row["type"] == "assistant" and (bool(row.get("isApiErrorMessage"))
                                           or row["message"].get("model") == "<synthetic>")


def _abandoned(every: list[dict[str, Any]], rows: list[dict[str, Any]]) -> set[str]:
    """Rows of branches the session left: a prompt edited and sent again forks the file at the prompt's parent
    (two prompts with one parent); the one off the path from the last message back to the first is abandoned,
    with everything that descends from it. Nothing is dropped when the file does not fork this way or the path
    breaks on a parent the file does not hold (file order then)."""
    prompts: dict[str, list[str]] = {}
    for r in rows:
        if r["type"] == "user" and not r.get("isMeta") and any(b.get("type") == "text" for b in _blocks(r)):
            prompts.setdefault(str(r.get("parentUuid")), []).append(str(r.get("uuid")))
    forks = [group for group in prompts.values() if len(group) > 1]
    if not forks or not rows:
        return set()
    by_id = {r["uuid"]: r for r in every if isinstance(r.get("uuid"), str)}
    path: set[str] = set()
    row: dict[str, Any] | None = rows[-1]
    while row is not None and row.get("uuid") not in path:
        path.add(str(row.get("uuid")))
        parent = row.get("parentUuid") or row.get("logicalParentUuid")     # a compaction links back logically
        if parent and parent not in by_id:
            return set()                          # the chain breaks: no way to tell the branches apart
        row = by_id.get(parent) if parent else None
    children: dict[str, list[str]] = {}
    for r in every:
        if isinstance(r.get("uuid"), str) and r.get("parentUuid"):
            children.setdefault(r["parentUuid"], []).append(r["uuid"])
    dead = [uuid for group in forks for uuid in group if uuid not in path]
    seen: set[str] = set()
    while dead:
        uuid = dead.pop()
        if uuid not in seen:
            seen.add(uuid)
            dead += children.get(uuid, [])
    return seen


def load(rows: list[dict[str, Any]], path: Path) -> Trajectory:
    every = rows
    rows = [r for r in rows if r.get("type") in ("user", "assistant") and isinstance(r.get("message"), dict)
            and not _synthetic(r)]
    if not all(r.get("isSidechain") for r in rows):     # a subagent's own file (agent-*.jsonl) is all sidechain
        rows = [r for r in rows if not r.get("isSidechain")]
    dropped = _abandoned(every, rows)
    rows = [r for r in rows if r.get("uuid") not in dropped]
    results: dict[str, tuple[str, bool]] = {}
    for row in rows:
        for block in _blocks(row) if row["type"] == "user" else []:
            if block.get("type") == "tool_result":
                results[str(block.get("tool_use_id"))] = (_block_text(block.get("content")),
                                                          bool(block.get("is_error")))
    task = ""
    steps = Steps()
    condensations: list[Condensation] = []
    thought: list[str] = []
    for row in rows:
        if row["type"] == "user":
            prompt = "\n".join(b.get("text", "") for b in _blocks(row) if b.get("type") == "text").strip()
            if not prompt or row.get("isMeta"):
                continue
            if row.get("isCompactSummary"):
                condensations.append(Condensation(len(steps), frozenset(range(len(steps))), prompt))
            elif not task:
                task = prompt
            elif thought:
                steps.add(message_step("\n".join(thought), prompt))
                thought = []
            elif steps:
                steps.reply_to_last(prompt)
            continue
        for block in _blocks(row):
            if block.get("type") == "text":
                thought.append(str(block.get("text") or ""))
            elif block.get("type") == "tool_use":
                output, error = results.get(str(block.get("id")), ("", False))
                steps.add(tool_step("\n".join(thought), str(block.get("name")), parse_args(block.get("input")),
                                    output, error), reply=row["message"].get("id"))
                thought = []
    if thought:
        steps.add(message_step("\n".join(thought), ""))
    if not task and not steps:
        raise TrajectoryError("no task: no user prompt in the session")
    task = task or TASK_NOT_RECORDED        # stream-json output starts after the prompt
    session = next((str(r["sessionId"]) for r in rows if r.get("sessionId")), stem(path))
    return Trajectory(session, task, steps.steps, CLAUDE_CODE_FORMAT, path, system_prompt_recorded=False,
                      condensations=condensations)
