"""File helpers the tools share: argument checks, text decoding that round-trips, atomic writes,
binary detection and a .gitignore-aware walk of the project."""

from __future__ import annotations

import difflib
import os
import re
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pathspec

from core.tools.base import ToolError

SNIFF_BYTES = 8192
UTF8_BOM = b"\xef\xbb\xbf"
# Control characters that real text files do not contain; many of them mean "this is binary".
_TEXT_CONTROLS = set(b"\t\n\r\f\b\x1b\v")


# ---------------------------------------------------------------- arguments

def check_args(args: object, required: dict[str, type | tuple], optional: dict[str, type | tuple]) -> dict:
    """Validate a tool's JSON arguments; raise ToolError("invalid_argument") on the first problem."""
    if not isinstance(args, dict):
        raise ToolError("invalid_argument", f"arguments must be a JSON object, got {type(args).__name__}")
    unknown = sorted(set(args) - set(required) - set(optional))
    if unknown:
        allowed = ", ".join([*required, *optional])
        raise ToolError("invalid_argument", f"unknown argument(s): {', '.join(unknown)} (allowed: {allowed})")
    for name in required:
        if name not in args:
            raise ToolError("invalid_argument", f"missing required argument: {name}")
    for name, value in args.items():
        expected = required.get(name) or optional[name]
        if value is None and name in optional:
            continue
        if not _has_type(value, expected):
            raise ToolError("invalid_argument",
                            f"argument {name} must be {_type_name(expected)}, got {_json_type(value)}")
    return args


def _has_type(value: object, expected: type | tuple) -> bool:
    kinds = expected if isinstance(expected, tuple) else (expected,)
    if isinstance(value, bool) and bool not in kinds:
        return False            # JSON true is not a number
    return isinstance(value, kinds)


def _type_name(expected: type | tuple) -> str:
    names = {str: "a string", int: "an integer", float: "a number", bool: "a boolean",
             list: "an array", dict: "an object"}
    kinds = expected if isinstance(expected, tuple) else (expected,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _json_type(value: object) -> str:
    names = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
             dict: "object", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def positive_int(args: dict, name: str, default: int | None = None) -> int | None:
    value = args.get(name)
    if value is None:
        return default
    if value < 1:
        raise ToolError("invalid_argument", f"argument {name} must be >= 1, got {value}")
    return value


# ---------------------------------------------------------------- text files

@dataclass(frozen=True)
class TextStyle:
    """How a file was stored on disk, so an edit can write it back the same way."""
    encoding: str = "utf-8"      # "utf-8" or "latin-1"
    bom: bool = False
    crlf: bool = False           # every newline is CRLF: the text is handled with \n and written back with \r\n


def looks_binary(raw: bytes) -> bool:
    sample = raw[:SNIFF_BYTES]
    if b"\x00" in sample:
        return True
    if not sample:
        return False
    controls = sum(1 for b in sample if b < 32 and b not in _TEXT_CONTROLS)
    return controls / len(sample) > 0.05


def decode_text(raw: bytes) -> tuple[str, TextStyle] | None:
    """Bytes -> (text with \\n newlines when the file is pure CRLF, style); None when it is binary."""
    if looks_binary(raw):
        return None
    bom = raw.startswith(UTF8_BOM)
    body = raw[len(UTF8_BOM):] if bom else raw
    try:
        text, encoding = body.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        if bom:
            return None
        text, encoding = body.decode("latin-1"), "latin-1"   # every byte decodes; the file stays latin-1
    crlf = "\r\n" in text and text.count("\r\n") == text.count("\n")
    if crlf:
        text = text.replace("\r\n", "\n")
    return text, TextStyle(encoding=encoding, bom=bom, crlf=crlf)


def encode_text(text: str, style: TextStyle) -> bytes:
    if style.crlf:
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    try:
        body = text.encode(style.encoding)
    except UnicodeEncodeError as exc:
        bad = text[exc.start:exc.end]
        raise ToolError("encoding_error",
                        f"the file is {style.encoding} and cannot hold {bad!r}; nothing was written") from None
    return (UTF8_BOM if style.bom else b"") + body


def read_text_file(path: Path, rel: str) -> tuple[str, TextStyle]:
    if path.is_dir():
        raise ToolError("is_directory", f"{rel} is a directory; use LS to list it")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ToolError("not_found", f"{rel} does not exist") from None
    except OSError as exc:
        raise ToolError("io_error", f"cannot read {rel}: {exc.strerror or exc}") from None
    decoded = decode_text(raw)
    if decoded is None:
        raise ToolError("binary_file", f"{rel} is a binary file; it cannot be shown or edited as text")
    return decoded


def atomic_write(path: Path, data: bytes) -> None:
    """Write via a temp file in the same folder and os.replace, keeping the old file's mode."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def unified_diff(old: str, new: str, rel: str) -> tuple[str, int, int]:
    """(diff text, lines added, lines removed) between two texts."""
    lines = list(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                      fromfile=f"a/{rel}", tofile=f"b/{rel}", n=3))
    text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    return text, added, removed


def changed_line_span(old: str, new: str) -> tuple[int, int]:
    """First and last line (1-based, in the new text) touched by the change."""
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    spans = [(j1, j2) for tag, _i1, _i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]
    if not spans:
        return 0, 0
    first = spans[0][0] + 1
    last = max(max(j2, j1 + 1) for j1, j2 in spans)
    return first, last


async def announce_change(ctx, paths: list[Path]) -> None:
    """Let the ghost-snapshot layer copy files before a tool changes them."""
    if ctx.before_change is not None:
        await ctx.before_change(paths)


def record_mtime(ctx, path: Path) -> float:
    mtime = path.stat().st_mtime
    ctx.mtimes[str(path)] = mtime
    return mtime


# ---------------------------------------------------------------- globs

def glob_to_regex(pattern: str) -> re.Pattern:
    """pathlib/gitignore-style glob -> regex over '/'-separated relative paths.
    `**` spans folders, `*` and `?` stay within one, `[...]` classes and `{a,b}` alternatives work."""
    out: list[str] = []
    i, depth = 0, 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1:i + 2] in ("!", "]") else i + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[i + 1:end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end + 1
                continue
        elif char == "{":
            out.append("(?:")
            depth += 1
        elif char == "}" and depth:
            out.append(")")
            depth -= 1
        elif char == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(char))
        i += 1
    if depth:
        raise ToolError("invalid_argument", f"unbalanced '{{' in glob {pattern!r}")
    try:
        return re.compile("".join(out) + r"\Z", re.DOTALL)
    except re.error as exc:
        raise ToolError("invalid_argument", f"invalid glob {pattern!r}: {exc}") from None


# ---------------------------------------------------------------- .gitignore walking

class IgnoreRules:
    """The project's .gitignore files (root and nested), read lazily and cached per folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._specs: dict[Path, pathspec.GitIgnoreSpec | None] = {}

    def _spec(self, folder: Path) -> pathspec.GitIgnoreSpec | None:
        if folder not in self._specs:
            spec = None
            try:
                lines = (folder / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
                spec = pathspec.GitIgnoreSpec.from_lines(lines)
            except OSError:
                pass
            self._specs[folder] = spec
        return self._specs[folder]

    def ignored(self, path: Path, is_dir: bool) -> bool:
        """Whether `path` (inside root) is ignored; the deepest .gitignore with an opinion wins."""
        if path.name == ".git":
            return True
        verdict = False
        folder = path.parent
        chain = [folder, *folder.parents]
        for base in reversed(chain):
            if base != self.root and self.root not in base.parents:
                continue
            spec = self._spec(base)
            if spec is None:
                continue
            rel = path.relative_to(base).as_posix() + ("/" if is_dir else "")
            result = spec.check_file(rel)
            if result.include is not None:
                verdict = result.include
        return verdict

    def ignored_on_the_way(self, path: Path) -> bool:
        """Whether `path` or one of its folders below the root is ignored (a start folder of a walk)."""
        current = path
        while current != self.root and self.root in current.parents:
            if self.ignored(current, current.is_dir()):
                return True
            current = current.parent
        return False


def inside(root: Path, path: Path) -> bool:
    return path == root or root in path.parents


def walk_files(root: Path, start: Path, rules: IgnoreRules) -> Iterator[Path]:
    """Files under `start`, sorted by path, skipping .git, ignored entries and symlinks leading out
    of the project. Symlinked folders are not entered (no loops, no escapes)."""
    for folder, dirnames, filenames in os.walk(start, followlinks=False):
        here = Path(folder)
        keep = []
        for name in sorted(dirnames):
            child = here / name
            if not rules.ignored(child, True):
                keep.append(name)
        dirnames[:] = keep
        for name in sorted(filenames):
            child = here / name
            if rules.ignored(child, False):
                continue
            if child.is_symlink() and not inside(root, Path(os.path.realpath(child))):
                continue
            yield child
