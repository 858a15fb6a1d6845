"""Exporting a session (issue 30.6): one implementation for `contextual export` and the app's /export.

- `transcript`: the whole record as Markdown — every user message, the model's steps with their tool calls
  (name and arguments) and results (the full output the model saw), the final answers, each compaction's summary
  with what the chat said of it (its line, its hooks' notes, the rounds kept, a merge), the rounds it archived (they
  stay in the record), the user's answers to permission dialogs after the calls they answered, each turn's
  "context adjusted" line where the chat's row stood, and why a turn ended without an answer (stopped, or failed).
- `as_sent`: every model request of the session's turns as it went on the wire (the provider's own request body),
  REBUILT deterministically from the session file — nothing is recorded at send time — by replaying the record
  through the engine's prompt builder with today's settings (system prompt, tools, window). Each request names
  its cache boundary: how many leading messages it shares with the request before it, the prefix a server's
  cache can reuse. Summary calls of compactions are not included. JSON Lines: a header line, then one per call.

Keys are redacted everywhere (core.secrets). Files go under $CONTEXTUAL_HOME/exports/ unless a path is given —
never into the project.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from contextual.core import secrets
from contextual.core.atomic import atomic_write
from contextual.core.clock import now_iso
from contextual.core.context import compaction_words, continuation
from contextual.core.context.scratchpad import step_of
from contextual.core.context.summary_pairs import summary_records
from contextual.core.messages import NO_ANSWER, Message
from contextual.core.snapshot.undo import note_for_user

if TYPE_CHECKING:
    from contextual.core.config import Config
    from contextual.core.events import TurnAdjustments
    from contextual.core.context.sent_log import SentLog
    from contextual.core.prompt import PromptMessage
    from contextual.core.session.loader import LoadedSession
    from contextual.core.session.schema import CompactionRecord

REBUILT_NOTE = ("rebuilt deterministically from the session file with the current settings (not recorded when "
                "sent), the token calibration replayed from the session's own usage; summary calls are not included")


def default_path(home: Path, session_id: str, as_sent: bool) -> Path:
    """Where an export goes when no path is given: under the user's home, never the project."""
    return home / "exports" / (f"{session_id}.as-sent.jsonl" if as_sent else f"{session_id}.md")


def write(text: str, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, secrets.redact(text).encode("utf-8"))
    return path


# --- the transcript --------------------------------------------------------------------------------------------

_TICKS = re.compile(r"`+")


def _fence(text: str) -> str:
    # longer than any run of backticks in the text, wherever it stands: an indented "   ```" closes a fence too
    longest = max((len(run) for run in _TICKS.findall(text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}\n{text.rstrip()}\n{ticks}"


def _args(args: object) -> str:
    return json.dumps(args, ensure_ascii=False, indent=2) if args is not None else "{}"


def _compaction_lines(record: "CompactionRecord | None") -> list[str]:
    """What the chat said of a compaction, its figures written out: its hooks' notes, the rounds kept, a merge, then
    its line (what it did, the facts it kept, why it cut rounds without a summary)."""
    if record is None:
        return []
    lost = record.loss_ledger.lost_line() if record.loss_ledger is not None else ""
    said = [line for line, _ in record.said_before()] + [compaction_words.written(record, lost)]
    return [f"_{line}_" for line in said] + [""]


def _fitted_at(loaded: "LoadedSession") -> dict[str, "TurnAdjustments"]:
    """Each turn's "context adjusted" line where the chat's row stands, after the message its first fitting
    followed, worded as the row's title: the turn's newest fitting (a Stop hook's going on fits it again)."""
    turn_of: dict[str, int] = {}
    turn = -1
    for m in loaded.full_record:
        if m.starts_turn:
            turn += 1
        turn_of[m.id] = turn
    rows: dict[int, tuple[str, "TurnAdjustments"]] = {}
    for fitted in loaded.fittings:
        if fitted.after is not None and fitted.after in turn_of:
            first = rows.get(turn_of[fitted.after], (fitted.after, fitted.fitting))[0]
            rows[turn_of[fitted.after]] = (first, fitted.fitting)
    return dict(rows.values())


def in_order(loaded: "LoadedSession") -> Iterator[tuple["CompactionRecord | None", Message | None]]:
    """The session's messages with its compactions where they happened: a summarised one with its summary
    message, one that fell back to truncation (it has no message) before the first message after its time."""
    summarised = summary_records(loaded.full_record, loaded.compactions)
    cut = sorted((r for r in loaded.compactions if r.fallback is not None), key=lambda r: r.timestamp or "~")
    for m in loaded.full_record:
        stamp = m.meta.get("timestamp")
        while cut and isinstance(stamp, str) and (cut[0].timestamp or "~") <= stamp:    # ISO 8601 sorts by time
            yield cut.pop(0), None
        yield (summarised[m.id][1] if m.id in summarised else None), m
    for record in cut:
        yield record, None


def _as_the_chat_shows(loaded: "LoadedSession") -> Iterator[tuple["CompactionRecord | None", Message | None]]:
    """``in_order``, with each compaction made once an input was sent (before its message was recorded: the
    message's ``sent``) under that message, where the chat shows it (tui/widgets/resumed_turns.py), not above its
    heading. The --as-sent rebuild keeps the record's order: the summary was in the prompt that message went in."""
    held: list[tuple["CompactionRecord | None", Message | None]] = []
    for record, m in in_order(loaded):
        if m is None or m.role == "summary":
            held.append((record, m))
            continue
        sent = m.meta.get("sent") if m.starts_turn else None
        with_it = [item for item in held if isinstance(sent, str) and item[0] is not None
                   and (item[0].timestamp or "~") >= sent]          # ISO 8601 sorts by time
        yield from (item for item in held if not any(item is later for later in with_it))
        yield record, m
        yield from with_it
        held = []
    yield from held


def transcript(loaded: "LoadedSession") -> str:
    out = [f"# Session {loaded.session_id}", "",
           f"project: {loaded.cwd or '?'} · exported {now_iso()} · {len(loaded.full_record)} messages", ""]
    answers: dict[str | None, list[str]] = {}       # the user's answers to permission dialogs, by the call answered
    for given in loaded.permissions:
        answers.setdefault(given.after, []).append(f"Permission — {given.describe()}")
    fitted = _fitted_at(loaded)
    unanswered = False              # a turn begun and not answered yet: said, as the chat says it, when the next begins
    turn: str | None = None         # the id of the turn being written

    def ended() -> list[str]:
        """Why the turn just written ended without an answer, as the chat says it (its line from the record)."""
        end = loaded.turn_ends.get(turn) if turn is not None else None
        said = end.describe() if end is not None else NO_ANSWER if unanswered else ""
        return [f"_{said}_", ""] if said else []
    for record, m in _as_the_chat_shows(loaded):
        if m is None:
            if record is not None:
                out += ["## Compaction, cut without a summary", "", *_compaction_lines(record)]
            continue
        when = f" · {m.meta['timestamp'][:19]}" if isinstance(m.meta.get("timestamp"), str) else ""
        if m.starts_turn:
            out += ended()
            out += [f"## User{when}", "", m.content.rstrip(), ""]
            unanswered, turn = True, m.meta.get("turn")
        elif m.from_stop_hook:       # the turn goes on: its answer is still to come
            out += [f"_{continuation.notice_line(m.meta['stop_hook'])}_", ""]
            unanswered = True
        elif m.role == "user":        # an undo's note: the app's words, after the turn it took back, as in the chat
            out += [f"↶ {note_for_user(m, loaded.full_record)}", ""]
        elif m.role == "summary":
            out += ["## Compaction summary", "", *_compaction_lines(record), m.content.rstrip(), ""]
        elif m.role == "assistant" and m.meta.get("final"):
            answer = m.meta.get("answer")
            unanswered = False
            out += [f"## Answer{when}", "", (answer if isinstance(answer, str) else m.content).rstrip(), ""]
        elif m.role == "assistant":
            step = m.meta.get("step")
            out += [f"### Step {step if step is not None else '?'}{when}", "", (m.full or m.content).rstrip(), ""]
            if m.tool_name is not None or m.meta.get("args") is not None:
                out += [f"Tool call `{m.tool_name or '?'}`:", "", _fence(_args(m.meta.get("args"))), ""]
        else:
            status = m.meta.get("status")
            head = f"Result of `{m.tool_name or '?'}`" + (f" ({status})" if isinstance(status, str) else "")
            out += [head + ":", "", _fence(m.full or m.content), ""]
        for line in answers.pop(m.id, []):
            out += [line, ""]
        if m.id in fitted:
            out += [f"_{fitted.pop(m.id).title()}_", ""]
    out += ended()
    # a tool's output or an MCP server's text may hold terminal escapes: the Markdown is read with cat and less
    return secrets.redact_shown("\n".join(out)).rstrip() + "\n"


# --- every request as sent, rebuilt ------------------------------------------------------------------------------

def _shared_prefix(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> int:
    n = 0
    for a, b in zip(before, after):
        if a != b:
            break
        n += 1
    return n


def _messages_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    system = body.get("system")
    head = [{"role": "system", "content": system}] if system is not None else []
    return head + list(body.get("messages") or [])


async def as_sent(loaded: "LoadedSession", config: "Config") -> str:
    """JSON Lines: a header, then each model request of the session's turns, rebuilt (see the module's doc)."""
    from contextual.core.providers.base import ChatRequest
    from contextual.core.providers.anthropic import AnthropicProvider
    from contextual.core.providers.factory import make_provider
    from contextual.core.providers.openai import OpenAIProvider
    wire = make_provider(replace(config, base_url=config.base_url or "http://127.0.0.1/v1"), api_key=None)
    assert isinstance(wire, (OpenAIProvider, AnthropicProvider))       # the two wires; each builds its own body
    lines = [json.dumps({"session": loaded.session_id, "provider": config.provider, "model": config.model or "",
                         "rebuilt": REBUILT_NOTE}, ensure_ascii=False)]
    previous: list[dict[str, Any]] = []
    try:
        for call, (reply, prompt) in enumerate(rebuilt_prompts(loaded, config), 1):
            body = wire.request_body(ChatRequest(prompt, config.model or "", max_tokens=config.reply_max_tokens))
            messages = _messages_of(body)
            lines.append(json.dumps({"call": call, "turn": reply.meta.get("turn"), "replyId": reply.id,
                                     "cacheBoundary": {"sharedPrefixMessages": _shared_prefix(previous, messages),
                                                       "messages": len(messages)},
                                     "body": body}, ensure_ascii=False))
            previous = messages
    finally:
        await wire.aclose()
    return secrets.redact("\n".join(lines)) + "\n"


def rebuilt_log(loaded: "LoadedSession", config: "Config") -> "SentLog":
    """The prompts of the session's calls, rebuilt as `as_sent` rebuilds them, for /diff in a session this run did
    not send (resumed: its calls were sent by an earlier run, and the log of this one was empty)."""
    from contextual.core.context.sent_log import SentLog
    log = SentLog()
    for _, prompt in rebuilt_prompts(loaded, config):
        log.add(prompt, config.model or "")
    return log


def rebuilt_prompts(loaded: "LoadedSession", config: "Config") -> Iterator[tuple[Message, list["PromptMessage"]]]:
    """Each model call of the session's turns: the reply it got and the prompt the builder makes for it, replaying
    the record through the engine's prompt (see the module's doc)."""
    from contextual.core.agent import Engine
    engine = Engine(config, None, interactive=False)
    prompt = engine.prompt
    # Each call was fitted through the calibration of our count against the server's as it stood then: replayed
    # from the usage the calls recorded (read from the home as it is now, the cuts differed)
    prompt.start_replay()
    usages = iter(loaded.calls)
    pending: Message | None = None            # an action whose result is still to come
    answered: Message | None = None           # an answer: its turn ends unless a Stop hook's message comes next
    for record, m in in_order(loaded):
        if answered is not None and not (m is not None and m.from_stop_hook):
            prompt.end_turn()
            answered = None
        if m is None or m.role == "summary":       # a compaction, with its summary or cut without one
            if record is not None:
                prompt.replay_compaction(m, record.kept_from_id, record.pinned_ids)
            continue
        if m.role == "assistant":
            yield m, prompt.build().messages
            usage = next(usages, None)
            if usage is not None and usage.sent:
                prompt.calibrate(usage.sent, usage.input_tokens)
        prompt.replay_message(m)
        if m.id in loaded.todos_after:    # the recap closes every call after a TodoWrite (A1), as it did then
            engine.toolbox.restore_todos(list(loaded.todos_after[m.id]))
        if answered is not None:          # a Stop hook's message: the turn went on (core/context/continuation.py)
            prompt.add_step(step_of(answered, m))
            answered = None
        elif m.role == "user":
            prompt.start_turn(m.content)
        elif m.role == "assistant" and m.meta.get("final"):
            answered = m
        elif m.role == "assistant":
            pending = m
        elif m.role == "tool" and pending is not None:
            prompt.add_step(step_of(pending, m))
            pending = None
