"""Lines a later result superseded leave history (issue 28.2): the newest version of a file is the one L3 shows.

Within one round, a Read whose lines a later Read of the same file shows again, or whose file a later Write
replaced, is sent as a one-line note instead of its content; a Read whose file a later Edit changed keeps its
lines with a note that they are from before the edit. Only inside a round: a finished round enters L3 in its
history forms at once (the turn boundary rewrites the cached prefix from there anyway), so a form never changes
after it was sent, and an older round's cached prefix is never broken by what a newer round did. The stored
record in the session is untouched: `/context` and pins still reach the whole result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Callable, Collection, Sequence

from contextual.core.context.history import rounds
from contextual.core.messages import Message

READ, WRITES, EDITS = "Read", ("Write",), ("Edit", "MultiEdit")


@dataclass(frozen=True)
class _Result:
    tool: str
    path: str
    start: int          # a Read's first and last line; 0 when not a Read
    end: int
    step: int


def _result(m: Message) -> _Result | None:
    """What a successful file result touched, from its stored form; None for anything else."""
    tool = m.tool_name or ""
    if m.role != "tool" or tool not in (READ, *WRITES, *EDITS):
        return None
    try:
        stored = json.loads(m.content)
    except ValueError:
        return None
    data = stored.get("data") if isinstance(stored, dict) else None
    if not isinstance(data, dict) or stored.get("status") != "success" or not isinstance(data.get("path"), str):
        return None
    step = m.meta.get("step")
    start, end = (data.get("start_line"), data.get("end_line")) if tool == READ else (0, 0)
    if not isinstance(start, int) or not isinstance(end, int):
        return None
    return _Result(tool, data["path"], start, end, step if isinstance(step, int) else 0)


def notes(messages: Sequence[Message], pinned: Collection[str] = (),
          result: Callable[[Message], _Result | None] = _result) -> dict[str, tuple[str, str]]:
    """Message id → (key, note) for the results a later result of the same round superseded (key `superseded`:
    the content goes) or changed (key `changed_after`: the content stays, marked). Pinned results keep theirs."""
    out: dict[str, tuple[str, str]] = {}
    for round_ in rounds(list(messages)):
        open_reads: dict[str, list[tuple[str, _Result]]] = {}     # path → reads not yet superseded
        writes: dict[str, str] = {}                                 # path → the id of its last Write
        for m in round_:
            got = result(m)
            if got is None:
                continue
            earlier = open_reads.setdefault(got.path, [])
            if got.tool == READ:
                covered = [(i, r) for i, r in earlier if got.start <= r.start and r.end <= got.end]
                for i, _ in covered:
                    out[i] = ("superseded", f"shown again, as now, by the Read at step {got.step}")
                earlier[:] = [(i, r) for i, r in earlier if (i, r) not in covered] + [(m.id, got)]
            elif got.tool in WRITES:
                for i, _ in earlier:
                    out[i] = ("superseded", f"rewritten by the Write at step {got.step}")
                if got.path in writes:
                    out[writes[got.path]] = ("superseded", f"written again at step {got.step}")
                earlier.clear()
                writes[got.path] = m.id
            else:
                for i, _ in earlier:
                    if i not in out:
                        out[i] = ("changed_after", f"{got.tool} at step {got.step}: lines from before it; Read again "
                                                   "for the current text")
    return {i: note for i, note in out.items() if i not in pinned}


def apply(m: Message, key: str, note: str) -> Message:
    """The message as L3 sends it: for `superseded`, its path and range with the note, no content; for
    `changed_after`, the whole stored form with the note beside. Its full form stays out of reach of the
    builder's harder forms (they would bring the content back); /context reads the session's record."""
    stored: dict[str, Any] = json.loads(m.content)
    data = dict(stored["data"])
    if key == "superseded":
        data = {k: data[k] for k in ("path", "start_line", "end_line") if k in data}
    data[key] = note
    return replace(m, content=json.dumps({**stored, "data": data}, ensure_ascii=False), full=None)


class Supersession:
    """The history L3 sends, with superseded results replaced; the same object for an unchanged message, so
    the builder hashes and counts it once."""

    def __init__(self) -> None:
        self._made: dict[str, tuple[str, tuple[str, str], Message]] = {}
        self._read: dict[str, tuple[str, _Result | None]] = {}      # a result parsed once, not at every build
        self.ids: frozenset[str] = frozenset()

    def _result(self, m: Message) -> _Result | None:
        if m.role != "tool":
            return None
        got = self._read.get(m.id)
        if got is None or got[0] is not m.content:
            got = (m.content, _result(m))
            self._read[m.id] = got
            if len(self._read) > 20_000:
                self._read.pop(next(iter(self._read)))
        return got[1]

    def applied(self, history: Sequence[Message], pinned: Collection[str] = ()) -> list[Message]:
        """History as L3 sends it; `ids` then names the results replaced."""
        found = notes(history, pinned, self._result)
        self.ids = frozenset(found)
        if not found:
            return list(history)
        out = []
        for m in history:
            note = found.get(m.id)
            if note is None:
                out.append(m)
                continue
            got = self._made.get(m.id)
            if got is None or got[0] is not m.content or got[1] != note:
                got = (m.content, note, apply(m, *note))
                self._made[m.id] = got
                if len(self._made) > 20_000:
                    self._made.pop(next(iter(self._made)))
            out.append(got[2])
        return out
