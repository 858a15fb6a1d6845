"""The project as Glob, Grep and LS see it: .gitignore files (root and nested) honoured, .git never shown,
symlinks never followed out of the project or into loops.

The walk carries the .gitignore rules that apply down with it, so each entry is judged once against the
few files on its own chain: the cost is linear in the size of the tree, whatever its depth."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from contextual.core.tools._regular import read_bounded
from contextual.core.tools.base import ToolError

if TYPE_CHECKING:      # pathspec loads with the first walk, not with every engine (the app's launch)
    import pathspec

MAX_GITIGNORE_BYTES = 1024 * 1024
MAX_HIDDEN_KEPT = 10_000      # a tree of generated files hides many: the first this many paths are kept
_Spec = tuple[str, "pathspec.GitIgnoreSpec"]      # (folder as a string, its rules)


class IgnoreRules:
    """The project's .gitignore files, read once per folder (regular files only, size-capped)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._specs: dict[str, pathspec.GitIgnoreSpec | None] = {}

    def spec(self, folder: str) -> pathspec.GitIgnoreSpec | None:
        if folder not in self._specs:
            spec = None
            try:
                raw = read_bounded(Path(folder) / ".gitignore", ".gitignore", MAX_GITIGNORE_BYTES)
                import pathspec
                spec = pathspec.GitIgnoreSpec.from_lines(raw.decode("utf-8", "replace").splitlines())
            except (OSError, ToolError):
                pass
            self._specs[folder] = spec
        return self._specs[folder]

    def chain(self, folder: Path) -> list[_Spec]:
        """The rules that apply inside `folder`: its own .gitignore and those of its parents up to the root."""
        folders = [folder, *folder.parents]
        out = []
        for base in reversed(folders):
            if base == self.root or self.root in base.parents:
                spec = self.spec(str(base))
                if spec is not None:
                    out.append((str(base), spec))
        return out

    def ignored(self, path: Path, is_dir: bool, chain: list[_Spec] | None = None) -> bool:
        if path.name == ".git":
            return True
        return _ignored(str(path), is_dir, self.chain(path.parent) if chain is None else chain)

    def ignored_on_the_way(self, path: Path) -> bool:
        """Whether `path` or one of its folders below the root is ignored (a start folder of a walk)."""
        current = path
        while current != self.root and self.root in current.parents:
            if self.ignored(current, current.is_dir()):
                return True
            current = current.parent
        return False


def _ignored(path: str, is_dir: bool, chain: list[_Spec]) -> bool:
    """The deepest .gitignore with an opinion wins."""
    verdict = False
    for base, spec in chain:
        rel = path[len(base) + 1:] + ("/" if is_dir else "")
        result = spec.check_file(rel)
        if result.include is not None:
            verdict = result.include
    return verdict


def inside(root: Path, path: Path) -> bool:
    return path == root or root in path.parents


@dataclass
class Hidden:
    """What .gitignore hid from a walk (its folders were not entered), so a search that finds nothing can say where
    it did not look: else the model takes an ignored build/ or .env for missing."""
    folders: list[str] = field(default_factory=list)      # absolute, ending in '/'
    files: list[str] = field(default_factory=list)

    def add(self, path: str, is_dir: bool) -> None:
        kept = self.folders if is_dir else self.files
        if len(kept) < MAX_HIDDEN_KEPT:
            kept.append(path + "/" if is_dir else path)


def walk_files(root: Path, start: Path, rules: IgnoreRules, check: Callable[[], None] | None = None,
               hidden: Hidden | None = None) -> Iterator[str]:
    """Paths (strings: a deep tree must not pay for pathlib parsing per entry) of the non-folder entries under
    `start`: each folder's files sorted by name, then its subfolders in order. Ignored entries (told to `hidden`),
    .git and symlinks leading out of the project are skipped; symlinked folders are not entered. A start folder
    that .gitignore hides was named on purpose: it is walked whole, as LS lists it. `check()` is called once per
    entry so a cancelled walk ends promptly."""
    root_str = str(root)
    explicit = start != root and rules.ignored_on_the_way(start)
    stack: list[tuple[str, list[_Spec]]] = [(str(start), rules.chain(start.parent) if start != root else [])]
    while stack:
        folder, chain = stack.pop()
        try:
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda e: e.name)
        except OSError:
            continue
        # The folder's own .gitignore joins the rules for its entries (looked up only when it is listed).
        if not explicit and any(entry.name == ".gitignore" for entry in entries):
            spec = rules.spec(folder)
            if spec is not None:
                chain = chain + [(folder, spec)]
        subfolders = []
        for entry in entries:
            if check is not None:
                check()
            if entry.name == ".git":
                continue
            try:
                is_dir = entry.is_dir()                 # follows a symlink, as os.walk lists it
            except OSError:
                is_dir = False
            if not explicit and _ignored(entry.path, is_dir, chain):
                if hidden is not None:
                    hidden.add(entry.path, is_dir)
                continue
            if is_dir:
                if not entry.is_symlink():
                    subfolders.append(entry.path)
                continue
            if entry.is_symlink():
                target = os.path.realpath(entry.path)
                if target != root_str and not target.startswith(root_str + os.sep):
                    continue
            yield entry.path
        stack.extend((sub, chain) for sub in reversed(subfolders))


def some_of(paths: list[str], root: Path, withholds: Callable[[str], bool], limit: int = 3) -> str:
    """A few of `paths` (a folder's ending in '/'), project-relative, none that a Read deny rule withholds:
    "build/, app.log and 4 more"."""
    prefix = len(str(root)) + 1
    names = [path[prefix:] for path in paths if not withholds(path[prefix:].rstrip("/"))]
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")
