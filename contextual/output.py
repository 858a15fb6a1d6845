"""What `contextual -p` prints, in the three forms of CONTRACT Additions (`--output-format text|json|stream-json`).

Every string passes one gate before it reaches a terminal or a pipe: known keys redacted (core.secrets), invalid
Unicode made visible (core.textsafe.valid_unicode) and, for text, terminal control sequences removed
(core.textsafe.strip_control). JSON forms escape control characters instead, so the data stays exact.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from contextual.core import secrets
from contextual.core.prompt import UsageFigures
from contextual.core.textsafe import valid_unicode

if TYPE_CHECKING:       # `contextual` (the app) reads only this module's formats; the events load with -p
    from _typeshed import DataclassInstance

    from contextual.core.context.compaction_review import Event
    from contextual.core.events import UsageEvent

OUTPUT_FORMATS = ("text", "json", "stream-json")
# The result of a run Ctrl-C, SIGTERM or SIGHUP stopped (cli.py sends the last two to SIGINT's handler)
INTERRUPTED = "interrupted; the turn is recorded as interrupted (resume with -c)"
COMPACTION_INTERRUPTED = "interrupted; the compaction is abandoned and the history unchanged"

# json.dumps(ensure_ascii=False) leaves DEL and the C1 controls raw; a terminal may act on them.
_RAW_CONTROLS = re.compile("[\x7f-\x9f\u2028\u2029]")


def safe_text(text: str) -> str:
    """For a terminal: no key, valid Unicode, no control sequence (newlines and tabs kept)."""
    return secrets.redact_shown(valid_unicode(text))


def _jsonable(value: object, depth: int = 0) -> object:
    if depth > 64:                  # a hostile, deeply nested argument must not exhaust the stack
        return "…"
    if isinstance(value, float) and not math.isfinite(value):
        return None                 # NaN/Infinity are not JSON
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return valid_unicode(secrets.redact(value))
    if isinstance(value, dict):
        return {str(_jsonable(k, depth + 1)): _jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v, depth + 1) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _fields(value, depth + 1)
    return _jsonable(str(value), depth + 1)


def _fields(record: DataclassInstance, depth: int) -> dict[str, object]:
    """A dataclass's shown fields, each made JSON (at ``depth``: a field of a top-level record is at 1)."""
    return {f.name: _jsonable(getattr(record, f.name), depth) for f in dataclasses.fields(record)
            if f.repr or f.compare}


def json_line(value: object) -> str:
    text = json.dumps(_jsonable(value), ensure_ascii=False, separators=(",", ":"))
    return _RAW_CONTROLS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


@dataclass
class Outcome:
    """The run as the JSON forms report it (CONTRACT: result, is_error, session_id, num_steps, usage, duration_ms).
    Its usage is the engine's session figures that the run added (`spent`, read when reported: a stop keeps the
    calls made). total_cost_usd as Claude Code's scripts read it: the priced calls' sum, with `unpriced_calls` the
    calls whose model has no prices (the sum is partial then); None when no call was priced, or when the run made
    none and its model has no prices or is not known; success or error alike."""
    result: str = ""
    is_error: bool = True
    session_id: str | None = None
    num_steps: int = 0
    duration_ms: int = 0
    spent: Callable[[], UsageFigures] = UsageFigures
    priced: bool = False                # the model has prices: a run that made no call cost $0, not an unknown

    def as_dict(self) -> dict[str, object]:
        spent = self.spent()
        made_calls = spent.priced_calls + spent.unpriced_calls
        dollars = spent.cost if made_calls else 0.0 if self.priced else None
        usage = {"input_tokens": spent.input_tokens, "output_tokens": spent.output_tokens,
                 "cache_read_input_tokens": spent.cached_tokens, "cache_creation_input_tokens": spent.cache_write_tokens}
        return {"result": self.result, "is_error": self.is_error, "session_id": self.session_id,
                "num_steps": self.num_steps, "usage": usage, "duration_ms": self.duration_ms,
                "total_cost_usd": None if dollars is None else round(dollars, 6),
                "unpriced_calls": spent.unpriced_calls}


def usage_fields(ev: UsageEvent) -> dict[str, int]:
    """A UsageEvent under the result's names; malformed or negative counts count as 0."""
    pairs = (("input_tokens", ev.input_tokens), ("output_tokens", ev.output_tokens),
             ("cache_read_input_tokens", ev.cached_tokens), ("cache_creation_input_tokens", ev.cache_creation_tokens))
    return {k: v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0 for k, v in pairs}


class Printer:
    """`text`: the answer on stdout, progress and errors on stderr (one line each)."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.outcome: Outcome | None = None     # the run's so far, once its engine is open (headless.run_headless)
        self.finished = False

    def progress(self, line: str) -> None:
        """A human line for stderr (progress, warnings)."""
        self._write(self.err, line)

    def error(self, message: str) -> None:
        self._write(self.err, f"contextual: {message}")

    def answer(self, text: str) -> None:
        self._write(self.out, text)

    def fail(self, message: str, started: float | None = None) -> int:
        """An error before or around the turn: one line on stderr (and, in the JSON forms, a result). Exit 1.
        Around the turn (a second Ctrl-C), the result keeps what the run had: its session, steps and usage."""
        self.error(message)
        if self.finished:               # the result is out already: one result per run
            return 1
        elapsed = 0 if started is None else int((time.monotonic() - started) * 1000)
        outcome = self.outcome or Outcome()
        outcome.result, outcome.is_error, outcome.duration_ms = message, True, elapsed
        self.report(outcome)
        return 1

    def report(self, outcome: Outcome) -> None:
        """The result, once: ``finish`` in the form's own way."""
        if not self.finished:
            self.finished = True
            self.finish(outcome)

    def event(self, event: Event) -> None:
        """Structured forms stream events; text shows them through ``progress`` (see headless)."""

    def start(self, info: dict[str, str | None]) -> None:
        """Called once the engine is open (stream-json announces the session)."""

    def finish(self, outcome: Outcome) -> None:
        """Called exactly once at the end, success or not."""

    @staticmethod
    def _write(stream: TextIO, text: str) -> None:
        stream.write(safe_text(text) + "\n")
        stream.flush()


class JsonPrinter(Printer):
    """`json`: nothing on stdout until the end, then one object; stderr as in text (for humans watching)."""

    def answer(self, text: str) -> None:
        pass        # it is the "result" field of the final object

    def finish(self, outcome: Outcome) -> None:
        self.out.write(json_line(outcome.as_dict()) + "\n")
        self.out.flush()


class StreamJsonPrinter(JsonPrinter):
    """`stream-json`: one object per line as things happen, each with a "type"; the last is the result."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        super().__init__(out, err)
        # Imported here: `contextual` (the app) reads only this module's formats, and these import every event.
        from contextual.core.events import UsageEvent
        from contextual.core.stream_guard import StreamGuard
        from contextual.wire_types import WIRE_TYPES
        self._guard = StreamGuard()     # a key split across two streamed fragments never reaches a line in part
        self._types = WIRE_TYPES
        self._usage = UsageEvent

    def start(self, info: dict[str, str | None]) -> None:
        self._emit({"type": "system", "subtype": "init", **info})

    def event(self, event: Event) -> None:
        if self._types[type(event)] is None:
            return
        for released in self._guard.safe(event):
            self._emit_event(released)

    def _emit_event(self, event: Event) -> None:
        body: dict[str, object] = dict(usage_fields(event)) if isinstance(event, self._usage) else _fields(event, 1)
        self._emit({"type": self._types[type(event)], **{k: v for k, v in body.items() if k != "type"}})

    def finish(self, outcome: Outcome) -> None:
        self._emit({"type": "result", **outcome.as_dict()})

    def _emit(self, value: dict[str, object]) -> None:
        self.out.write(json_line(value) + "\n")
        self.out.flush()


def make_printer(output_format: str, out: TextIO | None = None, err: TextIO | None = None) -> Printer:
    kind = {"text": Printer, "json": JsonPrinter, "stream-json": StreamJsonPrinter}[output_format]
    return kind(out, err)
