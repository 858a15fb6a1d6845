"""The one writer of the rules in `.contextual/config.local.toml`: "allow always" and /permissions add and remove
rules there (the user's own file, kept out of git by a .gitignore beside it, never the committed config.toml),
keeping everything else in the file, comments and layout included (tomlkit), written atomically."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Sequence

from contextual.core.atomic import atomic_write
from contextual.core.config_files import ConfigError, approve_local_rules, local_config_path, local_rules_item
from contextual.core.permission_rules import parse_rule
from contextual.core.regular_file import read_regular

RuleKind = Literal["allow", "deny"]
MAX_IGNORE_BYTES = 1 << 20      # of the .gitignore read to find our line (past it, the line is added again)


def change_local_rules(project_root: Path, kind: RuleKind, add: Sequence[str] = (), remove: Sequence[str] = (),
                       home: Path | None = None) -> Path:
    """Add rules to (and remove rules from) `kind` in the local file; returns the file. Added rules are parsed first
    (RuleError: nothing written); a rule to remove must be there. With `home`, the file as written is approved
    (core/trust.py) when what it held before was: the user chose this change. ValueError with one line when it
    cannot."""
    import tomlkit                      # here: only writing a rule needs it (the app's launch does not)
    from tomlkit.exceptions import TOMLKitError
    parsed = [parse_rule(rule) for rule in add]
    path = local_config_path(Path(project_root))
    folder = path.parent.resolve()
    if Path(project_root).resolve() not in folder.parents:
        # a checkout's `.contextual` that links elsewhere would have us write there
        raise ValueError(f"cannot write {path}: {path.parent.name} is a link to {folder}, outside the project")
    try:
        before = local_rules_item(project_root) if home is not None else None
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    try:
        doc = tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
    except (OSError, UnicodeDecodeError, TOMLKitError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    table = doc.get("permissions")
    if table is None:
        table = tomlkit.table()
        doc["permissions"] = table
    rules = table.get(kind) if isinstance(table, dict) else None
    if rules is None and isinstance(table, dict):
        rules = tomlkit.array()
        table[kind] = rules
    if not isinstance(table, dict) or not isinstance(rules, list):
        raise ValueError(f"cannot change the rules of {path}: permissions.{kind} there is not a list")
    for text in remove:
        found = [i for i, item in enumerate(rules) if str(item).strip() == text.strip()]
        if not found:
            raise ValueError(f"{path} no longer holds {kind} rule {text!r}")
        for i in reversed(found):
            del rules[i]
    for rule in parsed:
        if rule.text not in [str(item).strip() for item in rules]:
            rules.append(rule.text)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _ignore_in_git(path)
        atomic_write(path, tomlkit.dumps(doc).encode("utf-8"))
        if home is not None:
            approve_local_rules(home, Path(project_root), before)
    except OSError as exc:
        raise ValueError(f"cannot write {path}: {exc.strerror or exc}") from None
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    return path


def _ignore_in_git(path: Path) -> None:
    """Name the local file in the .gitignore of its folder, once. A .gitignore made here names itself too: it is
    the app's, and made in the middle of a turn it was undone with the agent's files (/undo deleted it,
    and the local rules became committable)."""
    ignore = path.parent / ".gitignore"
    if ignore.is_symlink() or (ignore.exists() and not ignore.is_file()):
        return          # a checkout's link (or FIFO) there: followed, our line went into any file it named
    if not ignore.exists():
        ignore.write_text(f".gitignore\n{path.name}\n", encoding="utf-8")
        return
    text = read_regular(ignore, MAX_IGNORE_BYTES).decode("utf-8", errors="replace")
    if path.name not in text.splitlines():
        with open(ignore, "a", encoding="utf-8") as handle:
            handle.write(("" if not text or text.endswith("\n") else "\n") + path.name + "\n")
