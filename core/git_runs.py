"""What a git command runs from files, for the deny rules (core/files_run.py reads and checks it): the hooks of the
repository (`.git/hooks`, or `core.hooksPath`), of a submodule, of a repository on this machine it pushes to, and of
the template folder `git init` and `git clone` copy; a `git-NAME` program it runs for `git NAME`; an alias from a
config file (`!…` is a shell line, any other a git line); the command lines of the settings git runs (core.pager,
core.fsmonitor, credential.helper …) found in its config files.

Git itself says where they are: `git rev-parse` (the repository found from the folder the command runs in, with
its `-C`, `--git-dir` and `--work-tree`) and `git config --list` (every config file, includes applied). Neither
runs a hook or a setting.

The files that decide what the command runs are listed too (`watched`): each hook git may run, there or not, and
the config files. A line that also writes one may change it before git reads it (`printf … >
.git/hooks/pre-commit; chmod +x …; git commit`): core/files_run.FilesRun._certain holds it."""

from __future__ import annotations

import fnmatch
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Callable, Sequence

from contextual.core.git_commands import autocorrect_runs, guessed
from contextual.core.git_line import git_line
from contextual.core.shell.nodes import Word
from contextual.core.shell.wrappers import GIT_COMMAND_SETTINGS

# githooks(5): every hook git runs by itself (`git hook run NAME` runs NAME)
HOOKS = frozenset({
    "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit", "prepare-commit-msg",
    "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge", "pre-push", "pre-receive", "update",
    "proc-receive", "post-receive", "post-update", "reference-transaction", "push-to-checkout", "pre-auto-gc",
    "post-rewrite", "sendemail-validate", "fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist",
    "p4-post-changelist", "p4-pre-submit", "post-index-change"})
# Sub-commands seen to run no hook (git 2.39, every hook there). `git status` and `git diff` are not among them:
# both may write the index, which runs post-index-change.
NO_HOOKS = frozenset({
    "log", "show", "rev-parse", "ls-files", "ls-tree", "blame", "grep", "cat-file", "config", "shortlog",
    "for-each-ref", "check-ignore", "check-attr", "rev-list", "show-ref", "var", "name-rev", "whatchanged",
    "format-patch", "help", "version", "merge-base", "count-objects", "diff-files", "diff-index", "diff-tree",
    "range-diff", "reflog"})
# Sub-commands that may write files of the work tree, a hook there among them (core.hooksPath = .githooks)
CHANGES_TREE = frozenset({
    "checkout", "switch", "restore", "reset", "merge", "pull", "rebase", "cherry-pick", "revert", "stash", "am",
    "apply", "read-tree", "checkout-index", "clone", "worktree", "submodule", "sparse-checkout", "bisect", "mv"})
_GIT_FOLDER_PARTS = frozenset({"objects", "refs", "logs", "hooks", "info", "lfs", "worktrees", "rr-cache"})
TIMEOUT = 10.0
MAX_FOLDERS = 32               # hooks folders of submodules and remotes looked at


@dataclass
class GitRun:
    programs: list[str] = field(default_factory=list)  # what git runs: each hook there and executable, a git-NAME
    watched: list[str] = field(default_factory=list)   # files deciding what it runs, there or not
    texts: list[str] = field(default_factory=list)     # shell lines it runs (an alias, a setting's command line)
    # help.autocorrect: git runs the command or alias nearest a mistyped sub-command, only known when it runs
    guesses: bool = False


@dataclass(frozen=True)
class Repository:
    hooks: str | None                 # the hooks folder; None when git finds no repository there
    common: str | None                # the git folder (a worktree's common one)
    top: str | None                   # the work tree's top folder, where hooks and a `!` alias run
    config: tuple[tuple[str, str, str], ...]    # (file, name, value) from `git config --list`


Ask = Callable[[str, tuple[str, ...]], "Repository | None"]


def git_run(words: Sequence[Word], place: str, root: str, ask: Ask) -> GitRun | None:
    """What the git command `words` runs from files when the line runs it in the folder `place` (the line is
    checked in `root`); None when it cannot be told (an unknown sub-command or option value, a git that fails in an
    unexpected way, a hook the command itself may write)."""
    line = git_line(words[1:])
    if line.unknown:
        return None
    sub, args, options = line.sub, list(line.args), [str(w) for w in line.options]
    if not sub:
        return GitRun()
    where = place
    for folder in line.folders:
        if folder:                      # `-C ""`: git stays where it is
            where = os.path.normpath(os.path.join(where, os.path.expanduser(folder)))
    repository = ask(where, tuple(str(w) for w in line.others))
    if repository is None:
        return None
    config = [(origin, name.lower(), value) for origin, name, value in repository.config
              if not origin.startswith("command line:")]      # `-c` settings: the line's own, read by its parse
    if any("ext::" in value for _, _, value in config) and any(name.startswith("protocol.") for _, name, _ in config):
        return None                   # a remote's URL naming a command (`ext::sh -c …`), allowed by a setting
    out = GitRun()
    for _, name, value in config:
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in GIT_COMMAND_SETTINGS) and value.strip():
            out.texts.append(value[1:] if value.startswith("!") else value)
    aliases = {name[len("alias."):]: value for _, name, value in config if name.startswith("alias.")}
    autocorrect = next((v for _, n, v in reversed(config) if n == "help.autocorrect"), None)
    program = shutil.which(f"git-{sub}") if "/" not in sub else None
    # help.autocorrect runs the command or alias nearest a sub-command git has not: any of them
    out.guesses = autocorrect is not None and autocorrect_runs(autocorrect) and guessed(sub, aliases) \
        and program is None
    for alias in [aliases[sub.lower()]] if sub.lower() in aliases else list(aliases.values()) if out.guesses else []:
        out.texts.append(_alias_line(alias, options, args, place, root, repository.top or where))
    if out.guesses:                   # a git line whose sub-command is only known when it runs: git's deny rules
        out.texts.append(_alias_line('"$_"', options, args, place, root, repository.top or where))
    if program is not None:
        out.programs.append(program)  # `git NAME` runs git-NAME from PATH when git has no NAME of its own
    folders = [] if sub.lower() in NO_HOOKS else _hook_folders(repository, where)
    if repository.hooks and repository.top and sub in CHANGES_TREE and \
            _below(repository.hooks, repository.top) and not _below(repository.hooks, repository.common or "/"):
        return None                   # core.hooksPath in the work tree: `git checkout B` may write the hook it runs
    if sub in ("init", "clone"):
        template = _template(args, config)
        if template is None:
            return None
        if template:
            folders.append(os.path.join(where, os.path.expanduser(template), "hooks"))
    if sub == "push":
        for other in _local_remotes(args, config, where):
            found = ask(other, ())
            if found is None:
                return None
            if found.hooks:
                folders.append(found.hooks)      # `git push ../other` runs the receiving repository's hooks
    names = set(HOOKS)
    if sub == "hook" and args[:1] == ["run"]:
        named = next((w for w in args[1:] if w is None or not w.startswith("-")), "")
        if named is None:
            return None
        names.add(named)
    for folder in dict.fromkeys(folders):
        for name in sorted(names):
            path = os.path.normpath(os.path.join(folder, name))
            out.watched.append(path)
            if os.path.isfile(path) and os.access(path, os.X_OK):
                out.programs.append(path)
    if sub.lower() not in NO_HOOKS:    # `git log`: its settings are read (GIT_PAGER=cat for the Bash tool)
        out.watched += _config_files(repository, where)
    return out


def _alias_line(alias: str, options: list[str], args: list[Word], place: str, root: str, top: str) -> str:
    """The line an alias runs, with the words after it: a `!` one in the top folder, any other as git."""
    rest = " ".join('"$_"' if w is None else shlex.quote(w) for w in args)
    if alias.startswith("!"):
        return (f"cd {shlex.quote(top)} && " if top != root else "") + f"{alias[1:]} {rest}"
    return (f"cd {shlex.quote(place)} && " if place != root else "") + f"{shlex.join(['git', *options])} {alias} {rest}"


def _hook_folders(repository: Repository, where: str) -> list[str]:
    """The hooks folder, and each submodule's (`git submodule update` runs their post-checkout); in a folder the line
    makes, or one in no repository, also the one `git init` there would make."""
    made = os.path.join(where, ".git", "hooks")
    if repository.hooks is None:
        return [made]
    folders = [repository.hooks] + ([made] if not os.path.isdir(where) else [])
    modules = os.path.join(repository.common or "", "modules")
    if repository.common and os.path.isdir(modules):
        for parent, dirs, _ in os.walk(modules):
            if "hooks" in dirs:
                folders.append(os.path.join(parent, "hooks"))
            dirs[:] = [d for d in dirs if d not in _GIT_FOLDER_PARTS]     # a module's own objects are not walked
            if len(folders) > MAX_FOLDERS:
                break
    return folders


def _below(path: str, folder: str) -> bool:
    return os.path.normpath(path).startswith(os.path.normpath(folder).rstrip("/") + "/")


def _local_remotes(args: list[Word], config: list[tuple[str, str, str]], where: str) -> list[str]:
    """The repositories on this machine `git push` may push to (each word that names a folder here, each remote's
    URL that does): git runs their receiving hooks."""
    urls = [value for _, name, value in config if fnmatch.fnmatchcase(name, "remote.*.*url")]
    for word in args:
        if word and (not word.startswith("-") or word.startswith("--repo=")):
            urls.append(word.removeprefix("--repo="))
    out: list[str] = []
    for url in urls:
        path = url.removeprefix("file://")
        if "://" in path or ":" in path.partition("/")[0]:
            continue                  # over the network (`host:repo`, `ssh://…`)
        full = os.path.normpath(os.path.join(where, os.path.expanduser(path)))
        if path and os.path.isdir(full) and full not in out:
            out.append(full)
    return out[:MAX_FOLDERS]


def _template(args: list[Word], config: list[tuple[str, str, str]]) -> str | None:
    """The template folder `git init`/`git clone` copy hooks from: `--template`, init.templateDir, the
    environment's GIT_TEMPLATE_DIR; "" for git's own (its hooks are samples); None when only known when it runs."""
    for i, word in enumerate(args):
        if word is not None and word.startswith("--template="):
            return word.partition("=")[2]
        if word == "--template":
            return args[i + 1] if i + 1 < len(args) else ""
    configured = next((value for _, name, value in reversed(config) if name == "init.templatedir"), None)
    return configured if configured is not None else os.environ.get("GIT_TEMPLATE_DIR", "")


def _config_files(repository: Repository, where: str) -> list[str]:
    """The files git reads there: the repository's config, the user's, each one a config includes, and a `.git`
    file naming the git folder (a worktree's, a submodule's)."""
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    files = [os.environ.get("GIT_CONFIG_GLOBAL") or os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config")]
    if repository.common:
        files += [os.path.join(repository.common, "config"), os.path.join(repository.common, "config.worktree")]
    for origin, _, _ in repository.config:
        if origin.startswith("file:"):      # a relative one from the top folder, where git reads them from
            files.append(os.path.join(repository.top or where, origin[len("file:"):]))
    pointer = os.path.join(repository.top or where, ".git")
    if os.path.isfile(pointer):
        files.append(pointer)
    return [os.path.normpath(f) for f in dict.fromkeys(files)]


def ask_git(where: str, options: tuple[str, ...]) -> Repository | None:
    """The repository git finds in `where` with its own options (`--git-dir`, `--work-tree`): its hooks folder, git
    folder, top folder and config. A folder not there yet (the line makes it) is read from the nearest one above
    it that is there. None when git fails otherwise or takes too long; with no git installed nothing runs."""
    if shutil.which("git") is None:
        return Repository(None, None, None, ())
    cwd = where
    while not os.path.isdir(cwd):
        cwd = os.path.dirname(cwd)
    env = {**os.environ, "LC_ALL": "C", "LANGUAGE": "", "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}

    def git(*args: str) -> tuple[int, str, bytes] | None:
        try:
            done = subprocess.run(["git", *options, *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                  capture_output=True, timeout=TIMEOUT, check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.returncode, done.stdout.decode("utf-8", "surrogateescape"), done.stderr

    asked = ("rev-parse", "--path-format=absolute", "--git-path", "hooks", "--git-common-dir")
    paths = git(*asked, "--show-toplevel")
    if paths is not None and paths[0] != 0 and b"must be run in a work tree" in paths[2]:
        paths = git(*asked)           # a bare repository, or inside the git folder: no top folder
    listed = git("config", "--list", "-z", "--show-origin")
    if paths is None or listed is None or listed[0] != 0:
        return None
    fields = listed[1].split("\0")
    config = []
    for origin, entry in zip(fields[0::2], fields[1::2]):
        name, _, value = entry.partition("\n")
        config.append((origin, name, value))
    if paths[0] != 0:
        return Repository(None, None, None, tuple(config)) if b"not a git repository" in paths[2] else None
    lines = paths[1].split("\n")
    if len(lines) < 2 or not os.path.isabs(lines[0]) or not os.path.isabs(lines[1]):
        return None
    hooks, common = lines[0], lines[1]
    top = lines[2] if len(lines) > 3 and os.path.isabs(lines[2]) else None
    configured = next((value for _, name, value in reversed(config) if name.lower() == "core.hookspath"), None)
    if configured and top and not os.path.isabs(os.path.expanduser(configured)):
        hooks = os.path.normpath(os.path.join(top, configured))   # relative to the top folder, where hooks run
    return Repository(hooks, common, top or None, tuple(config))
