"""Deny means deny (issue 26.1): with `deny = ["Bash(rm:*)"]` in bypass mode, every way of writing an `rm` that
the round-2 attack used is refused by the real `contextual -p`, and each file it aimed at survives."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Sequence

import pytest

from tests.cli_helpers import cli_env, contextual, home_of
from tests.fakes.llm_server import FakeLLMServer

FINISH = "Thought: done\nAction: Finish[finished]"

# Each command aims at its own file, so a survivor names the case that failed.
EVASIONS = {
    "v5": "echo $(rm v5)", "v6": "echo `rm v6`", "f1": "X=1 rm f1", "f2": "(rm f2)", "f3": "{ rm f3; }",
    "f4": "rm\tf4", "f5": "/bin/rm f5", "f6": "command rm f6", "f7": "'rm' f7", "f8": "\\rm f8",
    "f9": "bash -c 'rm f9'", "f10": "echo f10 | xargs rm", "f11": "find . -name f11 -exec rm {} \\;",
    "f12": "sudo -n rm f12 2>/dev/null || env A=1 nice rm f12", "f13": "echo rm f13 | sh",
    # Text made when the line runs (issue 31's round): nothing to check a rule against, so the deny rule holds.
    "o1": "echo " + base64.b64encode(b"rm o1").decode() + " | base64 -d | sh", "o2": "source <(echo rm o2)",
    "o3": "R=r; ${R}m o3", "o4": "coproc rm o4",
}


def refused_in_bypass(project: Path, evasions: dict[str, str], then: tuple[str, ...] = (), rule: str = "Bash(rm:*)",
                      **env: str) -> list[str]:
    """Each command of `evasions` (file it would remove -> command) run in bypass mode under deny = `rule`,
    then `then`: each is refused and every file survives. Returns the first line of each result. `env`: more
    environment for the run."""
    (project / ".contextual").mkdir(exist_ok=True)
    (project / ".contextual" / "config.toml").write_text(f'[permissions]\ndeny = ["{rule}"]\n')
    for name in evasions:
        (project / name).write_text("keep\n")
    script = [f"Thought: go\nAction: Bash[{json.dumps({'command': c})}]" for c in (*evasions.values(), *then)]
    with FakeLLMServer(kind="openai", script=[*script, FINISH]) as srv:
        result = contextual(["-p", "go", "--permission-mode", "bypass"], project,
                            cli_env(home_of(project), srv.base_url, **env))
    assert result.returncode == 0 and result.stdout == "finished\n", result.stderr
    heads = [r["messages"][-1]["content"].removeprefix("Observation: ").partition("\n")[0]
             for r in srv.requests[1:]]
    for name, head in zip(evasions, heads):
        assert head.startswith("[error permission_denied: `") and f"` is denied by {rule}" in head, \
            (evasions[name], head)
    assert sorted(p.name for p in project.iterdir() if p.name in evasions) == sorted(evasions)
    return heads


def test_every_evasion_of_a_deny_rule_is_refused_in_bypass_mode_and_the_file_survives(project: Path):
    heads = refused_in_bypass(project, EVASIONS, then=("touch made && echo ok",))
    assert heads[len(EVASIONS)] == "[exit 0]" and (project / "made").exists()     # other commands still run


def test_a_read_deny_rule_covers_grep_glob_ls_and_bash_naming_the_file_and_the_model_is_told(project: Path):
    (project / ".contextual").mkdir()
    (project / ".contextual" / "config.toml").write_text('[permissions]\ndeny = ["Read(secret.txt)"]\n')
    (project / "secret.txt").write_text("TOKEN-hidden-value\n")
    (project / "open.txt").write_text("TOKEN-open-value\n")
    actions = ['Grep[{"pattern": "TOKEN"}]', 'Glob[{"pattern": "*.txt"}]', 'LS[{}]',
               'Grep[{"pattern": "TOKEN", "path": "secret.txt"}]', 'Read[{"file_path": "secret.txt"}]',
               'Bash[{"command": "cat secret.txt"}]', 'Bash[{"command": "tr a-z A-Z < ./secret.txt"}]']
    script = [f"Thought: look\nAction: {action}" for action in actions] + [FINISH]
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "go", "--permission-mode", "bypass"], project,
                            cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0, result.stderr
    grep, glob, ls, grep_named, read, cat, redirected = [r["messages"][-1]["content"] for r in srv.requests[1:]]
    assert "TOKEN-open-value" in grep and "hidden" not in grep and "secret.txt" not in grep
    assert "1 file withheld by a Read deny rule" in grep
    assert "open.txt" in glob and "secret.txt" not in glob and "1 matching file withheld" in glob
    assert "secret.txt  [withheld]" in ls and "a Read deny rule withholds their contents" in ls
    assert "permission_denied" in grep_named and "hidden" not in grep_named
    assert "permission_denied" in read and "hidden" not in read
    for bash in (cat, redirected):        # a Bash line naming the file, as an argument or a redirection
        assert "is denied by Read(secret.txt)" in bash and "hidden" not in bash.lower()
    stored = "".join(p.read_text() for p in home_of(project).rglob("*.jsonl"))
    assert stored and "TOKEN-hidden-value" not in stored                    # nor in the session


def test_a_grep_that_found_nothing_keeps_what_it_left_out_in_the_history_later_turns_read(project: Path):
    """The turn's own observation said "(skipped 1 file withheld by a Read deny rule)" and what .gitignore hid;
    history's stored form dropped both, so the next turn read a bare "No matches" as if the text were nowhere."""
    (project / ".contextual").mkdir()
    (project / ".contextual" / "config.toml").write_text('[permissions]\ndeny = ["Read(secret.txt)"]\n')
    (project / "secret.txt").write_text("NEEDLE-hidden\n")
    (project / ".gitignore").write_text("build/\n")
    (project / "build").mkdir()
    (project / "build" / "gen.txt").write_text("NEEDLE-generated\n")
    script = ['Thought: look\nAction: Grep[{"pattern": "NEEDLE"}]', FINISH, FINISH]
    with FakeLLMServer(kind="openai", script=script) as srv:
        env = cli_env(home_of(project), srv.base_url)
        first = contextual(["-p", "find it", "--permission-mode", "bypass"], project, env)
        later = contextual(["-p", "and now?", "-c", "--permission-mode", "bypass"], project, env)
    assert first.returncode == 0 and later.returncode == 0, first.stderr + later.stderr
    said = ("(skipped 1 file withheld by a Read deny rule)", "(.gitignore hid build/ from the search")
    assert all(note in srv.requests[1]["messages"][-1]["content"] for note in said)      # in the turn
    [stored] = [m["content"] for m in srv.requests[2]["messages"] if "No matches" in m["content"]
                or "match_count" in m["content"]]
    assert all(note in stored for note in said), stored                                   # and in history
    assert "NEEDLE-hidden" not in json.dumps(srv.requests)


def test_a_read_deny_rule_holds_for_globs_naming_the_file_and_for_edits_whose_diff_would_show_it(project: Path):
    """helper57: `cat secre*`, `cat s?cret.txt`, `cat {secret,x}.txt` printed the file, and Edit, Write and
    MultiEdit of it (or of a link to it) ran and showed its old lines in their diff."""
    (project / ".contextual").mkdir()
    (project / ".contextual" / "config.toml").write_text('[permissions]\ndeny = ["Read(secret.txt)"]\n')
    (project / "secret.txt").write_text("TOKEN-hidden-value\n")
    (project / "link").symlink_to("secret.txt")
    (project / "open.txt").write_text("TOKEN-open-value\n")
    edit = {"old_string": "TOKEN", "new_string": "X"}
    actions = [f"Bash[{json.dumps({'command': c})}]" for c in ("cat secre*", "cat s?cret.txt", "cat {secret,x}.txt")]
    actions += [f"Edit[{json.dumps({'file_path': 'secret.txt', **edit})}]", f"Edit[{json.dumps({'file_path': 'link', **edit})}]",
                f"MultiEdit[{json.dumps({'file_path': 'secret.txt', 'edits': [edit]})}]",
                f"Write[{json.dumps({'file_path': 'secret.txt', 'content': 'new'})}]",
                f"Bash[{json.dumps({'command': 'cat open*'})}]"]
    script = [f"Thought: look\nAction: {action}" for action in actions] + [FINISH]
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "go", "--permission-mode", "bypass"], project,
                            cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0, result.stderr
    *refused, other = [r["messages"][-1]["content"] for r in srv.requests[1:]]
    for text in refused:
        assert "is denied by Read(secret.txt)" in text and "hidden" not in text, text
    assert "TOKEN-open-value" in other                                  # other globs still run
    assert (project / "secret.txt").read_text() == "TOKEN-hidden-value\n"


# A fourth red team (helper hE): each deleted its file through this CLI in bypass mode before the fix.
FOURTH = {
    "a1": "shopt -s expand_aliases\nalias A=''\nA rm a1", "a2": "shopt -s expand_aliases\nalias A=command\nA rm a2",
    "m1": "y='a[$(rm m1)]'; s=abc; echo ${s:y}", "m2": "y='a[$(rm m2)]'; echo ${b[y]}", "m3": "y='a[$(rm m3)]'; b[y]=1",
    "m4": "y='a[$(rm m4)]'; for ((i=y; i<1; i++)); do :; done", "c1": "bash -c -o errexit 'rm c1'",
    "c2": "sh -co errexit 'rm c2'", "k1": "sudo -n -k rm k1 2>/dev/null || x86_64 rm k1",
    "h1": "cat <<E\"F\"\nx\nEF\nrm h1\nE\"F\"", "s1": "BASH_ENV=s1.sh bash -c :", "s2": "HOME=. bash -lc :",
    "t1": "F=t1.sh; echo 'rm t1' > $F; bash t1.sh", "t2": "mkdir e; echo 'rm t2' > e/t2.sh; cp e/t2.sh .; ./t2.sh",
}


def test_a_fourth_red_teams_evasions_are_refused_in_bypass_mode_and_the_files_survive(project: Path):
    (project / "s1.sh").write_text("rm s1\n")                      # written by an earlier step
    (project / ".bash_profile").write_text("rm s2\n")
    for name in ("t1.sh", "t2.sh"):
        (project / name).write_text("echo hi\n")
        (project / name).chmod(0o755)
    refused_in_bypass(project, FOURTH)


# A sixth red team (helper76): each deleted its file through this CLI in bypass mode before the fix. Earlier steps
# left `zap` (a link to rm) and `clean` (a script) in a folder of PATH, as a user's ~/.local/bin, and w.sh, which
# runs the words it is given.
SIXTH = {
    "d1": "declare -a a='($(rm d1))'", "d2": "a=(1); unset 'a[$(rm d2)]'", "d3": "declare -i n; n='a[$(rm d3)]'",
    "d4": "builtin let 'a[$(rm d4)]'", "i1": "bash <<< 'ls' <<< 'rm i1'", "i2": "bash <<< 'ls' < i2.sh",
    "p1": "zap p1", "p2": "clean p2", "w1": "bash w.sh rm w1", "w2": "./w.sh rm w2",
    # a name a declaration builds (helper-131): `export ${V}V=…` set BASH_ENV, which the next bash ran
    "e1": "V=BASH_EN; export ${V}V=e1.sh; bash -c :",
}


def test_a_sixth_red_teams_evasions_are_refused_in_bypass_mode_and_the_files_survive(project: Path):
    folder = project.parent / "bin"
    folder.mkdir()
    (folder / "zap").symlink_to(shutil.which("rm") or "/bin/rm")
    (folder / "clean").write_text('#!/bin/sh\nrm -f "$1"\n')
    (project / "i2.sh").write_text("rm i2\n")
    (project / "e1.sh").write_text("rm e1\n")
    (project / "w.sh").write_text('#!/bin/sh\nexec "$@"\n')
    for script in (folder / "clean", project / "w.sh"):
        script.chmod(0o755)
    heads = refused_in_bypass(project, SIXTH, then=("./w.sh touch made",),
                              PATH=f"{folder}{os.pathsep}{os.environ['PATH']}")
    assert heads[len(SIXTH)] == "[exit 0]" and (project / "made").exists()     # it runs what may run


def test_an_allow_rule_does_not_run_what_a_line_evaluates_later_without_asking(project: Path):
    """`Bash(echo:*)` allowed `y='a[$(rm f)]'; echo $((y))`, which runs rm: headless default mode ran it."""
    (project / ".contextual").mkdir()
    (project / ".contextual" / "config.toml").write_text('[permissions]\nallow = ["Bash(echo:*)"]\n')
    (project / "f").write_text("keep\n")
    script = [f"Thought: go\nAction: Bash[{json.dumps({'command': c})}]"
              for c in ("y='a[$(rm f)]'; echo $((y))", "y='$(rm f)'; echo ${y@P}", "echo ok")] + [FINISH]
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "go"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0, result.stderr
    heads = [r["messages"][-1]["content"].removeprefix("Observation: ").partition("\n")[0]
             for r in srv.requests[1:]]
    assert heads[0].startswith("[error permission_denied") and heads[1].startswith("[error permission_denied")
    assert heads[2] == "[exit 0]" and (project / "f").exists()


# Programs a git command runs from files of the repository and of git's config (core/git_runs.py): each line ran
# its `touch` through this CLI in bypass mode under deny = Bash(touch:*) before the fix. name -> (what earlier
# steps left, the line); the stand-in file is the case's name.
def _hook(name: str, path: str = ".git/hooks/pre-commit") -> str:
    return f"mkdir -p {Path(path).parent}; printf '#!/bin/sh\\ntouch {name}\\n' > {path}; chmod +x {path}"


GIT_RUNS = {
    "g1": (_hook("g1"), "git commit -q --allow-empty -m x"),
    "g2": (_hook("g2", ".git/hooks/post-checkout"), "git checkout -q -b feature"),
    "g3": (_hook("g3", ".git/hooks/pre-push"), "git push -q . HEAD:refs/heads/copy"),
    "g4": (_hook("g4", "hk/pre-commit") + "; git config core.hooksPath hk", "git commit -q --allow-empty -m x"),
    "g5": ("", "printf '#!/bin/sh\\ntouch g5\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; "
               "git commit -q --allow-empty -m x"),
    "g6": ("git config alias.zap '!touch g6'", "git zap"),
    "g7": ("git config --global alias.zap '!touch g7'", "git zap"),
    "g8": (_hook("g8", ".git/hooks/commit-msg") + "; git config alias.ci 'commit -q --allow-empty'", "git ci -m x"),
    "g9": ("git config core.fsmonitor 'touch g9'", "git status --short"),
}


def _git_project(tmp_path: Path, setup: str, deny: str) -> tuple[Path, Path, dict[str, str]]:
    """A project that is a git repository (set up by `setup`, a shell line run in it) under one deny rule, with a
    home of its own for git (no user or system config): the project, that home, and the environment."""
    project, user = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    user.mkdir()
    env = cli_env(home_of(project), None, HOME=str(user), GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="u",
                  GIT_AUTHOR_EMAIL="u@x", GIT_COMMITTER_NAME="u", GIT_COMMITTER_EMAIL="u@x")
    subprocess.run(setup, shell=True, cwd=project, env=env, check=True)
    (project / ".contextual").mkdir()
    (project / ".contextual" / "config.toml").write_text(f'[permissions]\ndeny = ["{deny}"]\n')
    return project, user, env


def _run_in_bypass(project: Path, user: Path, env: dict[str, str], lines: Sequence[str]) -> list[str]:
    """Each line as a Bash call of one `-p` turn in bypass mode; the first line of each observation."""
    script = [f"Thought: go\nAction: Bash[{json.dumps({'command': c})}]" for c in lines]
    with FakeLLMServer(kind="openai", script=[*script, FINISH]) as srv:
        result = contextual(["-p", "go", "--permission-mode", "bypass"], project, {**env, **cli_env(
            home_of(project), srv.base_url, HOME=str(user), GIT_CONFIG_NOSYSTEM="1")})
    assert result.returncode == 0 and result.stdout == "finished\n", result.stderr
    return [r["messages"][-1]["content"].removeprefix("Observation: ").partition("\n")[0] for r in srv.requests[1:]]


@pytest.mark.parametrize("name", GIT_RUNS)
def test_what_git_runs_from_files_is_refused_under_a_deny_rule_and_never_runs(tmp_path: Path, name: str):
    setup, line = GIT_RUNS[name]
    project, user, env = _git_project(tmp_path, f"git init -q && git commit -q --allow-empty -m init && "
                                                f"{setup or ':'}", "Bash(touch:*)")
    refused, after = _run_in_bypass(project, user, env, (line, "echo ok"))
    assert refused.startswith("[error permission_denied: `") and "` is denied by Bash(touch:*)" in refused, refused
    assert not (project / name).exists()
    assert after == "[exit 0]"


def test_a_commit_with_only_git_s_sample_hooks_or_a_harmless_one_runs_under_a_deny_rule(tmp_path: Path):
    project, user, env = _git_project(tmp_path, "git init -q", "Bash(touch:*)")
    lines = ("git add -A && git commit -q -m \"$(cat <<'EOF'\nfirst\n\nbody\nEOF\n)\"",
             "printf '#!/bin/sh\\necho checked > hook-ran\\n' > h && chmod +x h",
             "mv h .git/hooks/pre-commit", "git status --short && git commit -q --allow-empty -m second")
    heads = _run_in_bypass(project, user, env, lines)
    assert heads == ["[exit 0]"] * 4 and (project / "hook-ran").read_text() == "checked\n"


# A seventh red team (helper-95): each deleted its file through this CLI in bypass mode before the fix. tree-sitter
# read the words after a redirection's target as more targets, so the line was `exec`, `command`, `nice` alone.
SEVENTH = {"r1": "exec 2>/dev/null rm r1", "r2": "command >/dev/null rm r2", "r3": "nice 2>/dev/null rm r3",
           "r4": "time 2>/dev/null rm r4", "r5": "exec <<E rm r5\nE"}


def test_a_seventh_red_teams_evasions_are_refused_in_bypass_mode_and_the_files_survive(project: Path):
    heads = refused_in_bypass(project, SEVENTH, then=("echo >/dev/null ok",))
    assert heads[len(SEVENTH)] == "[exit 0]"


def test_a_deny_rules_options_hold_in_their_long_spellings_and_the_files_survive(project: Path):
    """helper-98: under deny = Bash(rm -rf:*) each of these removed its file in bypass mode: rm reads each as -rf
    (getopt_long takes a unique start of a long option). `rm --verbose` is no -rf: it still runs."""
    (project / "plain").write_text("x\n")
    heads = refused_in_bypass(project, {"l1": "rm --recursive --force l1", "l2": "rm -R -f l2",
                                        "l3": "rm --rec --f l3", "l4": "rm l4 --force -r"},
                              then=("rm --verbose plain",), rule="Bash(rm -rf:*)")
    assert heads[4] == "[exit 0]" and not (project / "plain").exists()


def test_a_read_deny_rule_holds_for_a_file_named_as_bash_reads_the_name(project: Path):
    """helper-95: each printed .env under deny = Read(.env): a `cd` first, `~+`, an ANSI-C escape, a bracket bash
    reads as a negation, `dotglob`."""
    (project / ".contextual").mkdir()
    (project / ".contextual" / "config.toml").write_text('[permissions]\ndeny = ["Read(.env)"]\n')
    (project / ".env").write_text("TOKEN-hidden-value\n")
    (project / "open.txt").write_text("TOKEN-open-value\n")
    (project / "sub").mkdir()
    lines = ("cd sub && cat ../.env", "cat ~+/.env", "cat $'\\x2eenv'", "cat .en[^x]", "shopt -s dotglob; cat *",
             "cat *")
    script = [f"Thought: look\nAction: Bash[{json.dumps({'command': c})}]" for c in lines] + [FINISH]
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "go", "--permission-mode", "bypass"], project,
                            cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0, result.stderr
    *refused, other = [r["messages"][-1]["content"] for r in srv.requests[1:]]
    for line, text in zip(lines, refused):
        assert "is denied by Read(.env)" in text and "hidden" not in text, (line, text)
    assert "TOKEN-open-value" in other and "hidden" not in other     # `*` names no .env without dotglob: it runs


def test_a_read_rule_holds_for_a_link_with_an_undecodable_name_a_cd_to_a_glob_and_a_variable_the_line_sets(
        project: Path):
    """Tenth red team (helper-107), in bypass mode under Read(.env) and Edit(secrets/**): a link an earlier step
    made with a name that is not UTF-8 (`l\\x80`, as LS shows it) let Read print .env and Write replace secrets/k;
    `cd s[u]b && cat ../.env` and `X=.env; cat $X` printed it."""
    (project / ".contextual").mkdir()
    (project / ".contextual" / "config.toml").write_text(
        '[permissions]\ndeny = ["Read(.env)", "Edit(secrets/**)"]\n')
    (project / ".env").write_text("TOKEN-hidden-value\n")
    (project / "secrets").mkdir()
    (project / "secrets" / "k").write_text("keep\n")
    (project / "sub").mkdir()
    made = "ln -s \"$(printf .en)v\" $'l\\x80' && ln -s secrets/k $'m\\x80' && echo made"     # a value made when it runs
    calls = [("Bash", {"command": made}), ("Read", {"file_path": "l\\x80"}),
             ("Write", {"file_path": "m\\x80", "content": "gone\n"}),
             ("Bash", {"command": "cd s[u]b && cat ../.env"}), ("Bash", {"command": "X=.env; cat $X"})]
    script = [f"Thought: look\nAction: {tool}[{json.dumps(args)}]" for tool, args in calls] + [FINISH]
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "go", "--permission-mode", "bypass"], project,
                            cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0, result.stderr
    first, *refused = [r["messages"][-1]["content"] for r in srv.requests[1:]]
    assert "made" in first, first
    for (tool, args), text in zip(calls[1:], refused):
        assert "permission_denied" in text and "hidden" not in text, (tool, args, text)
    assert (project / "secrets" / "k").read_text() == "keep\n"


def test_a_sub_command_git_guesses_under_help_autocorrect_is_refused_and_pushes_nothing(tmp_path: Path):
    """helper-97: under deny = Bash(git push:*) in bypass mode, `git -c help.autocorrect=1 psuh` pushed (git runs
    the command nearest a mistyped one); so did `git psuh` once an earlier step set it in .git/config."""
    remote = tmp_path / "remote.git"
    project, user, env = _git_project(tmp_path, f"git init -q --bare {remote} && git init -q && git commit -q "
                                                f"--allow-empty -m init && git remote add origin {remote}",
                                      "Bash(git push:*)")
    lines = ("git -c help.autocorrect=1 psuh -q origin HEAD:refs/heads/a",
             "git config help.autocorrect 1 && git psuh -q origin HEAD:refs/heads/b",
             "git config help.autocorrect immediate", "git psuh -q origin HEAD:refs/heads/c", "git status --short")
    heads = _run_in_bypass(project, user, env, lines)
    for line, head in zip(lines[:2] + lines[3:4], heads[:2] + heads[3:4]):
        assert head.startswith("[error permission_denied: `"), (line, head)
        assert "` is denied by Bash(git push:*)" in head, (line, head)
    assert heads[2] == heads[4] == "[exit 0]"
    pushed = subprocess.run(["git", "for-each-ref"], cwd=remote, capture_output=True, text=True, check=True).stdout
    assert pushed == ""


# An eighth red team (helper-102): each deleted its file through this CLI in bypass mode before the fix. tar and git
# give a `--` after an option that takes a value to that option, and read the options after it; the reading stopped.
EIGHTH = {"e1": "tar --exclude -- --to-command='rm e1' -xf a.tar", "e2": "git grep -q -e -- -O'rm e2'"}


def test_an_eighth_red_teams_evasions_are_refused_in_bypass_mode_and_the_files_survive(project: Path):
    (project / "m.txt").write_text("a -- b\n")
    with tarfile.open(project / "a.tar", "w") as archive:
        archive.add(project / "m.txt", arcname="m.txt")
    subprocess.run("git init -q && git add m.txt", shell=True, cwd=project, check=True)
    refused_in_bypass(project, EIGHTH)
    assert (project / "m.txt").exists()


def test_a_force_push_past_an_option_given_dashdash_as_its_value_is_refused_and_rewrites_nothing(tmp_path: Path):
    """helper-102: under deny = Bash(git push --force:*) in bypass mode, `git push -o -- -f` force-pushed: `--` is
    -o's value, so the -f after it is an option."""
    remote = tmp_path / "remote.git"
    project, user, env = _git_project(
        tmp_path, f"git init -q --bare {remote} && git -C {remote} config receive.advertisePushOptions true && "
                  f"git init -q && git commit -q --allow-empty -m a && git remote add origin {remote} && "
                  "git push -q origin HEAD:refs/heads/main && git commit -q --amend --allow-empty -m b",
        "Bash(git push --force:*)")
    pushed = subprocess.run(["git", "rev-parse", "main"], cwd=remote, capture_output=True, text=True).stdout
    lines = ("git push -q -o -- -f origin HEAD:main", "git push -q --push-option -- --force origin HEAD:main")
    for line, head in zip(lines, _run_in_bypass(project, user, env, lines)):
        assert head.startswith("[error permission_denied: `") and "` is denied by Bash(git push --force:*)" in head, \
            (line, head)
    assert subprocess.run(["git", "rev-parse", "main"], cwd=remote, capture_output=True, text=True).stdout == pushed


# helper-104: launchers the table did not name. A container with the project mounted (`docker run -v "$PWD":/w
# alpine rm -rf /w`) is read in tests/test_shell_parse.py; here programs that fail harmlessly where they are missing.
NINTH = {"n1": "nix develop <<< 'rm n1'", "n2": "vagrant ssh -c 'rm n2'", "n3": "lxc exec c -- rm n3",
         "n4": "heroku run -a app rm n4", "n5": "kgx -e rm n5", "n6": "pipenv shell -- -c 'rm n6'"}


def test_launchers_of_containers_machines_and_terminals_are_refused_in_bypass_mode(project: Path):
    refused_in_bypass(project, NINTH)


# helper-111: launchers and wrappers a survey found unread. As root, `runuser root -s /bin/rm u1` and `runuser root
# <<< 'rm u2'` deleted the file and `perf stat --pre` hands its line to a shell; elsewhere each fails harmlessly.
UNREAD = {"u1": "runuser root -s /bin/rm u1", "u2": "runuser root <<< 'rm u2'", "u3": "perf stat --pre 'rm u3' true",
          "u4": "nix run nixpkgs#busybox -- rm u4", "u5": "kubectl exec p rm u5"}


def test_launchers_a_survey_found_unread_are_refused_in_bypass_mode(project: Path):
    refused_in_bypass(project, UNREAD)


# helper-137: tree-sitter read these as text where bash runs them; each deleted its file through this CLI in bypass
# mode under deny = Bash(rm:*) before the fix (a process substitution runs beside the line: the `wait` lets it).
MISREAD = {"z1": "cat <<EOF\n  $(rm z1)\nEOF", "z2": "echo $(cat <<E\n`rm z2`\nE\n)", "z3": "echo x$'\\\\'; rm z3 #'",
           "z4": "x=${y:-<(rm z4)}; wait", "z5": "! ! rm z5", "z6": "set -o history -H\nhistory -s 'rm z6'\n!!",
           "z7": "echo a]\\ #; rm z7", "z8": "echo x >$\nrm z8"}


def test_lines_tree_sitter_reads_otherwise_than_bash_are_refused_in_bypass_mode(project: Path):
    heads = refused_in_bypass(project, MISREAD, then=("cat <<EOF\n  ${HOME}\nEOF",))
    assert heads[len(MISREAD)] == "[exit 0]"


def test_an_allow_rule_does_not_run_what_tree_sitter_read_as_text_without_asking(project: Path):
    """`Bash(cat:*)` and `Bash(echo:*)` ran these in headless default mode, unasked: each runs rm."""
    (project / ".contextual").mkdir()
    (project / ".contextual" / "config.toml").write_text('[permissions]\nallow = ["Bash(cat:*)", "Bash(echo:*)"]\n')
    (project / "f").write_text("keep\n")
    script = [f"Thought: go\nAction: Bash[{json.dumps({'command': c})}]"
              for c in ("cat <<EOF\n  $(rm f)\nEOF", "echo x$'\\\\'; rm f #'", "echo a]\\ #; rm f", "echo ok")]
    script.append(FINISH)
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "go"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0, result.stderr
    heads = [r["messages"][-1]["content"].removeprefix("Observation: ").partition("\n")[0]
             for r in srv.requests[1:]]
    assert all(head.startswith("[error permission_denied") for head in heads[:3]), heads
    assert heads[3] == "[exit 0]" and (project / "f").exists()


# An Edit deny rule held for the editing tools only: a Bash line replaced, edited or removed the file it protects.
WRITES = {"keep-1": "echo gone > keep-1", "keep-2": "sed -i s/keep/gone/ keep-2", "keep-3": "echo gone | tee keep-3",
          "keep-4": "rm keep-4", "keep-5": "cp /dev/null keep-5", "keep-6": "F=keep-6; echo gone > $F",
          "keep-7": "sort -o keep-7 /dev/null"}


def test_a_bash_line_writing_a_file_an_edit_rule_protects_is_refused_and_the_file_is_unchanged(project: Path):
    heads = refused_in_bypass(project, WRITES, then=("echo y > other && cat keep-1",), rule="Edit(keep-*)")
    assert heads[len(WRITES)] == "[exit 0]" and (project / "other").read_text() == "y\n"
    assert [(project / name).read_text() for name in WRITES] == ["keep\n"] * len(WRITES)


def test_whole_work_tree_git_commands_xargs_and_diffs_are_refused_under_an_edit_rule_and_the_file_is_unchanged(
        tmp_path: Path):
    """helper-110: under Edit(secrets/**) in bypass mode these rewrote or removed secrets/k without naming it.
    helper-128: so did `git checkout-index -f -a`, and `git -C inner reset --hard` with inner a repository whose
    core.worktree is the project."""
    diff = "--- a/secrets/k\\n+++ b/secrets/k\\n@@ -1 +1 @@\\n-CHANGED\\n+PATCHED\\n"
    project, user, env = _git_project(
        tmp_path, "mkdir secrets && echo SECRET > secrets/k && git init -q && git add secrets && git commit -q -m a "
                  "&& git init -q inner && git -C inner config core.worktree ../.. && git -C inner add ../secrets/k "
                  "&& git -C inner commit -q -m i "
                  f"&& echo CHANGED > secrets/k && echo NEW > secrets/new && printf -- '{diff}' > d.diff",
        "Edit(secrets/**)")
    lines = ("git reset -q --hard", "git stash -q", "git clean -fdq", "git checkout -qf HEAD",
             "find . -name k | xargs rm", "git apply d.diff", "patch -p1 < d.diff", "git checkout-index -f -a",
             "git -C inner reset -q --hard")
    heads = _run_in_bypass(project, user, env, (*lines, "git stash list && git reset -q --soft HEAD"))
    for line, head in zip(lines, heads):
        assert head.startswith("[error permission_denied: `") and "` is denied by Edit(secrets/**)" in head, \
            (line, head)
    assert heads[len(lines)] == "[exit 0]"
    assert (project / "secrets" / "k").read_text() == "CHANGED\n" and (project / "secrets" / "new").exists()


def test_git_stash_reset_and_clean_run_when_git_writes_no_protected_file_and_are_refused_when_it_would(
        tmp_path: Path):
    """helper-117: with .env ignored and untracked, `Edit(.env)` refused `git stash` and `git reset --hard`, which
    write only tracked files, and `git clean -fd`, which leaves ignored files; now they run. `git clean -fdx`
    removes ignored files: refused; once .env is tracked, so are `git stash` and `git reset --hard`. helper-119:
    `git stash pop` was refused after `git stash` ran, leaving the edit in the stash; it holds only app.py: runs."""
    project, user, env = _git_project(
        tmp_path, "git init -q && printf '.env\\n.contextual/\\n' > .gitignore && echo a > app.py && git add -A && "
                  "git commit -q -m a && echo SECRET > .env && echo b > app.py && echo n > notes", "Edit(.env)")
    runs = ("git stash -q", "git stash pop -q && grep -qx b app.py", "echo c > app.py && git reset -q --hard",
            "git clean -fdq")
    refused = ("git clean -fdxq", "git stash -q", "git reset -q --hard")
    heads = _run_in_bypass(project, user, env, (*runs, refused[0], "git add -f .env && git commit -q -m env",
                                                *refused[1:]))
    ran = len(runs)
    assert heads[:ran] == ["[exit 0]"] * ran and heads[ran + 1] == "[exit 0]", heads
    for line, head in zip(refused, heads[ran:ran + 1] + heads[ran + 2:]):
        assert head.startswith("[error permission_denied: `") and "` is denied by Edit(.env)" in head, (line, head)
    assert (project / "app.py").read_text() == "a\n" and not (project / "notes").exists()
    assert (project / ".env").read_text() == "SECRET\n" and (project / ".contextual").is_dir()


def test_git_under_its_other_names_and_spellings_is_refused_in_bypass_mode(tmp_path: Path):
    """Through `-p`: git run as `git-push` (`exec -a`), `git bundle create` over a protected
    file, git by its full path showing one as committed, `git submodule--helper foreach`: each ran past its rule;
    refused now, and nothing they aimed at happened (tests/test_git_other_names.py: each with the real git)."""
    project, user, env = _git_project(
        tmp_path, "git init -q --bare ../remote.git && git init -q -b main && mkdir secrets && echo k > secrets/k && "
                  "echo TOKEN > .env && "
                  "printf '.contextual/\\n' > .gitignore && git add -A && git commit -q -m a && "
                  "git remote add origin ../remote.git", "Bash(touch:*)")
    rules = ["Bash(touch:*)", "Bash(git push:*)", "Edit(secrets/**)", "Read(.env)"]
    (project / ".contextual" / "config.toml").write_text(f"[permissions]\ndeny = {json.dumps(rules)}\n")
    refused = {"exec -a git-push git origin main": "Bash(git push:*)",
               "git bundle create secrets/k HEAD": "Edit(secrets/**)",
               f"{shutil.which('git')} show HEAD:.env": "Read(.env)",
               "git submodule--helper foreach 'touch made'": "Bash(touch:*)"}
    heads = _run_in_bypass(project, user, env, (*refused, "git log -1 --format=%s"))
    for (line, rule), head in zip(refused.items(), heads):
        assert head.startswith("[error permission_denied: `") and f"` is denied by {rule}" in head, (line, head)
    assert heads[len(refused)] == "[exit 0]"
    assert not (project / "made").exists() and (project / "secrets" / "k").read_text() == "k\n"
    assert subprocess.run(["git", "--git-dir=../remote.git", "rev-parse", "-q", "--verify", "main"], cwd=project,
                          capture_output=True).returncode != 0        # nothing pushed


def test_files_a_line_has_a_program_read_by_itself_are_refused_in_bypass_mode_and_nothing_leaks(project: Path):
    """Files the model wrote (Write is allowed outside the protected paths) and then had a program
    read: a script printing secrets/k ran past Read(secrets/**) and one writing .env past Edit(.env) (their lines
    were read for Bash rules only), as did a startup file named in a variable (`BASH_ENV=secrets/k`), xargs's list
    (`-a FILE`), less's key file (its `#env` LESSOPEN ran rm), the program SHELL names (`flock -c` runs it) and
    package.json's scripts (`npm run build`)."""
    (project / ".contextual").mkdir()
    (project / ".contextual" / "config.toml").write_text(
        '[permissions]\ndeny = ["Bash(rm:*)", "Read(secrets/**)", "Edit(.env)"]\n')
    (project / "secrets").mkdir()
    (project / "secrets" / "k").write_text("TOKEN-hidden-value\n")
    (project / ".env").write_text("E=1\n")
    (project / "victim").write_text("keep\n")
    written = {"check.sh": "cat secrets/k\n", "env.sh": "echo gone > .env\n", "list": "secrets/k\n",
               "lk": "#env\nLESSOPEN=|rm victim; echo %s\n", "sh.sh": "#!/bin/sh\nrm victim\n",
               "package.json": json.dumps({"scripts": {"build": "tsc && rm victim"}})}
    refused = {"bash check.sh": "Read(secrets/**)", "BASH_ENV=env.sh bash -c true": "Edit(.env)",
               "BASH_ENV=secrets/k bash -c true": "Read(secrets/**)", "xargs -a list cat": "Read(secrets/**)",
               "LESSKEYIN=lk less list": "Bash(rm:*)", "SHELL=./sh.sh flock lk -c true": "Bash(rm:*)",
               "npm run build": "Bash(rm:*)"}
    calls = [*(("Write", {"file_path": name, "content": text}) for name, text in written.items()),
             ("Bash", {"command": "chmod +x sh.sh"}), *(("Bash", {"command": line}) for line in refused),
             ("Bash", {"command": "cat list"})]
    script = [f"Thought: go\nAction: {tool}[{json.dumps(args)}]" for tool, args in calls] + [FINISH]
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "go", "--permission-mode", "bypass"], project,
                            cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0 and result.stdout == "finished\n", result.stderr
    seen = [r["messages"][-1]["content"] for r in srv.requests[1:]]
    made, heads, last = seen[:len(written) + 1], seen[len(written) + 1:-1], seen[-1]
    assert not any("permission_denied" in text for text in made), made
    assert len(heads) == len(refused)
    for (line, rule), text in zip(refused.items(), heads):
        assert f"`{line}` is denied by {rule}" in text, (line, text)
    assert "[exit 0]" in last and "secrets/k" in last                        # other lines still run
    assert "TOKEN-hidden-value" not in json.dumps(srv.requests)
    assert (project / ".env").read_text() == "E=1\n" and (project / "victim").read_text() == "keep\n"


def test_what_a_programs_own_language_runs_reads_or_writes_is_refused_in_bypass_mode_and_nothing_happens(
        project: Path):
    """awk's `system()` and `getline`, sed's `e`, `s///e`, `r` and `w`, split's `--filter`, vim's `:!`: each ran its
    rm, printed the secret or wrote .env through this CLI in bypass mode (core/shell/languages.py reads them now)."""
    (project / ".contextual").mkdir()
    (project / ".contextual" / "config.toml").write_text(
        '[permissions]\ndeny = ["Bash(rm:*)", "Read(secrets/**)", "Edit(.env)"]\n')
    (project / "secrets").mkdir()
    (project / "secrets" / "k").write_text("TOKEN-hidden-value\n")
    (project / ".env").write_text("E=1\n")
    (project / "victim").write_text("keep\n")
    (project / "x").write_text("a\n")
    refused = {"awk 'BEGIN { system(\"rm victim\") }'": "Bash(rm:*)", "awk 'BEGIN { \"rm victim\" | getline }'":
               "Bash(rm:*)", "sed -n '1e rm victim' x": "Bash(rm:*)", "sed 's/.*/rm victim/e' x": "Bash(rm:*)",
               "split --filter='rm victim' x": "Bash(rm:*)", "sed -n 'r secrets/k' x": "Read(secrets/**)",
               "awk 'BEGIN { getline l < \"secrets/k\"; print l }'": "Read(secrets/**)",
               "sed -n 'w .env' x": "Edit(.env)", "awk '{ print > \".env\" }' x": "Edit(.env)"}
    if shutil.which("vim"):
        refused["vim -es -u NONE -c '!rm victim' -c 'q!'"] = "Bash(rm:*)"
    script = [f"Thought: go\nAction: Bash[{json.dumps({'command': c})}]"
              for c in (*refused, "awk '{ print $1 }' x && sed -n 1p x")] + [FINISH]
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "go", "--permission-mode", "bypass"], project,
                            cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0 and result.stdout == "finished\n", result.stderr
    *heads, last = [r["messages"][-1]["content"] for r in srv.requests[1:]]
    for (line, rule), text in zip(refused.items(), heads):
        assert f"`{line}` is denied by {rule}" in text, (line, text)
    assert "[exit 0]" in last and "a\na" in last                               # other awk and sed lines run
    assert "TOKEN-hidden-value" not in json.dumps(srv.requests)
    assert (project / ".env").read_text() == "E=1\n" and (project / "victim").read_text() == "keep\n"


def test_an_allow_rule_for_awk_or_sed_does_not_run_what_their_language_runs_without_asking(project: Path):
    """`Bash(awk:*)`, `Bash(sed:*)` and `Bash(split:*)` ran each of these unasked in headless default mode, and each
    removed f: what the program runs is a command of the line, which no allow rule here covers, so it is asked
    (headless: refused for want of a user). Their plain uses still run."""
    (project / ".contextual").mkdir()
    (project / ".contextual" / "config.toml").write_text(
        '[permissions]\nallow = ["Bash(awk:*)", "Bash(sed:*)", "Bash(split:*)"]\n')
    (project / "f").write_text("keep\n")
    (project / "x").write_text("a\n")
    asked = ("awk 'BEGIN { system(\"rm f\") }'", "sed -n '1e rm f' x", "split --filter='rm f' x",
             "sed 's/.*/rm f/e' x")
    script = [f"Thought: go\nAction: Bash[{json.dumps({'command': c})}]"
              for c in (*asked, "awk '{ print $1 }' x && sed -n 1p x")] + [FINISH]
    with FakeLLMServer(kind="openai", script=script) as srv:
        result = contextual(["-p", "go"], project, cli_env(home_of(project), srv.base_url))
    assert result.returncode == 0, result.stderr
    *heads, last = [r["messages"][-1]["content"] for r in srv.requests[1:]]
    for line, text in zip(asked, heads):
        assert "not allowed in permission mode 'default' without a user to ask" in text, (line, text)
    assert "[exit 0]" in last and (project / "f").read_text() == "keep\n"


def test_what_the_latest_review_found_through_ed_program_files_make_option_words_and_git_is_refused_in_bypass_mode(
        tmp_path: Path):
    """Each ran in bash through this CLI in bypass mode before: ed's `!`, `awk -f` reading secrets/k, a Makefile's
    `rm`, a file named as sed's `-e` option beside a glob, `git config` into .git/config, `git sparse-checkout`
    removing secrets/k, `git grep` with git's own glob printing it. A plain make, ed and git grep still run."""
    project, user, env = _git_project(
        tmp_path, "mkdir secrets sub && echo TOKEN-hidden-value > secrets/k && echo a > x && echo keep > victim && "
                  "printf 'BEGIN { getline l < \"secrets/k\"; print l }' > k.awk && "
                  "printf 'zap:\\n\\trm victim\\nok:\\n\\t@echo made\\n' > Makefile && "
                  "touch 'sub/-e1e cd ..;rm victim' sub/a && git init -q && git add -A && git commit -qm a",
        "Bash(rm:*)")
    (project / ".contextual" / "config.toml").write_text(
        '[permissions]\ndeny = ["Bash(rm:*)", "Read(secrets/**)", "Edit(.git/config)", "Edit(secrets/**)"]\n')
    refused = {"printf '!rm victim\\nq\\n' | ed": "Bash(rm:*)", "awk -f k.awk": "Read(secrets/**)",
               "make zap": "Bash(rm:*)", "cd sub && sed -n p -* a": "Bash(rm:*)",
               "git config alias.x '!echo hi'": "Edit(.git/config)",
               "git sparse-checkout set --no-cone /x": "Edit(.git/config)",     # and secrets/k
               "git grep TOKEN -- 'sec*'": "Read(secrets/**)"}
    config = (project / ".git" / "config").read_text()
    heads = _run_in_bypass(project, user, env, (*refused, "make ok && ed -s x <<< ',p' && git grep -c a -- 'x*'"))
    for (line, rule), head in zip(refused.items(), heads):
        assert head.startswith("[error permission_denied: `") and f"` is denied by {rule}" in head, (line, head)
    assert heads[len(refused)] == "[exit 0]"
    assert (project / "victim").exists() and (project / "secrets" / "k").exists()
    assert (project / ".git" / "config").read_text() == config
