"""/hooks without the screen: the hooks as the config files say now, each with the file it came from and whether it
runs. Listing re-reads the files and puts what they say in force (Settings.reload_hooks), so the list is always what
runs, and an edit applies once the user has seen it (Claude Code's /hooks review does the same) rather than silently
at the next start or never in this run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from contextual.core.config_files import ConfigError, local_config_path
from contextual.core.hooks import EVENTS, Hook
from contextual.core.plural import plural

if TYPE_CHECKING:
    from contextual.core.engine.settings import Settings

WAITING = ("inert: a project's own hooks run only once you approve them as they read; the next start here asks "
           "(or --trust-project, CONTEXTUAL_TRUST_PROJECT=1, trusted_projects)")


@dataclass(frozen=True)
class ListedHook:
    hook: Hook
    source: str                 # "user", "project" or "local": which of the three config files
    why_inert: str = ""         # what holds it back, when it does not run

    @property
    def runs(self) -> bool:
        return not self.why_inert


@dataclass(frozen=True)
class HookListing:
    hooks: tuple[ListedHook, ...]       # by event, in the order they run (the files', then the tables')
    notes: tuple[str, ...]              # what of the files does not run here; a file that could not be read
    changed: str                        # what the re-read changed in the hooks in force ("" when nothing)
    files: tuple[Path, Path]            # where hooks are written: the user's config, the project's
    root: Path                          # the project's folder (its files are named from it)


def list_hooks(settings: Settings) -> HookListing:
    """Re-read the hooks (in force from the next event of every engine sharing `settings`) and list them; a file
    that cannot be read leaves the hooks as they were, and says so."""
    config = settings.config
    before = config.hooks
    problem: tuple[str, ...] = ()
    try:
        now = settings.reload_hooks()
    except ConfigError as exc:
        now, problem = before, (f"not re-read, so the hooks below stay as they were: {exc}",)
    root = config.project_root.resolve()
    sources = {str(config.home / "config.toml"): "user", str(local_config_path(root)): "local"}
    ordered = sorted(now.hooks, key=lambda h: EVENTS.index(h.event) if h.event in EVENTS else len(EVENTS))
    listed = tuple(ListedHook(h, sources.get(h.source, "project"), "" if h.approved else WAITING) for h in ordered)
    return HookListing(listed, problem + now.notes, "" if problem else _change(before.hooks, now.hooks),
                       (config.home / "config.toml", root / ".contextual" / "config.toml"), root)


def _change(before: tuple[Hook, ...], now: tuple[Hook, ...]) -> str:
    """`1 hook added, 1 removed` (a changed command is both); "" when the files say what was in force."""
    was, is_ = {h.key for h in before}, {h.key for h in now}
    added, removed = len(is_ - was), len(was - is_)
    return ", ".join(([plural(added, "hook") + " added"] if added else [])
                     + ([f"{removed} removed" if added else plural(removed, "hook") + " removed"] if removed else []))
