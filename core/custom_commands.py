"""Custom slash commands (issue 30.3): Markdown files that become `/name` prompts.

Read from `$CONTEXTUAL_HOME/commands/` and, in the project, `.contextual/commands/` and `.claude/commands/` (for
users who have Claude Code's); a file `review.md` is `/review`, `git/commit.md` is `/git:commit`. The first one found
wins in that order: the user's own command is never shadowed by a checkout's of the same name (Claude Code's docs
call such a conflict unsupported), and the one it hides is named in its /help row; a built-in command's name is
never taken. The file's text is the prompt, `$ARGUMENTS` replaced
by what follows the command (`$1`…`$9` by its words); an optional front matter block gives `description` (shown in
the / completion and the palette), `argument-hint`, `model` (for the command's one turn), and `allowed-tools`: permission rules granted without
asking for the one turn the command starts. A line's `` !`cmd` `` runs before the prompt is sent and its output
takes its place (core/command_shell.py).

A project's command that grants tools or runs shell lines is inert until the user approves that file as it reads
(core/trust.py, one Item per file keyed by its content), or the project is trusted; one that only names a `model`
runs, on the session's model, until then (the model is billed to the user's key). The user's own commands need no
approval. Bounded: 200 files per folder, 64 KB each; a project's folder that links outside it is not read.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, Sequence

from contextual.core import trust
from contextual.core.permission_rules import RuleError, parse_rule

MAX_FILES = 200             # per folder: a checkout's 200 files left none of the user's own
MAX_ENTRIES = 10_000        # looked at in one folder's walk
MAX_BYTES = 64 * 1024
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
SHELL_LINE = re.compile(r"!`([^`\n]+)`")
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
    allowed_tools: tuple[str, ...] = ()    # permission rules granted for the command's one turn
    model: str = ""                        # the model its one turn uses (front matter), "" for the session's
    text: str = ""                         # the whole file, as an approval is bound to it
    model_held: bool = False               # a project's `model` not approved yet: its turn runs on the session's
    hides: tuple[Path, ...] = ()           # the project's files of its name this (user's) command hides, relative

    @property
    def turn_model(self) -> str:
        """The model its turn runs on ("" for the session's)."""
        return "" if self.model_held else self.model

    @property
    def shell_lines(self) -> list[str]:
        return SHELL_LINE.findall(self.body)

    @property
    def runs_anything(self) -> bool:
        """It grants tools or runs shell lines: a project's is inert until approved."""
        return bool(self.allowed_tools or self.shell_lines)

    @property
    def needs_approval(self) -> bool:
        return self.runs_anything or bool(self.model)

    def as_typed(self, arguments: str) -> str:
        """What the user typed to run it (`/review a.py`): what the chat shows and the record keeps as `raw`."""
        return f"{self.name} {arguments}".strip()

    def expand(self, arguments: str) -> str:
        """The prompt: $ARGUMENTS is everything after the command, $1…$9 its words (empty when absent)."""
        words = arguments.split()
        text = self.body.replace("$ARGUMENTS", arguments)
        text = _POSITIONAL.sub(lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", text)
        if arguments and "$ARGUMENTS" not in self.body and not _POSITIONAL.search(self.body):
            text = f"{text.rstrip()}\n\n{arguments}"       # arguments never silently dropped
        return text


def folders(project_root: Path, home: Path) -> list[tuple[Path, Scope]]:
    """Where commands are read, the first found of a name winning: the user's own first."""
    return [(home / "commands", "user"), (project_root / ".contextual" / "commands", "project"),
            (project_root / ".claude" / "commands", "project")]


def front_matter(text: str) -> tuple[dict[str, str], str]:
    """`---` key: value lines `---` at the top (the only shape command files use), and the rest. A key with an
    empty value followed by `- item` lines (YAML's list) reads as the items joined by commas."""
    if not text.startswith("---"):
        return {}, text
    head, sep, rest = text[3:].partition("\n---")
    if not sep:
        return {}, text
    fields: dict[str, str] = {}
    key = ""
    for line in head.splitlines():
        item = line.strip()
        if item.startswith("- ") and key:
            fields[key] = ", ".join(filter(None, (fields[key], item[2:].strip().strip("'\""))))
            continue
        name, colon, value = line.partition(":")
        if colon and name.strip():
            key = name.strip().lower()
            fields[key] = value.strip().strip("'\"")
    return fields, rest.split("\n", 1)[1] if "\n" in rest else ""


def tool_rules(text: str) -> tuple[str, ...]:
    """`allowed-tools`: rules separated by commas or spaces outside parentheses (Claude Code writes
    `Bash(git add:*), Bash(git status:*)`); RuleError names a rule that does not parse."""
    rules, depth, word = [], 0, ""
    for char in text + ",":
        depth += (char == "(") - (char == ")")
        if depth <= 0 and (char == "," or char.isspace()):
            if word.strip():
                rules.append(parse_rule(word.strip()).text)
            word, depth = "", 0
        else:
            word += char
    if word.strip():                      # an unclosed parenthesis: the rest is one rule, which will not parse
        rules.append(parse_rule(word.strip().rstrip(",")).text)
    return tuple(dict.fromkeys(rules))


def approval_item(command: CustomCommand, project_root: Path) -> trust.Item:
    """What approving this project command means, for the trust modal: its grants and shell lines, bound to the
    file's exact text (a changed file asks again)."""
    where = command.source.relative_to(project_root) if command.source.is_relative_to(project_root) else command.source
    details = [f"grants without asking, for its turn: {', '.join(command.allowed_tools)}"] if command.allowed_tools \
        else []
    details += [f"runs before sending: {line}" for line in command.shell_lines]
    if command.model:
        details.append(f"runs its turn on the model {command.model}, billed to your key")
    # a command that runs nothing is used unapproved, only not its model: the line says which is left out
    what = (f"the command {command.name}" if command.runs_anything
            else f"the model {command.model} of the command {command.name}")
    return trust.Item("commands", command.text, f"{what} in {where}", tuple(details), str(where))


def _read(path: Path, folder: Path, scope: Scope) -> CustomCommand | None:
    try:
        if path.stat().st_size > MAX_BYTES:
            return None
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    parts = path.relative_to(folder).with_suffix("").parts
    if not parts or not all(_NAME.fullmatch(p) for p in parts):
        return None
    fields, body = front_matter(text)
    inert = None
    try:
        grants = tool_rules(fields.get("allowed-tools", ""))
    except RuleError as exc:
        grants, inert = (), f"{path.name}: allowed-tools: {exc}"
    first_line = next((line.strip() for line in body.splitlines() if line.strip()), "")
    return CustomCommand("/" + ":".join(parts), fields.get("description") or first_line[:80],
                         fields.get("argument-hint", ""), body.strip() + "\n", path, scope, inert, grants,
                         fields.get("model", ""), text)


def _gated(command: CustomCommand, project_root: Path, home: Path) -> tuple[CustomCommand, trust.Item | None]:
    """A project command that grants tools or runs shell lines, unapproved: inert; one that only names a model:
    run on the session's model. With what approving it means."""
    if command.scope != "project" or command.inert or not command.needs_approval:
        return command, None
    item = approval_item(command, project_root)
    if trust.gate(home, project_root, item):
        return command, None
    held = replace(command, model_held=bool(command.model))
    if not command.runs_anything:
        return held, item
    why = (f"{command.source.name} grants tools or runs shell lines: a project's command that does is inert until "
           "you approve it (at launch, or with --trust-project)")
    return replace(held, inert=why), item


def held_model_line(command: CustomCommand, project_root: Path) -> str | None:
    """The one line said when a project command's turn runs without its unapproved model (None: nothing held)."""
    if not command.model_held:
        return None
    return approval_item(command, Path(project_root).resolve()).skipped(Path(project_root))


def approved(command: CustomCommand, items: Sequence[trust.Item], project_root: Path) -> CustomCommand:
    """The command as it is once the user approved `items` (its own file as read among them: no longer inert, its
    model used)."""
    if (command.inert or command.model_held) and command.scope == "project" and command.needs_approval:
        if approval_item(command, Path(project_root).resolve()) in items:
            return replace(command, inert=None, model_held=False)
    return command


def load_commands(project_root: Path, home: Path, taken: Sequence[str] = ()) -> list[CustomCommand]:
    """Every custom command, sorted by name; names in `taken` (the built-ins) and repeats are left out."""
    return [command for command, _ in load_gated(project_root, home, taken)]


def load_gated(project_root: Path, home: Path, taken: Sequence[str] = ()
               ) -> list[tuple[CustomCommand, trust.Item | None]]:
    """Every custom command with, for one left inert for want of approval, the trust Item approving it."""
    project_root = Path(project_root).resolve()
    found: dict[str, CustomCommand] = {}
    hidden: dict[str, list[Path]] = {}
    for folder, scope in folders(project_root, home):
        if not folder.is_dir():
            continue
        if scope == "project" and project_root not in folder.resolve().parents:
            continue        # a checkout's `.claude/commands -> /` was walked whole at every launch
        for path in _markdown_files(folder):
            # a checkout's link (its commands folder or one file) to a file outside it must not be read and sent
            outside = scope == "project" and project_root not in path.resolve().parents
            command = _read(path, folder, scope) if path.is_file() and not outside else None
            if command is None or command.name in taken:
                continue
            if command.name not in found:
                found[command.name] = command
            elif found[command.name].scope == "user":
                hidden.setdefault(command.name, []).append(path.relative_to(project_root))
    found |= {name: replace(found[name], hides=tuple(paths)) for name, paths in hidden.items()}
    return [_gated(c, project_root, home) for c in sorted(found.values(), key=lambda c: c.name)]


def _markdown_files(folder: Path) -> list[Path]:
    """The first MAX_FILES `.md` files below `folder`, sorted, from a walk of at most MAX_ENTRIES entries that goes
    into no link to a folder and passes over a folder it cannot list (one that vanished under it ended the app)."""
    found: list[Path] = []
    seen = 0
    for top, subfolders, files in os.walk(folder):
        subfolders.sort()
        seen += len(subfolders) + len(files)
        found += [Path(top) / name for name in sorted(files) if name.endswith(".md")]
        if seen > MAX_ENTRIES or len(found) > MAX_FILES:
            break
    return sorted(found)[:MAX_FILES]


def command_for(text: str, project_root: Path, home: Path) -> tuple[CustomCommand, str] | None:
    """`/name arguments` when `name` is a custom command (`-p "/review src/a.py"`): the command and its arguments;
    None for any other text."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, arguments = stripped.partition(" ")
    found = {c.name: c for c in load_commands(project_root, home)}
    return (found[name], arguments.strip()) if name in found else None
