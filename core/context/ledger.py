"""The loss ledger (issue 19.2): what a compaction dropped.

Given the archived rounds, the summary that replaces them and what stays in the prompt (the kept rounds and
earlier summaries), list the facts the archive held that nothing left in the prompt holds any more: paths,
identifiers, numbers, error messages and the user's constraints, each with where it came from (the message,
its step and tool, and `path:line` when the line's position in a file is known).

Pure: no engine, no I/O. The facts are scanned from each message *as stored* (what the model had in its
history), with a tool result's JSON decoded so that a Read's numbered lines and a Grep's `path:line:` refs
give their location.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Iterator, Literal, Sequence

from contextual.core.context.digest import IDENT, KEYWORDS, looks_like_code
from contextual.core.messages import Message
from contextual.core.tools.base import subject_of

Kind = Literal["constraint", "error", "path", "identifier", "number"]
KINDS: tuple[Kind, ...] = ("constraint", "error", "path", "identifier", "number")
# Per kind, how many facts a ledger keeps (most-mentioned first); the rest are only counted.
CAPS: dict[str, int] = {"constraint": 30, "error": 30, "path": 60, "identifier": 120, "number": 30}

_READ_GUTTER = re.compile(r"^\s*(\d+)\t")                        # the Read tool's "    12\tcode"
_FILE_REF = re.compile(r"^([^\s:]+\.[A-Za-z0-9]+|[^\s:]+/[^\s:]+):(\d+)[:-]")   # grep/pytest "path:12:"
_TRACE_REF = re.compile(r'File "([^"]+)", line (\d+)')
_ERROR = re.compile(r"(?:\b[A-Z]\w*(?:Error|Exception|Failure)\b|Traceback \(most recent|\bFAILED\b|\berror:|"
                    r"\bfatal:|No such file|Permission denied|command not found|\bfailed\b)")
_CONSTRAINT = re.compile(r"\b(?:must|never|always|don'?t|do not|only|should|shouldn'?t|without|avoid|keep|"
                         r"make sure|required?|prefer|no more than|at most|at least|instead of)\b", re.I)
_CODE_LINE = re.compile(r"^\s*(?:except|raise|class|def|import|from|with|assert|catch|throw|\[names in)\b")
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_NUMBER = re.compile(r"(?<![\w.])(?:0[xXoObB][0-9a-fA-F_]+|\d{2,}(?:\.\d+)?)(?![\w])")   # 45, 0.25, 0o644
_FILE_EXT = re.compile(r"\.(?:py|pyi|js|jsx|ts|tsx|json|toml|ya?ml|md|rst|txt|cfg|ini|c|h|cc|cpp|hpp|go|rs|java|"
                       r"kt|rb|php|sh|html|css|scss|sql|lock|xml|csv|ipynb|tcss)$")
_MAX_TEXT = 200


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
class LostFact:
    kind: Kind
    text: str
    source: Source
    line: str          # the whole line it came from, so a reminder carries its context
    mentions: int = 1  # archived messages that held it

    def reminder(self) -> str:
        """The text that re-injects this fact into the next input."""
        context = f"\nIt came from {self.source.label}: {self.line}" if self.line and self.line != self.text else (
            f"\nIt came from {self.source.label}.")
        return ("<system-reminder>\nA compaction dropped this from the history; the user brought it back:\n"
                f"{self.kind}: {self.text}{context}\n</system-reminder>")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "LostFact":
        return cls(d["kind"], d["text"], Source(**d["source"]), d.get("line", ""), d.get("mentions", 1))


@dataclass(frozen=True)
class Ledger:
    facts: tuple[LostFact, ...]
    omitted: dict[str, int]          # per kind, lost facts past the cap (counted, not listed)

    def lost(self) -> int:
        """Every lost fact, listed or only counted."""
        return len(self.facts) + sum(self.omitted.values())

    def of_kind(self, kind: Kind) -> list[LostFact]:
        return [f for f in self.facts if f.kind == kind]

    def to_dict(self) -> dict[str, Any]:
        return {"facts": [f.to_dict() for f in self.facts], "omitted": dict(self.omitted)}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> "Ledger":
        d = d or {}
        return cls(tuple(LostFact.from_dict(f) for f in d.get("facts", [])), dict(d.get("omitted", {})))


# --- reading a message into located lines ----------------------------------------------------------------------

def _strings(obj: Any) -> Iterator[str]:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


def _decoded(content: str) -> Any:
    if content[:1] in "{[":
        try:
            return json.loads(content)
        except ValueError:
            return None
    return None


def plain_text(message: Message) -> str:
    """The message's text as a reader sees it: a tool result's JSON decoded into its strings."""
    obj = _decoded(message.content)
    return message.content if obj is None else "\n".join(_strings(obj))


def _subject(args: object) -> str | None:
    subject = subject_of(args)
    if subject is None:
        return None
    value = subject.strip().splitlines()[0] if subject.strip() else subject
    return value if len(value) <= 60 else value[:57] + "…"


def _located_lines(message: Message) -> Iterator[tuple[str, str | None]]:
    """(line, path:line or None) for every line the message holds."""
    obj = _decoded(message.content)
    if obj is None:
        for line in message.content.splitlines():
            yield line, _ref(line)
        return
    data = obj.get("data") if isinstance(obj, dict) else None
    read_path = data.get("path") if isinstance(data, dict) and "start_line" in data else None
    for text in _strings(obj):
        for line in text.splitlines():
            gutter = _READ_GUTTER.match(line) if read_path else None
            if gutter:
                yield line[gutter.end():], f"{read_path}:{gutter.group(1)}"
            else:
                yield line, _ref(line)


def _ref(line: str) -> str | None:
    m = _FILE_REF.match(line.strip()) or _TRACE_REF.search(line)
    return f"{m.group(1)}:{m.group(2)}" if m else None


def _is_path(name: str) -> bool:
    """A file (known extension) or a directory path of three or more parts; `text/plain` and a sed
    expression `s/a/b` are not paths."""
    if _FILE_EXT.search(name):
        return True
    parts = name.strip("/").split("/")
    return len(parts) >= 3 and all(parts) and len(parts[0]) > 1


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT - 1] + "…"


def _names(line: str) -> Iterator[str]:
    """IDENT matches with trailing punctuation stripped; an absolute path keeps its leading `/`."""
    for m in IDENT.finditer(line):
        if m.start() > 0 and line[m.start() - 1].isdigit():     # the "o600" of 0o600
            continue
        name = m.group(0).rstrip("./-:")
        if m.start() > 0 and line[m.start() - 1] == "/" and "/" in name:
            name = "/" + name
        yield name


def _facts_in_line(line: str, role: str) -> Iterator[tuple[Kind, str]]:
    if role == "user":
        for sentence in _SENTENCE.findall(line):
            if _CONSTRAINT.search(sentence) and len(sentence.split()) >= 3:
                yield "constraint", _clip(sentence)
    # An error is something a tool (or the user) reported, not code that mentions an exception or a thought.
    is_error = role != "assistant" and bool(_ERROR.search(line)) and not _CODE_LINE.match(line)
    if is_error:
        yield "error", _clip(line)
    for name in _names(line):
        if len(name.lstrip("/")) < 4 or name in KEYWORDS or (name.isalpha() and name.isupper()):
            continue
        if _is_path(name):
            yield "path", name
        elif looks_like_code(name) and "/" not in name:       # `s/a/b` and `text/plain` are neither
            yield "identifier", name
    if role in ("user", "assistant") or is_error:   # numbers in code listings are noise; in words they matter
        for number in _NUMBER.findall(line):
            yield "number", number


# --- the ledger ------------------------------------------------------------------------------------------------

def _held(texts: Iterable[str]) -> tuple[str, set[str], set[str]]:
    joined = "\n".join(texts)
    names = {n.rstrip("./-:") for n in IDENT.findall(joined)} | set(_names(joined))
    numbers = set(_NUMBER.findall(joined))
    return " ".join(joined.split()), names, numbers


def _still_held(kind: Kind, text: str, held: tuple[str, set[str], set[str]]) -> bool:
    flat, names, numbers = held
    if kind == "identifier":
        return text in names
    if kind == "number":
        return text in numbers
    if kind == "path":
        return text in names or text in flat
    core = text.rstrip("…")
    return core in flat


def loss_ledger(archive: Sequence[Message], summary_text: str, kept: Sequence[Message],
                also_held: Sequence[str] = ()) -> Ledger:
    """The facts of `archive` that neither `summary_text`, the `kept` messages nor `also_held` (earlier
    summaries, the system prompt…) hold any more. First source wins; ordered by kind, then by mentions."""
    held = _held([summary_text, *also_held, *(plain_text(m) for m in kept)])
    found: dict[tuple[str, str], LostFact] = {}
    still: set[tuple[str, str]] = set()          # facts checked once and found still held
    order: list[tuple[str, str]] = []
    used: set[tuple[str, str]] = set()          # named by the user or the model, not only seen in output
    for message in archive:
        if message.role == "summary":
            continue
        seen_here: set[tuple[str, str]] = set()
        step, tool = message.meta.get("step"), message.meta.get("tool_name")
        subject = _subject(message.meta.get("args"))
        for line, location in _located_lines(message):
            for kind, text in _facts_in_line(line, message.role):
                key = (kind, text)
                if key in seen_here or key in still:
                    continue
                seen_here.add(key)
                if message.role != "tool":
                    used.add(key)
                if key in found:
                    fact = found[key]
                    found[key] = LostFact(fact.kind, fact.text, fact.source, fact.line, fact.mentions + 1)
                    continue
                if _still_held(kind, text, held):
                    still.add(key)
                    continue
                source = Source(message.id, message.role, step, tool, subject, location)
                found[key] = LostFact(kind, text, source, _clip(line))
                order.append(key)
    rank = {key: i for i, key in enumerate(order)}
    facts: list[LostFact] = []
    omitted: dict[str, int] = {}
    for kind in KINDS:
        of_kind = sorted((found[k] for k in order if k[0] == kind), key=lambda f: (-(f.mentions + 3 * ((f.kind, f.text) in used)), rank[(f.kind, f.text)]))
        facts.extend(of_kind[:CAPS[kind]])
        if len(of_kind) > CAPS[kind]:
            omitted[kind] = len(of_kind) - CAPS[kind]
    return Ledger(tuple(facts), omitted)
