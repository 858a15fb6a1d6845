"""The one table of commands that run another command (issue 26), read by the shell parse (core/shell_parse.py)
for the permission rules and by the digests (core/context/digest.py) to find what a line really runs.

A wrapper hands on a command in one of a few ways: the words after its options (sudo, env, xargs), a word or an
option's value that is shell text (bash -c, eval, ssh's remote line, rsync -e), a setting whose value is a
command line (git -c core.pager=…, ssh -o ProxyCommand=…), or an environment variable a program runs
(GIT_PAGER, EDITOR). A name not here is an ordinary command."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Wrapper:
    """How a command word that runs another command hands it on."""
    value_options: frozenset[str] = frozenset()   # options followed by a value, which is skipped
    positional: int = 0                           # words before the command (timeout's duration)
    script_option: str | None = None              # the value of this option is shell text (bash -c)
    script_rest: bool = False                     # the remaining words, joined, are shell text (eval)
    assignments: bool = False                     # NAME=VALUE words before the command (env)
    default: tuple[str, ...] = ()                 # the command when none is given (xargs runs echo)
    runs_rest: bool = True                        # False for a shell: `bash file` runs a file, not a command
    exec_options: frozenset[str] = frozenset()    # find: -exec WORDS ; (or +)
    alias_values: bool = False                    # alias: each NAME=VALUE's value is shell text
    setting_option: str | None = None             # ssh -o NAME=VALUE: the settings named in command_settings
    command_settings: frozenset[str] = frozenset()  # … whose value is a command line (lower case, fnmatch)
    bang_settings: frozenset[str] = frozenset()   # … whose value is a command line after a leading "!" (git alias)
    command_options: frozenset[str] = frozenset()  # options whose value is a command line it runs (rsync -e)
    until: frozenset[str] = frozenset()           # the command ends before one of these words (parallel's :::)
    # GNU getopt reads options after other words too (`su root -c 'rm f'`, `rsync a b -e 'rm f'`): the script
    # option and command options are looked for among all the words.
    permute: bool = False
    options_after_positional: bool = False        # ssh: options again after the host, before the remote line
    runs_nothing: frozenset[str] = frozenset()    # options after which it only looks a name up (command -v)
    nothing_alone: frozenset[str] = frozenset()   # … or runs nothing when no command follows (`sudo -k`; `sudo -k
                                                  # rm f` runs rm)
    appends_input: bool = False                   # xargs: words read from standard input follow the command
    replace_options: frozenset[str] = frozenset()  # xargs -I STR: words holding STR are made from its input
    named_compound: bool = False                  # coproc NAME { …; }: the parser splits the body off
    subcommands: Mapping[str, "Wrapper"] = field(default_factory=dict)   # git rebase -x, npm exec, tmux new …
    opaque_options: frozenset[str] = frozenset()  # options that bring in commands from elsewhere (ssh -F FILE
    opaque_markers: frozenset[str] = frozenset()  # … when it is stdin; git --config-env), words holding these
    opaque_words: frozenset[str] = frozenset()    # … and words that are one of these (ip's `e`, `exec`)
    old_style: bool = False                       # tar xIf CMD a.tar: a first word of letters is an option bundle
    dashdash_shell: bool = False                  # capsh … -- -c CMD: the words after `--` are bash's
    script_long: frozenset[str] = frozenset()     # long forms of script_option (su --command TEXT)
    default_shell: bool = False                   # with no command it runs a shell reading stdin (su, chroot)
    opaque_settings: frozenset[str] = frozenset()  # settings that read more settings (git include.path)
    opaque: bool = False                          # runs commands it reads elsewhere (tmux run-shell): opaque
    each_word_script: bool = False                # pee, mispipe: each word is a command line of its own
    config_pair: bool = False                     # git config NAME VALUE: a setting, read like git -c NAME=VALUE
    guesses_subcommand: bool = False              # git: help.autocorrect runs the command nearest a mistyped one


def _opts(text: str) -> frozenset[str]:
    return frozenset(text.split())


SHELL = Wrapper(value_options=_opts("-o +o -O +O --rcfile --init-file --emulate"), script_option="-c",
                runs_rest=False)
OPAQUE = Wrapper(opaque=True)
RUNS_ONE = Wrapper()        # runs the rest as it is: nohup, setsid, valgrind …
STDIN_PATHS = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})   # a script file that is stdin

SSH_COMMAND_SETTINGS = _opts("proxycommand localcommand knownhostscommand remotecommand")
_NPX = Wrapper(value_options=_opts("-p --package -w --workspace --prefix --loglevel --cache --registry"),
               script_option="-c", script_long=_opts("--call"))
_REMOTE_PROGRAMS = _opts("--upload-pack --receive-pack --exec -u")     # the program git runs on the other side
# git settings whose value is a command line (fnmatch, lower case); those that read more settings from a file
GIT_COMMAND_SETTINGS = _opts(
    "core.sshcommand core.pager core.editor core.fsmonitor core.askpass core.gitproxy core.alternaterefscommand "
    "sequence.editor diff.external gpg.program gpg.*.program gpg.ssh.defaultkeycommand pager.* difftool.*.cmd "
    "mergetool.*.cmd diff.*.command diff.*.textconv filter.*.clean filter.*.smudge filter.*.process "
    "interactive.difffilter credential.helper credential.*.helper trailer.*.command trailer.*.cmd "
    "remote.*.uploadpack remote.*.receivepack tar.*.command merge.*.driver sendemail.* browser.*.cmd man.*.cmd "
    "submodule.*.update hook.*.command uploadpack.packobjectshook")
# … and settings naming files git runs or reads more settings from (core.hooksPath: a folder of programs;
# init.templateDir: the hooks `git init` and `git clone` copy; core.worktree: where a relative hooksPath is)
GIT_INCLUDES = _opts("include.path includeif.*.path core.hookspath init.templatedir core.worktree")
_FILTERS = _opts("--tree-filter --index-filter --msg-filter --env-filter --commit-filter --parent-filter "
                 "--tag-name-filter --setup")
# git's sub-commands that run a command line they are given (options anywhere: git reads them so)
GIT_SUBCOMMANDS: dict[str, Wrapper] = {
    "rebase": Wrapper(value_options=_opts("-x --exec -s --strategy -X --strategy-option --onto"),
                      runs_rest=False, permute=True, command_options=_opts("-x --exec")),
    "difftool": Wrapper(value_options=_opts("-x --extcmd -t --tool"), runs_rest=False, permute=True,
                        command_options=_opts("-x --extcmd")),
    "mergetool": Wrapper(value_options=_opts("-t --tool"), runs_rest=False),
    "grep": Wrapper(value_options=_opts("-O --open-files-in-pager -e -f"), runs_rest=False, permute=True,
                    command_options=_opts("-O --open-files-in-pager")),
    "submodule": Wrapper(runs_rest=False, subcommands={"foreach": Wrapper(script_rest=True)}),
    "bisect": Wrapper(runs_rest=False, subcommands={"run": RUNS_ONE}),
    **{name: Wrapper(value_options=_REMOTE_PROGRAMS | _opts("-c --config"), runs_rest=False, permute=True,
                     command_options=_REMOTE_PROGRAMS, setting_option="-c", command_settings=GIT_COMMAND_SETTINGS,
                     bang_settings=_opts("alias.*"), opaque_settings=GIT_INCLUDES)
       for name in ("clone", "fetch", "pull", "push", "ls-remote", "archive", "remote")},
    "filter-branch": Wrapper(runs_rest=False, permute=True, value_options=_FILTERS, command_options=_FILTERS),
    "config": Wrapper(value_options=_opts("-f --file --blob --type --default --comment"), config_pair=True,
                      command_settings=GIT_COMMAND_SETTINGS, bang_settings=_opts("alias.*"),
                      opaque_settings=GIT_INCLUDES),
}
# tmux's commands that start a shell command or read commands and settings from elsewhere
_TMUX_SUBCOMMANDS = {name: OPAQUE for name in (
    "new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane", "respawnp",
    "respawn-window", "respawnw", "run-shell", "run", "if-shell", "if", "pipe-pane", "pipep", "display-popup",
    "popup", "source-file", "source", "set-option", "set", "set-hook", "bind-key", "bind")}

WRAPPERS: dict[str, Wrapper] = {
    "sudo": Wrapper(value_options=_opts("-u -g -h -p -C -D -r -t -U -T -R --user --group --host --prompt "
                                        "--chdir --role --type --other-user --command-timeout --chroot"),
                    assignments=True, default_shell=True, runs_nothing=_opts("-v -l -K -V --validate --list "
                                                                            "--remove-timestamp --version --help"),
                    nothing_alone=_opts("-k --reset-timestamp")),
    "doas": Wrapper(value_options=_opts("-u -C")),
    # newer coreutils (9.7's manual) take -a/--argv0 NAME: `env -a x rm f` runs rm
    "env": Wrapper(value_options=_opts("-u --unset -C --chdir -S --split-string -a --argv0"), assignments=True,
                   command_options=_opts("-S --split-string")),
    "timeout": Wrapper(value_options=_opts("-s -k --signal --kill-after"), positional=1),
    "nice": Wrapper(value_options=_opts("-n --adjustment")),
    "ionice": Wrapper(value_options=_opts("-c -n -p --class --classdata --pid")),
    "stdbuf": Wrapper(value_options=_opts("-i -o -e --input --output --error")),
    "chroot": Wrapper(value_options=_opts("--userspec --groups"), positional=1, default_shell=True),
    # -e, -l and -i take an attached value only (`-l5`): the next word is the command.
    "xargs": Wrapper(value_options=_opts("-a -d -E -I -L -n -P -s --arg-file --delimiter --replace --max-lines "
                                         "--max-args --max-procs --max-chars --process-slot-var"),
                     default=("echo",), appends_input=True, replace_options=_opts("-I --replace")),
    "time": Wrapper(value_options=_opts("-f -o --format --output"), assignments=True),
    "command": Wrapper(runs_nothing=_opts("-v -V")), "exec": Wrapper(value_options=_opts("-a")),
    "coproc": Wrapper(named_compound=True, assignments=True),
    "eval": Wrapper(script_rest=True),
    "watch": Wrapper(value_options=_opts("-n --interval -q --equexit"), script_rest=True),
    "trap": Wrapper(script_rest=True),
    "su": Wrapper(value_options=_opts("-s -g -G -w --shell --group --supp-group --whitelist-environment"),
                  script_option="-c", runs_rest=False, permute=True, default_shell=True,
                  script_long=_opts("--command --session-command")),
    "runuser": Wrapper(value_options=_opts("-u -s -g -G -w --user --shell --group --supp-group"),
                       script_option="-c", permute=True, default_shell=True,
                       script_long=_opts("--command --session-command")),
    "sg": Wrapper(positional=1, script_option="-c", script_rest=True, default_shell=True,
                  options_after_positional=True),
    "newgrp": Wrapper(runs_rest=False, default_shell=True),
    # The remote shell reads the words after the host as one line: `ssh host 'rm -rf x'` runs rm.
    "ssh": Wrapper(value_options=_opts("-B -b -c -D -E -e -F -I -i -J -L -l -m -O -o -P -p -Q -R -S -W -w"),
                   positional=1, script_rest=True, setting_option="-o", options_after_positional=True,
                   opaque_options=_opts("-F"),
                   command_settings=SSH_COMMAND_SETTINGS),
    "flock": Wrapper(value_options=_opts("-w -E --timeout --conflict-exit-code"), positional=1,
                     script_option="-c", script_long=_opts("--command"), options_after_positional=True),
    "script": Wrapper(value_options=_opts("-E -I -O -B -T -t --echo --log-in --log-out --log-io "
                                          "--log-timing"), script_option="-c", runs_rest=False, permute=True,
                      script_long=_opts("--command"), default_shell=True),
    "find": Wrapper(runs_rest=False, exec_options=_opts("-exec -execdir -ok -okdir")),
    # Run a command as someone else, in a namespace, with limits, or under a tracer: options with a value skipped.
    "pkexec": Wrapper(value_options=_opts("--user")),
    "fakeroot": Wrapper(value_options=_opts("-l -s -i -b --lib --faked"), default_shell=True),
    "unshare": Wrapper(value_options=_opts("-S -G -R -w --setuid --setgid --root --wd --map-user --map-group "
                                           "--propagation --setgroups"), default_shell=True),
    "nsenter": Wrapper(value_options=_opts("-t -S -G --target --setuid --setgid"), default_shell=True),
    "strace": Wrapper(value_options=_opts("-o -e -p -s -u -E -a -b -I -O -P -S -X -U --output --trace --signal "
                                          "--status --expr --user --env --attach --string-limit --summary-columns "
                                          "--trace-path --raw --read --write --columns --absolute-timestamps --timestamps")),
    "ltrace": Wrapper(value_options=_opts("-o -e -p -s -u -a -n -l -x -X -A -D -F -w --output --indent --library "
                                          "--config --align --debug")),
    "torsocks": Wrapper(value_options=_opts("-u -p -a -P")),
    "proxychains": Wrapper(value_options=_opts("-f")), "proxychains4": Wrapper(value_options=_opts("-f")),
    "systemd-run": Wrapper(value_options=_opts("-u -p -E -M -H --unit --property --setenv --machine --host "
                                               "--uid --gid --nice --slice --description --working-directory")),
    "dbus-run-session": Wrapper(value_options=_opts("--config-file --dbus-daemon")),
    "setpriv": Wrapper(value_options=_opts("--reuid --regid --ruid --rgid --euid --egid --groups --inh-caps "
                                           "--ambient-caps --bounding-set --securebits --pdeathsig "
                                           "--selinux-label --apparmor-profile --landlock-access --landlock-rule")),
    "taskset": Wrapper(positional=1),
    "setarch": Wrapper(positional=1, options_after_positional=True),
    "prlimit": Wrapper(value_options=_opts("-p --pid -o --output")),
    "ssh-agent": Wrapper(value_options=_opts("-a -E -t -P -O")),
    **{name: Wrapper(value_options=_opts("-F -i -l -o -P -S -c -D -J -X -B -b -R"), runs_rest=False, permute=True,
                     setting_option="-o", command_settings=SSH_COMMAND_SETTINGS, opaque_options=_opts("-F"),
                     command_options=_opts("-S"))
       for name in ("scp",)},
    "sftp": Wrapper(value_options=_opts("-F -i -l -o -P -S -c -D -J -B -b -R -s"), runs_rest=False, permute=True,
                    setting_option="-o", command_settings=SSH_COMMAND_SETTINGS, opaque_options=_opts("-F"),
                    command_options=_opts("-S -D")),      # -D: a local sftp-server program, run as given
    "lckdo": Wrapper(value_options=_opts("-W"), positional=1),
    **{name: RUNS_ONE for name in ("nohup", "builtin", "setsid", "unbuffer", "busybox", "valgrind", "firejail",
                                   "toybox", "catchsegv", "linux32", "linux64", "chronic", "ifne", "zrun")},
    # setarch under an architecture's name (util-linux links): `x86_64 rm f`, `i386 rm f` run rm
    **{name: RUNS_ONE for name in ("x86_64", "i386", "i486", "i586", "i686", "uname26", "aarch64", "arm", "armh",
                                   "armv7l", "ppc", "ppc32", "ppc64", "ppc64le", "s390", "s390x", "sparc",
                                   "sparc32", "sparc32bash", "sparc64", "mips", "mips32", "mips64", "parisc",
                                   "parisc32", "parisc64", "ia64", "alpha", "loongarch64", "riscv64")},
    "entr": Wrapper(script_option="-s"),
    # more programs that run the command after their options (containers of a process, timing, init shims)
    "dbus-launch": RUNS_ONE, "eatmydata": RUNS_ONE,
    "dumb-init": Wrapper(value_options=_opts("-r --rewrite")),
    "xvfb-run": Wrapper(value_options=_opts("-n -s -f -e -p -w --server-num --server-args --auth-file "
                                            "--error-file --xauth-protocol --wait")),
    "tini": Wrapper(value_options=_opts("-e -p")),
    "numactl": Wrapper(value_options=_opts("-C -N -m -p -i -P --physcpubind --cpunodebind --membind --preferred "
                                           "--interleave --preferred-many")),
    "chrt": Wrapper(positional=1, value_options=_opts("-T -P -D --sched-runtime --sched-period --sched-deadline")),
    "gdb": Wrapper(value_options=_opts("-ex -iex -x -ix -p -c -d -s -e -se -cd -b --eval-command --command --pid "
                                       "--core --directory --symbols --exec --cd --init-eval-command "
                                       "--init-command")),     # its program (or --args PROGRAM ARGS) runs
    "faketime": OPAQUE,                 # a timestamp, or -f SPEC instead of it: which word runs is unclear
    "gosu": Wrapper(positional=1), "su-exec": Wrapper(positional=1), "chpst": Wrapper(value_options=_opts("-u -U -e -n -l -L -m -d -o -p -f -c -r -t")),
    "perf": Wrapper(runs_rest=False, subcommands={name: Wrapper(value_options=_opts(
        "-o -e -c -F -p -t -C -G -x -r -I --output --event --cpu --pid --tid --field-separator --repeat"))
        for name in ("record", "stat", "trace")}),
    **{name: Wrapper(runs_rest=False, subcommands={"exec": RUNS_ONE, "run": RUNS_ONE})
       for name in ("pyenv", "poetry", "pipenv", "uv", "pnpm", "yarn", "bundle", "conda", "mise")},
    "direnv": Wrapper(runs_rest=False, subcommands={"exec": Wrapper(positional=1)}),    # direnv exec DIR cmd
    "rg": Wrapper(runs_rest=False, permute=True, value_options=_opts("--pre -e -f -g -t -T -m -A -B -C"),
                  command_options=_opts("--pre")),
    "hyperfine": Wrapper(value_options=_opts("-r -w -m -M -p -c -S -n -s -u --runs --warmup --prepare --cleanup "
                                             "--shell --command-name --setup --parameter-scan --export-json"),
                         each_word_script=True, command_options=_opts("-p -c -s --prepare --cleanup --setup")),
    **{name: Wrapper(runs_rest=False, exec_options=_opts("-x -X --exec --exec-batch")) for name in ("fd", "fdfind")},
    # their options are many and some take two words, so what runs is not read here: opaque
    **{name: OPAQUE for name in ("bwrap", "proot", "start-stop-daemon", "screen", "dtach")},
    "npx": _NPX,
    "capsh": Wrapper(runs_rest=False, dashdash_shell=True),
    # moreutils: each word, or the first two, is a command line for a shell
    "pee": Wrapper(each_word_script=True), "mispipe": Wrapper(each_word_script=True),
    "mapfile": Wrapper(value_options=_opts("-C -c -d -n -O -s -u"), runs_rest=False, command_options=_opts("-C")),
    "readarray": Wrapper(value_options=_opts("-C -c -d -n -O -s -u"), runs_rest=False,
                         command_options=_opts("-C")),
    # `alias x='rm -rf'`: the value is shell text a later `x` runs (scripts can turn expand_aliases on).
    "alias": Wrapper(runs_rest=False, alias_values=True),
    # GNU parallel hands the words before ::: to a shell; with none it runs the lines it reads as commands.
    **{name: Wrapper(value_options=_opts("-j -N -n -S -a -d -E -I -L -l -P -s --jobs --sshlogin --arg-file "
                                         "--delimiter --colsep -C --arg-sep --arg-file-sep --itemsep --replace --joblog --results --tmpdir --workdir "
                                         "--timeout --delay --retries --env --basefile --return --halt --id "
                                         "--tagstring --nice --memfree --sshdelay --load --block --recend "
                                         "--recstart --termseq --limit --onall --profile"),
                     script_rest=True, until=_opts("::: :::+ :::: ::::+"), command_options=_opts("--limit"))
       for name in ("parallel", "sem")},
    # Programs that run a command line given in one of their options or settings (options anywhere: getopt).
    "rsync": Wrapper(value_options=_opts("-e --rsh --rsync-path -f --filter"), runs_rest=False, permute=True,
                     command_options=_opts("-e --rsh --rsync-path")),
    "tar": Wrapper(value_options=_opts("-f -C -I -F -T -X -b -g -H -K -L -N -V --file --directory "
                                       "--use-compress-program --to-command --rsh-command --info-script "
                                       "--new-volume-script --checkpoint-action"),
                   runs_rest=False, permute=True, old_style=True,
                   command_options=_opts("-I -F --use-compress-program --to-command --rsh-command --info-script "
                                         "--new-volume-script")),
    # zip tests the archive with a command line of its choosing: `zip -T -TT 'CMD' a.zip f`
    "zip": Wrapper(value_options=_opts("-TT --unzip-command -b -n -t -tt -O -P -Z -s -sp -ll -la -lf -li -x -i"),
                   runs_rest=False, permute=True, command_options=_opts("-TT --unzip-command")),
    # runs every program in a folder: what they do is not read here
    "run-parts": OPAQUE,
    # `ip netns exec NS CMD`, `ip -all netns exec CMD`, `ip vrf exec VRF CMD`, and ip takes any unique start of a
    # word (`ip net e NS CMD`); `-batch FILE` reads such lines from a file: which word runs is not read here
    "ip": Wrapper(runs_rest=False, opaque_words=frozenset(
        {"exec"[:n] for n in range(1, 5)} | {dashes + "batch"[:n] for n in range(1, 6) for dashes in ("-", "--")})),
    # runcon CONTEXT CMD, or runcon -t TYPE … CMD without the context: which word runs depends on the options
    "runcon": OPAQUE,
    # at and batch run later what they read on standard input (a here-document is read) or from `-f FILE`
    **{name: Wrapper(runs_rest=False, default_shell=True, value_options=_opts("-q -f -t -m"),
                     runs_nothing=_opts("-l -d -r -c -V")) for name in ("at", "batch")},
    "git": Wrapper(value_options=_opts("-C -c --git-dir --work-tree --namespace --exec-path --config-env"),
                   runs_rest=False, setting_option="-c", subcommands=GIT_SUBCOMMANDS,
                   opaque_options=_opts("--config-env"), opaque_markers=frozenset({"ext::", "--exec-path="}),
                   command_settings=GIT_COMMAND_SETTINGS, bang_settings=_opts("alias.*"),
                   opaque_settings=GIT_INCLUDES, guesses_subcommand=True),
    "npm": Wrapper(value_options=_opts("--prefix --loglevel -w --workspace --cache --registry --userconfig"),
                   runs_rest=False, subcommands={"exec": _NPX, "exe": _NPX, "x": _NPX}),
    # tmux runs shell commands from many of its commands, their options differ, and `\;` chains them: opaque
    "tmux": Wrapper(value_options=_opts("-L -S -f -T"), script_option="-c", runs_rest=False,
                    subcommands=_TMUX_SUBCOMMANDS, opaque_markers=frozenset({";"})),
    "fish": Wrapper(value_options=_opts("-C --init-command -l --features --debug-output --profile"),
                    command_options=_opts("-C --init-command"), script_option="-c", script_long=_opts("--command"),
                    runs_rest=False),
    **{shell: SHELL for shell in ("bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "rbash", "tcsh",
                                  "csh", "yash")},
}

# Environment variables whose value a program runs as a command line (`GIT_PAGER='rm f' git log`), and prompt
# strings bash expands (`PS4='$(rm f)'; set -x`).
COMMAND_VARIABLES = frozenset({
    "GIT_SSH_COMMAND", "GIT_SSH", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS", "GIT_PROXY_COMMAND", "SSH_ASKPASS", "PAGER", "MANPAGER", "SYSTEMD_PAGER", "EDITOR", "VISUAL",
    "FCEDIT", "RSYNC_RSH", "RSYNC_CONNECT_PROG", "PROMPT_COMMAND", "LESSOPEN", "LESSCLOSE", "SUDO_EDITOR"})
PROMPT_VARIABLES = frozenset({"PS0", "PS1", "PS2", "PS3", "PS4"})   # expanded: their substitutions run
# Variables that are a program's options (their value is read as if written after it).
OPTION_VARIABLES = {"TAR_OPTIONS": "tar", "RSYNC_OPTIONS": "rsync"}
# Variables that change what a name runs or which settings apply, with no command line to read: opaque.
REBINDING_VARIABLES = frozenset({"BASH_CMDS", "BASH_ALIASES", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS",
                                 "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG",   # a config file: aliases
                                 "PATH",       # `PATH=. y f`: a bare name may now be a file of the project
                                 "GIT_EXEC_PATH",          # git runs git-NAME from there
                                 # another repository's hooks and config; the hooks `git init` copies
                                 "GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_TEMPLATE_DIR",
                                 # startup and config files found from these: `HOME=. bash -lc :` runs
                                 # ./.bash_profile, `HOME=. git x` reads ./.gitconfig's aliases
                                 "HOME", "XDG_CONFIG_HOME", "ZDOTDIR"})
# A file a shell sources before it runs: opaque when it is standard input or made when the line runs.
STARTUP_VARIABLES = frozenset({"BASH_ENV", "ENV"})
