"""History invariants of call/result pairing (seed 002 D2, seed 003): the one implementation.

Used by the engine (restore), the interrupt path, the session loader and pins. Small named functions, Codex style:
- every assistant step that names a `call_id` is followed by its result; one that never got a result gets a
  synthetic "aborted" result right after it, with an id derived from the call id (loading twice, or
  interrupting then loading, gives the same history);
- a tool result whose call appears nowhere is an orphan and is dropped (a result without a call id too);
- a step and its result are one unit (`unit_of`): pinning either pins both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from contextual.core.context.compressor import dumps
from contextual.core.messages import Message, MessageMeta

ABORTED = {"status": "error", "error": {"code": "aborted", "message": "aborted"}}
ABORTED_CONTENT = dumps(ABORTED)


@dataclass(frozen=True)
class CallRef:
    """A tool call as the record knows it: which message made it (parent_id) and what it asked for."""
    call_id: str
    tool_name: str | None
    args: Any
    parent_id: str | None
    step: Any = None


def aborted_id(call_id: str) -> str:
    return f"aborted-{call_id}"


def aborted_result(call: CallRef) -> Message:
    meta = MessageMeta(tool_name=call.tool_name, call_id=call.call_id, args=call.args, interrupted=True,
                       synthetic=True)
    if call.step is not None:
        meta["step"] = call.step
    return Message("tool", ABORTED_CONTENT, full=ABORTED_CONTENT, meta=meta, id=aborted_id(call.call_id))


def call_of(message: Message) -> CallRef | None:
    """The call an assistant step makes, or None."""
    if message.role != "assistant" or not message.call_id:
        return None
    return CallRef(message.call_id, message.tool_name, message.meta.get("args"), message.id, message.meta.get("step"))


def unit_of(messages: Sequence[Message], message_id: str) -> set[str]:
    """The message and, for a step or an observation, its partner (same call_id)."""
    target = next((m for m in messages if m.id == message_id), None)
    if target is None:
        return set()
    ids = {target.id}
    if target.call_id and target.role in ("assistant", "tool"):
        ids |= {m.id for m in messages if m.call_id == target.call_id and m.role in ("assistant", "tool")}
    return ids


def calls_in(messages: Iterable[Message]) -> dict[str, CallRef]:
    calls: dict[str, CallRef] = {}
    for m in messages:
        call = call_of(m)
        if call is not None:
            calls.setdefault(call.call_id, call)
    return calls


def answered_in(messages: Iterable[Message]) -> set[str]:
    return {m.call_id for m in messages if m.role == "tool" and m.call_id}


def unanswered(messages: list[Message], calls: Mapping[str, CallRef] | None = None) -> list[CallRef]:
    """Calls without a result, in record order."""
    answered = answered_in(messages)
    return [c for c in (calls_in(messages) if calls is None else calls).values() if c.call_id not in answered]


def remove_orphan_outputs(messages: list[Message], calls: Mapping[str, CallRef] | None = None) -> list[Message]:
    known = calls_in(messages) if calls is None else calls
    return [m for m in messages if m.role != "tool" or (m.call_id is not None and m.call_id in known)]


def ensure_call_outputs_present(messages: list[Message],
                                calls: Mapping[str, CallRef] | None = None) -> list[Message]:
    """An aborted result right after the message that made each unanswered call (calls whose maker is not in
    `messages` get none here)."""
    pending: dict[str, list[CallRef]] = {}
    for call in unanswered(messages, calls):
        if call.parent_id is not None:
            pending.setdefault(call.parent_id, []).append(call)
    out: list[Message] = []
    for m in messages:
        out.append(m)
        out.extend(aborted_result(call) for call in pending.get(m.id, ()))
    return out


def normalize(messages: list[Message], calls: Mapping[str, CallRef] | None = None) -> list[Message]:
    """Orphans out, aborted results in. `calls` widens what counts as a call (the loader's tool_use entries)."""
    return ensure_call_outputs_present(remove_orphan_outputs(messages, calls), calls)
