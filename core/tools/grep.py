"""Grep: a regular expression over the project's text files (or one file), line by line, honouring .gitignore.

Patterns run on the `regex` module with a per-line timeout and the GIL released, so a catastrophic pattern
("(a+)+$" on a long line) ends in an error result and Esc/Ctrl-C still ends the search."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from contextual.core.tools._args import BOOL, STR, Arg, ArgSpec
from contextual.core.tools._cancel import Stop, in_thread
from contextual.core.tools._codec import decode_text
from contextual.core.tools._globs import compile_glob
from contextual.core.tools._regular import read_bounded
from contextual.core.tools._walk import Hidden, IgnoreRules, some_of, walk_files
from contextual.core.tools.base import ToolContext, ToolError, ok
from contextual.core.plural import plural

if TYPE_CHECKING:      # `regex` loads with the first search, not with every engine (the app's launch)
    import regex

MAX_MATCHES = 500
MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_LINE_CHARS = 500
LINE_TIMEOUT_S = 1.0          # one line taking longer than this means the pattern backtracks catastrophically
TIME_LIMIT_S = 120.0


@dataclass
class _Search:
    pattern: regex.Pattern[str]
    max_matches: int
    stop: Stop
    matches: list[dict[str, Any]] = field(default_factory=list)
    files: set[str] = field(default_factory=set)
    truncated: bool = False
    skipped_large: int = 0
    skipped_binary: int = 0
    skipped_special: int = 0
    withheld: int = 0
    hidden: Hidden = field(default_factory=Hidden)


class GrepTool:
    name = "Grep"
    description = 'search file contents with a Python regex; "path:line: text" per match.'
    args = ArgSpec((Arg("pattern", STR), Arg("path", STR, required=False), Arg("glob", STR, required=False),
                    Arg("ignore_case", BOOL, required=False)),
                   note='glob: "*.py" or "tests/**/*.py".')
    example = ""                # flat arguments: no example in L1 (it costs tokens on every call)
    needs_permission = False
    edits_files = False

    def __init__(self, max_matches: int = MAX_MATCHES, max_file_bytes: int = MAX_FILE_BYTES,
                 line_timeout_s: float = LINE_TIMEOUT_S, time_limit_s: float = TIME_LIMIT_S) -> None:
        self.max_matches = max_matches
        self.max_file_bytes = max_file_bytes
        self.line_timeout_s = line_timeout_s
        self.time_limit_s = time_limit_s

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        pattern = args["pattern"]
        if not pattern:
            raise ToolError("invalid_argument", "pattern is empty")
        _check_repeats(pattern)
        import regex
        try:
            compiled = regex.compile(pattern, (regex.IGNORECASE if args.get("ignore_case") else 0) | regex.VERSION0)
        except (regex.error, OverflowError, RecursionError) as exc:
            raise ToolError("invalid_regex", f"invalid regular expression {pattern!r}: {exc}") from None
        base = ctx.resolve(args.get("path"), must_exist=True)
        file_filter = _file_filter(args.get("glob"))
        stop = Stop(self.time_limit_s, ctx.cancel, "Grep")
        search = _Search(compiled, self.max_matches, stop)
        await in_thread(self._search, ctx, base, file_filter, search, stop=stop)
        data = {"pattern": pattern, "matches": search.matches, "match_count": len(search.matches),
                "file_count": len(search.files), "truncated": search.truncated}
        lines = [f"{m['path']}:{m['line']}: {m['text']}" for m in search.matches]
        # What the search left out, said with the result and kept in data: history's form (core/context/compressor.py)
        # keeps them, so a later turn never reads a bare "No matches" where a file was withheld or ignored.
        notes = []
        if not lines:
            lines.append(f"No matches for {pattern}")
            hidden = some_of(search.hidden.folders + search.hidden.files, ctx.root, ctx.withholds)
            if hidden:      # else the model takes a match in an ignored build/ or generated file for absent
                notes.append(f"(.gitignore hid {hidden} from the search; set path to one to search it)")
        if search.truncated:
            lines.append(f"(stopped at {self.max_matches} matches; narrow the pattern, path or glob)")
        skipped = []
        if search.skipped_large:
            skipped.append(f"{plural(search.skipped_large, 'file')} over {self.max_file_bytes // (1024 * 1024)} MB")
        if search.skipped_binary and base.is_file():
            skipped.append("a binary file")
        if search.skipped_special:
            skipped.append(f"{plural(search.skipped_special, 'special file')} (pipes, devices, sockets)")
        if search.withheld:
            skipped.append(f"{plural(search.withheld, 'file')} withheld by a Read deny rule")
        if skipped:
            notes.append(f"(skipped {', '.join(skipped)})")
        if search.skipped_large and base.is_file():     # the one file asked for: how to search it after all
            notes.append(f"({ctx.relative(base)} is too large for Grep; Bash can search it: "
                         f"grep -n -e PATTERN {shlex.quote(ctx.relative(base))} | head -100)")
        lines += notes
        if notes:
            data["notes"] = notes
        stats = {"skipped_large_files": search.skipped_large, "skipped_binary_files": search.skipped_binary,
                 "skipped_special_files": search.skipped_special, "withheld_files": search.withheld}
        return ok(data, "\n".join(lines), stats=stats)

    def _search(self, ctx: ToolContext, base: Path, file_filter: Callable[[str], bool] | None,
                search: _Search) -> None:
        if not base.is_dir():
            # A file named explicitly is searched even if .gitignore hides it; a FIFO or device is refused.
            if ctx.withholds(ctx.relative(base)):
                raise ToolError("permission_denied", f"{ctx.relative(base)} is withheld by a Read deny rule in the "
                                                     "configuration; do the task another way or tell the user.")
            if file_filter is None or file_filter(base.name):
                self._search_file(str(base), ctx.relative(base), search, named=True)
            return
        base_prefix, root_prefix = len(str(base)) + 1, len(str(ctx.root)) + 1
        for path in walk_files(ctx.root, base, IgnoreRules(ctx.root), search.stop.check, search.hidden):
            if file_filter is not None and not file_filter(path[base_prefix:]):
                continue
            if ctx.withholds(path[root_prefix:]):
                search.withheld += 1
                continue
            self._search_file(path, path[root_prefix:], search)
            if search.truncated:
                return

    def _search_file(self, path: str, rel: str, search: _Search, named: bool = False) -> None:
        try:
            raw = read_bounded(path, rel, self.max_file_bytes)
        except ToolError as exc:
            if named and exc.code != "file_too_large":
                raise
            search.skipped_large += exc.code == "file_too_large"
            search.skipped_special += exc.code in ("not_regular_file", "is_directory")
            return
        except OSError:
            if named:
                raise
            return
        decoded = decode_text(raw)
        if decoded is None:
            search.skipped_binary += 1
            return
        for number, line in enumerate(decoded[0].splitlines(), start=1):
            search.stop.check()
            try:
                found = search.pattern.search(line, timeout=self.line_timeout_s, concurrent=True)
            except TimeoutError:
                raise ToolError("regex_timeout",
                                f"the pattern took over {self.line_timeout_s:g} s on {rel}:{number} "
                                "(catastrophic backtracking); simplify it, e.g. (a+)+ -> a+") from None
            if not found:
                continue
            if len(search.matches) >= search.max_matches:
                search.truncated = True
                return
            text = line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + "…"
            search.matches.append({"path": rel, "line": number, "text": text})
            search.files.add(rel)


_COUNTED = re.compile(r"\{(\d+)(?:,(\d*))?\}")
MAX_REPEAT_PRODUCT = 100_000      # (a{1000}){1000} takes seconds to compile, holding the GIL: refuse it


def _check_repeats(pattern: str) -> None:
    """Counted repeats multiply when nested; their product bounds the compiled size (an over-estimate when
    they are side by side, which real searches do not need at this size)."""
    product = 1
    for low, high in _COUNTED.findall(pattern):
        product *= max(int(low), int(high or 0), 1)
        if product > MAX_REPEAT_PRODUCT:
            raise ToolError("invalid_regex", f"the counted repeats in {pattern!r} are too large to compile "
                                             f"(over {MAX_REPEAT_PRODUCT:,} in all); use smaller counts")


def _file_filter(glob: str | None) -> Callable[[str], bool] | None:
    """A glob without '/' tests the file name (like rg -g '*.py'); with '/', the path below `path`."""
    if glob is None or not glob.strip():
        return None
    glob = glob.strip()
    matcher = compile_glob(glob.removeprefix("./"))
    if "/" in glob:
        return matcher
    return lambda rel: matcher(rel.rsplit("/", 1)[-1])
