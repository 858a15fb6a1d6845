"""The files git's sub-commands write (for writes.py): the paths `checkout|restore|rm|mv` name; below
their pathspecs, else the whole work tree, for those that write files they do not name (`reset --hard`, `stash`,
`checkout -f`, `switch -f`, `read-tree -u`, `checkout-index`; `clean` below the folder it runs in), only those of
the kinds git lists (tracked, untracked, ignored; git_state.py) where no commit is given, and for `stash
pop|apply|branch` the stash's files; a diff's files for `apply` and `am` (diffs.py). The work tree is the one git
uses (git_tree.py, the line's `--work-tree`, `--git-dir` and git variables)."""

from __future__ import annotations

import os
import re

from contextual.core.bash_files.diffs import git_diff
from contextual.core.bash_files.git_env import GitEnv
from contextual.core.bash_files.git_tree import git_folder, joined, repository_tree, under, work_tree
from contextual.core.bash_files.reads import in_folders
from contextual.core.bash_files.write_programs import (GIT_CHECKOUT_INDEX, GIT_CONFIG, GIT_CONFIG_ACTIONS,
                                                       GIT_CONFIG_EDITS, GIT_CONFIG_ELSEWHERE, GIT_CONFIG_READS,
                                                       GIT_CONFIG_SUBS, GIT_CONFIG_WRITERS, GIT_FILE_OPTIONS, GIT_HERE,
                                                       GIT_INDEX_ALL, GIT_MADE, GIT_NAMED, GIT_SAME_COMMIT,
                                                       GIT_STASH_ALL, GIT_STASH_APPLIES, GIT_STASH_KEEPS,
                                                       GIT_STASH_UNTRACKED, GIT_TREES, GIT_WRITES)
from contextual.core.bash_files.write_words import ANY, Found, GitTrees, Stash, by_table, read_options
from contextual.core.git_line import git_line
from contextual.core.shell.findings import Input
from contextual.core.shell.nodes import Word, command_name
from contextual.core.shell.parse import ShellParse

TRACKED, UNTRACKED, IGNORED = "tracked", "untracked", "ignored"      # a work tree's files, as git lists them
# git sub-commands a line may run beside one that writes some of the work tree's files: they change neither the
# index, HEAD nor what is ignored
GIT_READS = frozenset({"status", "diff", "log", "show", "ls-files", "rev-parse", "blame", "grep", "shortlog"})
# what changes which repository, index or ignore files git reads: its variables (GIT_DIR, GIT_INDEX_FILE,
# GIT_CONFIG_*), HOME and XDG_CONFIG_HOME (the global config and excludes file)
_GIT_SETTINGS = re.compile(r"GIT_|XDG_|HOME")
_NO_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})     # written, they change no file
# a stash's files are in its commits: as for tracked ones, another file the line writes does not change which
_STASH_KINDS = frozenset({TRACKED})


def git_writes(words: tuple[Word, ...], given: Input, folders: list[str], env: GitEnv) -> Found:
    """`git checkout -- k`, `git restore .`, `git -C sub rm -r d`: each word after the sub-command may be a path
    it writes or removes (a branch name as well: matched against the rules, it names no protected file).
    `git reset --hard`, `git stash`, `git checkout -f`, `git clean -f`: below their pathspecs, else the whole work
    tree (the folder, for `clean`), given no commit only the files of the kinds git's state lists (GitTrees);
    `git checkout-index`: tracked files (below --prefix's folder instead, any path); `git apply`, `git am`: the
    files their diffs name; any sub-command's `--output=F`. The work tree is the one git uses (_work_trees)."""
    line = git_line(words)
    if not line.sub:
        return Found()
    # no option of git's but -C, no variable (another repository, config)
    own = not env.elsewhere and not (line.unknown or line.others or line.settings)
    # an option only known when the line runs (`git $OPTS stash`), a folder too (`-C "$D"`) or one bash may make
    # another (`--work-tree ~/p`): any work tree
    env = GitEnv(env.icase, elsewhere=True, unread=True) if line.folders_unknown else env
    folder = ""
    for each in line.folders:
        folder = os.path.join(folder, each or "")       # each -C from the one before
    tree = str(line.work_trees[-1] or "") if line.work_trees else ""
    git_dir = str(line.git_dirs[-1] or "") if line.git_dirs else ""
    sub, rest = line.sub, line.args
    named_files = Found([_from(folder, w) for w in _outputs(rest, GIT_FILE_OPTIONS.get(sub, frozenset()))])
    named_files.extend(_in_git_folder(_git_folder_files(sub, rest), folder, git_dir, folders, env))
    if sub == "sparse-checkout" and rest and rest[0] in GIT_CONFIG_SUBS[sub]:
        # `set`, `reapply` …: the work tree's files left out are removed, those let in written
        named_files.extend(_whole(folder, [top for _, top in _work_trees(folder, tree, git_dir, folders, env)]
                                  if tree or git_dir or env.elsewhere else None))
    two_words = sub in ("worktree", "bundle") and rest
    listed = GIT_NAMED.get(f"{sub} {rest[0]}" if two_words else sub)
    if listed is not None:      # `git merge-file F B O`, `git bundle create F`: as they name them
        files, trees = by_table(sub, rest[1:] if two_words else rest, listed)
        return named_files.extend(Found([_from(folder, w) for w in files], [_from(folder, w) for w in trees]))
    if sub in GIT_MADE:
        return named_files.extend(_made(sub, rest, folder))
    if not (sub in GIT_WRITES or sub in GIT_TREES or sub in ("checkout-index", "apply", "am")):
        return named_files
    tops = _work_trees(folder, tree, git_dir, folders, env)
    # the line names the work tree (its full paths), or git finds it from the folder it runs in (tops)
    named = [top for _, top in tops] if tree or git_dir or env.elsewhere else None
    outside = [top for at, top in tops if top is None or not _below(at, top)]    # pathspecs read from the top
    found = Found()
    icase = env.icase or "--icase-pathspecs" in line.options
    if sub in GIT_WRITES:
        found.extend(_pathspecs([w for w in rest if not (isinstance(w, str) and w.startswith("-"))], folder, icase,
                                named, outside))
        if any(_from_file(w) for w in rest):
            found.extend(_whole(folder, named))
    spec = GIT_TREES.get(sub)
    if sub == "stash" and rest and not (isinstance(rest[0], str) and rest[0].startswith("-")):
        if rest[0] in GIT_STASH_KEEPS:
            spec = None
        elif rest[0] == "push":
            rest = rest[1:]
        else:           # save, pop, apply, branch: any of the work tree; pop, apply, branch: the stash's files
            stash, spec = _stash(rest) if own else None, None
            found.extend(Found(git=[GitTrees(folder or ANY, [], [(folder or ANY, "")], _STASH_KINDS, stash)]) if stash
                         else _whole(folder, named))
    if spec is not None:
        seen, _, operands = read_options(rest, spec)
        written = Found()
        if (spec.only and not seen & spec.only) or seen & spec.never:
            pass
        elif spec.operands == "each" and operands:
            written.extend(_pathspecs(operands, folder, icase, named, outside))
        elif named:
            written.extend(_whole(folder, named))
        elif sub in GIT_HERE:
            written.trees.append(folder or ANY)
        else:
            written.tops.append((folder or ANY, ""))
        kinds = _kinds(sub, seen, operands) if own else None
        if kinds is not None and (written.trees or written.tops):
            written = Found(git=[GitTrees(folder or ANY, written.trees, written.tops, kinds)])
            found = Found()     # `checkout -f HEAD`, `checkout -f -b new`: a commit and a branch, no path
        found.extend(written)
    if sub == "checkout-index":
        found.extend(_index_files(rest, folder, own, named, outside))
    if sub in ("apply", "am"):
        found.extend(git_diff(sub, rest, given, folders, folder))
    return found.extend(named_files)


def _git_folder_files(sub: str, rest: tuple[Word, ...]) -> list[str]:
    """The files in the repository's git folder a sub-command writes (write_programs.py: GIT_CONFIG_WRITERS):
    `config` for `git config NAME VALUE`, `git remote add …`, `git branch -u …`; `info/sparse-checkout` too for
    `git sparse-checkout set …`."""
    if sub == "config":
        seen, _, operands = read_options(rest, GIT_CONFIG)
        action = GIT_CONFIG_ACTIONS.get(str(operands[0])) if operands else None
        if seen & GIT_CONFIG_ELSEWHERE or action is False or (action is None and (
                seen & GIT_CONFIG_READS or (len(operands) < 2 and not seen & GIT_CONFIG_EDITS))):
            return []
        return ["config"]
    if sub in GIT_CONFIG_SUBS:
        first = next((w for w in rest if not (isinstance(w, str) and w.startswith("-"))), "")
        writes = first in GIT_CONFIG_SUBS[sub] or (sub == "submodule" and first == "update" and "--init" in rest)
        return ["config", "info/sparse-checkout"] if writes and sub == "sparse-checkout" else ["config"] * writes
    spec = GIT_CONFIG_WRITERS.get(sub)
    if spec is None:
        return []
    seen, valued, _ = read_options(rest, spec)
    return ["config"] if seen & spec.flags or any(option in spec.flags for option, _ in valued) else []


def _in_git_folder(names: list[str], folder: str, git_dir: str, folders: list[str], env: GitEnv) -> Found:
    """Files in the git folder git uses from each folder the line may be in (--git-dir's; any path where the line
    sets GIT_DIR or the folder is not known here)."""
    if not names:
        return Found()
    found = Found()
    for base in folders:
        at = os.path.join(base, folder)
        named = joined(at, git_dir) if git_dir else None
        common = None if env.elsewhere or (git_dir and named is None) else git_folder(at, named)
        if common is None:
            found.trees.append(under(None, ""))
        elif common:
            found.files += [os.path.join(common, name) for name in names]
    return found


def _outputs(words: tuple[Word, ...], options: frozenset[str]) -> list[Word]:
    """The files `--output=F` (`--output F`) names, an option of every sub-command taking diff or revision options
    (`git rev-list --all --output F`, `git blame --output=F`, `git stash show --output=F`), and those of `options`
    (no start of the word: git's diff options take none)."""
    out: list[Word] = []
    for i, word in enumerate(words):
        if word == "--":
            break
        name, equals, value = word.partition("=") if isinstance(word, str) else ("", "", "")
        if name in ("--output", *options):
            out.append(value if equals else words[i + 1] if i + 1 < len(words) else "")
    return [w for w in out if w != ""]


def _work_trees(folder: str, tree: str, git_dir: str, folders: list[str],
                env: GitEnv) -> list[tuple[str, str | None]]:
    """For each folder the line may be in: the folder git runs in and the top of the work tree it uses there,
    full paths: --work-tree's, else the one --git-dir's repository names (else the folder git runs in), else
    the one found from that folder (git_tree.py); None where not known here, or where the line sets GIT_DIR or
    GIT_WORK_TREE."""
    out = []
    for base in folders:
        at = os.path.normpath(os.path.join(base, folder))
        git = joined(os.path.join(base, folder), git_dir) if git_dir else None
        if tree and not env.unread:     # a `..` after a link, in it or in -C's folder, as git reaches it: joined
            top = joined(os.path.join(base, folder), tree)
        elif env.elsewhere or (git_dir and git is None):
            top = None
        else:
            top = repository_tree(git, at) if git else work_tree(os.path.join(base, folder))
        out.append((at, top))
    return out


def _whole(folder: str, named: list[str | None] | None) -> Found:
    """The whole work tree: the one the line names, else the one found from the folder git runs in."""
    return _at_top(folder, named, "")


def _at_top(folder: str, named: list[str | None] | None, path: str) -> Found:
    """A path below the top of the work tree: the one the line names, else the one found from the folder git runs
    in."""
    return Found(trees=[under(top, path) for top in named]) if named else Found(tops=[(folder or ANY, path)])


def _pathspecs(words: list[Word], folder: str, icase: bool, named: list[str | None] | None,
               outside: list[str | None]) -> Found:
    """The trees git pathspecs may name, from the folder git runs in (from the top too, where that folder is not
    in the work tree: `git --work-tree=secrets checkout -- k` writes secrets/k): a literal path as written; a glob
    (`*`, `?`, `[`, a backslash: git matches them, `*` across folders too) the folder before its first glob
    character; a magic one (`:/`, `:(top)`, `:!x`, `:(icase)…`) and any, given icase (--icase-pathspecs,
    GIT_ICASE_PATHSPECS), the whole work tree."""
    found = Found()
    for word in words:
        if not isinstance(word, str):
            found.trees.append(word)
        elif word.startswith(":") or icase:
            found.extend(_whole(folder, named))
            found.trees += [under(top, "") for top in outside]
        else:
            literal = re.split(r"[*?[\\]", word, maxsplit=1)[0]     # `secrets\/k` is a glob of `secrets/k`
            tree = word if literal == word else os.path.dirname(literal)
            found.trees.append(os.path.join(folder, tree) or ANY)
            found.trees += [under(top, tree) for top in outside]
    return found


def _index_files(rest: tuple[Word, ...], folder: str, own: bool, named: list[str | None] | None,
                 outside: list[str | None]) -> Found:
    """What `git checkout-index` writes: the index's files it names (paths from the folder it runs in) or all of
    them (`-a`, `--stdin`), where they are in the work tree, so only tracked ones (GitTrees; any of them where git's
    state may not hold); with `--prefix=P` new files below P's folder (from the top), with `--temp` new
    `.merge_file_XXXXXX` files at the top instead."""
    seen, valued, operands = read_options(rest, GIT_CHECKOUT_INDEX)
    if "--temp" in seen:
        return _at_top(folder, named, ".merge_file_XXXXXX")
    if "--prefix" in seen:
        prefix = next((value for option, value in reversed(valued) if option == "--prefix"), "")
        return _at_top(folder, named, os.path.dirname(prefix)) if isinstance(prefix, str) else Found(trees=[None])
    written = Found(trees=[os.path.join(folder, w) if isinstance(w, str) else w for w in operands])
    written.trees += [under(top, w) for top in outside for w in operands if isinstance(w, str)]
    if seen & GIT_INDEX_ALL:
        written.extend(_whole(folder, named))
    if own and (written.trees or written.tops):
        return Found(git=[GitTrees(folder or ANY, written.trees, written.tops, frozenset({TRACKED}))])
    return written


def _made(sub: str, rest: tuple[Word, ...], folder: str) -> Found:
    """The folder `git clone URL [DIR]` or `git init [DIR]` makes or fills, with all below it: DIR, else a clone's
    named as git names it from the URL (`…/y.git/` → `y`, `y.git` for `--bare`), an init's `.git` where it runs;
    and `--separate-git-dir`'s folder."""
    spec = GIT_MADE[sub]
    seen, valued, operands = read_options(rest, spec)
    made: list[Word] = list(operands[1:2] if sub == "clone" else operands[:1])
    if not made and sub == "init":
        made = [".git"]
    elif not made and operands:
        url = operands[0]
        made = [_clone_name(url, bool(seen & {"--bare", "--mirror"})) if isinstance(url, str) else None]
    into = [value for option, value in valued if option in spec.into]
    return Found([_from(folder, w) for w in into], [_from(folder, w) for w in made])


def _clone_name(url: str, bare: bool) -> str:
    """The folder git clones URL into when none is given: its last part, without `/.git` or `.git`/`.bundle`."""
    name = url.rstrip("/")
    name = name[:-len("/.git")] if name.endswith("/.git") else name
    name = re.split(r"[/:\\]", name.rstrip("/"))[-1]
    for suffix in (".git", ".bundle"):
        name = name[:-len(suffix)] if name.endswith(suffix) and len(name) > len(suffix) else name
    return name + ".git" if bare else name


def _from_file(word: Word) -> bool:
    """`--pathspec-from-file=F` as git's option parser reads it (any unambiguous start: `--pathspec-fr`)."""
    name = word.partition("=")[0] if isinstance(word, str) else ""
    return len(name) > len("--pathspec-f") and "--pathspec-from-file".startswith(name)


def _stash(words: tuple[Word, ...]) -> Stash | None:
    """The stash `git stash pop|apply [-q] [--index] [REF]` and `git stash branch NAME [REF]` write the files of,
    REF as git reads it (none: the newest; a number: that entry of the stash list; else a commit); None for `save`
    and for words only known when the line runs."""
    operands = [w for w in words[1:] if not (isinstance(w, str) and w.startswith("-"))]
    branch = words[0] == "branch"
    given = operands[1:] if branch else operands
    if words[0] not in GIT_STASH_APPLIES or (branch and not operands) or len(given) > 1 or \
            not all(isinstance(w, str) for w in operands):
        return None
    ref = str(given[0]) if given else "0"
    return Stash(f"refs/stash@{{{ref}}}" if re.fullmatch("[0-9]+", ref) else ref, branch)


def _kinds(sub: str, seen: set[str], operands: list[Word]) -> frozenset[str] | None:
    """Which of the work tree's files a sub-command writes, by git's state: `reset --hard`, `stash`, `checkout -f`,
    `switch -f` given no commit the tracked ones (`stash -u` the untracked too, `-a` every file); `clean` the
    untracked that are not ignored (`-x` all untracked, `-X` the ignored: with `-e`, which it adds to them, all).
    None: any path (a commit, `read-tree`, every kind)."""
    if sub == "clean":
        if "-x" in seen or ("-X" in seen and seen & {"-e", "--exclude"}):
            return frozenset({UNTRACKED, IGNORED})
        return frozenset({IGNORED}) if "-X" in seen else frozenset({UNTRACKED})
    if sub == "stash":
        if seen & GIT_STASH_ALL:
            return None
        return frozenset({TRACKED, UNTRACKED} if seen & GIT_STASH_UNTRACKED else {TRACKED})
    if sub in ("reset", "checkout", "switch") and all(o in GIT_SAME_COMMIT for o in operands):
        return frozenset({TRACKED})
    return None


def state_holds(command: str, parsed: ShellParse, found: Found, folders: list[str]) -> bool:
    """Whether git's state when the line is checked is what its one git command writing some files meets: no other
    git command but those that only read, no wrapper around it (`sudo`, `env -i`: another HOME, config), no
    setting of git's variables or HOME, nothing else the line writes that may change what git tracks or ignores
    (a file in a .git folder or named .git*, as written or through a link, or a file with another name: a hard
    link; any other file or tree where untracked files count), and every word known."""
    if len(found.git) != 1 or not parsed.certain or parsed.writes_unknown or parsed.latent or \
            _GIT_SETTINGS.search(command):
        return False
    some = found.git[0]
    if any(not isinstance(t, str) or t.startswith("~") for t in [some.folder, *some.trees]) or \
            found.trees or found.tops or found.named or found.split:
        return False
    written = [p for p in [*found.files, *parsed.written] if p not in _NO_FILES]
    if None in written or (written and some.kinds != {TRACKED}) or any(
            _in_git(path, full, folders[0]) for path in written if path for full in in_folders(path, folders)):
        return False
    writing = [words for words in parsed.commands if words and isinstance(words[0], str)
               and command_name(words[0]) == "git" and not _reads(words)]
    wrapped = any(len(words) > len(one) and words[-len(one):] == one for one in writing
                  for words in parsed.commands)
    return len(writing) == 1 and not wrapped


def _in_git(path: str, full: str, root: str) -> bool:
    """Whether writing a path may change git's state: a .git* part as written or where its links lead (`g/index`
    with g a link to .git), or a file known by another name too (a hard link to .git/index)."""
    real = os.path.relpath(os.path.realpath(full), root)
    if any(part.startswith(".git") for name in (path, real) for part in name.split(os.sep)):
        return True
    try:
        return os.path.isfile(full) and os.stat(full).st_nlink > 1
    except OSError:
        return False


def _reads(words: tuple[Word, ...]) -> bool:
    """A git command that only reads (`git status`, `git stash list`), writing no file (`--output`)."""
    line = git_line(words[1:])
    if line.unknown or any(isinstance(w, str) and w.startswith("--o") for w in line.args):
        return False
    return line.sub in GIT_READS or (line.sub == "stash" and bool(line.args) and line.args[0] in ("list", "show"))


def _from(folder: str, word: Word) -> Word:
    """A path as git reads it from the folder it runs in (-C)."""
    return os.path.join(folder, word) if isinstance(word, str) else word


def _below(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
