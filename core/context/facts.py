"""The facts a stretch of history holds (issue 30): one extractor for the loss ledger and the recall probe.

Structure first, not every identifier: the paths a tool call names or a diff/traceback/test run reports (diff
`a/`/`b/` prefixes gone), the errors and test failures a tool reported, the names a file the agent read or changed
defines, the names the model itself wrote (its thoughts, its commands and patterns — never a call's argument
names such as `file_path` or enum values such as `in_progress`), and the user's own sentences that state a
decision, a preference or a constraint, with the names and numbers they hold.

Matching is deterministic: each fact has a normalised key, and `Held` answers whether a text still holds it
(a name or number as a token, a path or any tail of two or more of its parts, an error by its exception name or
test id, a user's sentence whole or by three quarters of its content words). Pure: no engine, no I/O.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from typing import Any, Iterator, Literal, Sequence

from contextual.core.context.digest import IDENT, KEYWORDS, looks_like_code
from contextual.core.messages import Message
from contextual.core.tools.base import path_of, subject_of

Kind = Literal["constraint", "error", "path", "identifier", "number"]
KINDS: tuple[Kind, ...] = ("constraint", "error", "path", "identifier", "number")

_READ_GUTTER = re.compile(r"^\s*(\d+)\t")                        # the Read tool's "    12\tcode"
_FILE_REF = re.compile(r"^([^\s:]+\.[A-Za-z0-9]+|[^\s:]+/[^\s:]+):(\d+)[:-]")   # grep/pytest "path:12:"
_TRACE_REF = re.compile(r'File "([^"]+)", line (\d+)')
_DIFF_PATH = re.compile(r"^(?:\+\+\+|---) (?:[ab]/)?(\S+)|^diff --git a/(\S+) b/")
_ERROR = re.compile(r"(?:\b[A-Z]\w*(?:Error|Exception|Failure)\b|Traceback \(most recent|\bFAILED\b|\berror:|"
                    r"\bfatal:|No such file|Permission denied|command not found|\bfailed\b)")
_ERROR_KEY = re.compile(r"\b[\w./-]+::[\w\[\]./-]+|\b[A-Z]\w*(?:Error|Exception|Failure)\b")
_CONSTRAINT = re.compile(r"\b(?:must|never|always|don'?t|do not|only|should|shouldn'?t|without|avoid|keep|"
                         r"make sure|required?|prefer|no more than|at most|at least|instead of|use|let'?s|"
                         r"decided?|go with|want)\b", re.I)
_CODE_LINE = re.compile(r"^\s*(?:except|raise|class|def|import|from|with|assert|catch|throw|\[names in)\b")
_DEFINITION = re.compile(r"^\s*(?:async\s+)?(?:def|class|function|func|fn|struct|interface|type|const|let|var)\s+"
                         r"([A-Za-z_]\w*)|^\s*([A-Za-z_][\w.]*)\s*(?::\s*[\w\[\], .]+)?=(?!=)")
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=\S))+[.!?]?")     # "http_client.py" does not end one
_NUMBER = re.compile(r"(?<![\w.])(?:0[xXoObB][0-9a-fA-F_]+|\d{2,}(?:\.\d+)?)(?![\w])")   # 45, 0.25, 0o644
_WORD = re.compile(r"[a-z0-9_]{4,}")
_BACKTICKED = re.compile(r"`([^`\n]{2,80})`")
_FILE_EXT = re.compile(r"\.(?:py|pyi|js|jsx|ts|tsx|json|toml|ya?ml|md|rst|txt|cfg|ini|c|h|cc|cpp|hpp|go|rs|java|"
                       r"kt|rb|php|sh|html|css|scss|sql|lock|xml|csv|ipynb|tcss)$")
_STOPWORDS = frozenset("this that with from have will would should must never always only keep make sure what when "
                       "then than them they there their your yours into also just like please don't dont does "
                       "want using used use".split())
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
        return ("<system-reminder>\nA compaction dropped this from the history; the user brought it back:\n"
                f"{self.kind}: {self.text}{context}\n</system-reminder>")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Fact":
        return cls(d["kind"], d["text"], Source(**d["source"]), d.get("line", ""), d.get("mentions", 1))


# --- normalised keys and what a text holds ---------------------------------------------------------------------

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
        m = _ERROR_KEY.search(text)
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
        self.names = {n.rstrip("./-:") for n in IDENT.findall(joined)} | set(_names(joined))
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


def _located_lines(message: Message) -> Iterator[tuple[str, str | None, bool]]:
    """(line, path:line or None, is file content) for every line a tool result holds."""
    obj = _decoded(message.content)
    if obj is None:
        for line in message.content.splitlines():
            yield line, _ref(line), False
        return
    data = obj.get("data") if isinstance(obj, dict) else None
    read_path = data.get("path") if isinstance(data, dict) and "start_line" in data else None
    for text in _strings(obj):
        for line in text.splitlines():
            gutter = _READ_GUTTER.match(line) if read_path else None
            if gutter:
                yield line[gutter.end():], f"{read_path}:{gutter.group(1)}", True
            else:
                yield line, _ref(line), False


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


def _worth(name: str) -> bool:
    return len(name.lstrip("/")) >= 4 and name not in KEYWORDS and not (name.isalpha() and name.isupper())


def _paths_and_names(text: str, skip: frozenset[str] = frozenset()) -> Iterator[tuple[Kind, str]]:
    for name in _names(text):
        if not _worth(name) or name in skip:
            continue
        if _is_path(name):
            yield "path", normalise_path(name)
        elif looks_like_code(name) and "/" not in name:       # `s/a/b` and `text/plain` are neither
            yield "identifier", name


def _user_facts(text: str) -> Iterator[tuple[Kind, str, str]]:
    for line in text.splitlines():
        for sentence in _SENTENCE.findall(line):
            if _CONSTRAINT.search(sentence) and len(sentence.split()) >= 3:
                yield "constraint", _clip(sentence), line
        for kind, name in _paths_and_names(line):
            yield kind, name, line
        for number in _NUMBER.findall(line):
            yield "number", number, line


def _thought(content: str) -> str:
    """An action step's own words: the text before its `Action:` line (the call's JSON is read from meta)."""
    at = re.search(r"^\s*Action\s*:", content, re.M)
    return content[:at.start()] if at else content


def _call_facts(message: Message) -> Iterator[tuple[Kind, str, str]]:
    args = message.meta.get("args")
    keys = frozenset(str(k) for k in args) if isinstance(args, dict) else frozenset()
    for line in _thought(message.content).splitlines():
        for m in _BACKTICKED.finditer(line):
            for kind, name in _paths_and_names(m.group(1), keys):
                yield kind, name, line
        for kind, name in _paths_and_names(line, keys):
            yield kind, name, line
    path = path_of(args)
    if path:
        yield "path", normalise_path(path), path
    subject = subject_of(args)
    if subject and subject != path:               # a command or a pattern the model wrote
        for kind, name in _paths_and_names(subject, keys):
            yield kind, name, _clip(subject.splitlines()[0] if subject.strip() else subject)
    if isinstance(args, dict):                    # what an edit or a write puts into a file: its definitions
        for value in args.values():
            if isinstance(value, str) and "\n" in value and value != subject:
                for line in value.splitlines():
                    yield from ((k, n, line) for k, n in _definitions(line))


def _definitions(line: str) -> Iterator[tuple[Kind, str]]:
    m = _DEFINITION.match(line)
    name = (m.group(1) or m.group(2)) if m else None
    if name and _worth(name) and (looks_like_code(name) or m and m.group(1)):
        yield "identifier", name


def _result_facts(message: Message) -> Iterator[tuple[Kind, str, str, str | None]]:
    for line, location, file_content in _located_lines(message):
        if file_content:
            yield from ((k, n, line, location) for k, n in _definitions(line))
            continue
        diff = _DIFF_PATH.match(line)
        if diff:
            yield "path", normalise_path(diff.group(1) or diff.group(2)), line, location
            continue
        if _ERROR.search(line) and not _CODE_LINE.match(line):
            yield "error", _clip(line), line, location
            for kind, name in _paths_and_names(line):
                if kind == "path":
                    yield kind, name, line, location
        elif location:
            yield from ((k, n, line, location) for k, n in _definitions(line[len(location):]))


def _facts_of(message: Message) -> Iterator[tuple[Kind, str, str, str | None]]:
    if message.role == "user":
        raw = message.meta.get("raw")
        yield from ((k, t, ln, None) for k, t, ln in _user_facts(raw if isinstance(raw, str) else message.content))
    elif message.role == "assistant":
        yield from ((k, t, ln, None) for k, t, ln in _call_facts(message))
    elif message.role == "tool":
        yield from _result_facts(message)


@dataclass(frozen=True)
class Extracted:
    facts: tuple[Fact, ...]       # first source wins; in order of first appearance
    used: frozenset[str]          # keys the user or the model wrote themselves (they rank first)


def extract_facts(messages: Sequence[Message]) -> Extracted:
    """Every fact the messages hold, once each (by normalised key), counting the messages that mention it."""
    found: dict[tuple[str, str], Fact] = {}
    used: set[str] = set()
    for message in messages:
        if message.role == "summary":
            continue
        step, tool = message.meta.get("step"), message.meta.get("tool_name")
        subject = _subject(message.meta.get("args"))
        seen_here: set[tuple[str, str]] = set()
        for kind, text, line, location in _facts_of(message):
            key = (kind, fact_key(kind, text))
            if key in seen_here:
                continue
            seen_here.add(key)
            if message.role != "tool":
                used.add(f"{kind}:{key[1]}")
            fact = found.get(key)
            if fact is None:
                found[key] = Fact(kind, text, Source(message.id, message.role, step, tool, subject, location), _clip(line))
            else:
                found[key] = Fact(fact.kind, fact.text, fact.source, fact.line, fact.mentions + 1)
    return Extracted(tuple(found.values()), frozenset(used))


def _subject(args: object) -> str | None:
    subject = subject_of(args)
    if subject is None:
        return None
    value = subject.strip().splitlines()[0] if subject.strip() else subject
    return value if len(value) <= 60 else value[:57] + "…"
