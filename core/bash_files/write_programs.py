"""Which programs write which of the files their words name, and how those words are spelled: the table
writes.py reads a Bash line with, for Edit and Write deny rules. Options are each program's real ones
(GNU coreutils, curl, wget, tar, git, find); one a program lacks is only never given."""

from __future__ import annotations

from dataclasses import dataclass, field

from contextual.core.shell.getopt_words import Getopt
from contextual.core.shell.wrappers import WRAPPERS


def _set(*words: str) -> frozenset[str]:
    return frozenset(" ".join(words).split())


@dataclass(frozen=True)
class Program:
    """How a program's words name what it writes."""
    operands: str = ""                          # each | destination | last | second | first | script ("": none)
    values: frozenset[str] = frozenset()        # options taking a value: the next word, `-xV` or `--long=V`
    outputs: frozenset[str] = frozenset()       # options whose value is a file written
    into: frozenset[str] = frozenset()          # options whose value is a folder written into
    attached: frozenset[str] = frozenset()      # options whose value, optional, is only attached (`sed -i.bak`)
    only: frozenset[str] = frozenset()          # operands count only with one of these (`sed -i`)
    never: frozenset[str] = frozenset()         # nor with one of these (`gzip -c`)
    scripts: frozenset[str] = frozenset()       # options giving the script (else it is the first operand)
    tree: bool = False                          # an operand goes with all below it (`rm -r`, `mv`)
    when: dict[str, frozenset[str]] = field(default_factory=dict)  # an output or folder counting only with these
    each_with: frozenset[str] = frozenset()     # with one of these each operand is written (`install -d`)
    flags: frozenset[str] = frozenset()         # other options read (`xargs --null`)
    permute: bool = True                        # options after operands too (GNU getopt); perl stops at its first

    def known(self) -> frozenset[str]:
        """Every option named here: a long one may be given by an unambiguous prefix (`--target=DIR`)."""
        return self.values | self.outputs | self.into | self.attached | self.only | self.never | self.scripts \
            | self.each_with | self.flags

    def getopt(self) -> Getopt:
        """Its options for the one getopt reading: every option named here, those of `outputs` and `into` taking a
        value as `values` do; an ambiguous start as each option it may be, so that no version's reading of it is
        missed."""
        takes_value = self.values | self.outputs | self.into
        return Getopt(takes_value, self.attached, self.known() - takes_value - self.attached, self.permute,
                      ambiguous_each=True)


COMPRESS = Program("each", _set("-S --suffix -b --block-size -T --threads --memlimit -L --level -o"),
                   never=_set("-c --stdout --to-stdout -l --list -t --test"), tree=True)


def _in_place(values: str, scripts: str, attached: str = "", permute: bool = True) -> Program:
    """`sed -i`, `perl -pi`, `ruby -i`: the files after the script (or each, with `-e`) are edited in place."""
    return Program("script", _set(values), attached=_set("-i --in-place", attached), only=_set("-i --in-place"),
                   scripts=_set(scripts), permute=permute)


_TAR_CREATE, _TAR_EXTRACT = _set("-c --create -r --append -u --update -A --catenate --concatenate"), \
    _set("-x --extract --get")
PROGRAMS: dict[str, Program] = {
    "tee": Program("each"), "unlink": Program("each"), "rmdir": Program("each"),
    "rm": Program("each", tree=True),
    "truncate": Program("each", _set("-s -r --size --reference")),
    "shred": Program("each", _set("-n -s --iterations --size --random-source")),
    "touch": Program("each", _set("-d -r -t --date --reference")),
    "mkdir": Program("each", _set("-m --mode --context")),
    "mv": Program("destination", _set("-S --suffix"), into=_set("-t --target-directory"), tree=True),
    "cp": Program("destination", _set("-S --suffix"), into=_set("-t --target-directory")),
    "ln": Program("destination", _set("-S --suffix"), into=_set("-t --target-directory")),
    "install": Program("destination", _set("-m -o -g -S --mode --owner --group --suffix --strip-program"),
                        into=_set("-t --target-directory"), each_with=_set("-d --directory")),
    "rsync": Program("last", _set("-e --rsh -f --filter --exclude --include -T --temp-dir --log-file "
                                   "--partial-dir --backup-dir --compare-dest --copy-dest --link-dest")),
    "scp": Program("last", _set("-P -i -o -F -c -l -S -J -D -X")),
    "sed": _in_place("-e -f -l --expression --file --line-length", "-e -f --expression --file"),
    # perl (perl.c's switches): -e, -E and -I take the next word when nothing follows them; -x, -M, -m, -F, -V the
    # rest of the word only (`-x s.pl f`: s.pl is the script, f edited); its switches end at the first operand
    # (`perl -pe 1 f -i`: -i is the script's argument)
    "perl": _in_place("-e -E -I", "-e -E", attached="-x -M -m -F -V", permute=False),
    "ruby": _in_place("-e -r -I -C -F -E --encoding", "-e"),
    "sort": Program(values=_set("-k -t -S -T --key --field-separator --buffer-size --temporary-directory "
                                 "--parallel --files0-from --batch-size --compress-program --random-source"),
                     outputs=_set("-o --output")),
    "uniq": Program("second", _set("-f -s -w --skip-fields --skip-chars --check-chars --group --all-repeated")),
    "split": Program("second", _set("-a -b -C -l -n -t --suffix-length --additional-suffix --bytes "
                                     "--line-bytes --lines --number --separator --filter --numeric-suffixes "
                                     "--hex-suffixes")),
    "patch": Program("first", _set("-i -p -d -r -B -D -F -V -z -Y -g --input --strip --directory "
                                    "--reject-file --prefix --ifdef --fuzz --version-control --suffix "
                                    "--basename-prefix --get"), outputs=_set("-o --output"),
                     never=_set("-o --output --dry-run")),    # `patch -o OUT FILE` writes OUT, not FILE
    "curl": Program(values=_set("-A -b -d -e -E -F -H -K -m -r -T -u -U -w -x -X -y -Y -z --data --header "
                                 "--user --request --user-agent --cookie --max-time --config --form --url"),
                     outputs=_set("-o -c -D --output --cookie-jar --dump-header --trace --trace-ascii --stderr "
                                  "--etag-save --libcurl"), into=_set("--output-dir")),
    "wget": Program(values=_set("-e -i -B -t -T -w -Q -U -l -A -R -D -I -X --execute --input-file --tries "
                                 "--timeout --wait --quota --user-agent --level --accept --reject --domains"),
                     outputs=_set("-O -o -a --output-document --output-file --append-output "
                                  "--save-cookies --save-headers"), into=_set("-P --directory-prefix")),
    "unzip": Program(values=_set("-x -P"), into=_set("-d")),
    "tar": Program(values=_set("-b -H -K -N -g -V -T -X --files-from --exclude-from --format --newer "
                                "--blocking-factor --listed-incremental --label"),
                    outputs=_set("-f --file"), into=_set("-C --directory"),
                    only=_TAR_CREATE | _TAR_EXTRACT,
                    when={"-f": _TAR_CREATE, "--file": _TAR_CREATE, "-C": _TAR_EXTRACT,
                          "--directory": _TAR_EXTRACT}),
    **{name: COMPRESS for name in ("gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma",
                                    "zstd", "unzstd", "compress", "uncompress", "lzip", "pigz")},
}
FIND_ACTIONS = _set("-exec -execdir -ok -okdir")
FIND_PRINTS = _set("-printf -ls -exec -execdir -ok -okdir")     # print more than the names of what find found
FIND_OUTPUTS = _set("-fprint -fprint0 -fprintf -fls")
GIT_WRITES = _set("checkout restore rm mv")
# git's sub-commands writing the files their other words name, from the folder git runs in (besides the `--output=F`
# every sub-command that takes diff or revision options has: git_writes.py): `archive -o F`, `merge-file F BASE
# OTHER` (not with -p), `format-patch -o DIR`, `worktree add DIR` (a new work tree), `worktree move|remove DIR` (one
# with all below it), `bundle create F`, `config -f F`, the marks file of `fast-export|fast-import`, `mailinfo MSG
# PATCH`, `mailsplit -oDIR`, `credential-store --file F`, `index-pack -o F`, `pack-objects BASE` (BASE-*.pack), the
# folder `bugreport -o` and `diagnose -o` write into
GIT_NAMED: dict[str, Program] = {
    "format-patch": Program(outputs=_set("--output"), into=_set("-o --output-directory")),
    "archive": Program(values=_set("--format --prefix --remote --exec --add-file --add-virtual-file"),
                       outputs=_set("-o --output")),
    "merge-file": Program("first", _set("-L"), never=_set("-p --stdout")),
    "worktree add": Program("first", _set("-b -B --reason")),
    "worktree move": Program("destination", tree=True),
    "worktree remove": Program("each", flags=_set("-f --force"), tree=True),
    "bundle create": Program("first", _set("--version")),
    "config": Program(values=_set("--blob --type --default --comment"), outputs=_set("-f --file")),
    **{sub: Program(outputs=_set("--export-marks")) for sub in ("fast-export", "fast-import")},
    "mailinfo": Program("each", _set("--encoding --quoted-cr")),
    "mailsplit": Program(into=_set("-o")),
    "credential-store": Program(outputs=_set("--file")),
    "index-pack": Program(outputs=_set("-o")),
    "pack-objects": Program("first"),
    **{sub: Program(values=_set("-s --suffix --mode"), into=_set("-o --output-directory"))
       for sub in ("bugreport", "diagnose")},
}
# git's sub-commands that write the repository's own config file (its git folder's `config`; the one git_tree.py
# finds), read with these options (`flags`: any one makes it a write): `config` setting a value (`git config NAME
# VALUE`, `--add`, `--unset`, `set`, `edit` …; not `--get`, `--list`, `get`, `list`, nor a `--global`, `--system`,
# `-f F` or `--blob` one), `remote add|rename|rm|set-url|set-branches`, `branch -u|-m|-c|-d|--edit-description|-t`,
# `checkout|switch -t`, `push|fetch|pull -u|--set-upstream`, `submodule init|add|deinit|sync|set-url|set-branch`
# (and `update --init`), `sparse-checkout set|add|init|reapply|disable` (also its `info/sparse-checkout`),
# `maintenance register|start|unregister|stop`. Not read: a new branch's tracking settings written by itself
# (`git checkout BRANCH` guessing a remote one, `git branch NEW origin/x`).
GIT_CONFIG_READS = _set("--get --get-all --get-regexp --get-urlmatch --get-color --get-colorbool -l --list")
GIT_CONFIG_ELSEWHERE = _set("--global --system -f --file --blob")
GIT_CONFIG_EDITS = _set("--add --replace-all --unset --unset-all --rename-section --remove-section -e --edit")
GIT_CONFIG = Program(values=_set("--blob --type --default --comment -f --file"),
                     flags=GIT_CONFIG_READS | GIT_CONFIG_ELSEWHERE | GIT_CONFIG_EDITS)
GIT_CONFIG_ACTIONS = {"set": True, "unset": True, "rename-section": True, "remove-section": True, "edit": True,
                      "get": False, "list": False}
GIT_CONFIG_WRITERS: dict[str, Program] = {
    "branch": Program(values=_set("--contains --no-contains --merged --no-merged --points-at --format --sort "
                                  "--column"),
                      flags=_set("-u --set-upstream-to --unset-upstream -m -M --move -c -C --copy -d -D --delete "
                                 "--edit-description -t --track")),
    "checkout": Program(values=_set("-b -B --orphan --conflict --pathspec-from-file"), flags=_set("-t --track")),
    "switch": Program(values=_set("-c -C --create --force-create --orphan --conflict"), flags=_set("-t --track")),
    "push": Program(values=_set("-o --push-option --repo --receive-pack --exec"), flags=_set("-u --set-upstream")),
    **{sub: Program(values=_set("-o --server-option --upload-pack --depth --deepen --shallow-since "
                                "--shallow-exclude --refmap --recurse-submodules -j --jobs"),
                    flags=_set("--set-upstream")) for sub in ("fetch", "pull")},
}
GIT_CONFIG_SUBS = {"remote": _set("add rename remove rm set-url set-branches"),
                   "submodule": _set("init add deinit sync set-url set-branch"),
                   "sparse-checkout": _set("set add init reapply disable"),
                   "maintenance": _set("register start unregister stop")}
# options of git's tree-writing sub-commands naming a file they write besides: `read-tree --index-output=F`,
# `apply --build-fake-ancestor=F`
GIT_FILE_OPTIONS = {"read-tree": _set("--index-output"), "apply": _set("--build-fake-ancestor")}
# `git clone URL [DIR]`, `git init [DIR]`: the folder they make or fill (a clone's named from its URL when not
# given), with all below it, and `--separate-git-dir`'s
GIT_MADE: dict[str, Program] = {
    "clone": Program("each", _set("-o --origin -b --branch -u --upload-pack --reference --reference-if-able --depth "
                                  "--shallow-since --shallow-exclude -c --config --server-option -j --jobs --filter "
                                  "--bundle-uri --template --ref-format --revision"),
                     into=_set("--separate-git-dir"), attached=_set("--recurse-submodules"), tree=True),
    "init": Program("each", _set("--template --object-format --ref-format -b --initial-branch"),
                    into=_set("--separate-git-dir"), attached=_set("--shared"), tree=True),
}
# git's sub-commands that write files they do not name, with one of `only` given (and none of `never`): below each
# pathspec (an operand, where `operands` is "each"), else the whole work tree (`reset --hard`, `stash`), or for
# GIT_HERE the folder git runs in (`clean -f`)
GIT_TREES: dict[str, Program] = {
    "reset": Program(values=_set("--pathspec-from-file"), only=_set("--hard --merge --keep")),
    "checkout": Program(values=_set("-b -B --orphan --conflict --pathspec-from-file"), only=_set("-f --force")),
    "switch": Program(values=_set("-c -C --create --force-create --orphan --conflict"),
                      only=_set("-f --force --discard-changes")),
    "read-tree": Program(values=_set("--prefix --index-output --exclude-per-directory"), only=_set("-u")),
    "clean": Program("each", _set("-e --exclude"), never=_set("-n --dry-run")),
    "stash": Program("each", _set("-m --message --pathspec-from-file"),       # `git stash [push]`
                     flags=_set("-u --include-untracked -a --all")),
}
GIT_HERE = _set("clean")
# `git checkout-index`: the index's files named (paths, not pathspecs), `-a` all, `--stdin` those it reads; with
# `--prefix=P` (from the top) or `--temp` (`.merge_file_*` at the top) new files instead
GIT_CHECKOUT_INDEX = Program(values=_set("--prefix --stage"), flags=_set("-a --all --stdin --temp"))
GIT_INDEX_ALL = _set("-a --all --stdin")
GIT_STASH_KEEPS = _set("list show drop clear create store")     # the work tree as it is
GIT_STASH_APPLIES = _set("pop apply branch")                    # the files of the stash they are given
# Which of the work tree's files those write when given no commit (a commit may bring in any path): the tracked
# ones (in the index or HEAD) for `reset --hard`, `stash`, `checkout -f`, `switch -f`; `stash -u` the untracked
# too, `-a` the ignored as well; `clean` the untracked that are not ignored, `-x` all untracked, `-X` the ignored
GIT_SAME_COMMIT = _set("HEAD @")                                 # the commit checked out: as if none were given
GIT_STASH_UNTRACKED, GIT_STASH_ALL = _set("-u --include-untracked"), _set("-a --all")
# a diff's files: `git apply`, `git am`; -p strips the names' leading folders, --directory puts one before them
GIT_APPLY = Program(values=_set("-p -C --exclude --include --directory --whitespace --build-fake-ancestor"),
                    never=_set("--check --cached"), flags=_set("--stat --numstat --summary --apply"))
GIT_APPLY_REPORTS = _set("--stat --numstat --summary")          # print, and apply only with --apply
GIT_AM = Program(values=_set("-p -C --exclude --include --directory --whitespace --patch-format --resolvemsg "
                             "--empty --quoted-cr"),
                 never=_set("--quit --show-current-patch"),
                 flags=_set("--abort --skip --continue --resolved -r --retry"))
GIT_AM_RESUMES = _set("--abort --skip --continue --resolved -r --retry")   # the work tree from the patches in store
# xargs: the words it reads, split at blanks and quotes, or at -d's character, or whole (-0); -a: from a file
XARGS = Program(values=WRAPPERS["xargs"].value_options, attached=_set("-e -i -l --eof --max-lines --replace"),
                flags=_set("-0 --null"))
XARGS_SPLITS = _set("-d --delimiter")
# find's tests that only narrow which entries its action gets (read as not narrowing: more entries, never fewer)
FIND_NARROWING = _set("-type -xtype -maxdepth -mindepth -size -user -group -perm -mtime -mmin -newer")
FIND_NAME_TESTS = {"-name": False, "-iname": True}
# Variables naming a file a program writes (`GIT_TRACE=/p/.env git status` appends its trace there; git's index,
# a shell's or pager's history, TLS keys, coverage data), and ones naming a folder written into (Python's caches)
WRITTEN_VARIABLES = _set("GIT_INDEX_FILE HISTFILE LESSHISTFILE SSLKEYLOGFILE COVERAGE_FILE PYTHON_HISTORY")
WRITTEN_VARIABLE_PREFIXES = ("GIT_TRACE",)     # GIT_TRACE, GIT_TRACE2_EVENT, GIT_TRACE_PACKET …: a path is a file
WRITTEN_INTO_VARIABLES = _set("PYTHONPYCACHEPREFIX")
