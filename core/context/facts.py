"""The facts a stretch of history holds (issue 30): one extractor for the loss ledger and the recall probe.

Facts come by structure, not from every identifier in every output:
- the files the agent read and changed (a call's path, the paths a command names, a diff's files — `a/`/`b/`
  prefixes gone) and what its edits define (a changed file's final state);
- the errors a tool reported (any error line of a failed result; a test failure or an exception line of any
  other), keyed by exception name or test id, and how each was solved (the same command passing later, and the
  files changed in between);
- the user's own sentences that state a decision, a preference or a constraint;
- the names a later round still uses: a name a round showed (in a file read, an output, a thought) that the user
  or the model writes again in a later round or in the rounds kept after a compaction. A Read's file content
  gives nothing else — five files read are five paths, not their hundred definitions.

Whether a text still holds a fact is core/context/fact_match.py's (`Held`). Pure: no engine, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, Sequence

from contextual.core.context.digest import KEYWORDS
from contextual.core.context.fact_match import ERROR_KEY, SOLVED, Fact, Kind, Source, fact_key, normalise_path
from contextual.core.context.names import looks_like_code, names_in
from contextual.core.context.result_lines import failed, located_lines
from contextual.core.messages import Message
from contextual.core.react import stored_action
from contextual.core.tools.base import EDITING_TOOLS, path_of, subject_of
from contextual.core.textsafe import one_line

_DIFF_PATH = re.compile(r"^(?:\+\+\+|---) (?:[ab]/)?(\S+)|^diff --git a/(\S+) b/")
_ERROR = re.compile(r"(?:\b[A-Z]\w*(?:Error|Exception|Failure)\b|Traceback \(most recent|\bFAILED\b|\berror:|"
                    r"\bfatal:|No such file|Permission denied|command not found|\bfailed\b)")
_CONSTRAINT = re.compile(r"\b(?:must|never|always|don'?t|do not|only|should|shouldn'?t|without|avoid|keep|"
                         r"make sure|required?|prefer|no more than|at most|at least|instead of|use|let'?s|"
                         r"decided?|go with|want)\b", re.I)
# In a result that did not fail, only a test failure or an exception's own line is an error (a grep hit that
# quotes `raise ValueError` is not).
_SURE_ERROR = re.compile(r"^(?:FAILED|ERROR)\s+\S+::|^\s*(?:E\s+)?[A-Z]\w*(?:Error|Exception)\b:|^Traceback \(most recent")
_PROGRAM = re.compile(r"(?:^|[;&|(]\s*)([^\s;&|()]+)")        # the first word of each command of a line
_TALLY = re.compile(r"^\W*\d+ (?:failed|passed|errors?)\b|\b\d+ failed, \d+ passed")     # pytest's count line
_CODE_LINE = re.compile(r"^\s*(?:except|raise|class|def|import|from|with|assert|catch|throw|\[names in)\b")
_DEFINITION = re.compile(r"^\s*(?:async\s+)?(?:def|class|function|func|fn|struct|interface|type|const|let|var)\s+"
                         r"([A-Za-z_]\w*)|^\s*([A-Za-z_][\w.]*)\s*(?::\s*[\w\[\], .]+)?=(?!=)")
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=\S))+[.!?]?")     # "http_client.py" does not end one
_FILE_EXT = re.compile(r"\.(?:py|pyi|js|jsx|ts|tsx|json|toml|ya?ml|md|rst|txt|cfg|ini|c|h|cc|cpp|hpp|go|rs|java|"
                       r"kt|rb|php|sh|html|css|scss|sql|lock|xml|csv|ipynb|tcss)$")
_MAX_TEXT = 200
READING_TOOLS = frozenset({"Read", "LS", "Glob", "Grep"})        # their results show files, not events


def _is_path(name: str) -> bool:
    """A file (known extension) or a directory path of three or more parts; `text/plain` and a sed
    expression `s/a/b` are not paths."""
    if _FILE_EXT.search(name):
        return True
    parts = name.strip("/").split("/")
    return len(parts) >= 3 and all(parts) and len(parts[0]) > 1


def _clip(text: str) -> str:
    return one_line(text, _MAX_TEXT)


def _worth(name: str) -> bool:
    return len(name.lstrip("/")) >= 4 and name not in KEYWORDS and not (name.isalpha() and name.isupper())


def _paths_and_names(text: str, skip: frozenset[str] = frozenset()) -> Iterator[tuple[Kind, str]]:
    for name in names_in(text):
        if not _worth(name) or name in skip:
            continue
        if _is_path(name):
            yield "path", normalise_path(name)
        elif looks_like_code(name) and "/" not in name:       # `s/a/b` and `text/plain` are neither
            yield "identifier", name


def _user_facts(text: str) -> Iterator[tuple[Kind, str, str]]:
    """The user's own sentences that state a decision, a preference or a constraint (their numbers and names live
    in them; a name the user wrote is a fact of its own when a later round uses it)."""
    for line in text.splitlines():
        for sentence in _SENTENCE.findall(line):
            if _CONSTRAINT.search(sentence) and len(sentence.split()) >= 3:
                yield "constraint", _clip(sentence), line


def _thought(content: str) -> str:
    """An action step's own words: the text before its `Action:` line (the call's JSON is read from meta)."""
    found = stored_action(content)
    return content if found is None else found.head


def _edit_texts(args: object, subject: str | None) -> list[str]:
    """What an edit or a write puts into a file (its new text), never what it replaces."""
    if not isinstance(args, dict):
        return []
    out = [v for k, v in args.items() if isinstance(v, str) and k not in ("old_string", "file_path", "path")
           and v != subject]
    for edit in args.get("edits", []) if isinstance(args.get("edits"), list) else []:
        out += [edit["new_string"]] if isinstance(edit, dict) and isinstance(edit.get("new_string"), str) else []
    return out


def _call_facts(message: Message) -> Iterator[tuple[Kind, str, str]]:
    """The files a call reads or changes, the paths its command names, and what an edit defines (the file's final
    state) — not the names in the model's thoughts, which count only when a later round uses them."""
    args, tool = message.meta.get("args"), message.meta.get("tool_name")
    path = path_of(args)
    if path:
        yield "path", normalise_path(path), f"{'changed' if tool in EDITING_TOOLS else 'read'} by {tool}: {path}"
    subject = subject_of(args)
    if subject and subject != path:               # a command the model ran: the files it names (not its programs)
        programs = frozenset(_PROGRAM.findall(subject))
        for kind, name in _paths_and_names(subject, _arg_names(args) | programs):
            if kind == "path":
                yield kind, name, _clip(subject.splitlines()[0] if subject.strip() else subject)
    if tool in EDITING_TOOLS:
        for text in _edit_texts(args, subject):
            for line in text.splitlines():
                yield from ((k, n, line) for k, n in _definitions(line))


def _arg_names(args: object) -> frozenset[str]:
    return frozenset(str(k) for k in args) if isinstance(args, dict) else frozenset()


def _definitions(line: str) -> Iterator[tuple[Kind, str]]:
    m = _DEFINITION.match(line)
    name = (m.group(1) or m.group(2)) if m else None
    if name and _worth(name) and (looks_like_code(name) or m and m.group(1)):
        yield "identifier", name


def _result_facts(message: Message) -> Iterator[tuple[Kind, str, str, str | None]]:
    """The errors a result reports (any error line of a failed one; a test failure or an exception line of any)
    and the paths a diff or an error names. A file's content yields nothing here: its names are facts only when
    a later round uses them."""
    if message.meta.get("tool_name") in READING_TOOLS:
        return
    failing = failed(message)
    errors: list[tuple[str, str | None]] = []
    for line, location, file_content in located_lines(message):
        if file_content:
            continue
        diff = _DIFF_PATH.match(line)
        if diff:
            yield "path", normalise_path(diff.group(1) or diff.group(2)), line, location
        elif (_ERROR.search(line) if failing else _SURE_ERROR.search(line)) and not _CODE_LINE.match(line) \
                and not _TALLY.search(line):
            errors.append((line, location))
    # A failing test is one fact (its id), not also each exception line of its traceback.
    if any(_names_a_test(line) for line, _ in errors):
        errors = [(line, location) for line, location in errors if _names_a_test(line)]
    for line, location in errors:
        yield "error", _clip(line), line, location
        yield from ((k, n, line, location) for k, n in _paths_and_names(line) if k == "path")


def _names_a_test(line: str) -> bool:
    key = ERROR_KEY.search(line)
    return key is not None and "::" in key.group(0)


def _facts_of(message: Message) -> Iterator[tuple[Kind, str, str, str | None]]:
    if message.role == "user":
        yield from ((k, t, ln, None) for k, t, ln in _user_facts(_raw(message)))
    elif message.role == "assistant":
        yield from ((k, t, ln, None) for k, t, ln in _call_facts(message))
    elif message.role == "tool":
        yield from _result_facts(message)


def _raw(message: Message) -> str:
    raw = message.meta.get("raw")
    return raw if isinstance(raw, str) else message.content


def _written(message: Message) -> set[str]:
    """The code names the user or the model wrote in a message (its text, and a call's command, pattern, path and
    new text): what a round uses."""
    if message.role == "user":
        texts = [_raw(message)]
    elif message.role == "assistant":
        args = message.meta.get("args")
        texts = [_thought(message.content), *(v for v in (subject_of(args), path_of(args)) if v)]
        texts += _edit_texts(args, subject_of(args))
    else:
        return set()
    return {n for t in texts for n in names_in(t) if _worth(n) and looks_like_code(n) and "/" not in n}


def _seen(message: Message) -> Iterator[tuple[str, str, str | None]]:
    """Every code name a message shows, with its line and place: the candidates a later round may use."""
    if message.role == "tool":
        for line, location, _ in located_lines(message):
            for name in names_in(line):
                if _worth(name) and looks_like_code(name) and "/" not in name:
                    yield name, line, location
    elif message.role in ("user", "assistant"):
        text = _raw(message) if message.role == "user" else _thought(message.content)
        lines = text.splitlines()
        # Each line's names read once: searching the text again for every name froze the app for seconds at the
        # compaction of a long pasted message (a name per word, each looked for in every line)
        first_line: dict[str, str] = {}
        for line in lines:
            for name in names_in(line):
                first_line.setdefault(name, line)
        for name in _written(message):
            yield name, first_line.get(name) or next((ln for ln in lines if name in ln), name), None


@dataclass(frozen=True)
class Extracted:
    facts: tuple[Fact, ...]       # first source wins; in order of first appearance
    used: frozenset[str]          # keys the user or the model wrote themselves (they rank first)


def _source(message: Message, location: str | None = None) -> Source:
    return Source(message.id, message.role, message.meta.get("step"), message.meta.get("tool_name"),
                  _subject(message.meta.get("args")), location)


def _later_used(messages: Sequence[Message], later: Sequence[Message]) -> dict[str, tuple[Message, str, str | None]]:
    """The names a round shows that a later round (or the `later` messages, the rounds kept after a compaction)
    still writes, with where each was first seen."""
    first: dict[str, tuple[int, Message, str, str | None]] = {}
    used_in: dict[str, int] = {}
    rnd = 0
    for message in messages:
        rnd += message.starts_turn
        for name in _written(message):
            used_in[name] = max(used_in.get(name, rnd), rnd)
        for name, line, location in _seen(message):
            first.setdefault(name, (rnd, message, line, location))
    after = {n for m in later for n in _written(m)}
    return {name: (message, line, location) for name, (rnd, message, line, location) in first.items()
            if name in after or used_in.get(name, -1) > rnd}


def _solved(messages: Sequence[Message], index: int) -> str:
    """How a failed command's error was solved: the same command run again without failing, and the files
    changed in between; "" when it never was."""
    command = subject_of(messages[index].meta.get("args"))
    edited: list[str] = []
    for message in messages[index + 1:]:
        args = message.meta.get("args")
        if message.role == "assistant" and message.meta.get("tool_name") in EDITING_TOOLS and path_of(args):
            edited.append(normalise_path(path_of(args) or ""))
        if message.role == "tool" and command and subject_of(args) == command and not failed(message):
            changed = f" after changing {', '.join(dict.fromkeys(edited))}" if edited else ""
            return f"{SOLVED}`{_clip(command)}` passed{changed}"
    return ""


def extract_facts(messages: Sequence[Message], later: Sequence[Message] = ()) -> Extracted:
    """The facts the messages hold, once each (by normalised key), counting the messages that mention each:
    files read and changed, errors and how they were solved, the user's decisions and preferences, what edits
    define, and the names a later round (in `messages`, or `later`: the rounds kept after them) still uses."""
    found: dict[tuple[str, str], Fact] = {}
    used: set[str] = set()
    messages = [m for m in messages if m.role != "summary"]

    def add(kind: Kind, text: str, source: Source, line: str, own: bool) -> None:
        key = (kind, fact_key(kind, text))
        if own:
            used.add(f"{kind}:{key[1]}")
        fact = found.get(key)
        found[key] = Fact(kind, text, source, _clip(line)) if fact is None else \
            Fact(fact.kind, fact.text, fact.source, fact.line, fact.mentions + 1)

    for index, message in enumerate(messages):
        seen_here: set[tuple[str, str]] = set()
        solved: str | None = None                 # asked once per result, when it reports an error
        for kind, text, line, location in _facts_of(message):
            if kind == "error" and (solved := _solved(messages, index) if solved is None else solved):
                text = _clip(text) + solved
            if (kind, fact_key(kind, text)) not in seen_here:
                seen_here.add((kind, fact_key(kind, text)))
                add(kind, text, _source(message, location), line, message.role != "tool")
    for name, (message, line, location) in _later_used(messages, later).items():   # where it was first seen
        fact = found.get(("identifier", name))
        found[("identifier", name)] = Fact("identifier", name, _source(message, location), _clip(line),
                                           fact.mentions if fact else 1)
        used.add(f"identifier:{name}")
    return Extracted(tuple(found.values()), frozenset(used))


def _subject(args: object) -> str | None:
    subject = subject_of(args)
    if subject is None:
        return None
    value = subject.strip().splitlines()[0] if subject.strip() else subject
    return one_line(value, 60)
