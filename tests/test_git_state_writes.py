"""Edit and Write deny rules and the git commands that write files they do not name, by git's state
(core/bash_files/git_state.py, helper-117): `git stash`, `git reset --hard`, `git checkout -f` write only tracked
files, `git clean` only untracked ones, so with .env ignored (the usual case) `Edit(.env)` no longer refuses them.
Through the CLI: tests/test_deny_rules_cli.py."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from contextual.core.bash_files import git_state, git_tree
from contextual.core.permission_rules import PermissionRules

GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x",
           "GIT_COMMITTER_NAME": "u", "GIT_COMMITTER_EMAIL": "u@x"}


def _git(project: Path, line: str) -> None:
    env = {**os.environ, **GIT_ENV, "HOME": str(project.parent / "home")}
    subprocess.run(line, shell=True, cwd=project, env=env, check=True)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Tracked: app.py, secrets/k; untracked: notes/todo; ignored: .env, build/out/k."""
    project = tmp_path_factory.mktemp("git") / "proj"
    project.mkdir()
    _git(project, "git init -q -b main && printf '.env\\nbuild/\\n' > .gitignore && mkdir secrets notes build "
                  "build/out && echo a > app.py && echo k > secrets/k && git add -A && git commit -q -m a && "
                  "git branch other && echo SECRET > .env && echo t > notes/todo && echo o > build/out/k")
    return project


def _denied(project: Path, rule: str, command: str) -> bool:
    rules = PermissionRules.from_tables({"deny": [rule]})
    return rules.denies("Bash", {"command": command}, str(project)) is not None


IGNORED, TRACKED, UNTRACKED, IGNORED_DIR = "Edit(.env)", "Edit(secrets/**)", "Edit(notes/**)", "Write(build/**)"
EVERY = {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}


@pytest.mark.parametrize("command, denied_under", [
    # tracked files only, given no commit (HEAD is the one checked out)
    ("git stash", {TRACKED}), ("git stash push -q", {TRACKED}), ("git stash -q -- notes", set()),
    ("git reset --hard", {TRACKED}), ("git reset -q --hard HEAD", {TRACKED}), ("git reset --merge", {TRACKED}),
    ("git checkout -f", {TRACKED}), ("git checkout -qf HEAD", {TRACKED}), ("git switch -f", {TRACKED}),
    ("git -C notes reset --hard", {TRACKED}), ("cd notes && git stash", {TRACKED}),
    # untracked too, then ignored too
    ("git stash -u", {TRACKED, UNTRACKED}), ("git stash --include-untracked", {TRACKED, UNTRACKED}),
    ("git stash --inc", {TRACKED, UNTRACKED}), ("git stash -ku", {TRACKED, UNTRACKED}),
    ("git stash -a", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}), ("git stash --all", {TRACKED, UNTRACKED, IGNORED,
                                                                                      IGNORED_DIR}),
    # clean: the untracked that are not ignored; -x all untracked; -X the ignored (with -e, all untracked)
    ("git clean -fd", {UNTRACKED}), ("git clean -fdq notes", {UNTRACKED}), ("git clean -fd secrets", set()),
    ("git clean -fdx", {UNTRACKED, IGNORED, IGNORED_DIR}), ("git clean -fdX", {IGNORED, IGNORED_DIR}),
    ("git clean -fX -e notes", {UNTRACKED, IGNORED, IGNORED_DIR}), ("git clean -n", set()),
    # a commit, a branch or a stash can bring in any path
    ("git reset --hard other", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}),
    ("git reset --hard HEAD~1", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}),
    ("git checkout -f other", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}),
    # checkout-index: the index's files (tracked), named or all; with --prefix new files below its folder (from the
    # top), with --temp new `.merge_file_*` files at the top
    ("git checkout-index -f -a", {TRACKED}), ("git checkout-index -qfa", {TRACKED}), ("git checkout-index -f --stdin",
                                                                                      {TRACKED}),
    ("git checkout-index -f -- secrets/k", {TRACKED}), ("git checkout-index -f -- .env app.py", set()),
    ("cd notes && git checkout-index -f -- ../secrets/k", {TRACKED}), ("git checkout-index -a --temp", set()),
    ("git checkout-index -a --prefix=secrets/", {TRACKED}), ("git checkout-index -a --prefix build/x/", {IGNORED_DIR}),
    ("cd notes && git checkout-index -a --prefix=out/", set()), ("git checkout-index -a --prefix=x", EVERY),
    ("git add -f .env && git checkout-index -f -a", EVERY), ("git --work-tree=. checkout-index -f -a", EVERY),
    ("git switch -f other", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}),
    ("git stash pop", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}),
    ("git stash apply", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}),
    # git's state as checked may not be what the command meets: every path counts
    ("git add -f .env && git stash", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}),
    ("git rm -q --cached secrets/k; git clean -fd", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}),
    ("sudo git stash", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}),
    ("GIT_INDEX_FILE=i git stash", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}),
    ("HOME=/ git clean -fd", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}),
    ("git -c core.excludesFile=x clean -fd", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}),
    ("git --git-dir=.git stash", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}),
    ("printf '' > .gitignore; git clean -fd", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}),
    ("echo x > .git/info/exclude; git stash", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}),
    ("git clean -fd > log", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}),
    ("git stash; git clean -fd", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR}),
    # …but not where the rest of the line only reads git's state or writes another file
    ("git status --short && git stash && git stash list", {TRACKED}), ("git stash > log", {TRACKED}),
    ("git clean -fd 2>/dev/null", {UNTRACKED}),
    ("git diff --output=.gitignore; git clean -fd", {TRACKED, UNTRACKED, IGNORED, IGNORED_DIR})])
def test_a_git_command_writing_some_of_the_work_tree_is_refused_where_git_says_it_writes_the_file(
        repo: Path, command: str, denied_under: set[str]):
    for rule in (IGNORED, TRACKED, UNTRACKED, IGNORED_DIR):
        assert _denied(repo, rule, command) is (rule in denied_under), (rule, command)


def test_a_glob_rule_is_matched_against_each_file_git_lists_up_to_tree_entries(repo: Path,
                                                                               monkeypatch: pytest.MonkeyPatch):
    """`Write(**/todo)` names no folder: git lists the whole work tree's files of the kinds, each is matched (past
    TREE_ENTRIES of them, refused as a tree too large to look through)."""
    for command, denied in (("git stash", False), ("git reset --hard", False), ("git stash -u", True),
                            ("git clean -fd", True), ("git clean -fdX", False)):
        assert _denied(repo, "Write(**/todo)", command) is denied, command
    monkeypatch.setattr(git_state, "TREE_ENTRIES", 2)         # .gitignore, app.py and secrets/k are tracked
    assert _denied(repo, "Write(**/todo)", "git stash")


def test_a_tracked_file_where_a_protected_folder_is_and_a_removal_only_staged_count(tmp_path: Path):
    """HEAD holds a file `cfg` where the work tree has a folder `cfg/` with an untracked key: `git reset --hard`
    and `git stash` replace the folder with the file. A file whose removal is only staged is written back."""
    project = tmp_path / "proj"
    project.mkdir()
    _git(project, "git init -q && echo x > cfg && echo k > old && git add -A && git commit -q -m a && "
                  "git rm -q --cached cfg old && rm cfg && mkdir cfg && echo KEY > cfg/key")
    for command in ("git reset --hard", "git stash", "git checkout -f"):
        assert _denied(project, "Edit(cfg/key)", command), command
        assert _denied(project, "Edit(old)", command), command
    assert not _denied(project, "Edit(cfg/key)", "git clean -fdX")


def test_a_git_that_cannot_say_leaves_every_path_counted(repo: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch):
    """No git on PATH, a folder that is no repository, git blocked past the timeout on a .gitignore that is a
    FIFO: `git stash` is refused as before under a rule for an ignored file."""
    fake = tmp_path / "fake"
    (fake / ".git").mkdir(parents=True)
    (fake / ".env").write_text("SECRET\n")
    assert _denied(fake, IGNORED, "git stash") and _denied(fake, IGNORED, "git clean -fd")
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    _git(blocked, "git init -q && touch .env")
    os.mkfifo(blocked / ".gitignore")
    monkeypatch.setattr(git_state, "TIMEOUT_S", 0.3)
    assert _denied(blocked, IGNORED, "git clean -fd")
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    assert _denied(repo, IGNORED, "git stash") and not _denied(repo, IGNORED, "echo git stash")


def test_git_stash_pop_apply_and_branch_count_only_the_files_the_stash_holds(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch):
    """helper-119: `git stash` ran under Edit(.env) with .env ignored, `git stash pop` was refused (any path of the
    work tree), so the edit stayed in the stash. Now pop, apply and branch count the stash's files: its tracked
    changes, its untracked files (`-u`, not on disk until it is popped); every path where git cannot say (no such
    stash, no git) and where HEAD renamed a file it changes or a folder where it adds one (git's merge follows)."""
    project = tmp_path / "proj"
    project.mkdir()
    _git(project, "git init -q && echo .env > .gitignore && mkdir src cfg lib && echo a > src/a.py && "
                  "echo c > cfg/c.toml && echo y > lib/y.py && git add -A && git commit -q -m a && echo S > .env && "
                  "echo b > lib/new.py && git add lib/new.py && git stash -q && echo b > src/a.py && git stash -q && "
                  "mkdir notes && echo t > notes/todo && git stash -q -u && echo d > cfg/c.toml && git stash -q")
    env, src, todo, cfg, lib = IGNORED, "Edit(src/**)", "Write(**/todo)", "Edit(cfg/**)", "Edit(lib/**)"
    every = {env, src, todo, cfg, lib}
    commit = subprocess.run(["git", "rev-parse", "stash@{2}"], cwd=project, capture_output=True, text=True,
                            check=True).stdout.strip()
    rows = [("git stash pop", {cfg}), ("git stash apply -q --index 'stash@{2}'", {src}), ("git stash apply 1", {todo}),
            (f"git stash pop {commit}", {src}), ("git stash branch b 2", {src}), ("git stash apply 3", {lib}),
            ("cd src && git stash pop -q", {cfg}), ("git stash list && git stash pop > log", {cfg}),
            ("git stash pop 7", every), ("git stash pop $N", every), ("git stash pop 0 1", every),
            ("git stash drop -q && git stash pop", every), ("git stash save x", every)]
    for command, denied_under in rows:
        for rule in every:
            assert _denied(project, rule, command) is (rule in denied_under), (rule, command)
    # HEAD renames src/a.py, and lib/ (where the oldest stash adds lib/new.py): those two stashes may write anywhere;
    # `branch` checks the stash's base out first, so the files HEAD changed since then count too
    _git(project, "git mv src/a.py src/b.py && git mv lib lib2 && git commit -q -m mv")
    for command, denied_under in [("git stash pop 2", every), ("git stash apply 3", every),
                                  ("git stash pop", {cfg}), ("git stash branch b", {src, cfg, lib})]:
        for rule in every:
            assert _denied(project, rule, command) is (rule in denied_under), (rule, command)
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    assert _denied(project, env, "git stash pop")


def test_asking_git_runs_no_program_a_partial_clone_names(tmp_path: Path):
    """helper-122: in a partial clone whose HEAD's tree is missing, `git ls-files --with-tree=HEAD` fetched it from
    the promisor remote, running the repository config's upload-pack command at check time. No transport now."""
    (tmp_path / "up").mkdir()
    _git(tmp_path / "up", "git init -q --bare")
    project = tmp_path / "proj"
    project.mkdir()
    marker = tmp_path / "ran"
    _git(project, "git init -q && echo .env > .gitignore && git add -A && git commit -q -m a && echo S > .env && "
                  "t=$(git rev-parse HEAD^{tree}) && rm .git/objects/$(echo $t | cut -c1-2)/$(echo $t | cut -c3-) && "
                  "git config core.repositoryformatversion 1 && git config extensions.partialClone origin && "
                  f"git config remote.origin.url {tmp_path / 'up'} && git config remote.origin.promisor true && "
                  "git config protocol.file.allow always && "
                  f"git config remote.origin.uploadpack 'touch {marker}; git-upload-pack'")
    assert _denied(project, IGNORED, "git stash")           # git cannot say: every path counts
    assert not marker.exists()


def test_one_check_waits_for_git_once_however_many_folders_it_runs_in(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch):
    """helper-122: each folder a `cd` names had its own 2 s: 16 folders of a repository whose index is a FIFO held
    the check 32 s (and again for the refusal's message)."""
    project = tmp_path / "proj"
    project.mkdir()
    _git(project, "git init -q && mkdir d1 d2 d3 d4 d5 d6 && touch .env && rm -f .git/index && mkfifo .git/index")
    monkeypatch.setattr(git_state, "TIMEOUT_S", 0.5)
    started = time.monotonic()
    assert _denied(project, IGNORED, "cd d1; cd d2; cd d3; cd d4; cd d5; cd d6; git stash")
    assert time.monotonic() - started < 2.5        # one 0.5 s bound, not six


def test_a_write_through_a_link_into_the_git_folder_changes_what_git_tracks(tmp_path: Path):
    """helper-122: with `g` a link to .git, `cp idx g/index && git reset --hard` swapped in an index that tracks
    .env and then removed it; a hard link to .git/index does the same. Both count as writing git's state."""
    project = tmp_path / "proj"
    project.mkdir()
    _git(project, "git init -q && echo .env > .gitignore && git add -A && git commit -q -m a && echo S > .env && "
                  "ln -s .git g && ln .git/index hard && touch plain")
    for command in ("cp x g/index && git reset --hard", "cp x hard; git stash", "cd g && cp ../x index; cd ..; "
                                                                                  "git stash"):
        assert _denied(project, IGNORED, command), command
    assert not _denied(project, IGNORED, "cp x plain && git stash")


def test_git_told_to_match_pathspecs_in_any_case_writes_what_another_spelling_names(repo: Path,
                                                                                    monkeypatch: pytest.MonkeyPatch):
    """`GIT_ICASE_PATHSPECS=1 git checkout -- .ENV` restored .env past `Edit(.env)` (the words name `.ENV`)."""
    for command in ("GIT_ICASE_PATHSPECS=1 git checkout -- .ENV", "export GIT_ICASE_PATHSPECS=1; git restore .ENV"):
        assert _denied(repo, IGNORED, command), command
    assert not _denied(repo, IGNORED, "git checkout -- .ENV")                  # git matches it as written
    assert not _denied(repo, IGNORED, "GIT_ICASE_PATHSPECS=1 git log -- .ENV")  # reads only
    monkeypatch.setenv("GIT_ICASE_PATHSPECS", "1")                             # inherited by the Bash tool
    assert _denied(repo, IGNORED, "git checkout -- .ENV")


def test_git_writes_the_work_tree_its_repository_or_the_line_names_not_the_one_above_the_folder(tmp_path: Path):
    """helper-128: `git -C inner reset --hard`, inner's core.worktree being the project (`../..`: from its git
    folder), rewrote .env past `Edit(.env)`; so did a `.git` file pointing to a git folder elsewhere whose config
    names the project (a submodule's, `--separate-git-dir`'s), `--git-dir` naming such a repository, and
    `--work-tree=secrets checkout -- k` run outside that work tree (git reads the pathspec from its top). The work
    tree is now the one git uses: any path where its config cannot be read here (a quoted value) or the line sets
    GIT_DIR. A linked work tree reads no core.worktree from the shared config. GIT_ICASE_PATHSPECS was read for
    the whole line, so `-C plain` (a repository of its own) counted the project's .env too."""
    project = tmp_path / "proj"
    project.mkdir()
    _git(project, "git init -q && echo .env > .gitignore && mkdir secrets && echo k > secrets/k && git add -A && "
                  "git commit -q -m a && echo S > .env && git init -q inner && git -C inner config core.worktree "
                  "../.. && git -C inner add -f ../.env && git -C inner commit -q -m e && "
                  f"git init -q --separate-git-dir={tmp_path / 'store'} sub && git -C sub config core.worktree "
                  f"{project} && git -C sub add -f ../.env && git -C sub commit -q -m e && git init -q quoted && "
                  "git init -q plain && echo P > plain/.env && git -C plain add .env && git -C plain commit -q -m p && "
                  "git init -q o && echo O > o/k && git -C o add k && git -C o commit -q -m o && "
                  "git worktree add -q linked")
    with open(project / "quoted" / ".git" / "config", "a") as config:
        config.write('[core]\n\tworktree = "../.."\n')         # git reads it: this check does not
    for nested in ("inner", "sub", "quoted"):
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=project / nested, capture_output=True,
                             text=True, check=True).stdout.strip()
        assert top == str(project), nested          # git's own answer: the project is their work tree
    rows = [("git -C inner reset --hard", True), ("git -C inner stash", True), ("git -C sub reset --hard", True),
            ("cd inner && git checkout-index -f -a", True), ("git -C quoted reset --hard", True),
            ("git -C plain --git-dir=../inner/.git reset --hard", True),
            ("GIT_DIR=../inner/.git git -C plain reset --hard", True),
            ("GIT_ICASE_PATHSPECS=1 git checkout -- .ENV", True),
            ("git -C plain reset --hard", False), ("git -C linked stash", False), ("git -C inner status", False),
            ("GIT_ICASE_PATHSPECS=1 git -C plain checkout -- .ENV", False), ("git stash", False),
            ("git status", False), ("git diff", False), ("git checkout -b x", False)]
    for command, denied in rows:
        assert _denied(project, IGNORED, command) is denied, command
    for command, denied in [("git --git-dir=o/.git --work-tree=secrets checkout -- k", True),
                            ("git --git-dir=o/.git --work-tree=o checkout -- k", False)]:
        assert _denied(project, TRACKED, command) is denied, command


@pytest.mark.parametrize("text, top", [
    ("", "nested"), ("[CORE]\n\tWorkTree = ../..\n", "proj"), ("[core] worktree = ../..\n", "proj"),
    ("[core]\n\tworktree = ..\n", "nested"), ('[core "x"]\n\tworktree = ../..\n', "nested"),
    ("[core]\n\tworktree = ../.. ; here\n", None), ('[core]\n\tworktree = "../.."\n', None),
    ("[core]\n\tx = a \\\n\tworktree = ../..\n", None), ("[include]\n\tpath = more\n", None),
    ('[includeIf "gitdir:/"]\n\tpath = more\n', None), ("[core]\n\tx = a\fworktree = ../..\n", "nested")])
def test_a_repository_s_config_names_its_work_tree_as_git_reads_it_or_is_not_read(tmp_path: Path, text: str,
                                                                                  top: str | None):
    """git_tree.py reads core.worktree from the repository's config (relative to its git folder, the last one
    given; a line ends at a newline only: a form feed is in the value); what it does not read as git does (a
    comment after the value, quotes, a continued line, an include) leaves the work tree not known: any path."""
    project = tmp_path / "proj"
    (project / "nested").mkdir(parents=True)
    _git(project / "nested", "git init -q")
    with open(project / "nested" / ".git" / "config", "a") as config:
        config.write(text)
    found = git_tree.work_tree(str(project / "nested"))
    if top is None:
        assert found is None
    else:
        git_top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=project / "nested",
                                 capture_output=True, text=True, check=True).stdout.strip()
        assert found == git_top == str(project if top == "proj" else project / "nested")


def _store(git_dir: Path, env_text: str = "PWNED") -> None:
    """A git folder at `git_dir` whose index and HEAD hold `.env` (a repository made elsewhere, its .git moved)."""
    scratch = git_dir.parent / (git_dir.name + ".scratch")
    scratch.mkdir(parents=True)
    _git(scratch, f"git init -q && echo {env_text} > .env && git add .env && git commit -q -m e")
    (scratch / ".git").rename(git_dir)
    shutil.rmtree(scratch)


def _layouts(project: Path) -> dict[str, str]:
    """helper-131: hostile layouts where git's work tree is the project but the files, read otherwise than git
    reads them, named a folder below it; each with the line that then wrote .env past `Edit(.env)`."""
    x = project / "x"
    x.mkdir()
    # a `.git` file's path keeps its blanks (git strips line ends only): ` g` is another folder than `g`
    _store(x / " g")
    _git(project, "git --git-dir='x/ g' config core.worktree ../.. && printf 'gitdir:  g\\n' > x/.git")
    # a `.git` that is no file nor folder is passed over by git, to the project's
    (project / "f").mkdir()
    os.mkfifo(project / "f" / ".git")
    (project / "n").mkdir()
    os.symlink("/dev/null", project / "n" / ".git")
    # git resolves a relative core.worktree, and a gitdir, through their links: `..` of a link is its target's
    _store(project / "g1" / "g2")
    _git(project, "git --git-dir=g1/g2 config core.worktree ../.. && mkdir -p s/y t/y && ln -s ../../g1/g2 s/y/.git "
                  "&& ln -s ../../g1 t/y/L && echo 'gitdir: L/g2' > t/y/.git")
    # git walks up from where `-C k/link` leads, not from k (a repository of its own)
    _git(project, "mkdir -p y && git init -q k && ln -s ../y k/link")
    # a folder that is itself a git folder is a bare repository git finds first; core.bare false, core.worktree
    _git(project, "git init -q b")
    _store(project / "b" / "bare")
    _git(project, "git --git-dir=b/bare config core.bare false && git --git-dir=b/bare config core.worktree ../..")
    # a linked work tree reads the shared config's core.worktree under extensions.worktreeConfig
    _store(project / "store")
    _git(project, f"git --git-dir=store worktree add -q {project / 'w' / 'lt'} && "
                  f"git --git-dir=store config extensions.worktreeConfig true && "
                  f"git --git-dir=store config core.worktree {project}")
    # a git folder whose HEAD is a link elsewhere than refs/ is none to git: it goes on to the project's
    _git(project, "git init -q h && printf 'ref: refs/heads/main\\n' > headfile && rm h/.git/HEAD && "
                  "ln -s ../../headfile h/.git/HEAD")
    return {"x": "git -C x reset --hard", "f": "git -C f clean -fdx :/", "n": "git -C n clean -fdx :/",
            "s/y": "git -C s/y reset --hard", "t/y": "git -C t/y reset --hard", "k/link": "git -C k/link clean -fdx :/",
            "b/bare": "git -C b/bare reset --hard", "w/lt": "git -C w/lt reset --hard", "h": "git -C h clean -fdx :/"}


def test_the_work_tree_is_the_one_git_finds_through_links_blanks_and_other_files(tmp_path: Path):
    """helper-131: each line below ran past `Edit(.env)` and git wrote (or removed) the project's .env: the reader
    took `gitdir:  g` for `g`, stopped at a FIFO `.git`, joined `..` after a link as written, walked up from
    `k/link` as written, passed over a bare repository, read no shared core.worktree in a linked work tree under
    extensions.worktreeConfig, took a HEAD linked outside refs/ for a repository's. git's own answer is the
    project for each; the check now refuses them, and a line in a repository of its own still runs."""
    project = tmp_path / "proj"
    project.mkdir()
    _git(project, "git init -q && echo .env > .gitignore && git add -A && git commit -q -m a && echo S > .env")
    for folder, command in _layouts(project).items():
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=project / folder, capture_output=True,
                             text=True, check=True, timeout=10).stdout.strip()
        assert top == str(project), folder
        assert _denied(project, IGNORED, command), command
    _git(project, "git init -q plain && echo P > plain/.env && git -C plain add .env && git -C plain commit -q -m p")
    assert not _denied(project, IGNORED, "git -C plain reset --hard")


def test_a_ls_files_pathspec_and_a_stash_s_paths_are_read_where_git_runs_through_a_link(tmp_path: Path):
    """helper-131: with `a/link` leading to c/d/e, git run there read the pathspec `../../.env` (the project's .env
    as the path is written) as c/.env, said it tracked none, and `git -C a/link reset --hard` rewrote the tracked
    .env; `git -C a/link stash pop` counted a/.env for the stash's .env. Both refused now; from c/d/e they run as
    before where .env is not tracked."""
    project = tmp_path / "proj"
    project.mkdir()
    _git(project, "git init -q && mkdir -p a c/d/e && echo k > c/d/e/k && echo T > .env && git add -A && "
                  "git commit -q -m a && ln -s ../c/d/e a/link && echo S > .env && git stash -q && echo S2 > .env")
    for command in ("git -C a/link reset --hard", "git -C a/link stash pop"):
        assert _denied(project, IGNORED, command), command
    assert not _denied(project, "Edit(a/.env)", "git -C c/d/e stash pop")


@pytest.mark.parametrize("text", ["[core]\n\tworktree = ..\0/x\n", "[core]\n\tworktree = ../..\n"])
def test_a_config_git_reads_no_work_tree_from_or_that_holds_a_nul_leaves_any_path(tmp_path: Path, text: str):
    """helper-131: a NUL in core.worktree crashed the check (ValueError out of realpath); a config without
    core.repositoryformatversion, whose core.worktree git reads in no version alike, was read. Both: any path."""
    project = tmp_path / "proj"
    (project / "x").mkdir(parents=True)
    _git(project / "x", "git init -q")
    (project / "x" / ".git" / "config").write_text(text)
    assert git_tree.work_tree(str(project / "x")) is None


@pytest.mark.parametrize("command, denied", [
    ("export GIT_{WORK_TREE,X}=..; git -C x reset --hard", True), ("V=GIT_WORK_T; export ${V}REE=..; git -C x "
                                                                    "reset --hard", True),
    (". ./vars.sh; git -C x reset --hard", True), ("source vars.sh && git -C x reset --hard", True),
    ('env "$A" git -C x reset --hard', True), ("git --work-tree ~/p -C x reset --hard", True),
    ('git --work-tree="$W" -C x reset --hard', True), ('git $OPTS -C x clean -fdx :/', True),
    ('git -C "$D" clean -fdx', True),
    ("source ./venv/activate && git stash", False), ("export A=1 B='x y'; git stash", False),
    ("git -C x reset --hard", False)])
def test_a_line_that_may_set_git_s_variables_or_folders_where_they_are_not_read_leaves_any_path(
        tmp_path: Path, command: str, denied: bool):
    """helper-128 read GIT_DIR/GIT_WORK_TREE named on the line: a name made by braces or a variable, a sourced file
    setting one, `env` with a word only known when it runs, and git's own `--work-tree ~/p` (bash's `~`), `"$W"` or
    an unknown option word went unread (the last two documented as not read); `GIT_WORK_TREE=proj git -C x reset
    --hard` rewrites the project's .env from x's index. A sourced file that sets none of git's runs as before."""
    project = tmp_path / "proj"
    project.mkdir()
    _git(project, "git init -q && echo .env > .gitignore && git add -A && git commit -q -m a && echo S > .env")
    _store(project / "x" / ".git")
    (project / "vars.sh").write_text(f"export GIT_WORK_TREE={project}\n")
    (project / "venv").mkdir()
    (project / "venv" / "activate").write_text('VIRTUAL_ENV=/v\nexport VIRTUAL_ENV\nPATH="$VIRTUAL_ENV/bin:$PATH"\n'
                                               'export PATH\nunset PYTHONHOME\n')
    assert _denied(project, IGNORED, command) is denied, command
