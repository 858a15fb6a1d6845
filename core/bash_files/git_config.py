"""The few settings of a repository's config file that say where its work tree is (for git_tree.py), read as git
reads them when it sets the repository up: `core.worktree`, whether `core.repositoryformatversion` is given (git
reads no core.worktree from a config without it) and whether `extensions.worktreeConfig` is (a linked work tree
then reads the shared one's). Read from the file without running git; None where this reading cannot tell."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from contextual.core.regular_file import read_regular

_CONFIG_BYTES = 1 << 16      # a longer config is not read: the work tree is not known
_SECTION = re.compile(r'\[\s*([A-Za-z0-9.-]+)\s*(?:"((?:[^"\\]|\\.)*)"\s*)?\](.*)')
_KEY = re.compile(r"([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?")


@dataclass(frozen=True)
class Settings:
    worktrees: tuple[str, ...] = ()     # the values core.worktree is given, in their order
    versioned: bool = False             # core.repositoryformatversion is given
    worktree_config: bool = False       # extensions.worktreeConfig is given (on or off)


def read_settings(path: str) -> Settings | None:
    """A config file's settings (none for no file); None where this reading cannot tell: an include, a continued
    line, a value of those settings quoted, escaped or holding a NUL, a line it cannot parse, a file too long or
    not a regular one, or one it cannot read."""
    found = read_values(path, lambda name: name in ("core.worktree", "core.repositoryformatversion",
                                                     "extensions.worktreeconfig"))
    if found is None:
        return None
    return Settings(tuple(found.get("core.worktree", ())), "core.repositoryformatversion" in found,
                    "extensions.worktreeconfig" in found)


def read_values(path: str, wanted: Callable[[str], bool]) -> dict[str, list[str]] | None:
    """The values of the wanted settings (`section.key`, or `section.subsection.key` with the subsection as
    written: `submodule.lib/x.path`), in their order; {} for no file, None where this reading cannot tell (as
    read_settings says)."""
    try:
        data = read_regular(path, _CONFIG_BYTES + 1)
    except FileNotFoundError:
        return {}
    except OSError:
        return None
    if len(data) > _CONFIG_BYTES:
        return None
    found: dict[str, list[str]] = {}
    section = ""
    for line in data.decode("utf-8", "surrogateescape").split("\n"):       # git ends a line at \n only
        line = line.strip()
        if line.endswith("\\"):
            return None
        if line.startswith("["):
            header = _SECTION.fullmatch(line)
            if header is None:
                return None
            name = header.group(1).lower()
            if name.startswith("include"):         # `include`, `includeIf`: settings from another file
                return None
            sub = header.group(2)
            section = name if sub is None else f"{name}.{sub}"      # `[core "x"]` is not core
            line = header.group(3).strip()
        if not line or line[0] in "#;":
            continue
        key = _KEY.fullmatch(line)
        if key is None:
            return None
        name = f"{section}.{key.group(1).lower()}"
        if wanted(name):
            value = (key.group(2) or "").strip()
            if not value or any(c in value for c in '"\\#;\0'):
                return None
            found.setdefault(name, []).append(value)
    return found
