"""The lines a failing run is read by (tracebacks, pytest and unittest reports, compiler errors), best first.

A digest keeps a few lines of a run verbatim besides its head and tail (core/context/digest.py). Taken in order
of appearance those were the outermost frames of the first traceback — the test runner's own. What a later step
uses is the other end: the exception line, the innermost frames of the project with the source line under each
(a later `sed -n` opens that line), pytest's `E` lines with the `>` line they explain and the `path:line:`
location, and the summary lines that name the failing tests.
"""

from __future__ import annotations

import re

_SUMMARY = re.compile(r"^(?:FAILED|ERROR|FAIL:|ERROR:)\s|^(?:FAILED \(|Ran \d+ tests? in )|^=+ .*\b(?:failed|errors?)\b")
_EXCEPTION = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Failure|Interrupt)\b(?::|$)")
_PYTEST_E = re.compile(r"^E\s")
_PYTEST_SOURCE = re.compile(r"^>\s")
_LOCATION = re.compile(r"^[^\s:]+\.\w+:\d+: \w")              # pytest's `path.py:12: AssertionError`
_COMPILER = re.compile(r"^[^\s:]+:\d+:(?:\d+:)?\s*(?:fatal\s+)?error\b", re.IGNORECASE)
_FRAME = re.compile(r'^\s*File "([^"]+)", line \d+')
_LIBRARY = ("site-packages", "/lib/python", "<frozen", "/usr/lib/", "<string>")
INNERMOST = 2        # project frames kept (with their source line) at the inner end of each traceback



def _frame_file(line: str) -> str:
    """The file a traceback frame line names (the caller matched it with _FRAME already)."""
    match = _FRAME.match(line)
    return match.group(1) if match else ""

def _frames(lines: list[str]) -> tuple[list[int], list[int]]:
    """(the innermost frames that matter, every other frame), as File-line indices. A traceback's frames run
    outermost first; the last frame (where it was raised) and the last INNERMOST frames in the project count."""
    inner: list[int] = []
    other: list[int] = []
    block: list[int] = []
    for i, line in enumerate(lines + [""]):
        match = _FRAME.match(line)
        if match:
            block.append(i)
            continue
        if block and line.startswith((" ", "\t")):
            continue                                   # a source line (or its ^^^ marks) under a frame
        if block:
            project = [f for f in block if not any(part in _frame_file(lines[f]) for part in _LIBRARY)]
            chosen = set(project[-INNERMOST:]) | {block[-1]}
            inner.extend(f for f in block if f in chosen)
            other.extend(f for f in block if f not in chosen)
            block = []
    return inner, other


def _with_source(lines: list[str], frames: list[int]) -> list[int]:
    out = []
    for f in reversed(frames):                         # innermost first
        out.append(f)
        if f + 1 < len(lines) and lines[f + 1].startswith((" ", "\t")) and not _FRAME.match(lines[f + 1]):
            out.append(f + 1)
    return out


def ranked(lines: list[str]) -> list[int]:
    """Indices of the lines that carry a failure, most useful first: exception, `E`, compiler-error and summary
    lines; then the innermost project frames with their source line, pytest's `>` lines and locations; then the
    other frames. Empty when the output shows no failure."""
    first = [i for i, line in enumerate(lines)
             if _EXCEPTION.match(line) or _PYTEST_E.match(line) or _COMPILER.match(line) or _SUMMARY.match(line)]
    inner, other = _frames(lines)
    second = _with_source(lines, inner)
    second += [i for i, line in enumerate(lines) if _PYTEST_SOURCE.match(line) or _LOCATION.match(line)]
    third = _with_source(lines, other)
    return list(dict.fromkeys(first + second + third))
