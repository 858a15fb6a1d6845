"""Loading a session: history exactly as it was in memory, plus the full record, usage, todos, compactions.

Rebuilding rules:
- Messages append in file order. Summaries (``isCompactSummary`` or a ``summary`` message) collect apart and
  always come first.
- A ``compact_boundary`` cuts the kept part: history = every summary so far + the messages from ``keptFromUuid``
  on (none when it is null), after the pinned ones it lists in ``pinnedUuids``. A fallback compaction (no
  summary) cuts the same way. The latest ``pins`` entry gives the pinned ids.
- A call (``tool_use``, or an assistant step naming a ``call_id``) without a result gets the synthetic "aborted"
  result right after its assistant message (seed 003); a result whose call appears nowhere is dropped.
- A ``permission`` entry (the user's answer to the dialog) belongs after the message before it, the call it
  answered; a rewind takes it back with that message.
- A ``context_adjusted`` entry (a turn's fitting to the window summed up) belongs after the message before it,
  as a permission entry does; neither is a message.
- An ``interrupted`` or ``turn_failed`` entry says why the turn it names (``turnId``; an older interrupted entry
  names none: the turn it follows) ended without an answer. Neither is a message: history is the same without.
- A ``user_shell`` entry is a `!command`'s result waiting for the user's next message: the next message the user
  sends takes it (``LoadedSession.shell`` holds those none took yet); a rewind past a compaction takes back with
  its messages the results they carried, as the live rewind did.
- A torn or corrupt line is skipped with a warning naming it; everything else loads (core/session/entry_lines.py).

A long session's first frame reads only the end of the record, by the same rules (core/session/tail.py).
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contextual.core.events import UsageEvent
from contextual.core.messages import Message
from contextual.core.context.history import apply_compaction
from contextual.core.context.pairing import CallRef, call_of, normalize
from contextual.core.session.entries import message_from_entry
from contextual.core.session.entry_lines import read_entries
from contextual.core.session import schema

if TYPE_CHECKING:
    from contextual.core.tools.base import Todo


@dataclass
class LoadedSession:
    session_id: str
    path: Path
    cwd: str
    history: list[Message] = field(default_factory=list)
    full_record: list[Message] = field(default_factory=list)
    last_usage: UsageEvent | None = None
    calls: list[UsageEvent] = field(default_factory=list)    # every call's usage: the session's cost on resume
    todos: list[Todo] = field(default_factory=list)
    # every todo list by the message it followed (a TodoWrite's result): `export --as-sent` sends each call's recap
    todos_after: dict[str, list[Todo]] = field(default_factory=dict)
    compactions: list[schema.CompactionRecord] = field(default_factory=list)
    permissions: list[schema.PermissionRecord] = field(default_factory=list)   # each after the message it followed
    fittings: list[schema.FittedRecord] = field(default_factory=list)          # each after the message it followed
    warnings: list[str] = field(default_factory=list)
    entries: list[dict[str, Any]] = field(default_factory=list)
    pins: list[str] = field(default_factory=list)            # pinned message ids (issue 19.3), latest entry wins
    forked_from: str | None = None                           # the parent session's id (issue 30.2: a fork)
    stopped: bool = False              # the user stopped the last turn: the next input tells the model so
    failed: str | None = None          # the last turn failed (its kind): the next input tells the model so too
    turn_ends: dict[str, schema.TurnEnd] = field(default_factory=dict)   # why a turn had no answer, by turn id
    cut: schema.Truncation | None = None       # the rounds the last compaction cut without a summary, unsaid yet
    notes: list[str] = field(default_factory=list)   # what rode on the message last rewound to: owed again
    # the user's `!command` results no message took yet (as sent, whole, the command): owed to the next input
    shell: list[tuple[str, str, str]] = field(default_factory=list)


def load_session(path: Path) -> LoadedSession:
    # Loading builds many containers and nothing cyclic: the cycle collector would only add passes.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _load(Path(path))
    finally:
        if collecting:
            gc.enable()


def _load(path: Path) -> LoadedSession:
    numbered, warnings = read_entries(path)
    while True:
        session = LoadedSession(session_id=path.name.removesuffix(".jsonl"), path=path, cwd="",
                                warnings=list(warnings))
        again = _fold(session, numbered)
        if again is None:
            return session
        numbered = again          # a rewind past a compaction: read once more without what it took back


def _fold(session: LoadedSession, numbered: list[tuple[int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]] | None:
    """Read the entries into ``session``; returns the entries to read instead when a rewind goes back to a
    message a compaction summarised (``_rewound``), else None."""
    return _Fold(session).read(numbered)


class _Fold:
    """One reading of the entries into a session: the summaries in force, the messages kept after them, and the
    calls by id (the pairing of calls and results, at the end)."""

    def __init__(self, session: LoadedSession) -> None:
        self.session = session
        self.summaries: list[Message] = []
        self.kept: list[Message] = []
        self.calls: dict[str, CallRef] = {}

    def read(self, numbered: list[tuple[int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]] | None:
        session = self.session
        for at, (number, entry) in enumerate(numbered):
            session.entries.append(entry)
            _folder(session, entry)
            kind = entry["type"]
            try:
                msg = message_from_entry(entry)
            except (KeyError, TypeError, ValueError):
                session.warnings.append(f"line {number}: malformed {kind} entry, skipped")
                continue
            if msg is not None:
                self._message(msg)
            elif kind == "tool_use":
                self._tool_use(entry)
            elif kind == "system" and entry.get("subtype") == "rewind":
                # the user went back to before this message: it and what followed are gone
                target = entry.get("toUuid")
                if not any(m.id == target for m in self.kept) and any(m.id == target for m in session.full_record):
                    return _rewound(numbered, target, at)
                self._rewind(target)
            elif kind == "system":
                self._system(entry, number)
        session.history = self.summaries + normalize(self.kept, self.calls)
        session.full_record = normalize(session.full_record, self.calls)
        return None

    def _message(self, msg: Message) -> None:
        session = self.session
        session.full_record.append(msg)
        if msg.role == "summary":
            if msg.meta.get("merged"):          # it replaces the summaries before it (history.apply_compaction)
                self.summaries.clear()
            self.summaries.append(msg)
            return
        self.kept.append(msg)
        session.stopped = session.stopped and msg.role == "tool"     # the stopped turn's aborted results
        session.failed = None             # a failure's entry follows its turn's last message: said once
        session.cut = None if msg.role == "user" else session.cut     # the next input said it
        session.notes = [] if msg.role == "user" else session.notes
        session.shell = [] if msg.starts_turn else session.shell       # the user's next message took them
        call = call_of(msg)
        if call is not None and call.call_id not in self.calls:
            self.calls[call.call_id] = call

    def _tool_use(self, entry: dict[str, Any]) -> None:
        tool = entry["tool"]
        known = self.calls.get(tool["callId"])
        self.calls[tool["callId"]] = CallRef(tool["callId"], tool.get("name"), tool.get("input"),
                                             entry.get("parentUuid"), known.step if known else None)

    def _rewind(self, target: Any) -> None:
        session = self.session
        # what rode on the message taken back is owed to the next input (core/agent.py: Engine.rewind_to)
        session.notes = next((m.notes for m in self.kept if m.id == target), session.notes)
        self.kept = _before(self.kept, target)
        session.full_record = _before(session.full_record, target)
        session.last_usage = None
        said = {m.id for m in session.full_record}      # the answers given in what it took back go with it
        session.permissions = [p for p in session.permissions if p.after in said]
        session.fittings = [f for f in session.fittings if f.after in said]

    def _system(self, entry: dict[str, Any], number: int) -> None:
        session = self.session
        subtype = entry.get("subtype")
        if subtype == "compact_boundary":
            self._compaction(schema.CompactionRecord.from_entry(entry), number)
        elif subtype == "usage":            # shapes were checked by entry_checks.problem when the line was read
            spent = _usage(entry["usage"], entry.get("model"), entry.get("counted"), entry.get("purpose"))
            session.calls.append(spent)
            if not spent.purpose:           # a summary's call costs, but A6's basis is the agent's last call
                session.last_usage = spent
        elif subtype == "permission":
            session.permissions.append(schema.PermissionRecord.from_entry(entry, _last_said(session.full_record)))
        elif subtype == "context_adjusted":
            session.fittings.append(schema.FittedRecord.from_entry(entry, _last_said(session.full_record)))
        elif subtype == "pins":
            session.pins = list(entry["pinned"])
        elif subtype == "user_shell":
            shell = entry["shell"]
            session.shell.append((shell["sent"], shell["whole"], shell["command"]))
        elif subtype == "fork" and isinstance(entry.get("parentSessionId"), str) and session.forked_from is None:
            # The first fork entry is this file's own; later ones were copied from its ancestors.
            session.forked_from = entry["parentSessionId"]
        elif subtype == "todos":
            session.todos = entry["todos"]
            after = _last_said(session.full_record)
            if after is not None:
                session.todos_after[after] = entry["todos"]
        elif subtype in schema.TURN_END_SUBTYPES:
            session.stopped = session.stopped or subtype == "interrupted"
            end = schema.TurnEnd.from_entry(entry, last_turn(session.full_record))
            session.failed = None if end.interrupted else end.kind
            if end.turn_id is not None:
                session.turn_ends[end.turn_id] = end

    def _compaction(self, record: schema.CompactionRecord, number: int) -> None:
        session = self.session
        cut = apply_compaction(self.kept, None, record.kept_from_id, record.pinned_ids)
        if cut is None:        # the first kept message is missing (a damaged line): too much beats too little
            session.warnings.append(f"line {number}: compaction keeps from {record.kept_from_id}, which is not in "
                                    "the record; kept all")
        self.kept = self.kept if cut is None else cut
        session.last_usage = None
        if record.cut is None:       # written before the record said it: its own figures
            record = replace(record, cut=record.own_cut(bool(self.summaries)))
        session.compactions.append(record)       # the compactor counts a later cut on from it (told)
        if record.cut is not None:
            session.cut = record.cut


def _folder(session: LoadedSession, entry: dict[str, Any]) -> None:
    """The session's folder: the first an entry says."""
    if not session.cwd and isinstance(entry.get("cwd"), str):
        session.cwd = entry["cwd"]


# What a rewind past a compaction takes back: the conversation (messages, calls, the user's answers to permission
# dialogs) and the compactions that summarised it. Usage (the session's cost), pins, titles and snapshots stay: they
# happened.
_TAKEN_BACK = {"user", "assistant", "tool_result", "tool_use"}
_TAKEN_BACK_SYSTEM = {"compact_boundary", "permission", "context_adjusted"}


def _rewound(numbered: list[tuple[int, dict[str, Any]]], target: Any, rewind_at: int) -> list[tuple[int, dict[str, Any]]]:
    """The entries as if the conversation from message ``target`` up to the rewind at ``rewind_at`` had never
    been: the history is then what it was before that message, with only the compactions made before it. The
    rewind entry stays (its target gone, it only forgets the last usage)."""
    start = next(i for i, (_, e) in enumerate(numbered) if e.get("uuid") == target)
    carried = _carried_shell(numbered, start, rewind_at)

    def taken_back(at: int, entry: dict[str, Any]) -> bool:
        return (entry.get("type") in _TAKEN_BACK or entry.get("isCompactSummary") is True
                or (entry.get("type") == "system" and entry.get("subtype") in _TAKEN_BACK_SYSTEM) or at in carried)
    return [*[n for at, n in enumerate(numbered[:start]) if at not in carried],
            *[n for at, n in enumerate(numbered[start:rewind_at + 1], start) if not taken_back(at, n[1])],
            *numbered[rewind_at + 1:]]


def _carried_shell(numbered: list[tuple[int, dict[str, Any]]], start: int, rewind_at: int) -> set[int]:
    """Where the `!command` results are that a message taken back (from ``start`` on) carried: they went with it,
    as they did live (a rewind keeps only those no message took yet); without their message, the re-read would
    owe them to the next input again."""
    waiting: list[int] = []
    carried: set[int] = set()
    for at, (_, entry) in enumerate(numbered[:rewind_at]):
        if entry.get("type") == "system" and entry.get("subtype") == "user_shell":
            waiting.append(at)
        elif _sent_by_user(entry):
            if at >= start:
                carried.update(waiting)
            waiting = []
    return carried


def _sent_by_user(entry: dict[str, Any]) -> bool:
    """A message entry the user sent (Message.starts_turn, read from the entry): it took the `!command` results
    waiting before it."""
    meta = entry.get("meta")
    meta = meta if isinstance(meta, dict) else {}
    return entry.get("type") == "user" and entry.get("isCompactSummary") is not True \
        and not meta.get("undo") and "stop_hook" not in meta


def last_turn(record: list[Message]) -> str | None:
    """The id of the last turn begun in the record (None: none, or one recorded before turns had ids)."""
    for msg in reversed(record):
        if msg.starts_turn:
            turn = msg.meta.get("turn")
            return turn if isinstance(turn, str) else None
    return None


def _last_said(record: list[Message]) -> str | None:
    """The id of the last message recorded that is not a summary: the one a permission answer came after (the call
    it answered; a summary is written by the compaction, apart from the conversation)."""
    for msg in reversed(record):
        if msg.role != "summary":
            return msg.id
    return None


def _before(messages: list[Message], message_id: Any) -> list[Message]:
    """The messages before ``message_id`` (all of them when it is not there)."""
    for index, msg in enumerate(messages):
        if msg.id == message_id:
            return messages[:index]
    return messages


def _usage(raw: dict[str, Any], model: Any = None, counted: Any = None, purpose: Any = None) -> UsageEvent:
    return UsageEvent(input_tokens=raw["input_tokens"], output_tokens=raw["output_tokens"],
                      cached_tokens=raw.get("cached_tokens", 0), cache_creation_tokens=raw.get("cache_creation_tokens", 0),
                      model=model if isinstance(model, str) else "",
                      sent=counted if isinstance(counted, int) and not isinstance(counted, bool) and counted > 0 else None,
                      purpose=purpose if isinstance(purpose, str) else "")
