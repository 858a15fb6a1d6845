"""How one program's words name what it writes (for writes.py): its options as getopt reads them
(core/shell/getopt_words.py), what the table of write_programs.py says of its operands and option values, and
find's starting points, actions and name tests."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from contextual.core.bash_files.write_programs import (COMPRESS, FIND_ACTIONS, FIND_NAME_TESTS, FIND_NARROWING,
                                                       FIND_OUTPUTS, FIND_PRINTS, PROGRAMS, Program)
from contextual.core.shell.nodes import Word, command_name

Named = tuple[Word, tuple[tuple[str, bool], ...]]      # a find's starting point and the name tests it acts under
ANY = "."                     # any path below the folder a command runs in


@dataclass(frozen=True)
class Stash:
    """The stash `git stash pop|apply|branch` writes the files of (git_state.py: stash_files)."""
    ref: str            # as git resolves it: refs/stash@{0} when none is given, refs/stash@{n} for `n`
    branch: bool        # `git stash branch`: the files where HEAD and the stash's base differ are written first


@dataclass
class GitTrees:
    """Trees and work trees one git command writes only some files of: those of `kinds` (git_writes.py: TRACKED,
    UNTRACKED, IGNORED), as git's state lists them when the line is checked (git_state.py); or, for `stash`, the
    files that stash holds."""
    folder: str                     # where git runs (`-C DIR`), as the trees, from the folder the line is in
    trees: list[Word]
    tops: list[tuple[str, str]]
    kinds: frozenset[str]
    stash: Stash | None = None


@dataclass
class Found:
    """What commands write, as their words say: files, trees, find's narrowed starting points, folders whose
    repository's whole work tree goes (`git reset --hard`), starting points of a find whose names xargs reads
    split at blanks (narrowed only where no name holds one), and trees git writes only some files of (`git stash`:
    the tracked ones)."""
    files: list[Word] = field(default_factory=list)
    trees: list[Word] = field(default_factory=list)
    named: list[Named] = field(default_factory=list)
    tops: list[tuple[str, str]] = field(default_factory=list)      # (folder git runs in, path below its top)
    split: list[Word] = field(default_factory=list)
    git: list[GitTrees] = field(default_factory=list)

    def extend(self, other: Found) -> Found:
        self.files += other.files
        self.trees += other.trees
        self.named += other.named
        self.tops += other.tops
        self.split += other.split
        self.git += other.git
        return self

    def whole(self) -> Found:
        """Every path below the trees git writes some files of: where git's state as it is now may not be what
        the command meets."""
        for some in self.git:
            self.trees += some.trees
            self.tops += some.tops
        self.git = []
        return self


def by_table(program: str, rest: tuple[Word, ...], spec: Program | None = None) -> tuple[list[Word], list[Word]]:
    """A program of core/bash_files/write_programs.py, or one given its table row (a git sub-command's): (files,
    trees)."""
    spec = spec or PROGRAMS.get(program)
    if spec is None:
        return [], []
    if program == "tar" and rest and isinstance(rest[0], str) and not rest[0].startswith("-"):
        rest = ("-" + rest[0], *rest[1:])           # `tar cf out .`: the old spelling, a bundle without its `-`
    seen, valued, operands = read_options(rest, spec)
    files = [v for o, v in valued if o in spec.outputs and seen & spec.when.get(o, frozenset({o}))]
    into = [v for o, v in valued if o in spec.into and seen & spec.when.get(o, frozenset({o}))]
    files += into if spec.operands != "destination" else []       # `unzip -d DIR`, `tar -x -C DIR`
    if (spec.only and not seen & spec.only) or seen & spec.never:
        return files, []
    named = _named(spec, seen, operands, into)
    if spec.tree:                   # `rm -r d`, `mv d x`: what is removed or moved goes with all below it
        moved = operands[:-1] if spec.operands == "destination" and not into else operands
        kept = named if spec.operands == "destination" else []
        return files + kept + _unsuffixed(spec, operands), list(moved)
    return files + named + _unsuffixed(spec, operands), []


def _named(spec: Program, seen: set[str], operands: list[Word], into: list[Word]) -> list[Word]:
    mode = spec.operands
    if mode == "each" or seen & spec.each_with:
        return list(operands)
    if mode == "script":
        return list(operands if seen & spec.scripts else operands[1:])
    if mode in ("second", "first"):
        return list(operands[1:2] if mode == "second" else operands[:1])
    if mode in ("destination", "last"):
        sources, dest = (operands, into[-1]) if into else (operands[:-1], operands[-1] if len(operands) > 1 else "")
        if not isinstance(dest, str):
            return [None]
        if not dest or (mode == "last" and ":" in dest):         # `scp a host:b`: not here
            return list(into)
        # `cp a/k secrets`: a folder destination receives each source under its own name
        inside = [os.path.join(dest, os.path.basename(s.rstrip("/"))) if isinstance(s, str) else None
                  for s in sources]
        return [dest, *inside]
    return []


def _unsuffixed(spec: Program, operands: list[Word]) -> list[Word]:
    """`gunzip secrets/k.gz` writes secrets/k."""
    return [os.path.splitext(o)[0] for o in operands if isinstance(o, str)] if spec is COMPRESS else []


def read_options(words: tuple[Word, ...], spec: Program) -> tuple[set[str], list[tuple[str, Word]], list[Word]]:
    """The options seen (`-x`, `--long`), those taking a value with it, and the operands, as the one getopt reading
    gives them (core/shell/getopt_words.py)."""
    getopt = spec.getopt()
    options, operands = getopt.read(words)
    return {o for o, _ in options}, [(o, v) for o, v in options if o in getopt.values], operands


def find_writes(words: tuple[Word, ...]) -> tuple[list[Word], list[Word], list[Named]]:
    """`find d -delete`, `find d -exec rm {} +`: its starting points go with all below them, or, under name tests
    joined by "and", what is so named below them (`find . -name __pycache__ -exec rm -rf {} +`); `-fprint FILE`."""
    starts = _find_starts(words)
    files = [words[i + 1] for i, w in enumerate(words[:-1]) if w in FIND_OUTPUTS]
    writes = "-delete" in words or any(w in FIND_ACTIONS and isinstance(p, str) and command_name(p) in PROGRAMS
                                      for w, p in zip(words, words[1:]))
    if not writes:
        return files, [], []
    tests = _find_names(words)
    return (files, [], [(start, tests) for start in starts]) if tests else (files, starts, [])


def _find_starts(words: tuple[Word, ...]) -> list[Word]:
    """Where find looks: its starting points; following links (`-L`, `-follow`) also any path below the folder it
    runs in (a link below a starting point may lead there, where the same names are)."""
    starts = _named_starts(words)
    at = next((i for i, w in enumerate(words) if isinstance(w, str) and w not in ("-H", "-L", "-P")), len(words))
    follows = [w for w in words[:at] if w in ("-L", "-P")][-1:] == ["-L"] or "-follow" in words[at:]
    return [*starts, ANY] if follows and ANY not in starts else starts


def find_lists(words: tuple[Word, ...]) -> tuple[list[Word], tuple[tuple[str, bool], ...] | None] | None:
    """What `find` prints: the entries below its starting points, narrowed by name tests joined by "and"; None
    when it may print more (`-printf`, `-ls`, `-exec echo …`) or a word is only known when it runs."""
    if any(w is None or w in FIND_PRINTS or w in FIND_OUTPUTS for w in words):
        return None             # `-fprintf /dev/stdout '.env'`: a file named so is the pipe
    return _find_starts(words), _find_names(words, printed=True)


def _named_starts(words: tuple[Word, ...]) -> list[Word]:
    at = next((i for i, w in enumerate(words) if isinstance(w, str) and w not in ("-H", "-L", "-P")), len(words))
    starts: list[Word] = []
    for word in words[at:]:
        if isinstance(word, str) and (word[:1] in ("-", "(", "!", ",")):
            break
        starts.append(word)
    return starts or ["."]


def _find_names(words: tuple[Word, ...], printed: bool = False) -> tuple[tuple[str, bool], ...] | None:
    """The name tests every entry find acts on (or, `printed`, prints) passes, when its expression is only tests
    joined by "and" before its action (`find . -name __pycache__ -type d -exec rm -rf {} +`); None when it is
    anything else (`-o`, `!`, parentheses, `-path`, …: every entry may be acted on)."""
    tests: list[tuple[str, bool]] = []
    i = next((k for k, w in enumerate(words) if isinstance(w, str) and w[:1] in ("-", "(", "!")), len(words))
    while i < len(words):
        word = words[i]
        if word in FIND_NAME_TESTS and i + 1 < len(words) and isinstance(words[i + 1], str):
            tests.append((str(words[i + 1]), FIND_NAME_TESTS[str(word)]))
            i += 2
        elif word in FIND_NARROWING and i + 1 < len(words):
            i += 2
        elif word in ("-a", "-and", "-depth", "-xdev", "-mount", "-print", "-print0"):
            i += 1
        elif word == "-delete" or word in FIND_ACTIONS:
            return tuple(tests) or None
        else:
            return None
    return (tuple(tests) or None) if printed else None
