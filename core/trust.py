"""Project trust: what a project's committed files say that can run a command or widen a permission is inert
until the user approves it once (issue 26, item 11).

A checkout is someone else's text: its `.mcp.json` names commands that would start at launch, and its
`.contextual/config.toml` could say `permission_mode = "bypass"` or `[permissions] allow = ["Bash"]`. Each such
piece is a `kind` ("mcp_servers", "permissions", "hooks", "commands", "endpoint": where the requests and the key
go, "model": which model the requests, and so the bill, run on with the user's key) with its `content` (the exact
text that would take effect). An approval is kept in the user-level folder, `$CONTEXTUAL_HOME/trust.json`, keyed by
the project's path and the content's hash: a changed file needs approving again. Deny rules need no approval.

A project is trusted as a whole — every kind taking effect unasked — with `--trust-project` (trust_this_run),
CONTEXTUAL_TRUST_PROJECT=1, or its path in `trusted_projects` of `$CONTEXTUAL_HOME/config.toml`: the ways a CI job
says "I trust this checkout". User-level files never need approval.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from contextual.core.atomic import atomic_write
from contextual.core.config_text import parse_json, parse_toml, read_config_text

KINDS = ("mcp_servers", "permissions", "local_permissions", "hooks", "commands", "endpoint", "model")
TRUST_ENV = "CONTEXTUAL_TRUST_PROJECT"
_trusted_for_this_run = False


@dataclass(frozen=True)
class Item:
    """One piece of a project's committed config waiting for approval: its `kind`, the exact `content` the approval
    is bound to, `what` it is in a few words (with its file), and `details`: what would run or be allowed, one line
    each, for the approval modal."""
    kind: str
    content: str
    what: str
    details: tuple[str, ...] = ()
    name: str = ""      # one of several pieces of a kind (a custom command's file), each approved on its own

    def skipped(self, project: Path) -> str:
        return skipped_line(self.what, project)


def trust_this_run() -> None:
    """`--trust-project`: every project piece takes effect in this process."""
    global _trusted_for_this_run
    _trusted_for_this_run = True


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()


def _key(project: Path) -> str:
    return str(Path(project).resolve())


def _slot(kind: str, name: str) -> str:
    """Where an approval is kept in the project's entry: the kind, or `kind:name` for one piece of many."""
    return f"{kind}:{name}" if name else kind


def _store(home: Path) -> Path:
    return home / "trust.json"


def _approvals(home: Path) -> dict[str, Any]:
    # Read as a config file is (bounded, regular files only): a FIFO named trust.json hung every launch that had a
    # piece to check; unreadable, nothing is approved (each piece is asked again, and an approval rewrites the file)
    try:
        doc = parse_json(read_config_text(_store(home)), _store(home))
    except ValueError:
        return {}
    projects = doc.get("projects") if isinstance(doc, dict) else None
    return projects if isinstance(projects, dict) else {}


def _listed_trusted(home: Path, project: Path) -> bool:
    try:
        doc = parse_toml(read_config_text(home / "config.toml"), home / "config.toml")
    except ValueError:
        return False
    listed = doc.get("trusted_projects", [])
    if not isinstance(listed, list):
        return False
    return _key(project) in {_key(Path(p).expanduser()) for p in listed if isinstance(p, str)}


def is_trusted(home: Path, project: Path, env: Mapping[str, str] | None = None) -> bool:
    """Whether the whole project is trusted beforehand (flag, environment, or trusted_projects)."""
    env = os.environ if env is None else env
    return _trusted_for_this_run or env.get(TRUST_ENV) == "1" or _listed_trusted(home, project)


def is_approved(home: Path, project: Path, kind: str, content: str, env: Mapping[str, str] | None = None,
                name: str = "") -> bool:
    """Whether this exact `content` of `kind` (the piece `name` of it, when given) may take effect in `project`."""
    if is_trusted(home, project, env):
        return True
    entry = _approvals(home).get(_key(project), {})
    return isinstance(entry, dict) and entry.get(_slot(kind, name)) == content_hash(content)


def approve(home: Path, project: Path, kind: str, content: str, name: str = "") -> None:
    """Remember that the user approved this `content` of `kind` (its piece `name`) for `project`, replacing an
    older approval of the same piece."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind of project content {kind!r}")
    import filelock         # only when approving: every launch reads this module
    home.mkdir(parents=True, exist_ok=True)
    # Two apps approving at once must not lose each other's projects: read, change and write under a lock.
    with filelock.FileLock(str(_store(home)) + ".lock", timeout=10):
        projects = _approvals(home)
        entry = projects.get(_key(project))
        entry = dict(entry) if isinstance(entry, dict) else {}
        entry[_slot(kind, name)] = content_hash(content)
        projects[_key(project)] = entry
        atomic_write(_store(home), (json.dumps({"projects": projects}, indent=1) + "\n").encode(), mode=0o600)


def approve_items(home: Path, project: Path, items: Iterable[Item]) -> None:
    """The user said yes to these pieces, as shown."""
    for item in items:
        approve(home, project, item.kind, item.content, item.name)


def gate(home: Path, project: Path, item: Item, env: Mapping[str, str] | None = None) -> bool:
    """Whether `item` may take effect now (approved as it is, or the project trusted)."""
    return is_approved(home, project, item.kind, item.content, env, item.name)


def skipped_line(what: str, project: Path) -> str:
    """The one line -p, `context` and the app say for a piece left inert."""
    return (f"not approved, so not used: {what} (a project's own files cannot run commands, widen permissions or "
            f"pick the model on your key until you approve them: run `contextual` in {project} and approve, or pass "
            f"--trust-project / {TRUST_ENV}=1)")
