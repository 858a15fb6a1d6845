"""L2, the project's instructions (seed 002 C5; CONTRACT Additions; issues 13.8 and 16.1), led by the user's own
`$CONTEXTUAL_HOME/AGENTS.md` when there is one (issue 30.5).

`CODE_LAW.md`, then `AGENTS.md`, then `CLAUDE.md` at the project root: each once, in that order, names in any
case, each with its file name as a heading, read afresh at every build (cached by mtime and size). They are
never in history. Each file gets a bounded share of the window: a larger one is cut head and tail with a note
naming the file, so a huge rules file cannot crowd out history or make compaction fire by itself.

A file is read only when it resolves inside the project: a link to a file elsewhere (`AGENTS.md -> /etc/shadow`)
is refused. A refused or cut file is named to the user once (`RulesFiles.take_notices`: stderr under -p, a notice
in the app), as the model is told in the cut text.

Started in a sub-folder of a git checkout, the project root is that folder (CONTRACT): rules files in the folders
above it, up to the git root, are not read. Codex and Claude Code read them, so the user is told once which.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from contextual.core.textsafe import valid_unicode
from contextual.core.tools._codec import looks_binary

RULES_FILES = ("code_law.md", "agents.md", "claude.md")
SHARE = 0.10                 # of the context window, per file
CHARS_PER_TOKEN_CAP = 16     # a text longer than this many chars per token of its share is over it, uncounted
READ_CAP = 4 * 1024 * 1024   # bytes read from each end of a larger file: its middle would be cut anyway


@dataclass(frozen=True)
class RulesText:
    name: str                # the file's name as it is on disk
    text: str                # as sent: heading, then the (maybe cut) content
    cut: bool                # over its share: head and tail kept


def find_rules_files(root: Path) -> list[Path]:
    """The rules files at the root, in RULES_FILES order; of two names differing only in case, the first sorted."""
    try:
        names = sorted(entry.name for entry in root.iterdir())
    except OSError:
        return []
    found: list[Path] = []
    for wanted in RULES_FILES:
        for name in names:
            if name.lower() == wanted and (root / name).is_file():
                found.append(root / name)
                break
    return found


def rules_files_above(root: Path) -> list[Path]:
    """Rules files in the folders above `root` up to its git checkout's root; none when `root` is not in one."""
    found: list[Path] = []
    if (root / ".git").exists():
        return found
    for folder in root.parents:
        found[:0] = find_rules_files(folder)            # outermost first
        if (folder / ".git").exists():
            return found
    return []                                           # no checkout above: the folder is a project of its own


def heading(name: str) -> str:
    return f"Project rules ({name}):\n\n"


USER_RULES = "AGENTS.md"      # in $CONTEXTUAL_HOME: the user's own instructions for every project (issue 30.5)
USER_NAME = "AGENTS.md (yours, in $CONTEXTUAL_HOME)"


def user_heading() -> str:
    return "Your own rules, for every project (AGENTS.md in $CONTEXTUAL_HOME); the project's follow and win:\n\n"


def fit_share(name: str, text: str, budget: int, count: Callable[[str], int]) -> tuple[str, bool]:
    """`text` within `budget` tokens: head and tail kept, the middle replaced by a note naming the file."""
    if len(text) <= budget * CHARS_PER_TOKEN_CAP and count(text) <= budget:
        return text, False
    keep = max(0, budget * 3)                 # a first guess in characters, then shrink until it fits
    while True:
        left, right = keep // 2, keep - keep // 2
        note = (f"\n\n[… {name} is larger than its share of the context window ({budget:,} tokens): "
                f"its middle is omitted here; read the file for it …]\n\n")
        cut = text[:left] + note + (text[len(text) - right:] if right else "")
        if keep == 0 or count(cut) <= budget:
            return cut, True
        keep = int(keep * 0.8)


class RulesFiles:
    """Re-reads the root listing when the folder changes and each file when it does."""

    def __init__(self, root: Path, home: Path | None = None) -> None:
        self.root = root
        self.home = home
        self._dir_stamp: int | None = None
        self._paths: list[Path] = []
        self._cache: dict[Path, tuple[tuple[int, int, int], RulesText]] = {}
        self._notices: list[str] = []
        self._told: set[tuple[Any, ...]] = set()
        above = rules_files_above(root)
        if above:
            names = ", ".join(str(path) for path in above)
            self._tell(("above",), f"{names} not read: the project root is {root}, where contextual started "
                                   f"(start it in {above[0].parent} for {'them' if len(above) > 1 else 'it'})")

    def take_notices(self) -> list[str]:
        """What the user should know about the rules files since the last call (each thing once)."""
        out, self._notices = self._notices, []
        return out

    def _tell(self, key: tuple[Any, ...], text: str) -> None:
        if key not in self._told:
            self._told.add(key)
            self._notices.append(text)

    def read(self, budget: int, count: Callable[[str], int]) -> list[RulesText]:
        try:
            dir_stamp = self.root.stat().st_mtime_ns
        except OSError:
            return []
        if dir_stamp != self._dir_stamp:
            self._dir_stamp, self._paths = dir_stamp, find_rules_files(self.root)
        out: list[RulesText] = []
        if self.home is not None and (self.home / USER_RULES).is_file():
            got = self._one(self.home / USER_RULES, budget, count, self.home, USER_NAME)
            if got is not None:
                out.append(got)
        for path in self._paths:
            got = self._one(path, budget, count)
            if got is not None:
                out.append(got)
        return out

    def _one(self, path: Path, budget: int, count: Callable[[str], int], inside: Path | None = None,
             user_name: str | None = None) -> RulesText | None:
        try:
            real = path.resolve()
            if (inside or self.root).resolve() not in real.parents:    # at each read: a link can be re-pointed
                self._tell(("outside", path.name, str(real)), f"{path.name} is a link to a file outside the project "
                                                              f"({real}): not read, the model does not see it")
                return None
            st = real.stat()
            stamp = (st.st_mtime_ns, st.st_size, budget)
            cached = self._cache.get(path)
            if cached is not None and cached[0] == stamp:
                return cached[1]
            data = _read_bounded(real, st.st_size)
        except (OSError, RuntimeError):   # RuntimeError: a link loop
            self._dir_stamp = None        # gone or unreadable: look again next time
            return None
        if looks_binary(data):            # a 2 GB file of NULs was sent as 19,704 tokens of them
            self._tell(("binary", path.name, stamp), f"{path.name} is not a text file: not read, the model does not "
                                                     "see it")
            return None
        raw = valid_unicode(data.decode("utf-8", errors="replace")).strip()
        if not raw:
            return None
        body, cut = fit_share(path.name, raw, budget, count)
        if cut:
            self._tell(("cut", path.name, stamp), f"{path.name} is larger than its share of the context window "
                                                  f"({budget:,} tokens): the model gets its head and tail only")
        rules = (RulesText(user_name, user_heading() + body, cut) if user_name else
                 RulesText(path.name, heading(path.name) + body, cut))
        self._cache[path] = (stamp, rules)
        return rules


def _read_bounded(path: Path, size: int) -> bytes:
    """The whole file, or its first and last READ_CAP bytes when it is larger (a multi-GB file stays cheap)."""
    with path.open("rb") as f:
        if size <= 2 * READ_CAP:
            data = f.read(2 * READ_CAP + 1)
        else:
            head = f.read(READ_CAP)
            f.seek(size - READ_CAP)
            data = head + b"\n" + f.read(READ_CAP)
    return data
