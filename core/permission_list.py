"""/permissions without the screen: every permission rule in force or held inert, with the file it came from, and
removing or adding one. A change is written by the one writer of the local file (core/local_rules.py) and put in
force for the next tool call: the engine's rules are read again from the files (Settings.reload_rules) and this
session's grants lose a removed rule, so no cached copy still allows it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from contextual.core.config_files import ConfigError, RuleFile, local_config_path, rule_files
from contextual.core.local_rules import RuleKind, change_local_rules
from contextual.core.permission_rules import RuleError, parse_rule

if TYPE_CHECKING:
    from contextual.core.engine.settings import Settings

Source = Literal["user", "project", "local", "session"]
SOURCE_NAMES: dict[Source, str] = {"user": "user config", "project": "project config",
                                   "local": "project local config", "session": "this session"}


@dataclass(frozen=True)
class ListedRule:
    kind: RuleKind
    text: str
    source: Source
    path: Path | None           # None: held in memory only ("allow always" this session, its file not written)
    in_force: bool
    why_inert: str = ""         # what holds it back, when not in force

    @property
    def removable(self) -> bool:
        """The local file is the user's own, written by the app; the other two are edited by hand."""
        return self.source in ("local", "session")


@dataclass(frozen=True)
class RuleListing:
    rules: tuple[ListedRule, ...]    # deny first, then allow; each in load order (user, project, local, session)
    notes: tuple[str, ...]           # a project file waiting for approval (and how to give it), a file not read
    mode: str                        # the permission mode in force now
    read_only: tuple[Path, ...]      # the files whose rules are shown but not changed here
    local: Path                      # the one file `a` adds to and `d` removes from (besides this session's grants)


def parse_entry(entry: str) -> tuple[RuleKind, str]:
    """What the user typed to add a rule: `deny RULE`, `allow RULE` or `RULE` (allow), checked by parse_rule (the
    parser the engine reads the files with); RuleError says what is wrong."""
    word, _, rest = entry.strip().partition(" ")
    kind: RuleKind = "deny" if word == "deny" else "allow"
    text = rest.strip() if word in ("allow", "deny") else entry.strip()
    if not text:
        raise RuleError(f"type a rule{' after ' + word if word else ''}: e.g. Bash(npm test:*), deny Read(.env)")
    return kind, parse_rule(text).text


def _waiting_note(file: RuleFile, home: Path) -> str:
    mode = file.waiting is not None and any(d.startswith("permission mode") for d in file.waiting.details)
    return (f"inert: the allow rules{' and permission_mode' if mode else ''} of {file.path} — a project's own file "
            f"widens nothing until you approve it: "
            f"at the question the next start here asks, with --trust-project (CONTEXTUAL_TRUST_PROJECT=1), or "
            f"with this folder in trusted_projects of {home / 'config.toml'}")


def list_rules(project_root: Path, home: Path, session: set[str], mode: str) -> RuleListing:
    """Every rule of the three files and this session's grants, with where each comes from and whether it is in
    force (deny rules always are; a project file's allow rules only once approved, core/trust.py)."""
    files = rule_files(project_root, home)
    listed: list[ListedRule] = []
    notes: list[str] = []
    for file in files:
        if file.problem:
            notes.append(f"not read: {file.problem}")
        elif file.waiting is not None:
            notes.append(_waiting_note(file, home))
    kinds: tuple[RuleKind, ...] = ("deny", "allow")
    for kind in kinds:
        for file in files:
            held = kind == "allow" and file.waiting is not None       # deny rules need no approval
            for rule in file.rules.deny if kind == "deny" else file.rules.allow:
                listed.append(ListedRule(kind, rule.text, file.source, file.path, not held,
                                         "not approved" if held else ""))
    local = {r.text for f in files if f.source == "local" for r in f.rules.allow}
    for text in sorted(session - local):
        listed.append(ListedRule("allow", text, "session", None, True))
    read_only = tuple(f.path for f in files if f.source in ("user", "project"))
    editable = next((f.path for f in files if f.source == "local"), local_config_path(Path(project_root).resolve()))
    return RuleListing(tuple(listed), tuple(notes), mode, read_only, editable)


class RuleBook:
    """The rules of one app run: `settings` (shared by its engines) and the current engine's session grants
    (PermissionGate.allowed_for_session, changed in place)."""

    def __init__(self, settings: Settings, session: set[str]) -> None:
        self.settings, self.session = settings, session

    @property
    def _root(self) -> Path:
        return self.settings.config.project_root

    @property
    def _home(self) -> Path:
        return self.settings.config.home

    def listing(self) -> RuleListing:
        """The files as they are now, and the engine's rules read again from them: what is shown is in force."""
        problem = self._reload()
        found = list_rules(self._root, self._home, self.session, self.settings.config.permission_mode)
        if problem:
            return RuleListing(found.rules, (*found.notes, problem), found.mode, found.read_only, found.local)
        return found

    def _reload(self) -> str:
        try:
            self.settings.reload_rules()
        except ConfigError as exc:
            return f"the rules in force are still those read before: {exc}"
        return ""

    def remove(self, rule: ListedRule) -> str:
        """Take a local or session rule away (ValueError: a read-only one, or the file cannot be written); returns
        the line that says what was done."""
        if not rule.removable:
            raise ValueError(f"{rule.text} is in {rule.path}: edit that file to change it")
        if rule.source == "local":
            change_local_rules(self._root, rule.kind, remove=[rule.text], home=self._home)
        if rule.kind == "allow":
            self.session.discard(rule.text)          # "allow always" also granted it in memory
        problem = self._reload()
        where = rule.path if rule.path is not None else "this session"
        return f"removed {rule.kind} {rule.text} from {where}" + (f"; {problem}" if problem else "")

    def add(self, entry: str) -> ListedRule:
        """Add a typed rule to the local file (RuleError: not a rule, nothing written; ValueError: the file cannot
        be written); returns it as now listed, in force or not."""
        kind, text = parse_entry(entry)
        path = change_local_rules(self._root, kind, add=[text], home=self._home)
        found = self.listing()
        return next((r for r in found.rules if r.kind == kind and r.text == text and r.source == "local"),
                    ListedRule(kind, text, "local", path, False, "not read back from the file"))
