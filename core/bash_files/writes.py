"""The files a Bash line writes, as far as its words say: for Edit and Write deny rules (core/permission_rules.py).

An output redirection's target (`> secrets/k`, `>> log`, `&> out`) is shell syntax, so a rule holds for it whatever
the program; beyond that, the programs of write_programs.py, whose words name the files they write, create
or remove (an operand, a destination, an option's value, in any spelling getopt takes: `-t DIR`, `-rtDIR`,
`--target=DIR`; write_words.py), `find … -delete`/`-exec rm {}` (its starting points, narrowed by its name
tests), git's sub-commands (git_writes.py: the paths `checkout|restore|rm|mv` name, the work tree of
`reset --hard`, `stash`, `clean -f` …), and the files a diff names for `patch`, `git apply` and `git am`
(diffs.py). A folder removed, moved or restored (`rm -r d`, `mv d x`, `git checkout .`) is a *tree*: a rule
covering anything below it holds. Seen from each folder the line moves to, as a Read rule's paths are
(reads.py). A target only known when it runs (`> $F`, `rm *`) is guessed from the line: its glob and brace
words as the project is now, the values it gives variables; a line that cannot be read (opaque) is taken to write
any path it names. What `xargs` reads is the names a `find` before its `|` prints, a here-string's words, else any
path below the folder it runs in. A program that writes a file it names in its own language or data (`python -c
"open('k','w')"`, `tar x` without `-C`) is not read, as a program that deletes one is not an `rm`
(docs/permissions.md, "Rules are not a sandbox")."""

from __future__ import annotations

import fnmatch
import itertools
import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass

from contextual.core.bash_files.diffs import patched
from contextual.core.bash_files.git_submodules import foreach_script
from contextual.core.bash_files.git_tree import under, work_tree
from contextual.core.bash_files.git_env import GitEnv, line_env
from contextual.core.bash_files.git_writes import git_writes, state_holds
from contextual.core.bash_files.perl_switches import with_script_switches
from contextual.core.bash_files.reads import (DEFAULT, PIECES, expand_words, in_folders, line_folders, named_paths,
                                             xargs_words)
from contextual.core.bash_files.write_programs import (WRITTEN_INTO_VARIABLES, WRITTEN_VARIABLE_PREFIXES,
                                                      WRITTEN_VARIABLES, XARGS, XARGS_SPLITS)
from contextual.core.bash_files.write_words import (ANY, Found, GitTrees, Stash, by_table, find_lists,
                                                    find_writes, read_options)
from contextual.core.shell.findings import Input
from contextual.core.shell.nodes import Word, command_name
from contextual.core.shell.options import replace_string
from contextual.core.shell.parse import ShellParse, parse_command


@dataclass(frozen=True)
class Writes:
    files: tuple[str, ...]        # full paths the line writes, creates or removes
    trees: tuple[str, ...]        # full paths it removes, moves or restores with all below them
    # `find START -name PAT … -delete`: the entries below START whose name passes every (pattern, ignore case) test
    # go, with all below them (holds_named)
    named: tuple[tuple[str, tuple[tuple[str, bool], ...]], ...] = ()
    # one git command writing only the files of git_kinds below trees (`git stash`: the tracked ones; git_state.py
    # asks git which): for each folder it may run in, that folder and the full paths of the trees
    git_trees: tuple[tuple[str, tuple[str, ...]], ...] = ()
    git_kinds: frozenset[str] = frozenset()
    git_stash: Stash | None = None          # `git stash pop|apply|branch`: the files of this stash instead


_GLOB = re.compile(r"[*?[{]")
TREE_ENTRIES = 2000           # entries looked through below a tree before it is taken to hold a protected file
STDIN = "\0"                  # a word xargs makes of what it reads (no word of a line holds a NUL)
_PARALLEL = frozenset({"parallel", "sem"})
_SPLIT_AT = re.compile(r"[\s'\"\\]")  # where xargs without -0 splits or unquotes what it reads


def written_paths(command: str, root: str, guess: bool = True) -> Writes:
    """Every path the line may write, once each, as seen from the folders it moves to. `guess`: also what its
    words only known when it runs may name (reads.named_paths)."""
    parsed = parse_command(command)
    folders, unsaid = line_folders(parsed.commands, root)
    found = Found([*parsed.written])
    for name, value in parsed.assigned:         # `GIT_TRACE=/p/.env git status`: the program writes it
        if name in WRITTEN_VARIABLES or name.startswith(WRITTEN_VARIABLE_PREFIXES):
            found.files.append(value)
        elif name in WRITTEN_INTO_VARIABLES:
            found.trees.append(value)
    inputs = parsed.inputs + (Input(),) * (len(parsed.commands) - len(parsed.inputs))
    env = line_env(command, parsed, folders) if "git" in command else GitEnv()      # git's alone read it
    for words, given in zip(parsed.commands, inputs):
        found.extend(_written_by(words, given, folders, env))
    if found.git and not state_holds(command, parsed, found, folders):
        found.whole()
    if found.split and _split_names(found, folders):
        found.trees.append(ANY)        # xargs splits a name into words that may name any path
    if _foreach_writes_unknown(parsed, unsaid, root, found):
        found.trees.append(ANY)
    if parsed.opaque and guess:          # not read as bash reads it: any path it names
        found.trees += named_paths(command, root)
    if guess and (parsed.writes_unknown or None in found.files or None in found.trees or
                  any(start is None for start, _ in found.named)):
        found.trees += _guessed(command, parsed, folders)
    def seen_from_folders(paths: list[Word], tops: list[tuple[str, str]]) -> tuple[str, ...]:
        paths = paths + [under(work_tree(full), path) for top, path in tops for full in in_folders(top, folders)]
        return tuple(dict.fromkeys(full for p in paths if p for full in in_folders(p, folders)))
    starts = tuple(dict.fromkeys((full, tests) for start, tests in found.named if start
                                 for full in in_folders(start, folders)))
    some = found.git[0] if found.git else None
    return Writes(seen_from_folders(found.files, []), seen_from_folders(found.trees, found.tops), starts,
                  _git_trees(some, folders) if some else (), some.kinds if some else frozenset(),
                  some.stash if some else None)


def _foreach_writes_unknown(parsed: ShellParse, unsaid: frozenset[int], root: str, found: Found) -> bool:
    """Whether a `git submodule foreach CMD` whose submodules the files do not say (`unsaid`: reads.line_folders)
    writes anything: from a folder not known, any path of the project. (Where they say, the line's folders hold
    theirs; a line that may rewrite a `.gitmodules` first leaves them unsaid.)"""
    rewritten = any(not isinstance(p, str) or os.path.basename(p.rstrip("/")) in (".gitmodules", "", ".")
                    for p in [*found.files, *found.trees])
    for index, words in enumerate(parsed.commands):
        each = foreach_script(words)
        if each is None or (index not in unsaid and not rewritten):
            continue
        if each.script is None:
            return True
        some = written_paths(each.script, root)
        if some.files or some.trees or some.named or some.git_trees:
            return True
    return False


def _git_trees(some: GitTrees, folders: list[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """For each folder the line may be in: the folder its git command runs in, and the full paths of the trees it
    writes some files of (a work tree: the one found from that folder; any path, the file system's root, where it
    is not known)."""
    out = []
    for base in folders:
        at = os.path.normpath(os.path.join(base, some.folder))
        trees = [os.path.normpath(os.path.join(base, t)) for t in some.trees if isinstance(t, str)]
        trees += [under(work_tree(os.path.join(base, top)), path) for top, path in some.tops]
        out.append((at, tuple(dict.fromkeys(trees))))
    return tuple(dict.fromkeys(out))


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
    # GNU parallel gives its command the words after `:::`, a file's lines, what it reads: any path
    runs_parallel = any(words and isinstance(words[0], str) and command_name(words[0]) in _PARALLEL
                        for words in parsed.commands)
    return expand_words(chosen, command, parsed.commands, folders) + ([ANY] if runs_parallel else [])


def _written_by(words: tuple[Word, ...], given: Input, folders: list[str], env: GitEnv) -> Found:
    """What one simple command writes; None where a word is only known when it runs. `given`: what it reads on
    standard input; `env`: the git variables the line sets."""
    if not words or not isinstance(words[0], str):
        return Found()
    if given.xargs:
        return _fed(words, given, folders, env)
    words = with_script_switches(words, folders)
    program = command_name(words[0]) if isinstance(words[0], str) else ""
    if program == "dd":
        return Found([w[3:] for w in words[1:] if isinstance(w, str) and w.startswith("of=")])
    if program == "git":
        return git_writes(words[1:], given, folders, env)
    if program == "env" and None in words:      # `env "$A" git …`: the parse has no git ($A may be its command)
        runs_git = [i for i, w in enumerate(words) if isinstance(w, str) and command_name(w) == "git"]
        if runs_git:                            # …and $A may be GIT_DIR=…: any work tree
            return git_writes(words[runs_git[0] + 1:], given, folders, GitEnv(env.icase, True, True))
    if program == "find":
        return Found(*find_writes(words[1:]))
    found = Found(*by_table(program, words[1:]))
    return found.extend(patched(words[1:], given, folders)) if program == "patch" else found


def _fed(words: tuple[Word, ...], given: Input, folders: list[str], env: GitEnv) -> Found:
    """A command xargs runs: its last word, and each it makes with -I, is what xargs reads (STDIN), so a path made
    of one is what the input may name: the names a find before the `|` prints, a here-string's words, else any
    path below the folder it runs in (`ls | xargs rm`). A word only known otherwise (`$X`) is guessed too."""
    found = _written_by(_made(words, given), Input("other", None), folders, env).whole()
    names = _xargs_names(given)
    out = Found(tops=[(ANY if STDIN in top else top, path) for top, path in found.tops],
                files=[None] if None in words[:-1] else [])
    for paths, kept in ((found.files, out.files), (found.trees, out.trees)):
        for path in paths:
            if not (isinstance(path, str) and STDIN in path):
                kept.append(path)
            elif path == STDIN:
                out.extend(names)
            else:           # `xargs cp -t DIR`: any name in DIR
                head, tail = os.path.split(path)
                out.trees.append(head if tail == STDIN and head and STDIN not in head else ANY)
    out.named += [(ANY, ()) if isinstance(start, str) and STDIN in start else (start, tests)
                  for start, tests in found.named]
    return out


def _made(words: tuple[Word, ...], given: Input) -> tuple[Word, ...]:
    """The command's words with what xargs reads as STDIN: a last word after them, or under -I STR each word holding
    STR, STR standing for it there (`{}/../k` is a path beside the name read; fed holds the words as written)."""
    replace = replace_string(list(given.xargs[1:]))
    made = [STDIN if w is None else w for w in words]
    written = given.fed[len(given.fed) - len(words) + 1:] if len(given.fed) >= len(words) - 1 else None
    if replace and written is not None and all(w is None or w == f for w, f in zip(words, written)):
        return tuple(f.replace(replace, STDIN) if w is None and isinstance(f, str) and replace in f else m
                     for w, f, m in zip(words, written, made))
    if replace:             # the words as written not found (another wrapper between): any path
        return tuple(STDIN + os.sep + STDIN if w is None else w for w in words)
    return tuple(made)


def _xargs_names(given: Input) -> Found:
    """The paths the words xargs reads may name (see _fed)."""
    options = given.xargs[1:]
    if None in options:
        return Found(trees=[ANY])
    seen, _, _ = read_options(options, XARGS)
    if seen & ({"-a", "--arg-file"} | XARGS_SPLITS):     # read from a file; split at a character of its choosing
        return Found(trees=[ANY])
    whole = bool(seen & {"-0", "--null"})
    if given.kind == "text" and isinstance(given.value, str):
        return Found(trees=list(given.value.split("\0") if whole else xargs_words(given.value)))
    source = given.source
    listed = find_lists(source[1:]) if given.kind == "pipe" and source and isinstance(source[0], str) and \
        command_name(source[0]) == "find" else None
    if listed is None:
        return Found(trees=[ANY])
    starts, tests = listed
    found = Found(named=[(start, tests) for start in starts]) if tests else Found(trees=list(starts))
    found.split = [] if whole else list(starts)
    return found


def _split_names(found: Found, folders: list[str]) -> bool:
    """Whether a name xargs reads without -0 may be split into other paths: a name below a find's starting point
    holding a blank, quote or backslash as the project is now (past TREE_ENTRIES, taken as yes), or one the line
    writes (`mkdir "d/x secrets"`)."""
    if any(isinstance(w, str) and _SPLIT_AT.search(w) for w in found.files + found.trees + found.split):
        return True

    def holds(path: str) -> bool:
        return bool(_SPLIT_AT.search(os.path.basename(path)))
    return any(start is None or any(os.path.isdir(full) and _any_below(full, holds)
                                    for full in in_folders(start, folders)) for start in found.split)


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
    """Whether a path rule (its glob, and its test on a full path) covers a tree: the tree, or a path below it
    (protected_below; a tree too large to look through is not let through)."""
    return protected_below(tree, root, spec, matches, first=True) != []


def protected_below(tree: str, root: str, spec: str, matches: Callable[[str], bool],
                    first: bool = False) -> list[str] | None:
    """The paths a path rule covers at or below a tree: the tree, the rule's literal folder (`secrets` of
    `secrets/**`) inside it, there or not, or the entries under it on disk; with `first`, the first found. None
    past TREE_ENTRIES: a tree too large to look through."""
    if matches(tree):
        return [tree]
    if not os.path.isdir(tree):
        return []
    literal, found = _literal(root, spec), {os.path.normpath(tree), os.path.realpath(tree)}
    if any(_below(literal, t) for t in found):
        return [literal]
    if literal != os.path.normpath(root) and not any(_below(t, literal) for t in found):
        return []
    return _all_below(tree, matches, first)


def _any_below(top: str, test: Callable[[str], bool]) -> bool:
    """Whether an entry below `top` passes `test`; past TREE_ENTRIES, yes (a tree too large to look through is not
    let through)."""
    return _all_below(top, test, first=True) != []


def _all_below(top: str, test: Callable[[str], bool], first: bool) -> list[str] | None:
    """The entries below `top` that pass `test` (with `first`, the first found); None past TREE_ENTRIES."""
    entries, passed = 0, []
    for folder, names, files in os.walk(top):
        for name in [*names, *files]:
            entries += 1
            if entries > TREE_ENTRIES:
                return None
            if test(os.path.join(folder, name)):
                passed.append(os.path.join(folder, name))
                if first:
                    return passed
    return passed


def _below(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
