"""Which spellings of a command's options are the same option (for core/permission_rules.py's deny rules):
`rm -r`, `rm -R`, `rm --recursive` and `rm --rec` (getopt_long takes a unique start of a long option) are one
option; `git branch -D` is `--delete --force`; `kill -9`, `kill -KILL`, `kill -s KILL` send one signal. A program
not in the table reads its short options as letters and leaves its long ones as the words they are.

Each program's long options are all of those its `--help` (coreutils, procps, psmisc, docker, kubectl, pip), `-h`
(git 2.39) or manual page (apt-get) lists, so a start of one resolves as the program would resolve it."""

from __future__ import annotations

import re
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from contextual.core.shell.options import long_starts

if TYPE_CHECKING:
    from contextual.core.shell.nodes import Word

# A group: the options of which one must be shown (one, or each candidate of an ambiguous start in a rule).
Group = frozenset[str]

_SHORT_FLAGS = re.compile(r"-[A-Za-z0-9]+")


@dataclass(frozen=True)
class Options:
    """One program's options: every long one, what a short letter or a long name gives (as long names; a letter
    with no long form is `-x`), which spellings take a signal as their value (kill's `-s`, `--signal`) and which
    others must have a value (a letter or a long name: git push's `o`, `push-option`)."""
    longs: frozenset[str] = frozenset()
    gives: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    signal: frozenset[str] = frozenset()
    values: frozenset[str] = frozenset()
    sub: str = ""                     # the sub-command the table is for (`push` of git push): read after it
    # procps' kill and pkill take the first `-SIGNAL` word anywhere, before getopt reads the rest: `/bin/kill -- -9
    # p` sends KILL (bash's own kill reads -9 there as a process group)
    signal_anywhere: bool = False
    numbers_lead: bool = False        # psmisc, pkill's --signal: a value starting with digits is them (`-s 9x`)
    long_only: bool = False           # getopt_long_only (killall): `-signal KILL`, `-sig=9` are long options

    def needed(self, want: Sequence[str]) -> tuple[tuple[Group, ...], tuple[str, ...]]:
        """A deny rule's words after the command word: the groups of options it names (short bundles, long
        options this table knows, signals) and its other words, in their order (`--opt=value` stays a word)."""
        groups: list[Group] = []
        plain: list[str] = []
        i = 0
        while i < len(want):
            word, following = want[i], want[i + 1] if i + 1 < len(want) else None
            read = self._read(word, following) if _SHORT_FLAGS.fullmatch(word) or (
                word.startswith("--") and ("=" not in word or self._signal_option(word))) else None
            if read is None or (not read[0] and not read[1]):
                plain.append(word)
            else:
                groups.extend(read[0])
                i += read[1]
            i += 1
        return tuple(groups), tuple(plain)

    def shows(self, groups: tuple[Group, ...], words: Sequence[Word]) -> bool:
        """Whether a command's words before `--` give an option of each group, in any order, bundle or spelling
        (getopt reads options after operands too). A word known only when the shell runs may give any."""
        shown: set[str] = set()
        i = 0
        # a `--` an option takes as its value ends nothing: `git push -o -- -f` forces
        while i < len(words) and not (words[i] == "--" and not (i and self._takes_next(words[i - 1]))):
            word, following = words[i], words[i + 1] if i + 1 < len(words) else ""
            if word is None:
                return True
            read = self._read(word, following) if word.startswith("-") else None
            if read is not None and read[1] and following is None:
                return True                                     # `kill -s $SIG`
            if read is not None:
                shown.update(*read[0])
                i += read[1]
            i += 1
        if self.signal and not any(s.startswith("signal ") for s in shown):
            shown.add(_signal_named(signal.SIGTERM.name))       # kill, pkill and killall send TERM by default
        if self.signal_anywhere:
            shown.update(self._signal(word[1:]) for word in words if word and word.startswith("-")
                         and _names_signal(word[1:]))
        return all(group & shown for group in groups)

    def _read(self, word: str, following: Word) -> tuple[list[Group], int] | None:
        """The groups one option word gives and how many words after it are its value (0 or 1); None for a
        word that is no option to this table."""
        if (word.startswith("--") and len(word) > 2) or (self.long_only and len(word) > 2 and word[0] == "-"):
            name, eq, value = word[2 if word.startswith("--") else 1:].partition("=")
            found = long_starts(name, self.longs)
            if not found and word.startswith("--"):
                return None
            if len(found) == 1 and found[0] in self.signal:
                if eq:
                    return [frozenset({self._signal(value)})], 0
                return ([frozenset({self._signal(following)})] if following else []), 1
            gives = [self.gives.get(option, (option,)) for option in found]
            if len(found) == 1:
                return [frozenset({g}) for g in gives[0]], 0
            if found:
                return [frozenset(g for given in gives for g in given)], 0     # ambiguous: any of them
        if not word.startswith("-") or len(word) < 2:
            return None
        if self.signal and (_names_signal(word[1:]) or (self.numbers_lead and word[1].isdigit())):
            return [frozenset({self._signal(word[1:])})], 0           # `kill -9`, `kill -KILL`, `killall -9x`
        groups: list[Group] = []
        for position, letter in enumerate(word[1:], start=1):
            if letter in self.signal:         # getopt: its value is the rest of the word or the next word
                value = word[position + 1:]
                if value:
                    return [*groups, frozenset({self._signal(value)})], 0               # `kill -s9`, `-vsKILL`
                return [*groups, *([frozenset({self._signal(following)})] if following else [])], 1  # `-s KILL`
            groups.extend(frozenset({g}) for g in self.gives.get(letter, ("-" + letter,)))
            if letter in self.values:
                break                         # the rest is its value (`killall -ns -9`: -n's value, then -9)
        return groups, 0

    def _signal(self, text: str) -> str:
        leading = re.match(r"\d+", text) if self.numbers_lead else None
        return f"signal {int(leading.group())}" if leading else _signal_named(text)     # atoi("9x") is 9

    def _takes_next(self, word: Word) -> bool:
        """Whether an option word's value is the next word (`-o`, `-qo`, `--push-option`, `--push`)."""
        if word is None or not word.startswith("-") or word == "--":
            return False
        if word.startswith("--"):
            return "=" not in word and any(o in self.values for o in long_starts(word[2:], self.longs))
        for position, letter in enumerate(word[1:], start=1):
            if letter in self.values:
                return position == len(word) - 1
        return False

    def _signal_option(self, word: str) -> bool:
        found = long_starts(word[2:].partition("=")[0], self.longs)
        return len(found) == 1 and found[0] in self.signal


# bash reads a signal's number as strtoimax does: blanks around it and a `+` (`kill -+9`, `kill -s ' 9'`)
_NUMBER = re.compile(r"\s*\+?(\d+)\s*")


def _names_signal(text: str) -> bool:
    return _NUMBER.fullmatch(text) is not None or "SIG" + text.upper().removeprefix("SIG") in signal.Signals.__members__


def _signal_named(text: str) -> str:
    """A signal as one name for its spellings: `9`, `+9`, `KILL`, `SIGKILL`, `kill` are `signal 9` (this system's
    numbers); a name Python does not know stays a name."""
    if (number := _NUMBER.fullmatch(text)) is not None:
        return f"signal {int(number.group(1))}"
    name = "SIG" + text.upper().removeprefix("SIG")
    found = signal.Signals.__members__.get(name)
    return f"signal {found.value}" if found is not None else f"signal {name}"


def _options(longs: str, gives: str = "", signal_by: str = "", sub: str = "", values: str = "",
             **reading: bool) -> Options:
    """`longs`: every long option; `gives`: `SPELLINGS=NAMES` entries, spellings (a letter or a long name)
    split by `/`, the long names they give by `,` (`r/R=recursive D=delete,force quiet=silent`); `values`: the
    letters and long names that must have a value (not those whose value is optional, `--backup[=CONTROL]`);
    `reading`: how it reads a signal or a single-dash word (signal_anywhere, numbers_lead, long_only)."""
    table: dict[str, tuple[str, ...]] = {}
    for entry in gives.split():
        spellings, _, names = entry.partition("=")
        for spelling in spellings.split("/"):
            table[spelling] = tuple(names.split(","))
    return Options(frozenset(longs.split()), table, frozenset(signal_by.split()), frozenset(values.split()), sub,
                   **reading)


_RM = _options("force interactive one-file-system no-preserve-root preserve-root recursive dir verbose help version",
               "f=force i=interactive r/R=recursive d=dir v=verbose")
_COPY = ("archive attributes-only backup copy-contents force interactive link dereference no-clobber no-dereference "
         "preserve no-preserve parents recursive reflink remove-destination sparse strip-trailing-slashes "
         "symbolic-link suffix target-directory no-target-directory update verbose one-file-system context help "
         "version")
# cp -a is `-dR --preserve=all`, -d `--no-dereference --preserve=links`, -p `--preserve=…`
_CP = _options(_COPY, "a/archive=no-dereference,recursive,preserve b=backup d=no-dereference,preserve f=force "
                      "i=interactive l=link L=dereference n=no-clobber P=no-dereference p=preserve r/R=recursive "
                      "s=symbolic-link S=suffix t=target-directory T=no-target-directory u=update v=verbose "
                      "x=one-file-system Z=context", values="S suffix t target-directory no-preserve sparse")
_MV = _options("backup force interactive no-clobber strip-trailing-slashes suffix target-directory "
               "no-target-directory update verbose context help version",
               "b=backup f=force i=interactive n=no-clobber S=suffix t=target-directory T=no-target-directory "
               "u=update v=verbose Z=context", values="S suffix t target-directory")
_LN = _options("backup directory force interactive logical no-dereference physical relative symbolic suffix "
               "target-directory no-target-directory verbose help version",
               "b=backup d/F=directory f=force i=interactive L=logical n=no-dereference P=physical r=relative "
               "s=symbolic S=suffix t=target-directory T=no-target-directory v=verbose",
               values="S suffix t target-directory")
_MODE = "changes silent quiet verbose no-preserve-root preserve-root reference recursive help version"
_MODE_GIVES = "c=changes f/quiet=silent v=verbose R=recursive"
_GIT_PUSH = _options("verbose quiet repo all mirror delete tags dry-run porcelain force force-with-lease "
                     "force-if-includes recurse-submodules thin receive-pack exec set-upstream progress prune "
                     "no-verify follow-tags signed atomic push-option ipv4 ipv6",
                     "v=verbose q=quiet d=delete n=dry-run f=force u=set-upstream o=push-option 4=ipv4 6=ipv6",
                     sub="push", values="o push-option repo receive-pack exec recurse-submodules")
_GIT_BRANCH = _options("verbose quiet track set-upstream-to unset-upstream color contains no-contains abbrev all "
                       "remotes delete move copy list show-current create-reflog edit-description force merged "
                       "no-merged column sort points-at ignore-case recurse-submodules format",
                       "v=verbose q=quiet t=track u=set-upstream-to r=remotes a=all d=delete D=delete,force m=move "
                       "M=move,force c=copy C=copy,force l=list f=force i=ignore-case", sub="branch",
                       values="u set-upstream-to contains no-contains merged no-merged points-at sort format")
_GIT_CLEAN = _options("quiet dry-run force interactive exclude", "q=quiet n=dry-run f=force i=interactive e=exclude",
                      sub="clean", values="e exclude")
_GIT_RESET = _options("quiet no-refresh mixed soft hard merge keep recurse-submodules patch intent-to-add "
                      "pathspec-from-file pathspec-file-nul", "q=quiet p=patch N=intent-to-add", sub="reset",
                      values="pathspec-from-file")
_GIT_CHECKOUT = _options("guess overlay quiet recurse-submodules progress merge conflict detach track force orphan "
                         "overwrite-ignore ignore-other-worktrees ours theirs patch ignore-skip-worktree-bits "
                         "pathspec-from-file pathspec-file-nul",
                         "q=quiet m=merge d=detach t=track f=force 2=ours 3=theirs p=patch", sub="checkout",
                         values="b B orphan conflict pathspec-from-file")
_GIT_COMMIT = _options("quiet verbose file author date message reedit-message reuse-message fixup squash "
                       "reset-author trailer signoff template edit cleanup status gpg-sign all include interactive "
                       "patch only no-verify dry-run short branch ahead-behind porcelain long null amend "
                       "no-post-rewrite untracked-files pathspec-from-file pathspec-file-nul",
                       "q=quiet v=verbose F=file m=message c=reedit-message C=reuse-message s=signoff t=template "
                       "e=edit S=gpg-sign a=all i=include p=patch o=only n=no-verify z=null u=untracked-files",
                       sub="commit", values="F file m message c reedit-message C reuse-message fixup squash "
                                            "author date trailer t template cleanup pathspec-from-file")
_GIT_TAG = _options("list delete verify annotate message file edit sign cleanup local-user force create-reflog "
                    "column contains no-contains merged no-merged sort points-at format color ignore-case",
                    "l=list d=delete v=verify a=annotate m=message F=file e=edit s=sign u=local-user f=force "
                    "i=ignore-case", sub="tag", values="m message F file u local-user cleanup sort format "
                                                         "contains no-contains merged no-merged points-at")
_PIP_UNINSTALL = _options("requirement yes root-user-action break-system-packages help debug isolated "
                          "require-virtualenv python verbose version quiet log no-input keyring-provider proxy "
                          "retries timeout exists-action trusted-host cert client-cert cache-dir no-cache-dir "
                          "disable-pip-version-check no-color no-python-version-warning use-feature use-deprecated",
                          "r=requirement y=yes h=help v=verbose V=version q=quiet", sub="uninstall",
                          values="r requirement root-user-action python log keyring-provider proxy retries timeout "
                                 "exists-action trusted-host cert client-cert cache-dir use-feature use-deprecated")
_APT_GET = _options("no-install-recommends install-suggests download-only fix-broken ignore-missing fix-missing "
                    "no-download quiet simulate just-print dry-run recon no-act yes assume-yes assume-no "
                    "no-show-upgraded verbose-versions host-architecture build-profiles compile build ignore-hold "
                    "with-new-pkgs no-upgrade only-upgrade allow-downgrades allow-remove-essential "
                    "allow-change-held-packages force-yes allow-unauthenticated print-uris purge reinstall "
                    "list-cleanup target-release default-release trivial-only mark-auto no-remove auto-remove "
                    "autoremove only-source diff-only dsc-only tar-only arch-only indep-only "
                    "allow-insecure-repositories allow-releaseinfo-change show-progress with-source error-on help "
                    "version config-file option",
                    "h=help t/default-release=target-release d=download-only f=fix-broken m/fix-missing=ignore-missing "
                    "q=quiet s/just-print/dry-run/recon/no-act=simulate y/assume-yes=yes V=verbose-versions "
                    "a=host-architecture P=build-profiles b/build=compile e=error-on v=version c=config-file "
                    "o=option autoremove=auto-remove",
                    values="t target-release default-release o option c config-file a host-architecture P "
                           "build-profiles")

# Keyed by the command word, or by it and the sub-command a rule names (`git push`).
TABLE: dict[str, Options] = {
    "rm": _RM, "cp": _CP, "mv": _MV, "ln": _LN,
    "rmdir": _options("ignore-fail-on-non-empty parents verbose help version", "p=parents v=verbose"),
    "chmod": _options(_MODE, _MODE_GIVES, values="reference"),
    "chown": _options(_MODE + " dereference no-dereference from", _MODE_GIVES + " h=no-dereference",
                      values="reference from"),
    "chgrp": _options(_MODE + " dereference no-dereference", _MODE_GIVES + " h=no-dereference", values="reference"),
    "shred": _options("force iterations random-source size remove verbose exact zero help version",
                      "f=force n=iterations s=size u=remove v=verbose x=exact z=zero",
                      values="n iterations s size random-source"),
    "truncate": _options("no-create io-blocks reference size help version", "c=no-create o=io-blocks r=reference "
                                                                             "s=size", values="r reference s size"),
    "sed": _options("quiet silent debug expression file follow-symlinks in-place line-length posix regexp-extended "
                    "separate sandbox unbuffered null-data help version",
                    "n/silent=quiet e=expression f=file i=in-place l=line-length E/r=regexp-extended s=separate "
                    "u=unbuffered z=null-data", values="e expression f file l line-length"),
    "git push": _GIT_PUSH, "git branch": _GIT_BRANCH, "git clean": _GIT_CLEAN, "git reset": _GIT_RESET,
    "git checkout": _GIT_CHECKOUT, "git commit": _GIT_COMMIT, "git tag": _GIT_TAG,
    "docker rm": _options("force link volumes", "f=force l=link v=volumes", sub="rm"),
    "docker rmi": _options("force no-prune platform", "f=force", sub="rmi", values="platform"),
    "kubectl delete": _options("all all-namespaces cascade dry-run field-selector filename force grace-period "
                               "ignore-not-found interactive kustomize now output raw recursive selector timeout wait",
                               "A=all-namespaces f=filename i=interactive k=kustomize o=output R=recursive "
                               "l=selector", sub="delete", values="field-selector f filename grace-period k "
                                                                  "kustomize o output l selector timeout raw"),
    "pip uninstall": _PIP_UNINSTALL, "pip3 uninstall": _PIP_UNINSTALL,
    "apt-get": _APT_GET, "apt": _APT_GET,
    # kill: util-linux's and bash's (-n); pkill: procps'; killall: psmisc's
    "kill": _options("signal queue list table help version", "q=queue l=list L=table h=help V=version",
                     signal_by="s n signal", values="q queue", signal_anywhere=True),
    "pkill": _options("signal queue echo count full pgroup group ignore-case newest oldest older parent session "
                      "terminal euid uid exact pidfile logpidfile runstates ignore-ancestors cgroup ns nslist help "
                      "version", "q=queue e=echo c=count f=full g=pgroup G=group i=ignore-case n=newest o=oldest "
                                 "O=older P=parent s=session t=terminal u=euid U=uid x=exact F=pidfile L=logpidfile "
                                 "r=runstates A=ignore-ancestors h=help V=version", signal_by="signal",
                      values="g pgroup G group P parent s session t terminal u euid U uid F pidfile r runstates "
                             "ns nslist cgroup q queue O older", signal_anywhere=True, numbers_lead=True),
    "killall": _options("exact ignore-case process-group younger-than older-than interactive list quiet regexp "
                        "signal user verbose version wait ns context",
                        "e=exact I=ignore-case g=process-group y=younger-than o=older-than i=interactive l=list "
                        "q=quiet r=regexp u=user v=verbose V=version w=wait n=ns Z=context", signal_by="s signal",
                        values="y younger-than o older-than u user n ns Z context", numbers_lead=True,
                        long_only=True),
}

LETTERS = Options()       # a program not in the table: short options as letters, long ones words


def options_of(program: str, words: Sequence[str]) -> Options:
    """The table for a rule on `program` whose other words are `words`: its sub-command's (the first of its
    words that names one: `git push`), else the program's, else letters."""
    for word in words:
        if not word.startswith("-") and f"{program} {word}" in TABLE:
            return TABLE[f"{program} {word}"]
    return TABLE.get(program, LETTERS)
