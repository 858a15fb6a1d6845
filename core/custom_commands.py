"""Custom slash commands (issue 30.3): Markdown files that become `/name` prompts.

Read from `.contextual/commands/` and `.claude/commands/` in the project (for users who have Claude Code's) and
`$CONTEXTUAL_HOME/commands/`; a file `review.md` is `/review`, `git/commit.md` is `/git:commit`. The first one found
wins in that order; a built-in command's name is never taken. The file's text is the prompt, `$ARGUMENTS` replaced
by what follows the command (`$1`…`$9` by its words); an optional front matter block gives `description` (shown in
the / completion and the palette) and `argument-hint`.

A project's command that would grant tools (`allowed-tools`) or run shell lines (`!`cmd``) is inert until the
project is approved: no approval exists yet (the trust store is another issue's), so such a command only says why
it does nothing. Nothing here runs a shell line or grants a tool, for any command. Bounded: 200 files, 64 KB each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Sequence

MAX_FILES = 200
MAX_BYTES = 64 * 1024
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_SHELL_LINE = re.compile(r"!`[^`]+`")
_POSITIONAL = re.compile(r"\$([1-9])")

Scope = Literal["project", "user"]


@dataclass(frozen=True)
class CustomCommand:
    name: str                 # with the slash: "/review", "/git:commit"
    description: str
    argument_hint: str
    body: str
    source: Path
    scope: Scope
    inert: str | None = None  # why it does nothing (a project command that needs approval), else None

    def expand(self, arguments: str) -> str:
        """The prompt: $ARGUMENTS is everything after the command, $1…$9 its words (empty when absent)."""
        words = arguments.split()
        text = self.body.replace("$ARGUMENTS", arguments)
        text = _POSITIONAL.sub(lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", text)
        if arguments and "$ARGUMENTS" not in self.body and not _POSITIONAL.search(self.body):
            text = f"{text.rstrip()}\n\n{arguments}"       # arguments never silently dropped
        return text


def folders(project_root: Path, home: Path) -> list[tuple[Path, Scope]]:
    return [(project_root / ".contextual" / "commands", "project"), (project_root / ".claude" / "commands", "project"),
            (home / "commands", "user")]


def front_matter(text: str) -> tuple[dict[str, str], str]:
    """`---` key: value lines `---` at the top (the only shape command files use), and the rest."""
    if not text.startswith("---"):
        return {}, text
    head, sep, rest = text[3:].partition("\n---")
    if not sep:
        return {}, text
    fields: dict[str, str] = {}
    for line in head.splitlines():
        key, colon, value = line.partition(":")
        if colon and key.strip():
            fields[key.strip().lower()] = value.strip().strip("'\"")
    return fields, rest.split("\n", 1)[1] if "\n" in rest else ""


def _read(path: Path, folder: Path, scope: Scope) -> CustomCommand | None:
    try:
        if path.stat().st_size > MAX_BYTES:
            return None
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    parts = path.relative_to(folder).with_suffix("").parts
    if not parts or not all(_NAME.match(p) for p in parts):
        return None
    fields, body = front_matter(text)
    inert = None
    if scope == "project" and (fields.get("allowed-tools") or _SHELL_LINE.search(body)):
        inert = (f"{path.name} grants tools or runs shell lines: a project's command that does is inert until "
                 "the project is approved")
    first_line = next((line.strip() for line in body.splitlines() if line.strip()), "")
    return CustomCommand("/" + ":".join(parts), fields.get("description") or first_line[:80],
                         fields.get("argument-hint", ""), body.strip() + "\n", path, scope, inert)


def load_commands(project_root: Path, home: Path, taken: Sequence[str] = ()) -> list[CustomCommand]:
    """Every custom command, sorted by name; names in `taken` (the built-ins) and repeats are left out."""
    found: dict[str, CustomCommand] = {}
    seen = 0
    for folder, scope in folders(project_root, home):
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.md")):
            seen += 1
            if seen > MAX_FILES:
                break
            command = _read(path, folder, scope) if path.is_file() else None
            if command is not None and command.name not in taken and command.name not in found:
                found[command.name] = command
    return sorted(found.values(), key=lambda c: c.name)
