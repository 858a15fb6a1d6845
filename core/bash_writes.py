"""The files a Bash line writes, as far as its words say: for Edit and Write deny rules (core/permission_rules.py).

An output redirection's target (`> secrets/k`, `>> log`, `&> out`) is shell syntax, so a rule holds for it whatever
the program; beyond that, the programs of core/bash_write_programs.py, whose words name the files they write, create
or remove (an operand, a destination, an option's value, in any spelling getopt takes: `-t DIR`, `-rtDIR`,
`--target=DIR`), `find … -delete`/`-exec rm {}` (its starting points, narrowed by its name tests) and git's
`checkout|restore|rm|mv` (their paths). A folder removed, moved or restored (`rm -r d`, `mv d x`, `git checkout .`)
is a *tree*: a rule covering anything below it holds. Seen from each folder the line moves to, as a Read rule's
paths are (core/bash_paths.py). A target only known when it runs (`> $F`, `rm *`) is guessed from the line: its glob
and brace words as the project is now, the values it gives variables; a line that cannot be read (opaque) is taken
to write any path it names. A program that writes a file it names in its own language or data (`python -c
"open('k','w')"`, `git apply`, `tar x` without `-C`) is not read, as a program that deletes one is not an `rm`
(docs/permissions.md, "Rules are not a sandbox")."""

from __future__ import annotations

import fnmatch
import itertools
import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass

from contextual.core.bash_paths import DEFAULT, PIECES, expand_words, folders_of, in_folders, named_paths
from contextual.core.bash_write_programs import (COMPRESS, FIND_ACTIONS, FIND_NAME_TESTS, FIND_NARROWING,
                                                 FIND_OUTPUTS, GIT_VALUES, GIT_WRITES, PROGRAMS, Program)
from contextual.core.shell.nodes import Word, command_name
from contextual.core.shell.options import long_starts
from contextual.core.shell.parse import ShellParse, parse_command


@dataclass(frozen=True)
class Writes:
    files: tuple[str, ...]        # full paths the line writes, creates or removes
    trees: tuple[str, ...]        # full paths it removes, moves or restores with all below them
    # `find START -name PAT … -delete`: the entries below START whose name passes every (pattern, ignore case) test
    # go, with all below them (holds_named)
    named: tuple[tuple[str, tuple[tuple[str, bool], ...]], ...] = ()


_Named = tuple[Word, tuple[tuple[str, bool], ...]]     # a find's starting point and the name tests it acts under
_GLOB = re.compile(r"[*?[{]")
TREE_ENTRIES = 2000           # entries looked through below a tree before it is taken to hold a protected file


def written_paths(command: str, root: str) -> Writes:
    """Every path the line may write, once each, as seen from the folders it moves to."""
    parsed = parse_command(command)
    folders = folders_of(parsed.commands, root)
    files: list[Word] = [*parsed.written]
    trees: list[Word] = []
    named: list[_Named] = []
    for words in parsed.commands:
        found, removed, narrowed = _written_by(words)
        files += found
        trees += removed
        named += narrowed
    if parsed.opaque:          # not read as bash reads it: any path it names
        trees += named_paths(command, root)
    if parsed.writes_unknown or None in files or None in trees or any(start is None for start, _ in named):
        trees += _guessed(command, parsed, folders)

    def seen_from_folders(paths: list[Word]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(full for p in paths if p for full in in_folders(p, folders)))
    starts = tuple(dict.fromkeys((full, tests) for start, tests in named if start
                                 for full in in_folders(start, folders)))
    return Writes(seen_from_folders(files), seen_from_folders(trees), starts)


def _guessed(command: str, parsed: ShellParse, folders: list[str]) -> list[str]:
    """A target only known when the line runs, as its words may make it: glob and brace words as the project is
    now (`> secre*/k`, `rm -rf *`), values the line gives variables (`F=secrets/k; > $F`, `${F:-secrets/k}`)."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    pieces = [p for w in words for p in PIECES.split(w) if p]
    chosen = [p for p in pieces if _GLOB.search(p) and "$" not in p]
    chosen += [value for w in words for value in DEFAULT.findall(w)]
    chosen += [p.partition("=")[2] for p in pieces if re.match(r"[A-Za-z_]\w*=", p)]
    return expand_words(chosen, command, parsed.commands, folders)


def _written_by(words: tuple[Word, ...]) -> tuple[list[Word], list[Word], list[_Named]]:
    """What one simple command writes: (files, trees, find's narrowed starting points); None where a word is only
    known when it runs."""
    if not words or not isinstance(words[0], str):
        return [], [], []
    program = command_name(words[0])
    if program == "dd":
        return [w[3:] for w in words[1:] if isinstance(w, str) and w.startswith("of=")], [], []
    if program == "git":
        return [], _git(words[1:]), []
    if program == "find":
        return _find(words[1:])
    files, trees = _by_table(program, words[1:])
    return files, trees, []


def _by_table(program: str, rest: tuple[Word, ...]) -> tuple[list[Word], list[Word]]:
    """A program of core/bash_write_programs.py: (files, trees)."""
    spec = PROGRAMS.get(program)
    if spec is None:
        return [], []
    if program == "tar" and rest and isinstance(rest[0], str) and not rest[0].startswith("-"):
        rest = ("-" + rest[0], *rest[1:])           # `tar cf out .`: the old spelling, a bundle without its `-`
    seen, valued, operands = _options(rest, spec)
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


def _options(words: tuple[Word, ...], spec: Program) -> tuple[set[str], list[tuple[str, Word]], list[Word]]:
    """The options seen (`-x`, `--long`), those given a value, and the operands, as getopt reads them: bundles
    (`-rtDIR`), `--long=V`, a long option's unambiguous prefix (`--target=DIR`), `--` ending options."""
    known, takes_value = spec.known(), spec.values | spec.outputs | spec.into
    seen: set[str] = set()
    valued: list[tuple[str, Word]] = []
    operands: list[Word] = []
    i, ended = 0, False
    while i < len(words):
        word = words[i]
        i += 1
        if ended or not isinstance(word, str) or not word.startswith("-") or word == "-":
            operands.append(word)
            continue
        if word == "--":
            ended = True
        elif word.startswith("--"):
            name, eq, given = word.partition("=")
            # an ambiguous start (a getopt program refuses it) counts as each option it may be
            found = long_starts(name, [k for k in known if k.startswith("--")]) or [name]
            seen.update(found)
            if eq or any(option in spec.attached for option in found):
                valued += [(option, given) for option in found]
            elif any(option in takes_value for option in found) and i < len(words):
                valued += [(option, words[i]) for option in found]
                i += 1
        else:
            for at in range(1, len(word)):
                option = "-" + word[at]
                seen.add(option)
                if option in spec.attached:
                    break
                if option in takes_value:
                    value: Word = word[at + 1:]
                    if not value and i < len(words):
                        value, i = words[i], i + 1
                    valued.append((option, value))
                    break
    return seen, valued, operands


def _git(words: tuple[Word, ...]) -> list[Word]:
    """`git checkout -- k`, `git restore .`, `git -C sub rm -r d`: each word after the sub-command may be a path
    it writes or removes (a branch name as well: matched against the rules, it names no protected file)."""
    folder, i = "", 0
    while i < len(words) and isinstance(words[i], str) and str(words[i]).startswith("-"):
        word = str(words[i])
        if word in GIT_VALUES and i + 1 < len(words):
            folder = str(words[i + 1] or "") if word == "-C" else folder
            i += 1
        i += 1
    if i >= len(words) or words[i] not in GIT_WRITES:
        return []
    paths = [w for w in words[i + 1:] if not (isinstance(w, str) and w.startswith("-"))]
    return [os.path.join(folder, w) if isinstance(w, str) and folder else w for w in paths]


def _find(words: tuple[Word, ...]) -> tuple[list[Word], list[Word], list[_Named]]:
    """`find d -delete`, `find d -exec rm {} +`: its starting points go with all below them, or, under name tests
    joined by "and", what is so named below them (`find . -name __pycache__ -exec rm -rf {} +`); `-fprint FILE`."""
    at = next((i for i, w in enumerate(words) if isinstance(w, str) and w not in ("-H", "-L", "-P")), len(words))
    starts: list[Word] = []
    for word in words[at:]:
        if isinstance(word, str) and (word[:1] in ("-", "(", "!", ",")):
            break
        starts.append(word)
    files = [words[i + 1] for i, w in enumerate(words[:-1]) if w in FIND_OUTPUTS]
    writes = "-delete" in words or any(w in FIND_ACTIONS and isinstance(p, str) and command_name(p) in PROGRAMS
                                      for w, p in zip(words, words[1:]))
    if not writes:
        return files, [], []
    tests = _find_names(words)
    return (files, [], [(start, tests) for start in starts or ["."]]) if tests else (files, starts or ["."], [])


def _find_names(words: tuple[Word, ...]) -> tuple[tuple[str, bool], ...] | None:
    """The name tests every entry find acts on passes, when its expression is only tests joined by "and" before
    its action (`find . -name __pycache__ -type d -exec rm -rf {} +`); None when it is anything else (`-o`, `!`,
    parentheses, `-path`, …: every entry may be acted on)."""
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
    return None


def holds_named(start: str, tests: tuple[tuple[str, bool], ...], root: str, spec: str,
                matches: Callable[[str], bool]) -> bool:
    """Whether a path rule covers what `find START -name PAT … -delete` removes: an entry at or below START whose
    name passes every test, or a path below such an entry. Only the rule's literal folder is looked through
    when it is below START (`secrets` of `secrets/**`); else START (past TREE_ENTRIES, taken as yes)."""
    def named(path: str) -> bool:
        name = os.path.basename(os.path.normpath(path))
        return all(fnmatch.fnmatchcase(name.lower(), pattern.lower()) if fold else fnmatch.fnmatchcase(name, pattern)
                   for pattern, fold in tests)

    start, literal = os.path.normpath(start), _literal(root, spec)
    between = [start]
    if literal != os.path.normpath(root) and _below(literal, start):
        parts = os.path.relpath(literal, start).split(os.sep) if literal != start else []
        between += [os.path.join(start, *parts[:k]) for k in range(1, len(parts) + 1)]
        top = literal             # the protected folder goes if it, or a folder above it below START, is so named
    elif literal != os.path.normpath(root) and not _below(start, literal):
        return False              # nothing the rule names is below START
    else:
        top = start
    return any(named(p) and holds_below(p, root, spec, matches) for p in between) or \
        _any_below(top, lambda path: named(path) and holds_below(path, root, spec, matches))


def _literal(root: str, spec: str) -> str:
    """A path rule's folder before its first glob (`secrets` of `secrets/**`; the root for `**/k`)."""
    parts = itertools.takewhile(lambda part: not _GLOB.search(part), spec.removeprefix("./").split("/"))
    return os.path.normpath(os.path.join(root, *parts))


def holds_below(tree: str, root: str, spec: str, matches: Callable[[str], bool]) -> bool:
    """Whether a path rule (its glob, and its test on a full path) covers a tree: the tree, or a path below it —
    the rule's literal folder (`secrets` of `secrets/**`) inside it, or an entry under it on disk (past
    TREE_ENTRIES, taken as yes: a tree too large to look through is not let through)."""
    if matches(tree):
        return True
    if not os.path.isdir(tree):
        return False
    literal, found = _literal(root, spec), {os.path.normpath(tree), os.path.realpath(tree)}
    if any(_below(literal, t) for t in found):
        return True
    if literal != os.path.normpath(root) and not any(_below(t, literal) for t in found):
        return False
    return _any_below(tree, matches)


def _any_below(top: str, test: Callable[[str], bool]) -> bool:
    """Whether an entry below `top` passes `test`; past TREE_ENTRIES, yes (a tree too large to look through is not
    let through)."""
    entries = 0
    for folder, names, files in os.walk(top):
        for name in [*names, *files]:
            entries += 1
            if entries > TREE_ENTRIES or test(os.path.join(folder, name)):
                return True
    return False


def _below(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
