"""The files section of a summary request (seed 001 8.7): the current content of the files the archived history
worked on, most important first, whole, cut to their first lines, or left out, within the tokens the history
leaves; its notes tell the summary model which."""

from __future__ import annotations

from contextual.core.context.file_analyzer import FileReport, IncludedFile
from contextual.core.input_cut import InputCut
from contextual.core.plural import plural
from contextual.core.tokens import count as count_tokens
from contextual.core.tokens import shared_cache

BLOCK_JOIN_TOKENS = 2          # the blank line between two rendered blocks (messages, files, partial summaries)
MIN_FILE_LINES = 10            # fewer lines than this of a file is not worth sending

FILES_HEADING = ("# Current content of the files this history worked on\n"
                 "(read from disk just now, most important first; use them for the File System State section)")


FILES_OMITTED = "(File contents omitted: the archived history fills the summary model's window.)"
FILES_OMITTED_TOKENS = 24


def files_section(report: FileReport, budget: int) -> tuple[str, tuple[str, ...], InputCut]:
    """(section text, paths included, the files cut and left out) within `budget` tokens; files go whole, cut, or
    not; the section's notes tell the summary model which."""
    if not report.files and not report.notes:
        return "", (), InputCut()
    fixed = shared_cache.count(FILES_HEADING) + sum(shared_cache.count(n) + 2 for n in report.notes) + 80
    if budget < fixed:
        return FILES_OMITTED, (), InputCut(files_left_out=len(report.files))
    cut_notes: list[str] = []
    files_cut = 0
    parts: list[str] = []
    included: list[str] = []
    remaining = budget - fixed
    for entry in report.files:
        whole = render_file(entry, entry.lines)
        size = count_tokens(whole) + BLOCK_JOIN_TOKENS
        if size > remaining:
            lines = fitting_lines(entry, remaining - BLOCK_JOIN_TOKENS)
            if lines < MIN_FILE_LINES:
                cut_notes.append(f"{entry.path} omitted to fit the summary window")
                continue
            whole = render_file(entry, lines)
            size = count_tokens(whole) + BLOCK_JOIN_TOKENS
            cut_notes.append(f"{entry.path} cut to its first {lines} lines to fit the summary window")
            files_cut += 1
        parts.append(whole)
        included.append(entry.path)
        remaining -= size
    cut = InputCut(files_cut=files_cut, files_left_out=len(report.files) - len(included))
    if not parts and not report.notes and not cut_notes:
        return "", (), cut
    notes = list(report.notes) + cut_notes
    text = FILES_HEADING
    if notes:
        text += "\n\nNotes:\n" + "\n".join(f"- {n}" for n in notes)
    if parts:
        text += "\n\n" + "\n\n".join(parts)
    return text, tuple(included), cut


def render_file(entry: IncludedFile, lines: int) -> str:
    state = "modified in the archived span" if entry.modified else "read or mentioned"
    body = "".join(entry.content.splitlines(keepends=True)[:lines]).rstrip("\n")
    total = entry.total_lines or entry.lines
    shown = f"lines 1-{lines} of {total}" if lines < total else f"{total} lines"
    fence = "```"
    while fence in body:
        fence += "`"
    return f"## {entry.path} ({state}; {plural(entry.mentions, 'mention')}; {shown})\n{fence}\n{body}\n{fence}"


def fitting_lines(entry: IncludedFile, budget: int) -> int:
    """The most lines of the file whose rendering fits `budget` tokens (binary search)."""
    low, high = 0, entry.lines
    while low < high:
        mid = (low + high + 1) // 2
        if count_tokens(render_file(entry, mid)) <= budget:   # probes are not worth caching
            low = mid
        else:
            high = mid - 1
    return low
