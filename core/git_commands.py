"""git's own sub-commands and its `help.autocorrect` (for core/shell/aliases.py, core/shell/unwrap.py and
core/git_runs.py). With autocorrect on, a sub-command that is none of git's commands nor an alias runs the command
or alias git finds nearest to it (`git -c help.autocorrect=1 psuh` is `git push`): which one only git knows, so
the sub-command is read as one known only when it runs (`git $X`)."""

from __future__ import annotations

import re
from collections.abc import Container

# git's own options before its sub-command that take the next word as their value (`--exec-path` alone prints a
# path and runs nothing: its value is then no sub-command either; `--shallow-file F`, git's own for its fetches, is
# taken by any git). One list: the deny rules' reading of a git line (core/shell/wrappers.py) and the one walker of
# its options for what its files run, what it writes and where a submodule's command runs (core/git_line.py).
GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix",
                               "--config-env", "--attr-source", "--exec-path", "--shallow-file"})

# `git --list-cmds=main` of git 2.39 without its internal helpers (`submodule--helper` …) and contrib's subtree.
# A command a newer git adds is taken for a mistyped one (refused, not let through).
GIT_COMMANDS = frozenset("""
add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr check-ignore check-mailmap
check-ref-format checkout checkout-index cherry cherry-pick clean clone column commit commit-graph commit-tree config
count-objects credential credential-cache credential-store daemon describe diagnose diff diff-files diff-index
diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo
format-patch fsck fsck-objects gc get-tar-commit-id grep hash-object help hook http-backend http-fetch http-push
imap-send index-pack init init-db instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit
maintenance merge merge-base merge-file merge-index merge-octopus merge-one-file merge-ours merge-recursive
merge-recursive-ours merge-recursive-theirs merge-resolve merge-subtree merge-tree mergetool mktag mktree
multi-pack-index mv name-rev notes pack-objects pack-redundant pack-refs patch-id pickaxe prune prune-packed pull
push quiltimport range-diff read-tree rebase receive-pack reflog remote remote-ext remote-fd remote-ftp remote-ftps
remote-http remote-https repack replace request-pull rerere reset restore rev-list rev-parse revert rm send-pack
shell shortlog show show-branch show-index show-ref sparse-checkout stage stash status stripspace submodule switch
symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info upload-archive upload-pack var
verify-commit verify-pack verify-tag version whatchanged worktree write-tree""".split())

# git's own helpers a line may name as a sub-command: `git submodule--helper foreach CMD` runs CMD
GIT_HELPERS = frozenset({"submodule--helper"})


def dashed(name: str) -> str | None:
    """The sub-command git runs when started under the name `git-SUB` (its own program in its exec path,
    /usr/lib/git-core/git-push; a link or copy of it so named; `exec -a git-push git`): SUB, for git's commands and
    helpers; None for any other name (`git-lfs` is a program of its own)."""
    sub = name[len("git-"):] if name.startswith("git-") else ""
    return sub if sub in GIT_COMMANDS or sub in GIT_HELPERS else None


# Values that run no guess: false/no/off (newer gits: show it), never, show, prompt (it asks only on a terminal;
# the Bash tool's standard input is /dev/null), and 0 however git's integer parser spells it (`00`, `+0`, `0x0`,
# `0k`). Anything else runs one: a number after that many tenths of a second (a negative one at once),
# `immediate`, and in newer gits true/yes/on and a bare `help.autocorrect`; a value git cannot read stops git
# before it runs anything, and counts as running here.
_NO_GUESS = frozenset({"false", "no", "off", "never", "show", "prompt"})
_ZERO = re.compile(r"[+-]?(?:0x)?0+[kmg]?")


def autocorrect_runs(value: str) -> bool:
    """Whether git runs its guess for a mistyped sub-command under this `help.autocorrect` value."""
    spelled = value.strip().lower()
    return spelled not in _NO_GUESS and not _ZERO.fullmatch(spelled)


def guessed(sub: str, aliases: Container[str]) -> bool:
    """Whether git, with autocorrect on, guesses what `git SUB` runs: SUB is none of its commands (their names
    are case-sensitive) nor an alias (whose names are not: `aliases` in lower case)."""
    return sub not in GIT_COMMANDS and sub.lower() not in aliases
