"""Finds recorded agent trajectories and reads each with its family's reader, into one neutral shape
(core/replay/trajectory.py):

- mini-swe-agent ``*.traj.json``: core/replay/load_mini.py
- SWE-agent ``*.traj`` (text commands and function calling): core/replay/load_swe_agent.py
- OpenHands event histories and evaluation ``output.jsonl``: core/replay/load_openhands.py
- Claude Code session JSONL: core/replay/load_claude_code.py
- Codex rollout JSONL: core/replay/load_codex.py
(the event-log families share core/replay/load_events.py: one tool call as one Step).
A file that is none of these costs one line naming it (TrajectoryError), never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from contextual.core.replay import load_claude_code, load_codex, load_mini, load_openhands, load_swe_agent
from contextual.core.replay.trajectory import (CLAUDE_CODE_FORMAT, CODEX_FORMAT, MINI_FORMAT, OPENHANDS_FORMAT,  # noqa: F401
                                    SWE_AGENT_FORMAT, Step, Trajectory, TrajectoryError)


def find_trajectories(paths: list[str | Path]) -> list[Path]:
    """Files as given, folders searched recursively for *.traj.json and *.traj and event logs; sorted, no
    duplicates. An OpenHands V1 conversation keeps one file per event (`events/event-00000-<id>.json`): its
    `events` folder is one trajectory. Prompt logs (`llm_completions/`) are not trajectories and are passed
    over. A path that does not exist raises TrajectoryError."""
    found: dict[Path, None] = {}
    for raw in paths:
        path = Path(raw)
        if path.is_dir() and _is_event_folder(path):
            found.setdefault(path, None)
        elif path.is_dir():
            matches = set()
            for p in path.rglob("*"):
                if not p.is_file() or "llm_completions" in p.parts:
                    continue
                if _is_event_folder(p.parent):
                    matches.add(p.parent)
                elif _looks_like_trajectory(p):
                    matches.add(p)
            for p in sorted(matches):
                found.setdefault(p, None)
        elif path.is_file():
            found.setdefault(path, None)
        else:
            raise TrajectoryError(f"{path}: no such file or folder")
    return list(found)


def _is_event_folder(path: Path) -> bool:
    return path.name == "events" and any(path.glob("event-*.json"))


def _read_event_folder(path: Path) -> list[Any]:
    events = []
    for file in sorted(path.glob("event-*.json")):
        try:
            events.append(json.loads(file.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise TrajectoryError(f"{file}: cannot read the event: {exc}") from None
    return events


_SNIFF_CHARS = 65_536
_EVENT_HINTS = ('"source"', '"sessionId"', '"session_meta"', '"response_item"', '"payload"', '"history"',
                '"parentUuid"', '"tool_call_metadata"', '"kind": "ActionEvent"', '"kind":"ActionEvent"',
                '"thread.started"', '"item.completed"')


def _looks_like_trajectory(path: Path) -> bool:
    """By name for the agents that name their files (*.traj.json, *.traj); a .json/.jsonl file in a folder only
    when its opening looks like an event log, so a folder of unrelated JSON is not read as trajectories.
    An evaluation output.jsonl can open with a long patch before its `history`: its first line is read whole."""
    if path.name.endswith(".traj.json") or path.suffix == ".traj":
        return True
    if path.suffix not in (".json", ".jsonl"):
        return False
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            head = handle.read(_SNIFF_CHARS)
            if any(hint in head for hint in _EVENT_HINTS):
                return True
            if path.suffix != ".jsonl" or "\n" in head:
                return False
            first = head + handle.readline()
    except OSError:
        return False
    try:
        row = json.loads(first)
    except ValueError:
        return False
    return isinstance(row, dict) and isinstance(row.get("history"), list)


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TrajectoryError(f"{path}: cannot read: {exc}") from None
    if not text.strip():
        raise TrajectoryError(f"{path}: empty file, not a trajectory")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        if path.suffix == ".jsonl" or "\n{" in text.strip():
            return _read_jsonl(path, text)
        raise TrajectoryError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None


def _read_jsonl(path: Path, text: str) -> list[Any]:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise TrajectoryError(f"{path}: line {number} is not JSON ({exc.msg})") from None
    return rows


def load_trajectories(path: str | Path) -> list[Trajectory]:
    """Every trajectory in one file (an OpenHands evaluation output.jsonl holds one per line); the first
    problem raises TrajectoryError."""
    found = []
    for item in iter_trajectories(path):
        if isinstance(item, TrajectoryError):
            raise item
        found.append(item)
    return found


def iter_trajectories(path: str | Path) -> Iterator[Trajectory | TrajectoryError]:
    """The trajectories of one file, each as soon as it is read, or the one-line error that stopped one.
    An evaluation output.jsonl (one instance a line, often gigabytes) is read a line at a time: it never sits
    in memory whole, and a corrupt line costs that instance only."""
    path = Path(path)
    if path.suffix == ".jsonl" and _instance_per_line(path):
        with open(path, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    yield TrajectoryError(f"{path}: line {number} is not JSON ({exc.msg})")
                    continue
                yield from _checked(path, f"{path}: line {number}", row)
        return
    try:
        data = _read_event_folder(path) if path.is_dir() else _read_json(path)
    except TrajectoryError as exc:
        yield exc
        return
    yield from _checked(path, str(path), data)


def _instance_per_line(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            first = handle.readline()
        row = json.loads(first)
    except (OSError, ValueError):
        return False
    return isinstance(row, dict) and isinstance(row.get("history"), list)


def _checked(path: Path, where: str, data: Any) -> Iterator[Trajectory | TrajectoryError]:
    """The family's reader on `data`; anything it trips on becomes one line naming `where`."""
    try:
        if isinstance(data, dict) and load_mini.is_mini(data):
            found = [load_mini.load(data, path)]
        elif isinstance(data, dict) and load_swe_agent.is_swe_agent(data):
            found = [load_swe_agent.load(data, path)]
        else:
            found = _load_events(data, path)
    except TrajectoryError as exc:
        message = str(exc)
        yield TrajectoryError(message if message.startswith(str(path)) else f"{where}: {message}")
        return
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as exc:
        yield TrajectoryError(f"{where}: malformed trajectory ({type(exc).__name__}: {exc})")
        return
    for traj in found:
        yield traj if traj.steps else TrajectoryError(f"{where}: the trajectory {traj.instance_id} has no steps")


def _load_events(data: Any, path: Path) -> list[Trajectory]:
    rows = data if isinstance(data, list) else [data]
    dicts = [r for r in rows if isinstance(r, dict)]
    if load_openhands.is_openhands(rows):
        return load_openhands.load(rows, path)
    if not dicts:
        raise TrajectoryError(f"not a trajectory: expected a JSON object or a list of events, got "
                              f"{type(data).__name__} of {type(rows[0]).__name__ if rows else 'nothing'}")
    if load_claude_code.is_claude_code(dicts):
        return [load_claude_code.load(dicts, path)]
    if load_codex.is_codex(dicts):
        return [load_codex.load(dicts, path)]
    raise TrajectoryError("not a trajectory: neither a mini-swe-agent (messages), SWE-agent (trajectory, history), "
                          "OpenHands (events, history), Claude Code (user/assistant lines) nor Codex (response_item)")


def load_trajectory(path: str | Path) -> Trajectory:
    """The first (usually the only) trajectory of a file."""
    return load_trajectories(path)[0]
