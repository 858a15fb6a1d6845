"""A fact of a stretch of history (issue 30: the loss ledger, the recall probe) and whether a text still holds it.

Matching is deterministic: each fact has a normalised key, and `Held` answers whether a text still holds it
(a name or number as a token, a path or any tail of two or more of its parts, an error by its exception name or
test id, a user's sentence whole or by three quarters of its content words). The facts themselves are found by
core/context/facts.py. Pure: no engine, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Literal, Sequence

from contextual.core.context.names import name_set
from contextual.core.reminder import system_reminder

Kind = Literal["constraint", "error", "path", "identifier", "number"]
KINDS: tuple[Kind, ...] = ("constraint", "error", "path", "identifier", "number")

ERROR_KEY = re.compile(r"\b[\w./-]+::[\w\[\]./-]+|\b[A-Z]\w*(?:Error|Exception|Failure)\b")   # a test id, an exception
_NUMBER = re.compile(r"(?<![\w.])(?:0[xXoObB][0-9a-fA-F_]+|\d{2,}(?:\.\d+)?)(?![\w])")   # 45, 0.25, 0o644
_WORD = re.compile(r"[a-z0-9_]{4,}")
_STOPWORDS = frozenset("this that with from have will would should must never always only keep make sure what when "
                       "then than them they there their your yours into also just like please don't dont does "
                       "want using used use".split())
SOLVED = " — solved: "


@dataclass(frozen=True)
class Source:
    message_id: str
    role: str
    step: int | None = None
    tool: str | None = None
    subject: str | None = None       # the tool call's path, command or pattern
    location: str | None = None      # path:line, when the line's place in a file is known

    @property
    def label(self) -> str:
        step = f" (step {self.step})" if self.step is not None else ""
        if self.role == "assistant":
            return f"the model's action {self.tool or ''} {self.subject or ''}".rstrip() + step
        if self.role == "tool":
            return f"{self.tool} {self.location or self.subject or ''}".rstrip() + step
        return "a user message"


@dataclass(frozen=True)
class Fact:
    kind: Kind
    text: str
    source: Source
    line: str          # the whole line it came from, so a reminder carries its context
    mentions: int = 1  # archived messages that held it

    @property
    def key(self) -> str:
        return fact_key(self.kind, self.text)

    def reminder(self) -> str:
        """The text that re-injects this fact into the next input."""
        context = f"\nIt came from {self.source.label}: {self.line}" if self.line and self.line != self.text else (
            f"\nIt came from {self.source.label}.")
        return system_reminder("A compaction dropped this from the history; the user brought it back:\n"
                               f"{self.kind}: {self.text}{context}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Fact":
        return cls(d["kind"], d["text"], Source(**d["source"]), d.get("line", ""), d.get("mentions", 1))


def normalise_path(path: str) -> str:
    path = path.strip().strip("`'\",;:()")
    if path.startswith("./"):
        path = path[2:]
    elif path[:2] in ("a/", "b/") and "/" in path[2:]:       # a diff's side prefix
        path = path[2:]
    return path.rstrip("/")


def fact_key(kind: Kind, text: str) -> str:
    if kind == "path":
        return normalise_path(text)
    if kind == "error":
        text = text.split(SOLVED)[0]               # how it was solved is said, not matched
        m = ERROR_KEY.search(text)
        return m.group(0) if m else " ".join(text.rstrip("…").lower().split())
    if kind == "constraint":
        return " ".join(text.rstrip("…").lower().split())
    return text


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS}


class Held:
    """What a set of texts (a summary, the kept rounds, earlier summaries) holds, for deterministic matching."""

    def __init__(self, texts: Sequence[str]) -> None:
        joined = "\n".join(texts).replace("`", " ")
        self.flat = " ".join(joined.split())
        self.lower = self.flat.lower()
        self.names = name_set(joined)
        self.numbers = set(_NUMBER.findall(joined))
        self.words = _content_words(joined)

    def holds(self, fact: Fact) -> bool:
        kind, key = fact.kind, fact.key
        if kind == "identifier":
            return key in self.names
        if kind == "number":
            return key in self.numbers
        if kind == "path":
            parts = key.lstrip("/").split("/")
            tails = ["/".join(parts[i:]) for i in range(len(parts) - 1)] or parts
            return any(t in self.flat for t in tails)
        if kind == "error":
            return key.lower() in self.lower
        words = _content_words(key)
        return key in self.lower or (bool(words) and len(words & self.words) >= 0.75 * len(words))
