"""The shape of every session entry that is not a message, built here for the writer: its bodies and the records
read back from them (compactions, permission answers, a turn's fitting, a turn's end).

Messages (user / assistant / tool_result / summary) are in entries.py. Each ``*_body`` returns the type-specific
part of an entry; the writer adds the common fields (uuid, parentUuid, sessionId, timestamp, cwd, gitBranch,
version). What a line read back must hold is checked in entry_checks.py (``problem``) before a record is made of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, assert_never

from contextual.core.context import compaction_words
from contextual.core.input_cut import InputCut
from contextual.core.context.ledger import Ledger
from contextual.core.events import PermissionDecision, TurnAdjustments
from contextual.core.prompt import Adjustment
from contextual.core.session.entry_checks import PERMISSION_DECISIONS, are_strings, is_count


# ---- building ---------------------------------------------------------------------------------------------------

def tool_use_body(call_id: str, name: str, args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "tool": {"name": name, "input": args, "callId": call_id}}


def system_body(subtype: str, **fields: Any) -> dict[str, Any]:
    return {"type": "system", "subtype": subtype, **fields}


def rewind_body(to_id: str) -> dict[str, Any]:
    """History went back to just before the user message ``to_id`` (/rewind): a resume drops what follows it."""
    return system_body("rewind", toUuid=to_id)


def shell_body(command: str, sent: str, whole: str) -> dict[str, Any]:
    """A `!command`'s result waiting for the user's next message (core/context/user_shell.py): as it will be sent and
    whole. The message that takes it records it as its own (meta ``shell``); until one does, a resume (`-c`) owes it to
    the next input, as the live app would have sent it."""
    return system_body("user_shell", shell={"command": command, "sent": sent, "whole": whole})


def usage_body(input_tokens: int, output_tokens: int, cached_tokens: int, cache_creation_tokens: int,
               model: str = "", sent: int | None = None, purpose: str = "") -> dict[str, Any]:
    """One model call's usage; `purpose` "summary" for a compaction's call (older readers count it as a call)."""
    return system_body("usage", **({"model": model} if model else {}), **({"counted": sent} if sent else {}),
                       **({"purpose": purpose} if purpose else {}),
                       usage={"input_tokens": input_tokens, "output_tokens": output_tokens,
                                       "cached_tokens": cached_tokens, "cache_creation_tokens": cache_creation_tokens})


@dataclass(frozen=True)
class Truncation:
    """Rounds a compaction removed without a summary, which the model is told with the next input
    (core/engine/compactor.py: truncation_note); a resumed session owes it until a user message follows."""
    rounds: int
    why: str | None                     # the fallback's reason, or why a summary made in parts stopped
    after_summary: bool = False         # they are the rounds a stopped summary's kept parts did not reach
    partly: bool = False                # and those parts reached into the first of them
    # Rounds removed without a summary before those the last summary holds, whose note left with these rounds
    # unread by any summary (core/engine/compactor.py: told)
    earlier: int = 0

    def metadata(self) -> dict[str, Any]:
        return {"rounds": self.rounds, "afterSummary": self.after_summary, "partly": self.partly,
                "earlier": self.earlier}

    @classmethod
    def of(cls, value: Any, why: str | None) -> "Truncation | None":
        """From compactMetadata's `cut`; none (written before it, malformed) is None: the record's own figures say it."""
        if not isinstance(value, dict) or not is_count(value.get("rounds")) or not value["rounds"] \
                or not is_count(value.get("earlier", 0)):
            return None
        return cls(value["rounds"], why, value.get("afterSummary") is True, value.get("partly") is True,
                   value.get("earlier", 0))


@dataclass(frozen=True)
class CompactionRecord:
    """One compaction as the log (`/compactions`, `/ledger`) and the session's compact_boundary entry hold it."""
    trigger: str                        # auto | manual
    pre_tokens: int | None
    post_tokens: int | None
    files_included: tuple[str, ...] = ()
    fallback: str | None = None         # why history was cut without a summary (None: summarised)
    rounds_archived: int | None = None  # None in sessions written before it was recorded
    loss_ledger: Ledger | None = None   # issue 19.2: what the archived rounds held that the prompt no longer does
    kept_from_id: str | None = None     # history continues from this message (None: only summaries and pins)
    pinned_ids: tuple[str, ...] = ()    # pinned messages from before kept_from_id that the compaction kept
    timestamp: str | None = None
    merged: int = 0                     # issue 24: earlier summaries merged into this one (they outgrew window/4)
    # A summary made in parts that ended before it was whole (esc, or a later request timed out or failed) once
    # parts were finished: (parts kept, parts in all), and of the rounds archived, those the kept parts did not
    # reach (they left without a summary); ``ended`` says how it ended ("": the user stopped it; see
    # compaction_words). Written as new compactMetadata keys beside a summary entry and no fallback: an older build
    # reads it as a summarised compaction.
    parts: tuple[int, int] | None = None
    rounds_truncated: int = 0
    ended: str = ""
    input_cut: InputCut = InputCut()    # what the summary's input lost to fit the summary model's window
    # The kept parts reached into the first truncated round: its start is in the summary, its rest gone (written as
    # compactMetadata.roundPartlySummarised, only when true).
    partly: bool = False
    # What the model is told was removed without a summary after it (truncation_note): its own rounds, and the rounds
    # earlier ones removed whose note it took away unread (core/engine/compactor.py: told). None: nothing, or a
    # record written before it (the loader reads the record's own figures then: own_cut).
    cut: Truncation | None = None
    # Why fewer rounds than keep_rounds were kept, when the chat was told (keep_fit.kept_note; said once while it
    # stays the same): a resumed chat says it where the live one did. compactMetadata.keptNote, only when said.
    kept_note: str = ""
    # What its PreCompact hooks said (a systemMessage, a failure, a block it cannot make here), as the chat said it
    # before its line: a resumed chat and the export say it there too. compactMetadata.hookNotes, only when said.
    hook_notes: tuple[str, ...] = ()

    def said_before(self) -> list[tuple[str, str]]:
        """The chat's lines before its own, live and resumed alike, with their level, in the order they came: its
        hooks' notes (as it began), why fewer rounds were kept, the summaries merged (as it ended)."""
        return [*((note, "warning") for note in self.hook_notes),
                *([(compaction_words.kept_line(self.kept_note), "info")] if self.kept_note else []),
                *([(compaction_words.merged_line(self.merged), "info")] if self.merged else [])]

    def own_cut(self, after_summary: bool) -> Truncation | None:
        """The rounds this compaction itself removed without a summary: all it archived when it fell back, or those a
        summary made in parts did not reach. ``after_summary``: the history holds a summary above them."""
        if self.fallback and self.rounds_archived:
            return Truncation(self.rounds_archived, self.fallback, after_summary)
        if self.rounds_truncated:
            return Truncation(self.rounds_truncated, self.stopped_why(), True, self.partly)
        return None

    def metadata(self) -> dict[str, Any]:
        """compactMetadata, also carried by the summary's own entry."""
        return {"trigger": self.trigger, "preTokens": self.pre_tokens, "postTokens": self.post_tokens,
                "filesIncluded": list(self.files_included),
                **({"roundsArchived": self.rounds_archived} if self.rounds_archived is not None else {}),
                **({"summariesMerged": self.merged} if self.merged else {}),
                **({"partsKept": self.parts[0], "partsTotal": self.parts[1], "roundsTruncated": self.rounds_truncated}
                   if self.parts is not None else {}),
                **({"partsEnded": self.ended} if self.parts is not None and self.ended else {}),
                **({"roundPartlySummarised": True} if self.parts is not None and self.partly else {}),
                **({"inputCut": self.input_cut.metadata()} if self.input_cut else {}),
                **({"cut": self.cut.metadata()} if self.cut is not None else {}),
                **({"keptNote": self.kept_note} if self.kept_note else {}),
                **({"hookNotes": list(self.hook_notes)} if self.hook_notes else {})}

    def stopped(self) -> str:
        """'' unless its summary ended with parts finished (esc, a timeout, a failure): then what it kept, in words
        ("timed out: 2 of 3 parts kept; 4 rounds summarised, 3 truncated")."""
        if self.parts is None:
            return ""
        return compaction_words.outcome(self.rounds_archived, self.parts, self.rounds_truncated, self.ended)

    def stopped_why(self) -> str:
        """Why its truncated rounds have no summary, as the model's note says it."""
        return compaction_words.why(self.parts, self.ended)

    def to_entry(self) -> dict[str, Any]:
        return system_body("compact_boundary", message={"role": "system", "content": "=== compact boundary ==="},
                           compactMetadata=self.metadata(), keptFromUuid=self.kept_from_id, fallback=self.fallback,
                           **({"lossLedger": self.loss_ledger.to_dict()} if self.loss_ledger is not None else {}),
                           **({"pinnedUuids": list(self.pinned_ids)} if self.pinned_ids else {}),
                           # the record's own time, not the write's a millisecond later: read back, it is the same
                           **({"timestamp": self.timestamp} if self.timestamp else {}))

    @classmethod
    def from_entry(cls, entry: dict[str, Any]) -> "CompactionRecord":
        """A compact_boundary entry whose shape `problem` accepted."""
        meta = entry.get("compactMetadata") or {}
        rounds = meta.get("roundsArchived")
        try:
            ledger = Ledger.from_dict(entry["lossLedger"]) if isinstance(entry.get("lossLedger"), dict) else None
        except (KeyError, TypeError, ValueError):     # a damaged ledger: the compaction itself still counts
            ledger = None
        # All three, or the record is read as an older build reads it: a summarised compaction.
        stopped = all(is_count(meta.get(k)) for k in ("partsKept", "partsTotal", "roundsTruncated"))
        parts = (int(meta["partsKept"]), int(meta["partsTotal"])) if stopped else None
        ended = meta["partsEnded"] if stopped and isinstance(meta.get("partsEnded"), str) else ""
        return cls(str(meta.get("trigger") or "?"), meta.get("preTokens"), meta.get("postTokens"),
                   tuple(meta.get("filesIncluded") or ()), entry.get("fallback"),
                   rounds if is_count(rounds) else None,
                   ledger, entry.get("keptFromUuid"),
                   tuple(entry.get("pinnedUuids") or ()), entry.get("timestamp"),
                   int(meta["summariesMerged"]) if is_count(meta.get("summariesMerged")) else 0,
                   parts, int(meta["roundsTruncated"]) if stopped else 0, ended, InputCut.of(meta.get("inputCut")),
                   stopped and meta.get("roundPartlySummarised") is True,
                   Truncation.of(meta.get("cut"), entry.get("fallback") or compaction_words.why(parts, ended)),
                   meta["keptNote"] if isinstance(meta.get("keptNote"), str) else "",
                   tuple(meta["hookNotes"]) if are_strings(meta.get("hookNotes")) else ())


@dataclass(frozen=True)
class PermissionRecord:
    """One answer to the permission dialog, as the session's permission entry holds it: what the chat said then, it
    says again when the session is resumed (`describe`), and the export writes it."""
    tool: str
    decision: PermissionDecision
    rules: tuple[str, ...] = ()   # what "allow always" wrote
    once_only: str = ""           # "always" was asked for, but no rule could match the call again: why
    note: str = ""                # with "deny": what the user told the agent to do instead
    # The message recorded just before it (the call it answered): where a resumed chat shows it. Not written: the
    # entry's place in the record says it (core/session/loader.py).
    after: str | None = None

    def describe(self) -> str:
        """What was answered, in words: the chat's line for it (live and resumed) and the export's. A denial's note
        stays whole here; the chat fits it to one line."""
        match self.decision:
            case "allow_once":
                said = f"allowed once, not always: {self.once_only}" if self.once_only else "allowed once"
            case "allow_session":
                said = "allowed for this session"
            case "allow_always":
                said = f"allowed from now on ({', '.join(self.rules)} in .contextual/config.local.toml)"
            case "accept_edits":        # not "allowed once": the mode changed, and the later edits run unasked too
                said = "permission mode changed to accept-edits, which allowed this call (file edits run unasked now)"
            case "deny":
                said = f"denied · told the agent: {self.note.strip()}" if self.note.strip() else "denied"
            case _:
                assert_never(self.decision)
        return f"{self.tool}: {said}"

    def to_entry(self) -> dict[str, Any]:
        return system_body("permission", permission={
            "tool": self.tool, "decision": self.decision, **({"rules": list(self.rules)} if self.rules else {}),
            **({"onceOnly": self.once_only} if self.once_only else {}), **({"note": self.note} if self.note else {})})

    @classmethod
    def from_entry(cls, entry: dict[str, Any], after: str | None) -> "PermissionRecord":
        """A permission entry whose shape `problem` accepted (one written before rules, onceOnly and note were
        recorded has none)."""
        permission = entry["permission"]
        decision = next(d for d in PERMISSION_DECISIONS if d == permission["decision"])
        return cls(permission["tool"], decision, tuple(permission.get("rules") or ()),
                   permission.get("onceOnly") or "", permission.get("note") or "", after)


@dataclass(frozen=True)
class FittedRecord:
    """A turn's prompt fitted to the window, summed up (the TurnAdjustments event), as its ``context_adjusted``
    entry holds it: the live chat's "context adjusted" row, which a resumed chat shows again where it was. Each
    adjustment keeps what the row lists (action, detail, tokens before and after), not the messages it touched.
    An older reader passes the entry by (an unknown subtype)."""
    fitting: TurnAdjustments
    # The message recorded just before it: where a resumed chat shows it. Not written: the entry's place says it.
    after: str | None = None

    def to_entry(self) -> dict[str, Any]:
        return system_body("context_adjusted", summary=self.fitting.summary, headline=self.fitting.headline,
                           adjustments=[{"action": a.action, "detail": a.detail, "tokensBefore": a.tokens_before,
                                         "tokensAfter": a.tokens_after} for a in self.fitting.adjustments])

    @classmethod
    def from_entry(cls, entry: dict[str, Any], after: str | None) -> "FittedRecord":
        """A context_adjusted entry whose shape `problem` accepted."""
        adjustments = tuple(Adjustment(a["action"], a["detail"], a["tokensBefore"], a["tokensAfter"])
                            for a in entry["adjustments"])
        return cls(TurnAdjustments(adjustments, entry["summary"], entry["headline"]), after)


INTERRUPTED = "interrupted"        # TurnEnd.kind of a turn the user stopped (Esc, Ctrl-C, the app closed mid-turn)
STOPPED_BY_USER = "interrupted by the user"
TURN_END_SUBTYPES = ("interrupted", "turn_failed")     # the system entries a TurnEnd is written as


@dataclass(frozen=True)
class TurnEnd:
    """Why a turn ended without an answer, as its session entry holds it: the user stopped it (an ``interrupted``
    entry) or it failed (a ``turn_failed`` entry: the ErrorEvent's kind and one-line message). Either makes the
    next input tell the model so (its kind, never the reason: that is for the person). A resumed chat and the export
    say it where the live chat said it (``describe``)."""
    turn_id: str | None      # the turn's id (its user message's meta ``turn``); None: an older interrupted entry
    kind: str                # INTERRUPTED, or the ErrorEvent's kind: provider, step_limit, hook, context_length, ...
    reason: str              # one line, keys redacted

    @property
    def interrupted(self) -> bool:
        return self.kind == INTERRUPTED

    @property
    def level(self) -> str:
        """The live chat's style for it: a stop is a warning ("turn cancelled"), a failure an error."""
        return "warning" if self.interrupted else "error"

    def describe(self) -> str:
        return "turn interrupted" if self.interrupted else f"turn failed: {self.reason}"

    def to_entry(self) -> dict[str, Any]:
        turn = {"turnId": self.turn_id} if self.turn_id is not None else {}
        if self.interrupted:
            return system_body("interrupted", reason=self.reason, **turn)
        return system_body("turn_failed", **turn, kind=self.kind, reason=self.reason)

    @classmethod
    def from_entry(cls, entry: dict[str, Any], turn_id: str | None = None) -> "TurnEnd":
        """An interrupted or turn_failed entry whose shape `problem` accepted; ``turn_id``: the turn it follows in
        the record, for an interrupted entry written before it named its turn."""
        named = entry.get("turnId")
        turn = named if isinstance(named, str) else turn_id
        if entry.get("subtype") == "interrupted":
            return cls(turn, INTERRUPTED, STOPPED_BY_USER)
        return cls(turn, str(entry["kind"]), str(entry["reason"]))
