"""What every tool shares: the C1 result shape, the Tool interface, the context a call runs in, path confinement."""

from __future__ import annotations

import asyncio
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, NotRequired, Protocol, TypedDict

_ESCAPED_BYTE = re.compile(r"\\x([89a-f][0-9a-f])")


def ok(data: Any, text: str = "", stats: dict[str, Any] | None = None, context: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"status": "success", "data": data, "text": text, "stats": stats or {}, "context": context or {}}


def fail(code: str, message: str, context: dict[str, Any] | None = None, data: Any = None) -> dict[str, Any]:
    return {"status": "error", "data": data, "text": "", "stats": {}, "context": context or {},
            "error": {"code": code, "message": message}}


def on_disk(path: str) -> str:
    """The file a path names: as written, or, when there is none and it holds `\\xNN`, the name with that undecodable
    byte (LS and Grep show such a name so, core/textsafe.py). The permission check reads the same file
    (core/permission_rules.py): `l\\x80`, a link to .env, was let past `Read(.env)`."""
    if not os.path.lexists(path) and _ESCAPED_BYTE.search(path):
        raw = _ESCAPED_BYTE.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)), path)
        if os.path.lexists(raw):
            return raw
    return path


EDITING_TOOLS = frozenset({"Edit", "MultiEdit", "Write"})        # the tools whose calls change a file


def path_of(args: object) -> str | None:
    """The file or folder a tool call names (``file_path``, else ``path``), or None: the one reading of it."""
    if not isinstance(args, dict):
        return None
    return next((v for v in (args.get("file_path"), args.get("path")) if isinstance(v, str) and v), None)


def subject_of(args: object) -> str | None:
    """What a call is about, for a label: its path, else its command or pattern."""
    path = path_of(args)
    if path is not None or not isinstance(args, dict):
        return path
    return next((v for v in (args.get("command"), args.get("pattern")) if isinstance(v, str) and v), None)


class ToolError(Exception):
    """Raised inside a tool's `call`; core/tools/runner.py turns it into fail(code, message)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


# The ghost-snapshot hook (core/snapshot): awaited with the paths a tool is about to change (none: Bash).
BeforeChange = Callable[..., Awaitable[None]]


class Todo(TypedDict):
    """One item of the model's task list as TodoWrite cleaned it (core/tools/todowrite.py), which the engine, the
    session and the chat hold. Here, not in todowrite.py, because ToolContext holds the list and todowrite imports
    this module."""
    content: str
    status: str                     # one of todowrite.STATUSES
    activeForm: NotRequired[str]    # Claude Code's form for the item in progress, when the model sent one


@dataclass
class ToolContext:
    root: Path                                   # resolved project root
    mtimes: dict[str, float] = field(default_factory=dict)   # A8/C4: last seen mtime per file, memory only
    todos: list[Todo] = field(default_factory=list)
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    # Called with the list of paths a tool is about to change, before it changes them (ghost snapshots).
    before_change: BeforeChange | None = None
    # Called with each piece of output a running tool produces (Bash), so the engine can show its tail.
    on_output: Callable[[str], None] | None = None
    # Whether a Read deny rule withholds this project-relative path (issue 26.2): Grep and Glob skip it, LS
    # marks it. None: nothing is withheld.
    withheld: Callable[[str], bool] | None = None

    def withholds(self, rel: str) -> bool:
        return self.withheld is not None and bool(self.withheld(rel))

    def resolve(self, path: str | None, *, must_exist: bool = False) -> Path:
        """Resolve a user/model path (symlinks included) and refuse anything outside the root."""
        if path is None or path == "":
            return self.root
        if not isinstance(path, str):
            raise ToolError("invalid_argument", f"path must be a string, got {type(path).__name__}")
        if "\x00" in path:
            raise ToolError("invalid_path", "path contains a NUL byte")
        candidate = Path(path)
        if not candidate.is_absolute():
            candidate = self.root / candidate
        candidate = Path(on_disk(str(candidate)))
        resolved = Path(os.path.realpath(candidate))
        if resolved != self.root and self.root not in resolved.parents:
            raise ToolError("outside_project", f"{path} is outside the project root {self.root}")
        if must_exist and not resolved.exists():
            raise ToolError("not_found", f"{self.relative(resolved)} does not exist")
        return resolved

    def resolve_editable(self, path: str | None) -> Path:
        """`resolve` for a file edit (Edit, MultiEdit, Write), which may not write inside a `.git` folder: the
        repository's config and hooks there name commands git runs (core.fsmonitor, filters, hooks), so an edit there
        would be a command run under an edit's permission. Bash, which asks, can still change them. A folder is no
        file to edit."""
        resolved = self.resolve(path)
        if ".git" in resolved.relative_to(self.root).parts:
            raise ToolError("protected_path", f"{self.relative(resolved)} is inside a .git folder, which holds the "
                                              "repository's config and hooks: edits do not write there")
        if resolved == self.root or resolved.is_dir():
            raise ToolError("is_directory", f"{self.relative(resolved)} is a directory, not a file")
        return resolved

    def relative(self, path: Path) -> str:
        try:
            rel = path.relative_to(self.root)
            return str(rel) if str(rel) != "." else "."
        except ValueError:
            return str(path)


class ArgChecker(Protocol):
    """A tool's arguments as declared once (`core/tools/_args.py: ArgSpec`): checked by the runner, shown in L1."""
    @property
    def note(self) -> str: ...

    def render(self) -> str: ...

    def validate(self, value: object) -> dict[str, Any]: ...


class Tool(Protocol):
    """What the registry, the runner, the prompt and the permission policy need of a tool (MCP tools too)."""
    name: str
    description: str            # the prompt's text for it (without the name, the Arguments and Example lines)
    @property
    def args(self) -> ArgChecker:   # an ArgSpec (core/tools/_args.py), declared once: checked by the runner,
        ...                         # rendered in the prompt
    example: str                # one JSON object the prompt shows as `Action: Name[...]` ("" for none)
    needs_permission: bool      # asks before running in `default` mode (CONTRACT --permission-mode)
    edits_files: bool           # a file edit: `accept-edits` allows it; Edit/Write(glob) rules match its path

    async def call(self, args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        """Do the work on validated arguments; raise ToolError (or anything) for a failed result."""
        ...
