"""ToolResultCompressor (seed 002 A3, C1): the stored form a tool result takes in history.

One row per tool. Every stored form keeps `status` and the whole `error`, compresses `data` by the
row's rule, drops `text`, `stats` and `context`, and says what it cut. Two levels: `normal` (the
seed's limits) and `hard` (used when even the kept rounds would not fit the window).

A3 bounds lines; lines can be long (a Read of 500 lines of 500 characters was stored as 254 KB, ~60k tokens, and
its harder form as 2.5 windows at 4k). So each level also bounds characters: a fixed cap, and below a middling
window a share of it (`chars_for`). A Read keeps fewer whole lines and says so; any other row's longest text is
cut head+tail with a marker.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Callable

from contextual.core.context import bash_summary
from contextual.core.context.definitions import is_definition
from contextual.core.context.digest import naming_focus
from contextual.core.context.observation import render_full
from contextual.core.context.truncate import head_tail, head_tail_lines
from contextual.core.lru import LRU
from contextual.core.context.mcp_stored import stored as mcp_stored


@dataclass(frozen=True)
class Limits:
    read_lines: int = 500          # A3: Read keeps at most 500 lines of the range read
    grep_lines: int = 5            # A3: Grep keeps 5 matching lines (file + line number)
    list_entries: int = 10         # A3: LS/Glob keep the first N entries (5-10)
    snippet_lines: int = 50        # A3: Edit/Write snippet 20-50 lines
    stderr_tail: int = 20          # A3: Bash keeps the last 20 stderr lines
    large_diff_lines: int = 200    # past this an Edit diff keeps its summary only
    default_chars: int = 2_000     # seed 003: anything else, head + tail
    bash: bash_summary.Limits = bash_summary.NORMAL   # A3: Bash stdout only a summary
    # Within those caps, places chosen by meaning rather than position (issue 28): past its first lines a Read
    # keeps its definitions and the lines naming what the task or plan names; a Grep's and a listing's last places
    # go to definitions and named entries found further on.
    read_outline: int = 40
    named: int = 4
    grep_chosen: int = 2
    list_chosen: int = 3
    # The most characters a form holds (as JSON, the session's form: the prompt's text is no longer): A3's 500 lines
    # of ~96 characters, ~12k tokens; and at most this share of a smaller window (`chars_for`).
    chars: int = 48_000
    window_share: float = 0.5


LEVELS = {
    "normal": Limits(),
    "hard": Limits(read_lines=80, grep_lines=3, list_entries=5, snippet_lines=20, stderr_tail=10,
                   large_diff_lines=60, default_chars=600, bash=bash_summary.HARD, read_outline=12, named=2,
                   grep_chosen=1, list_chosen=2, chars=8_000, window_share=0.25),
}
CHARS_PER_TOKEN = 4         # of the window's tokens, as characters (cl100k reads 3.5-4.5 of code and prose)
MIN_CHARS = 256             # a form says at least what it is and how to see the rest


def chars_for(level: str, window: int | None) -> int:
    """The characters a form of ``level`` holds at ``window`` (None: no window known, the fixed cap): at 4,096 a
    stored form is at most 8,192 characters (~2k tokens) and its harder form 4,096 (~1k, A3's 80 lines of code);
    from a 24k and an 8k window up, the caps."""
    lim = LEVELS[level]
    if not window:
        return lim.chars
    return max(MIN_CHARS, min(lim.chars, int(window * lim.window_share * CHARS_PER_TOKEN)))


# A row: (the call's arguments, the result's data, the level's limits, the code names the task or plan names).
Row = Callable[[dict[str, Any], Any, Limits, frozenset[str]], Any]


def _lines(text: str) -> list[str]:
    return text.splitlines() if text else []


def _give_places(count: int, cap: int, chosen: list[int]) -> list[int]:
    """The indices a capped form keeps: as many first ones as leave room for those of `chosen` past them."""
    if count <= cap:
        return list(range(count))
    head = cap
    while head > 0 and head + sum(i >= head for i in set(chosen)) > cap:
        head -= 1
    return sorted(set(range(head)) | {i for i in chosen if i >= head})


def _cost(line: str) -> int:
    """A line's characters in the form as history keeps it (JSON: a tab, a quote are escaped; the newline after it)."""
    return len(json.dumps(line, ensure_ascii=False))


def _within(lines: list[str], kept: list[int], room: int) -> list[int]:
    """Of ``kept`` (the first lines, then those chosen further on), what ``room`` characters hold: first lines within
    half of it, then the chosen ones, then more first lines. Empty when not even the first line fits."""
    head = next(i for i, k in enumerate([*kept, -1]) if k != i)
    taken: list[int] = []
    used = 0

    def take(indices: list[int], limit: int) -> None:
        nonlocal used
        for i in indices:
            if used + _cost(lines[i]) > limit:
                return
            taken.append(i)
            used += _cost(lines[i])
    take(kept[:head], room // 2)
    if not taken:
        take(kept[:1], room)
        if not taken:
            return []
    first = len(taken)
    take(kept[head:], room)
    take(kept[first:head], room)
    return sorted(taken)


def _read(args: dict[str, Any], data: dict[str, Any], lim: Limits, focus: frozenset[str]) -> dict[str, Any]:
    lines = _lines(data.get("content", ""))
    out: dict[str, Any] = {k: data[k] for k in ("path", "start_line", "end_line", "total_lines", "mtime", "note", "truncated",
                                "lines_cut") if k in data}
    room = max(200, lim.chars - len(dumps(out)) - 400)     # what the other fields and the note of the cut leave
    if len(lines) <= lim.read_lines and sum(map(_cost, lines)) <= room:
        out["content"] = "\n".join(lines)
        return out
    kept = list(range(len(lines)))
    if len(lines) > lim.read_lines:
        # A3 caps the range at 500 lines; a longer one gives its last places to what lies further down: where its
        # definitions are (lines keep their numbers, so the next Read knows its offset) and what the task names.
        first = lim.read_lines - lim.read_outline - lim.named
        defined = [i for i in range(first, len(lines)) if is_definition(lines[i])][:lim.read_outline]
        named = naming_focus(lines, [*range(first), *defined], focus, lim.named)
        kept = _give_places(len(lines), lim.read_lines, sorted(defined + named))
    by_lines = len(kept)
    kept = _within(lines, kept, room)          # and long lines: fewer of them
    within = f" to keep this form within {lim.chars:,} characters"
    if not kept:                               # a first line longer than the room: its start
        keep = max(0, room - 60)
        out["content"] = lines[0][:keep] + f"… [{len(lines[0]):,} characters, the first {keep:,} kept]"
        out["omitted"] = (f"the first line of this range was cut to its first {keep:,} characters"
                          + (" and the lines after it left out" if len(lines) > 1 else "") + within
                          + "; Bash (cut -c, head -c) shows the rest of it"
                          + ("; Read again with offset to see the lines after it" if len(lines) > 1 else ""))
        return out
    out["content"] = "\n".join(lines[i] for i in kept)
    head = next(i for i, k in enumerate([*kept, -1]) if k != i)
    found = len(kept) - head
    chars = f"{within} (its lines are long)" if len(kept) < by_lines else ""
    out["omitted"] = (f"lines after the first {head} of this range were cut{chars}"
                      + (f" but for {found} kept at its end with their numbers (definitions, lines the task names)" if found else "")
                      + "; Read again with offset to see them")
    return out


def _grep(args: dict[str, Any], data: dict[str, Any], lim: Limits, focus: frozenset[str]) -> dict[str, Any]:
    matches = data.get("matches") or []
    out = {"pattern": data.get("pattern", args.get("pattern")), "match_count": data.get("match_count", len(matches)),
           "file_count": data.get("file_count")}
    rows = [f"{m.get('path')}:{m.get('line')}: {m.get('text', '')[:200]}" for m in matches]
    # the last places go to a definition or a line the task names that the first matches do not show
    first = lim.grep_lines - lim.grep_chosen
    later = [i for i in range(first, len(matches)) if is_definition(str(matches[i].get("text", "")))]
    # fewer matches than the first places: those are all it has (a range past them read rows it does not hold)
    chosen = (later + naming_focus(rows, range(min(first, len(rows))), focus, lim.grep_chosen))[:lim.grep_chosen]
    kept = _give_places(len(rows), lim.grep_lines, chosen)
    out["matches"] = [rows[i] for i in kept]
    if len(matches) > lim.grep_lines:
        files: dict[str, int] = {}
        for i in sorted(set(range(len(matches))) - set(kept)):
            files[matches[i].get("path")] = files.get(matches[i].get("path"), 0) + 1
        out["other_files"] = [f"{p} ({n})" for p, n in list(files.items())[:lim.list_entries]]
        out["omitted"] = (f"{len(matches) - lim.grep_lines} more matches not kept (other_files counts them); "
                          "Grep again with a narrower path or glob to see them")
    if data.get("truncated"):
        out["truncated"] = True
    if isinstance(data.get("notes"), list):       # files withheld, skipped or ignored: a "No matches" is not absence
        out["notes"] = [str(note) for note in data["notes"]]
    return out


def _names_entry(entry: Any, focus: frozenset[str]) -> bool:
    """Whether a listed path is one the task names: the path, its last parts, or one of its folders or files."""
    parts = str(entry).rstrip("/").split("/")
    return any("/".join(parts[i:]) in focus for i in range(len(parts))) or bool(set(parts) & focus)


def _listing(key: str) -> Row:
    def row(args: dict[str, Any], data: dict[str, Any], lim: Limits, focus: frozenset[str]) -> dict[str, Any]:
        entries = data.get(key) or []
        out: dict[str, Any] = {k: data[k] for k in ("path", "pattern", "count", "dirs", "files") if k in data}
        out.setdefault("count", len(entries))
        first = lim.list_entries - lim.list_chosen
        named = [i for i in range(first, len(entries)) if _names_entry(entries[i], focus)] if focus else []
        out[key] = [entries[i] for i in _give_places(len(entries), lim.list_entries, named[:lim.list_chosen])]
        if len(entries) > lim.list_entries:
            out["omitted"] = (f"{len(entries) - lim.list_entries} more entries not kept; "
                              "list again with a narrower path or pattern to see them")
        if data.get("truncated"):
            out["truncated"] = True
        return out
    return row


EDIT_KEYS = ("path", "replacements", "edits_applied", "first_line", "last_line", "diff", "lines_added",
             "lines_removed")


def _large_diff(diff: list[str], lim: Limits, focus: frozenset[str]) -> str:
    """A3's summary of a large diff: where it changed the file (its hunks' ranges) and the changed lines that
    name what the task or plan names."""
    hunks = [line.partition(" @@")[0] + " @@" for line in diff if line.startswith("@@")]
    parts = ["(large diff: summary only)"]
    if hunks:
        more = len(hunks) - lim.list_entries
        parts.append(f"hunks: {' '.join(hunks[:lim.list_entries])}" + (f" and {more} more" if more > 0 else ""))
    changed = [line for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    named = naming_focus(changed, [], focus, lim.named)
    if named:
        parts += ["named by the task:", *(changed[i][:200] for i in named)]
    return "\n".join(parts)


def _edit(args: dict[str, Any], data: dict[str, Any], lim: Limits, focus: frozenset[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in (k for k in data if k in EDIT_KEYS):      # the result's own order, so stored and full line up
        if key != "diff":
            out[key] = data[key]
            continue
        diff = _lines(data.get("diff") or "")
        if len(diff) > lim.large_diff_lines:
            out["diff"] = _large_diff(diff, lim, focus)
        elif diff:
            kept, _ = head_tail_lines(diff, lim.snippet_lines - 10, 10) if len(diff) > lim.snippet_lines else (diff, 0)
            out["diff"] = "\n".join(kept)
    out["applied"] = True
    return out


def _write(args: dict[str, Any], data: dict[str, Any], lim: Limits, focus: frozenset[str]) -> dict[str, Any]:
    out: dict[str, Any] = {k: data[k] for k in ("path", "created", "lines", "bytes") if k in data}
    head = _lines(data.get("head", "")) or _lines(args.get("content", ""))
    out["snippet"] = "\n".join(head[:lim.snippet_lines])
    if data.get("lines", len(head)) > lim.snippet_lines:
        out["omitted"] = f"only the first {lim.snippet_lines} lines kept; Read the file to see the rest"
    return out


def _bash(args: dict[str, Any], data: dict[str, Any], lim: Limits, focus: frozenset[str]) -> dict[str, Any]:
    # The command itself is in the paired action (C1 drops what the call already says).
    command = data.get("command", args.get("command", ""))
    out: dict[str, Any] = {"exit_code": data.get("exit_code")}
    if data.get("timed_out"):
        out["timed_out"] = True
    stdout = data.get("stdout") or ""
    if stdout:
        out["stdout_summary"] = bash_summary.summary(command, stdout, lim.bash, focus)
    stderr = _lines(data.get("stderr") or "")
    if stderr:
        tail = stderr[-lim.stderr_tail:]
        out["stderr_tail"] = "\n".join(tail)
        if len(stderr) > lim.stderr_tail:
            out["stderr_omitted_lines"] = len(stderr) - lim.stderr_tail
    return out


def _todo(args: dict[str, Any], data: dict[str, Any], lim: Limits, focus: frozenset[str]) -> dict[str, Any]:
    return {"recap": data.get("recap", "")}


def _default(args: dict[str, Any], data: Any, lim: Limits, focus: frozenset[str] = frozenset()) -> Any:
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    return head_tail(text, lim.default_chars)


ROWS: dict[str, Row] = {
    "Read": _read,
    "Grep": _grep,
    "LS": _listing("entries"),
    "Glob": _listing("paths"),
    "Edit": _edit,
    "MultiEdit": _edit,
    "Write": _write,
    "Bash": _bash,
    "TodoWrite": _todo,
}


# Tools known by a name prefix rather than one name: MCP tools are `mcp__SERVER__TOOL` (core/context/mcp_stored.py).
PREFIX_ROWS: dict[str, Row] = {"mcp__": lambda args, data, lim, focus: mcp_stored(args, data, lim)}


def _row(tool: str) -> Row:
    return ROWS.get(tool) or next((row for prefix, row in PREFIX_ROWS.items() if tool.startswith(prefix)), _default)


def _held(data: Any, chars: int) -> Any:
    """Any row's form within ``chars``: its longest text fields cut head+tail, longest first (a row's caps count lines
    and entries, which can be long: a Bash stderr tail, an Edit's diff, a Write's snippet)."""
    over = len(dumps(data)) - chars
    if over <= 0:
        return data
    if isinstance(data, str):
        return head_tail(data, max(MIN_CHARS, len(data) - over))
    if not isinstance(data, dict):
        return data                         # a list or scalar from a row that bounds its own items (MCP)
    out = dict(data)
    for key in sorted((k for k, v in out.items() if isinstance(v, str)), key=lambda k: -len(out[k])):
        over = len(dumps(out)) - chars
        if over <= 0:
            break
        out[key] = head_tail(out[key], max(MIN_CHARS // 2, len(out[key]) - over))
    return out


def compress(tool: str, args: dict[str, Any], result: dict[str, Any], level: str = "normal",
             focus: frozenset[str] = frozenset(), window: int | None = None) -> dict[str, Any]:
    """The stored form of one result: status + compressed data + the whole error (C1). `focus`: code names the
    turn's task or plan names (a Bash summary keeps a line for each it shows); `window`: the model's, which bounds
    the form's characters when small (`chars_for`)."""
    lim = replace(LEVELS[level], chars=chars_for(level, window))
    data = result.get("data")
    row = _row(tool)
    stored: dict[str, Any] = {"status": result.get("status", "error")}
    if data is not None:
        try:
            usable = isinstance(data, dict) or row is _default
            stored["data"] = row(args or {}, data, lim, focus) if usable else _default(args, data, lim)
        except (TypeError, AttributeError, KeyError):
            stored["data"] = _default(args, data, lim)   # an unexpected shape still gets a bounded form
        stored["data"] = _held(stored["data"], lim.chars)
    if result.get("error"):
        stored["error"] = result["error"]
    return stored


def dumps(obj: Any) -> str:
    """The one serialisation used for stored observations (stable bytes for caching)."""
    return json.dumps(obj, ensure_ascii=False, default=str)


def full_text(result: dict[str, Any]) -> str:
    """The full observation as sent this step: a status line and plain text (core/context/observation.py)."""
    return render_full(result)


class _StoredCache(LRU[tuple[str, str, str, str, frozenset[str], int], str]):
    """Stored forms by content, bounded, least recently used out first: rebuilding a prompt, resuming
    and replaying the same results under several policies never recompute them."""

    def __init__(self, max_entries: int = 4_096) -> None:
        super().__init__(max_entries)

    def stored(self, tool: str, args: dict[str, Any], result: dict[str, Any], level: str,
               focus: frozenset[str] = frozenset(), window: int | None = None) -> str:
        key = (tool, level, dumps(args), dumps(result), focus, chars_for(level, window))
        return self.get(key, lambda: dumps(compress(tool, args, result, level, focus, window)))


stored_cache = _StoredCache()


def stored_text(tool: str, args: dict[str, Any], result: dict[str, Any], level: str = "normal",
                focus: frozenset[str] = frozenset(), window: int | None = None) -> str:
    return stored_cache.stored(tool, args or {}, result, level, focus, window)
