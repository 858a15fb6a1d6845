"""The one table of commands that run another command (issue 26), read by the shell parse (core/shell/parse.py)
for the permission rules and by the digests (core/context/digest.py) to find what a line really runs.

A wrapper hands on a command in one of a few ways: the words after its options (sudo, env, xargs), a word or an
option's value that is shell text (bash -c, eval, ssh's remote line, rsync -e), a setting whose value is a
command line (git -c core.pager=…, ssh -o ProxyCommand=…), or an environment variable a program runs
(GIT_PAGER, EDITOR). A name not here is an ordinary command. How each is read is a Wrapper
(core/shell/wrapper.py); the programs that start a command somewhere else (a terminal window, a project's
environment, a container) are core/shell/launchers.py's part of the table."""

from __future__ import annotations

from dataclasses import replace

from contextual.core.shell.launchers import LAUNCHERS
from contextual.core.shell.wrapper import OPAQUE, RUNS_ONE, Wrapper
from contextual.core.shell.wrapper import opts as _opts

SHELL = Wrapper(value_options=_opts("-o +o -O +O --rcfile --init-file --emulate"), script_option="-c",
                runs_rest=False)
STDIN_PATHS = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})   # a script file that is stdin

SSH_COMMAND_SETTINGS = _opts("proxycommand localcommand knownhostscommand remotecommand")
_NPX = Wrapper(value_options=_opts("-p --package -w --workspace --prefix --loglevel --cache --registry"),
               script_option="-c", script_long=_opts("--call"))
_REMOTE_PROGRAMS = _opts("--upload-pack --receive-pack --exec -u")     # the program git runs on the other side
# git settings whose value is a command line (fnmatch, lower case), or a program git runs (a viewer's or tool's
# `.path`: `git -c man.viewer=man -c man.man.path=./x help push` runs ./x); those that read more settings from a file
GIT_COMMAND_SETTINGS = _opts(
    "core.sshcommand core.pager core.editor core.fsmonitor core.askpass core.gitproxy core.alternaterefscommand "
    "man.*.path browser.*.path difftool.*.path mergetool.*.path imap.tunnel instaweb.httpd guitool.*.cmd "
    "sequence.editor diff.external gpg.program gpg.*.program gpg.ssh.defaultkeycommand pager.* difftool.*.cmd "
    "mergetool.*.cmd diff.*.command diff.*.textconv filter.*.clean filter.*.smudge filter.*.process "
    "interactive.difffilter credential.helper credential.*.helper trailer.*.command trailer.*.cmd "
    "remote.*.uploadpack remote.*.receivepack tar.*.command merge.*.driver sendemail.* browser.*.cmd man.*.cmd "
    "submodule.*.update hook.*.command uploadpack.packobjectshook")
# … and settings naming files git runs or reads more settings from (core.hooksPath: a folder of programs;
# init.templateDir: the hooks `git init` and `git clone` copy; core.worktree: where a relative hooksPath is;
# remote.*.vcs: the remote helper `git-remote-VALUE` git runs from PATH for that remote)
GIT_INCLUDES = _opts("include.path includeif.*.path core.hookspath init.templatedir core.worktree remote.*.vcs")
_FILTERS = _opts("--tree-filter --index-filter --msg-filter --env-filter --commit-filter --parent-filter "
                 "--tag-name-filter --setup")
_SEND_EMAIL = _opts("--to-cmd --cc-cmd --header-cmd --sendmail-cmd")
# git's sub-commands that run a command line they are given (options anywhere: git reads them so)
GIT_SUBCOMMANDS: dict[str, Wrapper] = {
    "rebase": Wrapper(value_options=_opts("-x --exec -s --strategy -X --strategy-option --onto"),
                      runs_rest=False, permute=True, command_options=_opts("-x --exec")),
    "difftool": Wrapper(value_options=_opts("-x --extcmd -t --tool"), runs_rest=False, permute=True,
                        command_options=_opts("-x --extcmd")),
    "mergetool": Wrapper(value_options=_opts("-t --tool"), runs_rest=False),
    "grep": Wrapper(value_options=_opts("-O --open-files-in-pager -e -f"), runs_rest=False, permute=True,
                    command_options=_opts("-O --open-files-in-pager")),
    # `submodule--helper foreach` is what `submodule foreach` runs: a line may name it too
    **{name: Wrapper(runs_rest=False, subcommands={"foreach": Wrapper(script_rest=True)})
       for name in ("submodule", "submodule--helper")},
    # the options of its sendemail.* settings that name a command line (run by sh with the patch file)
    "send-email": Wrapper(value_options=_SEND_EMAIL | _opts("--to --cc --bcc --from"), runs_rest=False, permute=True,
                          command_options=_SEND_EMAIL),
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
_PERF_RUN = Wrapper(value_options=_opts(
    "-o -e -c -F -p -t -C -G -x -r -I -M -m -D -j -u --output --event --cpu --pid --tid --field-separator --repeat "
    "--call-graph --metrics --mmap-pages --delay --branch-filter --uid --cgroup --pre --post --filter "
    "--interval-print --timeout --log-fd"), command_options=_opts("--pre --post"))
# perf ftrace's -g names a function (record's -g is a flag)
_PERF_FTRACE = Wrapper(value_options=_opts(
    "-t --tracer -p --pid -C --cpu -D --delay -T --trace-funcs -N --notrace-funcs -G --graph-funcs -g "
    "--nograph-funcs -m --buffer-size --graph-opts --func-opts -e --event -s --sort --bucket-range --min-latency "
    "--max-latency"), subcommands={name: Wrapper() for name in ("trace", "latency", "profile")})
_PERF_TOOL = Wrapper(runs_rest=False, value_options=_opts("-t --type -k --kwork"), subcommands={
    "record": _PERF_RUN, "stat": Wrapper(runs_rest=False, subcommands={"record": _PERF_RUN})})
# tmux's commands that start a shell command or read commands and settings from elsewhere
_TMUX_SUBCOMMANDS = {name: OPAQUE for name in (
    "new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane", "respawnp",
    "respawn-window", "respawnw", "run-shell", "run", "if-shell", "if", "pipe-pane", "pipep", "display-popup",
    "popup", "source-file", "source", "set-option", "set", "set-hook", "bind-key", "bind",
    # keys typed into a pane (its shell runs them), and prompts, menus and confirmations that run tmux commands
    "send-keys", "send", "command-prompt", "confirm-before", "confirm", "display-menu", "menu")}

WRAPPERS: dict[str, Wrapper] = {
    "sudo": Wrapper(value_options=_opts("-u -g -h -p -C -D -r -t -U -T -R --user --group --host --prompt "
                                        "--chdir --role --type --other-user --command-timeout --chroot"),
                    assignments=True, default_shell=True, runs_nothing=_opts("-v -l -K -V --validate --list "
                                                                            "--remove-timestamp --version --help"),
                    nothing_alone=_opts("-k --reset-timestamp")),
    # doas -s runs the user's shell (it reads standard input); -C checks a config, -L forgets the login
    "doas": Wrapper(value_options=_opts("-a -u -C"), default_shell=True, default_shell_with=_opts("-s"),
                    runs_nothing=_opts("-C -L")),
    # newer coreutils (9.7's manual) take -a/--argv0 NAME: `env -a x rm f` runs rm
    # BSD's and macOS' env: -P PATH (where it looks for the program), FreeBSD's -L/-U USER
    "env": Wrapper(value_options=_opts("-u --unset -C --chdir -S --split-string -a --argv0 -P -L -U"),
                   assignments=True, command_options=_opts("-S --split-string")),
    "timeout": Wrapper(value_options=_opts("-s -k --signal --kill-after"), positional=1),
    "nice": Wrapper(value_options=_opts("-n --adjustment")),
    "ionice": Wrapper(value_options=_opts("-c -n -p --class --classdata --pid")),
    "stdbuf": Wrapper(value_options=_opts("-i -o -e --input --output --error")),
    "chroot": Wrapper(value_options=_opts("--userspec --groups"), positional=1, default_shell=True),
    # -e, -l and -i take an attached value only (`-l5`), and so do --eof, --max-lines and --replace (`--replace=R`):
    # the next word is the command. BSD's and macOS' xargs: -J STR (the word STR is what it reads), -R and -S take
    # a number
    "xargs": Wrapper(value_options=_opts("-a -d -E -I -L -n -P -s --arg-file --delimiter --max-args --max-procs "
                                         "--max-chars --process-slot-var -J -R -S"),
                     default=("echo",), appends_input=True, replace_options=_opts("-I --replace -J")),
    "time": Wrapper(value_options=_opts("-f -o --format --output"), assignments=True),
    "!": RUNS_ONE,      # `! ! rm f`, `time ! rm f`: tree-sitter makes a second `!` the command word
    "command": Wrapper(runs_nothing=_opts("-v -V")), "exec": Wrapper(value_options=_opts("-a")),
    "coproc": Wrapper(named_compound=True, assignments=True),
    "eval": Wrapper(script_rest=True),
    "watch": Wrapper(value_options=_opts("-n --interval -q --equexit"), script_rest=True),
    "trap": Wrapper(script_rest=True),
    "su": Wrapper(value_options=_opts("-s -g -G -w --shell --group --supp-group --whitelist-environment"),
                  script_option="-c", runs_rest=False, permute=True, default_shell=True,
                  script_long=_opts("--command --session-command")),
    # runuser -u USER CMD runs CMD; without -u it is su, `runuser [-] [USER [ARGS]]`: the shell (-s SHELL) runs ARGS
    "runuser": Wrapper(value_options=_opts("-u -s -g -G -w --user --shell --group --supp-group "
                                           "--whitelist-environment"), script_option="-c", permute=True,
                       default_shell=True, script_long=_opts("--command --session-command"), positional=1,
                       no_positional=_opts("-u --user"), options_after_positional=True, optional_positional=True,
                       entry_options=_opts("-s --shell")),
    "sg": Wrapper(positional=1, script_option="-c", script_rest=True, default_shell=True,
                  options_after_positional=True),
    "newgrp": Wrapper(runs_rest=False, default_shell=True),
    # The remote shell reads the words after the host as one line: `ssh host 'rm -rf x'` runs rm; with none it
    # reads standard input (`echo 'rm f' | ssh host`), unless ssh runs no shell there (-N, -W) or none at all.
    "ssh": Wrapper(value_options=_opts("-B -b -c -D -E -e -F -I -i -J -L -l -m -O -o -P -p -Q -R -S -W -w"),
                   positional=1, script_rest=True, setting_option="-o", options_after_positional=True,
                   opaque_options=_opts("-F"), default_shell=True, nothing_alone=_opts("-N -W -O -G -V -Q"),
                   command_settings=SSH_COMMAND_SETTINGS),
    "flock": Wrapper(value_options=_opts("-w -E --timeout --conflict-exit-code"), positional=1,
                     script_option="-c", script_long=_opts("--command"), options_after_positional=True),
    "script": Wrapper(value_options=_opts("-E -I -O -B -T -t --echo --log-in --log-out --log-io "
                                          "--log-timing"), script_option="-c", runs_rest=False, permute=True,
                      script_long=_opts("--command"), default_shell=True),
    "find": Wrapper(runs_rest=False, exec_options=_opts("-exec -execdir -ok -okdir")),
    # Run a command as someone else, in a namespace, with limits, or under a tracer: options with a value skipped.
    "pkexec": Wrapper(value_options=_opts("--user"), default_shell=True, runs_nothing=_opts("--help --version")),
    "fakeroot": Wrapper(value_options=_opts("-l -s -i -b --lib --faked"), default_shell=True),
    "unshare": Wrapper(value_options=_opts("-S -G -R -w -l --setuid --setgid --root --wd --load-interp --map-user "
                                           "--map-users --map-group --map-groups --owner --propagation --setgroups "
                                           "--monotonic --boottime --whitelist-env"), default_shell=True),
    "nsenter": Wrapper(value_options=_opts("-t -S -G --target --setuid --setgid"), default_shell=True),
    "strace": Wrapper(value_options=_opts("-o -e -p -s -u -E -a -b -I -O -P -S -X -U --output --trace --signal "
                                          "--status --expr --user --env --attach --string-limit --summary-columns "
                                          "--trace-path --raw --read --write --columns --absolute-timestamps --timestamps")),
    "ltrace": Wrapper(value_options=_opts("-o -e -p -s -u -a -n -l -x -X -A -D -F -w --output --indent --library "
                                          "--config --align --debug")),
    "torsocks": Wrapper(value_options=_opts("-u -p -a -P")),
    "proxychains": Wrapper(value_options=_opts("-f")), "proxychains4": Wrapper(value_options=_opts("-f")),
    # systemd-run -S runs a shell (with --pipe, or no terminal, it reads standard input)
    "systemd-run": Wrapper(value_options=_opts(
        "-u -p -E -M -H -C --unit --property --setenv --machine --host --uid --gid --nice --slice --description "
        "--working-directory --service-type --on-active --on-boot --on-startup --on-unit-active --on-unit-inactive "
        "--on-calendar --timer-property --path-property --socket-property --expand-environment --root-directory "
        "--json --job-mode --capsule --background"), default_shell=True, default_shell_with=_opts("-S --shell")),
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
    # the multi-call coreutils runs the tool --coreutils-prog=NAME names (read as the first word without it)
    "coreutils": Wrapper(entry_options=_opts("--coreutils-prog --coreutils-prog-shebang")),
    **{name: RUNS_ONE for name in ("nohup", "builtin", "setsid", "unbuffer", "busybox", "valgrind", "firejail",
                                   "toybox", "catchsegv", "linux32", "linux64", "chronic", "ifne", "zrun")},
    # setarch under an architecture's name (util-linux links): `x86_64 rm f`, `i386 rm f` run rm
    **{name: RUNS_ONE for name in ("x86_64", "i386", "i486", "i586", "i686", "uname26", "aarch64", "arm", "armh",
                                   "armv7l", "ppc", "ppc32", "ppc64", "ppc64le", "s390", "s390x", "sparc",
                                   "sparc32", "sparc32bash", "sparc64", "mips", "mips32", "mips64", "parisc",
                                   "parisc32", "parisc64", "ia64", "alpha", "loongarch64", "riscv64")},
    "entr": Wrapper(script_option="-s"),
    # more programs that run the command after their options (containers of a process, timing, init shims)
    "dbus-launch": Wrapper(value_options=_opts("--autolaunch --config-file")), "eatmydata": RUNS_ONE,
    "dumb-init": Wrapper(value_options=_opts("-r --rewrite")),
    "xvfb-run": Wrapper(value_options=_opts("-n -s -f -e -p -w --server-num --server-args --auth-file "
                                            "--error-file --xauth-protocol --wait")),
    "tini": Wrapper(value_options=_opts("-e -p")),
    "numactl": Wrapper(value_options=_opts("-C -N -m -p -i -P -w -c -S -f -o -L -M -I --physcpubind --cpunodebind "
                                           "--membind --preferred --interleave --preferred-many "
                                           "--weighted-interleave --cpubind --shm --file --offset --length "
                                           "--shmmode --shmid")),
    "chrt": Wrapper(positional=1, value_options=_opts("-T -P -D --sched-runtime --sched-period --sched-deadline")),
    "gdb": Wrapper(value_options=_opts("-ex -iex -x -ix -p -c -d -s -e -se -cd -b --eval-command --command --pid "
                                       "--core --directory --symbols --exec --cd --init-eval-command "
                                       "--init-command")),     # its program (or --args PROGRAM ARGS) runs
    "faketime": OPAQUE,                 # a timestamp, or -f SPEC instead of it: which word runs is unclear
    "gosu": Wrapper(positional=1), "su-exec": Wrapper(positional=1), "chpst": Wrapper(value_options=_opts("-u -U -e -n -l -L -m -d -o -p -f -c -r -t")),
    # perf stat --pre/--post CMD: a line it hands to the shell around each run; `perf stat record`, `perf trace
    # record`, its other tools' recorders (`perf sched record CMD`) and `perf ftrace [trace|…] CMD` run one too
    "perf": Wrapper(runs_rest=False, subcommands={
        "record": _PERF_RUN, "ftrace": _PERF_FTRACE,
        **{name: replace(_PERF_RUN, subcommands={"record": _PERF_RUN}) for name in ("stat", "trace")},
        **{name: _PERF_TOOL for name in ("c2c", "mem", "sched", "lock", "kmem", "timechart", "kwork", "kvm")}}),
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
    # sort runs a compressor for its temporary files (`sort --compress-program=PROG`, PROG and `PROG -d`), split a
    # line for each part (`split --filter=CMD`, through $SHELL), man a pager (`man -P CMD`, split into words and run;
    # its config file may name others)
    "sort": Wrapper(value_options=_opts("-k -t -o -S -T --key --field-separator --output --buffer-size "
                                        "--temporary-directory --compress-program --files0-from --batch-size "
                                        "--parallel --random-source --sort"), runs_rest=False, permute=True,
                    command_options=_opts("--compress-program")),
    "split": Wrapper(value_options=_opts("-a -b -C -l -n -t --suffix-length --additional-suffix --bytes "
                                         "--line-bytes --lines --number --separator --filter"), runs_rest=False,
                     permute=True, command_options=_opts("--filter")),
    "man": Wrapper(value_options=_opts("-C -M -P -r -R -L -m -S -s -e -E -p --config-file --manpath --pager --prompt "
                                       "--recode --locale --systems --sections --extension --encoding "
                                       "--preprocessor"), runs_rest=False, permute=True,
                   command_options=_opts("-P --pager"), opaque_options=_opts("-C --config-file")),
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
    # its own options are read by the walker every reader of a git line shares (core/git_line.py)
    "git": Wrapper(git_options=True, runs_rest=False, setting_option="-c", subcommands=GIT_SUBCOMMANDS,
                   opaque_options=_opts("--config-env"), opaque_markers=frozenset({"ext::", "--exec-path="}),
                   command_settings=GIT_COMMAND_SETTINGS, bang_settings=_opts("alias.*"),
                   opaque_settings=GIT_INCLUDES, guesses_subcommand=True),
    "npm": Wrapper(value_options=_opts("--prefix --loglevel -w --workspace --cache --registry --userconfig"),
                   runs_rest=False, subcommands={"exec": _NPX, "exe": _NPX, "x": _NPX}),
    # less's key files set its environment (`#env LESSOPEN=|CMD %s`, run on opening a file, output a terminal or
    # not); its long options go in any case and by a unique start (`--LESSKEY-S=k`): opaque
    "less": Wrapper(runs_rest=False, opaque_options=_opts("-k"), opaque_markers=frozenset({"--lesskey"})),
    # tmux runs shell commands from many of its commands, their options differ, and `\;` chains them: opaque
    "tmux": Wrapper(value_options=_opts("-L -S -f -T"), script_option="-c", runs_rest=False,
                    subcommands=_TMUX_SUBCOMMANDS, opaque_markers=frozenset({";"})),
    "fish": Wrapper(value_options=_opts("-C --init-command -l --features --debug-output --profile"),
                    command_options=_opts("-C --init-command"), script_option="-c", script_long=_opts("--command"),
                    runs_rest=False),
    **LAUNCHERS,        # terminals, tool and version managers, secret injectors, containers, job queues
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
OPTION_VARIABLES = {"TAR_OPTIONS": "tar", "RSYNC_OPTIONS": "rsync", "LESS": "less", "MANOPT": "man"}
# Variables naming a program others run as `$SHELL -c TEXT` (flock -c, script -c, sudo -s, parallel): read as
# that program's command (`SHELL=./s.sh flock l -c :` runs ./s.sh)
PROGRAM_VARIABLES = frozenset({"SHELL"})
# Variables that change what a name runs or which settings apply, with no command line to read: opaque.
REBINDING_VARIABLES = frozenset({"BASH_CMDS", "BASH_ALIASES", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS",
                                 "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG",   # a config file: aliases
                                 "PATH",       # `PATH=. y f`: a bare name may now be a file of the project
                                 "GIT_EXEC_PATH",          # git runs git-NAME from there
                                 # another repository's hooks and config; the hooks `git init` copies
                                 "GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_TEMPLATE_DIR",
                                 # startup and config files found from these: `HOME=. bash -lc :` runs
                                 # ./.bash_profile, `HOME=. git x` reads ./.gitconfig's aliases
                                 "HOME", "XDG_CONFIG_HOME", "ZDOTDIR",
                                 # a library every program loads first: `LD_PRELOAD=./x.so ls` is x.so's code
                                 "LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES",
                                 # … and one any program converting characters loads (`GCONV_PATH=. iconv`)
                                 "GCONV_PATH",
                                 # less's key files, whose `#env` section sets LESSOPEN (`LESSKEYIN=k less f`)
                                 "LESSKEY", "LESSKEYIN", "LESSKEY_CONTENT", "LESSKEY_SYSTEM", "LESSKEYIN_SYSTEM",
                                 # Ex commands vim and ex run first (`VIMINIT='!rm f' vim -c q`)
                                 "VIMINIT", "EXINIT"})
# Variables that make a program load code from the files they name (a folder of libraries or modules, an option
# that loads one): set on the line, they make an innocent program run a file the model may have written
# (`LD_LIBRARY_PATH=. ls` with a libc of the folder, `PYTHONPATH=. pip list` with a sitecustomize.py), so no allow
# rule allows the line (core/permission_rules.py), unless each command is the language's own interpreter, which
# runs any code it is given anyway. Deny rules do not read the code they load, as they do not read a script's.
_PYTHON = frozenset({"python", "python2", "python3", "pytest", "py.test", "pypy", "pypy3"})
LOADING_VARIABLES: dict[str, frozenset[str]] = {
    **{name: frozenset() for name in ("LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH", "DYLD_FALLBACK_LIBRARY_PATH",
                                      "DYLD_FRAMEWORK_PATH")},
    **{name: _PYTHON for name in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE")},
    **{name: frozenset({"node", "nodejs"}) for name in ("NODE_OPTIONS", "NODE_PATH")},
    **{name: frozenset({"perl"}) for name in ("PERL5OPT", "PERL5LIB", "PERLLIB")},
    **{name: frozenset({"ruby"}) for name in ("RUBYOPT", "RUBYLIB")},
    **{name: frozenset({"lua"}) for name in ("LUA_INIT", "LUA_PATH", "LUA_CPATH")},
    **{name: frozenset({"java"}) for name in ("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS")},
}
# A file a shell sources before it runs: opaque when it is standard input or made when the line runs.
STARTUP_VARIABLES = frozenset({"BASH_ENV", "ENV"})
