"""A session file's lines read into entries: each whole, valid line an entry (its shape checked by
entry_checks.py), a warning for each line skipped (torn, corrupt, too deep, of the wrong shape).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Iterator

from contextual.core import bounded_json
from contextual.core.session.entry_checks import problem
from contextual.core.session.lock import SessionError
from contextual.core.textsafe import valid_json_value

# Deeper than any entry this program writes (a tool's arguments are bounded at 64 when parsed), low enough that
# every recursive walk of an entry afterwards (json.dumps, scrubbing, rendering) stays far from Python's limit.
SESSION_MAX_DEPTH = 200


def json_objects(lines: Iterable[bytes]) -> Iterator[dict[str, Any]]:
    """The JSON objects among raw session lines; blank, corrupt and non-object lines are passed over."""
    for line in lines:
        if not line.strip():
            continue
        try:     # a line nested too deep is passed over like a corrupt one (never a RecursionError)
            entry = bounded_json.loads(line.decode("utf-8") if isinstance(line, bytes) else line, SESSION_MAX_DEPTH)
        except ValueError:
            continue
        if isinstance(entry, dict):
            yield entry


def read_entries(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    """(line number, entry) for every whole, valid line, and a warning for each one skipped."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise SessionError(f"no session file at {path}") from None
    except OSError as exc:
        raise SessionError(f"cannot read session {path}: {exc.strerror or exc}") from None
    # One decode for the whole file is much cheaper than one per line; a file with a damaged byte somewhere
    # falls back to line by line so that only the damaged line is lost.
    # A torn tail may end inside a UTF-8 character: it is decoded apart, leniently (it is skipped anyway).
    cut = data.rfind(b"\n") + 1
    torn_tail = cut < len(data)
    lines: list[str | bytes]
    try:
        # Only "\n" ends a line: JSON escapes it inside strings, while splitlines would also cut at U+2028.
        lines = [*data[:cut].decode("utf-8").split("\n")]
        lines.pop()
        if torn_tail:
            lines.append(data[cut:].decode("utf-8", errors="replace"))
    except UnicodeDecodeError:
        lines = [*data.split(b"\n")]
        if not torn_tail:
            lines.pop()
    entries: list[tuple[int, dict[str, Any]]] = []
    warnings: list[str] = []
    last = len(lines)
    for number, line in enumerate(lines, start=1):
        parse_line(number, line, last, torn_tail, entries, warnings)
    return entries, warnings


def parse_line(number: int, line: str | bytes, last: int, torn_tail: bool,
                entries: list[tuple[int, dict[str, Any]]], warnings: list[str]) -> None:
    """Line ``number`` added to ``entries``, or a warning in ``warnings`` saying why it was skipped (the ``last``
    line of a file with a ``torn_tail`` is said to be torn)."""
    if not line.strip():
        return
    try:
        entry = bounded_json.loads(line if isinstance(line, str) else line.decode("utf-8"), SESSION_MAX_DEPTH)
    except bounded_json.JSONDepthError:
        warnings.append(f"line {number}: nested deeper than {SESSION_MAX_DEPTH} levels, skipped")
        return
    except ValueError:
        if number == last and torn_tail:
            warnings.append(f"line {number}: torn last line (the write was cut off), skipped")
        else:
            warnings.append(f"line {number}: corrupt JSON, skipped")
        return
    if not isinstance(entry, dict) or not isinstance(entry.get("type"), str):
        warnings.append(f"line {number}: not a session entry, skipped")
        return
    lone_surrogate = (("\\ud" in line or "\\uD" in line) if isinstance(line, str)
                      else (b"\\ud" in line or b"\\uD" in line))
    if lone_surrogate:
        entry = valid_json_value(entry)     # a lone surrogate written by an older version: make it valid text
    reason = problem(entry)
    if reason is not None:
        warnings.append(f"line {number}: malformed {entry['type']} entry ({reason}), skipped")
        return
    entries.append((number, entry))
