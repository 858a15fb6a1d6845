"""The files a Bash line names, as bash would read them: for Read deny rules (core/permission_rules.py).

A word naming a path (`cat .env`, `--config=.env`, `dd if=.env`, `< .env`), seen from each folder the line moves
to (`cd sub && cat ../.env`, `pushd`, `~+`, `~-`, each submodule's for `git submodule foreach`), and, where the
line holds a word only known when it runs or a parse that cannot be trusted, the globs of its text as written
matched against the project as it is now (`[^x]`, classes, extglob, `dotglob`, `nocaseglob`, inside `$( )` and
`bash -c`). A variable that expands to a path only the shell knows."""

from __future__ import annotations

import glob
import itertools
import os
import re
import shlex

from contextual.core.bash_files.git_pathspecs import pathspec_paths
from contextual.core.bash_files.git_submodules import foreach_folders, foreach_script
from contextual.core.bash_files.write_programs import XARGS
from contextual.core.bash_files.write_words import read_options
from contextual.core.git_line import git_line
from contextual.core.regular_file import read_regular
from contextual.core.shell.findings import Input
from contextual.core.shell.folder_options import chdir_targets
from contextual.core.shell.nodes import Word, command_name
from contextual.core.shell.parse import parse_command

_GLOB_CHARS = re.compile(r"[*?[]")
GLOB_HITS = 1000          # paths one pattern may name before the rest are not looked at

def named_paths(command: str, root: str, guess: bool = True) -> list[str]:
    """Every path the line names, once each, as seen from the folders it moves to. `guess`: also what its words
    only known when it runs may name (the line itself); a file's lines (core/files_run.py) are read for the words
    they say, as their commands are."""
    parsed = parse_command(command)
    folders = folders_of(parsed.commands, root)
    named = [p for words in parsed.commands for w in words[1:] if isinstance(w, str)
             for p in ((w, w.partition("=")[2]) if "=" in w else (w,))]       # `--config=.env`, `dd if=.env`
    gits = [(words, given) for words, given in zip(parsed.commands, parsed.inputs)
            if words and isinstance(words[0], str) and command_name(words[0]) == "git"]    # `/usr/bin/git` too
    named += [p for words, given in gits for p in _git_tree_paths((*words, *_stdin_names(words, given)))]
    # `git grep x -- 'sec*'`, `git log -p -- ':(glob)**/k'`: git's own globs, as the project is now
    named += [p for words, _ in gits for p in pathspec_paths(words, folders)]
    # a value the line gives a variable, or a part of a list of them (`BASH_ENV=.env bash`, `PYTHONPATH=a:secrets`):
    # the program it is handed to may open it
    named += [p for _, value in parsed.assigned for p in dict.fromkeys((value, *value.split(":")))]
    # `xargs -a list cat`, `xargs cat < list`: the words it hands its command, read from the file as it is now
    named += [w for given in parsed.inputs if given.xargs for w in _xargs_file_words(given, folders)]
    if any(foreach_script(words) for words in parsed.commands):
        # a submodule's folder the files do not say: `../.env` there may be the project's own
        named += [_above_removed(p) for p in named if os.path.normpath(p).startswith("../")]
    # a word only known when it runs, or a parse that cannot be trusted: the words of the text as written
    globbed = _glob_words(command, parsed.commands, folders) \
        if guess and (parsed.opaque or any(None in words[1:] for words in parsed.commands)) else []
    if any(_target(words) is None for words in parsed.commands if words and words[0] in _FOLDER_CHANGES):
        # `cd s[u]b && cat ../.env`, `D=sub; cd $D`: the folder may be any the line's words name
        found = [os.path.normpath(p) for g in globbed for p in in_folders(g, folders) if os.path.isdir(p)]
        folders = list(dict.fromkeys([*folders, *found]))[:MAX_FOLDERS]
    out: list[str] = []
    for path in dict.fromkeys(p for p in [*named, *parsed.redirected, *globbed] if p and not p.startswith("-")):
        out.extend(in_folders(path, folders))
    return list(dict.fromkeys(out))


XARGS_FILE_BYTES = 64 * 1024     # of the file xargs reads its words from, looked at for the paths it names


def _xargs_file_words(given: Input, folders: list[str]) -> list[str]:
    """The words xargs reads from a file the line names (`-a FILE`, `--arg-file=FILE`, `< FILE`), from each folder,
    as the file is now; none from a pipe (a command's output, as `cat $(ls)` is not read) or a file not there."""
    _, valued, _ = read_options(given.xargs[1:], XARGS)
    files = [value for option, value in valued if option in ("-a", "--arg-file")]
    files += [given.value] if given.kind == "file" and not files else []
    out: list[str] = []
    for name in files:
        for full in in_folders(name, folders) if isinstance(name, str) else []:
            try:
                data = read_regular(full, XARGS_FILE_BYTES)
            except OSError:
                continue
            out += xargs_words(data.decode("utf-8", errors="replace"))
    return out


def xargs_words(text: str) -> list[str]:
    """The words xargs makes of a text: at blanks and quotes, or (-I) at line ends."""
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    return [*words, *text.splitlines()]


def _above_removed(path: str) -> str:
    """`../../secrets/k` as `secrets/k`: a path from a folder below the project, the folder not known."""
    path = os.path.normpath(path)
    while path.startswith("../"):
        path = path[3:]
    return path


def _git_tree_paths(words: tuple[Word, ...]) -> list[str]:
    """The file of a `REV:PATH` word (`git show HEAD:.env`, `git cat-file -p :.env`, `git show :0:.env`): git reads
    it from its history or index, which hold the file as it was committed or staged."""
    out = []
    for word in words[1:]:
        if isinstance(word, str) and ":" in word and not word.startswith("-") and "://" not in word:
            path = word.rsplit(":", 1)[1]
            if path:
                out.append(path)
    return out


def _stdin_names(words: tuple[Word, ...], given: Input) -> list[str]:
    """The words a git command that prints the objects named on its standard input (`cat-file --batch`, `show
    --stdin`) reads there when the line gives them: a here-string's or here-document's, the words of the command
    piped into it (`echo HEAD:.env | git cat-file --batch`); none from a file or another program's output."""
    line = git_line(words[1:])
    batch = line.sub == "cat-file" and any(isinstance(w, str) and w.startswith("--batch") and
                                           not w.startswith("--batch-check") for w in line.args)
    if not (batch or (line.sub in ("show", "log") and "--stdin" in line.args)):
        return []
    if given.kind == "text" and isinstance(given.value, str):
        return given.value.split()
    return [w for w in given.source[1:] if isinstance(w, str)] if given.kind == "pipe" else []


def _braces(word: str) -> list[str]:
    """`{a,b}c`, `{a,{b}}` and `{d..f}`, `{1..3}` as bash expands them to words (at most 64)."""
    words, done = [word], list[str]()
    while words and len(words) + len(done) < 64:
        word = words.pop()
        listed = _listed_brace(word)
        found = _SEQUENCE.search(word) if listed is None else None
        if listed is not None:
            start, end, parts = listed
            words.extend(word[:start] + part + word[end:] for part in parts)
        elif found is None:
            done.append(word)
        else:
            words.extend(word[:found.start()] + part + word[found.end():] for part in _sequence(*found.groups()))
    return done + words


def _listed_brace(word: str) -> tuple[int, int, list[str]] | None:
    """The first `{…}` holding a comma outside the braces nested in it (`{a,b{c}}` is `a` and `b{c}`): where it
    starts and ends, and its parts."""
    for start in (i for i, char in enumerate(word) if char == "{"):
        depth, cuts = 0, [start]
        for at in range(start, len(word)):
            depth += {"{": 1, "}": -1}.get(word[at], 0)
            if word[at] == "," and depth == 1:
                cuts.append(at)
            if depth == 0:
                if len(cuts) > 1:
                    cuts.append(at)
                    return start, at + 1, [word[a + 1:b] for a, b in zip(cuts, cuts[1:])]
                break
    return None


_SEQUENCE = re.compile(r"\{(?:(-?\d+)\.\.(-?\d+)|([A-Za-z])\.\.([A-Za-z]))(?:\.\.(-?\d+))?\}")


def _sequence(first: str | None, last: str | None, a: str | None, z: str | None, step: str | None) -> list[str]:
    """The words of `{1..3}`, `{01..10..2}` (zero-padded as bash pads them) or `{d..f}`, 64 at most."""
    by = abs(int(step or 1)) or 1
    if first is None or last is None:
        start, end = ord(a or "a"), ord(z or "a")
        return [chr(c) for c in (range(start, end + 1, by) if start <= end else range(start, end - 1, -by))[:64]]
    start, end = int(first), int(last)
    width = max(len(first), len(last)) if re.match(r"-?0\d", first) or re.match(r"-?0\d", last) else 0
    numbers = range(start, end + 1, by) if start <= end else range(start, end - 1, -by)
    return [str(n).zfill(width) if n >= 0 else "-" + str(-n).zfill(width - 1) for n in numbers[:64]]


def _glob_words(command: str, commands: tuple[tuple[Word, ...], ...], folders: list[str]) -> list[str]:
    """The files the line's glob and brace words name in the project now, as bash expands them in its folder
    (`cat secre*`, `cat s?cret.txt`, `cat {secret,x}.txt`). Read from the text as written, quotes removed: a
    quoted pattern is matched too, which only refuses more. The line may turn on `dotglob` (or set
    `GLOBIGNORE`, `BASHOPTS`), which lets `*` name `.env`, and `nocaseglob`, which lets `.EN?` name it."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    # `$(cat .en?)`, `bash -c 'cat .en?'`: the pieces of a word too; a variable's value given on the line
    # (`X=.env; cat $X`, `${X:-.env}`)
    pieces = dict.fromkeys(p for word in words for piece in (word, *PIECES.split(word), DEFAULT.sub(r"\1", word))
                           for p in (piece, piece.partition("=")[2]) if p)
    return expand_words(list(pieces), command, commands, folders)


def expand_words(pieces: list[str], command: str, commands: tuple[tuple[Word, ...], ...],
                 folders: list[str]) -> list[str]:
    """Each word as bash expands its braces and globs in the project now, from each folder; a plain word as it
    is. The line (`command`, its `commands`) may turn on `dotglob` or `nocaseglob` (see _glob_words)."""
    said = re.sub(r"[\"'\\]", "", command) + " " + " ".join(w for c in commands for w in c if w is not None)
    unknown_shopt = any(c and c[0] == "shopt" and None in c for c in commands)
    hidden = unknown_shopt or any(name in said for name in ("dotglob", "GLOBIGNORE", "BASHOPTS"))
    nocase = unknown_shopt or any(name in said for name in ("nocaseglob", "BASHOPTS"))
    out: list[str] = []
    for word in pieces:
        for pattern in _braces(word):
            if not _GLOB_CHARS.search(pattern) and not _EXTGLOB.search(pattern):
                out.append(pattern)
                continue
            pattern = _python_glob(pattern, nocase)
            for folder in folders:
                full = pattern if os.path.isabs(pattern) else os.path.join(folder, pattern)
                out.extend(itertools.islice(glob.iglob(full, recursive=True, include_hidden=hidden), GLOB_HITS))
    return out


_EXTGLOB = re.compile(r"[@!+*?]\(")
DEFAULT = re.compile(r"\$\{\w+:?[-=+?]([^{}]*)\}")         # `${X:-WORD}`: WORD where X is unset (or set, for `+`)
PIECES = re.compile(r"[\s;&|<>()`]+")


def _python_glob(pattern: str, nocase: bool) -> str:
    """A bash pattern as a Python glob naming at least the same files: a bracket expression (`[^x]`,
    `[[:alpha:]]`, which Python reads otherwise) is any one character, an extglob group (`@(n|x)`) anything."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char in "@!+*?" and pattern[i + 1:i + 2] == "(":
            depth, j = 0, i + 1
            while j < len(pattern):
                depth += {"(": 1, ")": -1}.get(pattern[j], 0)
                if depth == 0:
                    break
                j += 1
            out.append("*")
            i = j + 1
        elif char == "[":
            end = _bracket_end(pattern, i)
            out.append("?" if end else "[[]")
            i = end or i + 1
        elif nocase and char.isalpha():
            out.append(f"[{char.lower()}{char.upper()}]")
            i += 1
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _bracket_end(pattern: str, start: int) -> int:
    """Where the bracket expression opening at `start` ends (past its `]`), 0 when it does not close."""
    j = start + 1
    j += pattern[j:j + 1] in ("!", "^")
    j += pattern[j:j + 1] == "]"          # `[]a]`: a first `]` is a character
    while j < len(pattern):
        if pattern.startswith("[:", j) and (close := pattern.find(":]", j + 2)) > 0:
            j = close + 2
        elif pattern[j] == "]":
            return j + 1
        else:
            j += 1
    return 0


_FOLDER_CHANGES = frozenset({"cd", "pushd"})
MAX_FOLDERS = 16


def folders_of(commands: tuple[tuple[Word, ...], ...], root: str) -> list[str]:
    """The folders a relative path on the line may be read in: the root, and each folder a `cd` or `pushd` on the
    line names, or a wrapper's option (`env -C sub`), from each folder before it (`cd sub && cat ../.env`), and each
    submodule's a `git submodule foreach` runs in. One only known when it runs is not followed, as a variable naming
    the file is not."""
    return line_folders(commands, root)[0]


def line_folders(commands: tuple[tuple[Word, ...], ...], root: str) -> tuple[list[str], frozenset[int]]:
    """folders_of's folders, and the commands (their places in `commands`) that are a `git submodule foreach`
    whose submodules the files do not say (git_submodules.py)."""
    folders, unsaid = [root], set()
    for index, words in enumerate(commands):
        targets = [_target(words)] if words and words[0] in _FOLDER_CHANGES else chdir_targets(words)
        for target in targets:
            if isinstance(target, str) and target != "-":
                moved = [os.path.normpath(p) for p in in_folders(target, folders)]      # `cd ~+/sub` too
                folders = list(dict.fromkeys([*folders, *moved]))[:MAX_FOLDERS]
        each = foreach_script(words)
        if each is not None:        # `git submodule foreach CMD`: CMD runs in each submodule's folder
            found = foreach_folders(each, folders)
            if found is None:
                unsaid.add(index)
            folders = list(dict.fromkeys([*folders, *(found or [])]))
    return folders, frozenset(unsaid)


def _target(words: tuple[Word, ...]) -> Word:
    """The folder a `cd` or `pushd` goes to (`~` without one), None when only known when it runs."""
    plain = [w for w in words[1:] if w is None or w == "-" or not w.startswith("-")]
    return plain[0] if plain else "~"


def in_folders(path: str, folders: list[str]) -> list[str]:
    """The path as bash reads it from each folder: `~` is the home folder, `~+` the folder it is in, `~-` the one
    before (either may be any of them); as written too (quoted, a `~` is a character)."""
    head, _, tail = path.partition("/")
    if head in ("~+", "~-"):
        bases = [*folders, *([os.environ["OLDPWD"]] if head == "~-" and os.environ.get("OLDPWD") else [])]
        return [os.path.join(base, tail) for base in bases] + [os.path.join(folders[0], path)]
    if head.startswith("~"):
        return [os.path.expanduser(path), os.path.join(folders[0], path)]
    return [path] if os.path.isabs(path) else [os.path.join(folder, path) for folder in folders]
