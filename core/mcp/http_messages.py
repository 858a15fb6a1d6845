"""The messages of an MCP server's HTTP response as the SDK will parse them — a JSON body whole, or each event of an
event stream — gathered as the bytes arrive, so their JSON objects are counted (core/mcp/stdio.py: MAX_OBJECTS)
before the SDK parses one: bytes alone do not bound the parse (1,500,000 tiny content blocks, a 45 MB JSON body
under the byte limit, took 4.1 GB over streamable HTTP).

An event's JSON is the text of its `data:` lines joined by line breaks; it is parsed at the blank line that ends it.
Lines end at CR LF, CR or LF, as the SDK's decoder has them (a CR LF may be split between two chunks).
"""

from __future__ import annotations

import re

from dataclasses import dataclass
from typing import Any

from contextual.core import bounded_json
from contextual.core.mcp.stdio import MAX_OBJECTS, MAX_VALUES, refusal

_LINE_END = re.compile(rb"\r\n|\r|\n")
CLOSED_CODE = -32000            # the SDK's CONNECTION_CLOSED, a code JSON-RPC leaves to servers' own errors


@dataclass(frozen=True)
class Answering:
    """Whose answer a response's messages are, as the SDK reads them. `request`: the body of the POST the response
    answers (None: the long-lived GET stream, whose answers name their own requests). `reids`: the SDK hands each
    answer on it to that POST's request whatever id it names (an event stream; a JSON body at an error status); a
    2xx JSON body it hands on under the id the body names, so one naming null answered no call at all."""
    request: bytes | None = None
    reids: bool = False

    def request_id(self) -> Any:
        try:
            doc = bounded_json.loads(self.request.decode("utf-8", "replace")) if self.request else None
        except ValueError:
            return None
        return doc.get("id") if isinstance(doc, dict) else None


class ServerClosedCodes:
    """What the server itself said, read from its bytes before the SDK parses them, for what the SDK loses of it:
    the ids of the requests it answered with error -32000, and the requests its errors naming id null answered.
    The SDK answers a request whose event stream was cut with that same code, so a server's own "-32000: busy"
    read as a closed connection and took its tools out of L1; an error with that code and an id noted here is the
    server's (core/mcp/connection.py makes it the call's error). Each id is taken once. `streamable`: the SDK reads
    a POST's answer (streamable HTTP); the older SSE transport reads only its event stream."""

    def __init__(self, streamable: bool = True) -> None:
        self.streamable = streamable
        self._ids: set[tuple[type, Any]] = set()
        self._null_answers: list[Any] = []      # the requests whose POSTs a 2xx JSON error naming id null answered

    def note(self, message: list[bytes], answering: Answering) -> None:
        """A message as it arrived (its pieces); only one holding the code's digits or a null is parsed."""
        if not any(b"32000" in piece or b"null" in piece for piece in [*message, *_seams(message)]):
            return
        try:
            doc = bounded_json.loads(b"".join(message).decode("utf-8", "replace"))
        except ValueError:
            return                  # not JSON: the SDK says so itself
        if answering.reids and not isinstance(doc, dict):
            return                  # the SDK hands on one message there, not a batch
        for each in doc if isinstance(doc, list) else [doc]:
            error = each.get("error") if isinstance(each, dict) else None
            if isinstance(error, dict):
                self._note_error(error, each.get("id"), answering)

    def _note_error(self, error: dict[str, Any], named: Any, answering: Answering) -> None:
        if answering.reids:
            request = answering.request_id()
        elif named is None and answering.request is not None:      # a 2xx JSON body the SDK hands on as id null
            request = answering.request_id()
            if isinstance(request, (int, str)):
                self._null_answers.append(request)
        else:
            request = named
        if error.get("code") == CLOSED_CODE and isinstance(request, (int, str)):
            self._ids.add((type(request), request))

    def taken(self, request: Any) -> bool:
        """Whether the server itself sent error -32000 for this request id (then forgotten)."""
        key = (type(request), request)
        if key not in self._ids:
            return False
        self._ids.discard(key)
        return True

    def null_answered(self) -> Any:
        """The request an error naming id null answered (the oldest not yet taken), or None."""
        return self._null_answers.pop(0) if self._null_answers else None


def _seams(pieces: list[bytes]) -> list[bytes]:
    """The bytes around each joint of the pieces, where a code split between two chunks is whole."""
    return [a[-8:] + b[:8] for a, b in zip(pieces, pieces[1:])]


class Messages:
    """Feed a response's chunks in order; `feed` and `close` return why a message completed meanwhile is refused
    (core/mcp/stdio.py: refusal), or None."""

    def __init__(self, events: bool, closed: ServerClosedCodes | None = None,
                 answering: Answering = Answering()) -> None:
        self.events = events
        self.closed = closed
        self.answering = answering
        self._message: list[bytes] = []     # the data gathered for the message being received
        self._line: list[bytes] = []        # events: the line being received
        self._after_cr = False              # events: the last chunk ended with CR (an LF first is its pair)

    def feed(self, chunk: bytes) -> str | None:
        if not self.events:
            self._message.append(chunk)
            return None
        why, pos = None, 1 if self._after_cr and chunk.startswith(b"\n") else 0
        for end in _LINE_END.finditer(chunk, pos):
            self._line.append(chunk[pos:end.start()])
            why = why or self._end_line()
            pos = end.end()
        if pos < len(chunk):
            self._line.append(chunk[pos:])
        self._after_cr = chunk.endswith(b"\r")
        return why

    def close(self) -> str | None:
        """The response ended: what is left is a message too (a JSON body; an event without its blank line)."""
        why = self._end_line() if self.events and any(self._line) else None
        return why or self._end_message()

    def _end_line(self) -> str | None:
        line, self._line = b"".join(self._line), []
        if not line:                        # a blank line ends the event
            return self._end_message()
        if line.startswith(b"data:"):
            self._message += [line[5:], b"\n"]
        return None

    def _end_message(self) -> str | None:
        message, self._message = self._message, []
        if self.closed is not None and message:
            self.closed.note(message, self.answering)
        if sum(piece.count(b"{") for piece in message) <= MAX_OBJECTS and \
                sum(piece.count(b",") for piece in message) <= MAX_VALUES:      # most messages: no copy to count
            return None
        return refusal(b"".join(message))
