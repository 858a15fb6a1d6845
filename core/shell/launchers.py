"""The programs in the wrapper table (core/shell/wrappers.py) that start a command somewhere else: in a terminal
window, in a project's or tool manager's environment, with secrets or locks or limits set up first, in a
container, or later from a queue. Each one's options with a value are its own documented ones; what runs is
read as for any wrapper (core/shell/unwrap.py)."""

from __future__ import annotations

from contextual.core.shell.clusters import CLUSTERS
from contextual.core.shell.containers import CONTAINERS
from contextual.core.shell.wrapper import OPAQUE, RUNS_ONE, Wrapper
from contextual.core.shell.wrapper import opts as _opts

_NOTHING = Wrapper(runs_rest=False)    # a sub-command that runs no command (`dotenv list`)

# Terminal windows: the words after -e (or --, -x) are the command; gnome-terminal's -e TEXT is one command line.
_AFTER_E = Wrapper(runs_rest=False, command_after=_opts("-e"))
_GNOME = Wrapper(runs_rest=False, permute=True, value_options=_opts("-e --command"),
                 command_options=_opts("-e --command"), command_after=_opts("-- -x --execute"))
_XFCE = Wrapper(runs_rest=False, permute=True, value_options=_opts("-e --command"),
                command_options=_opts("-e --command"), command_after=_opts("-x --execute"))
_WEZTERM_WINDOW = _opts("--class --workspace --position")
_FOOT = _opts("-o --override -t --term -T --title -a --app-id --toplevel-tag -w --window-size-pixels -W "
              "--window-size-chars -D --working-directory -d --log-level")

# Tool and version managers that run a command in their environment (`poetry run CMD`, `mise x -- CMD`).
_EXEC_RUN = Wrapper(runs_rest=False, subcommands={"exec": RUNS_ONE, "run": RUNS_ONE})
_CONDA_RUN = Wrapper(value_options=_opts("-n --name -p --prefix -r --root-prefix -a --attach --cwd -e --env --label"))
_MISE_EXEC = Wrapper(runs_rest=False, permute=True, value_options=_opts("-c --command -j --jobs"),
                     command_options=_opts("-c --command"), command_after=_opts("--"))
_PNPM_OPTIONS = _opts("-C --dir --filter -F")
_UV_GLOBAL = _opts("--cache-dir --color --config-file --directory --project")
_UV_RESOLVING = _UV_GLOBAL | _opts(
    "--allow-insecure-host --trusted-host --config-setting --config-settings -C --config-settings-package "
    "--default-index --env-file --exclude-newer --exclude-newer-package --extra-index-url --find-links -f "
    "--fork-strategy --index --index-strategy --index-url -i --keyring-provider --link-mode --no-binary-package "
    "--no-build-isolation-package --no-build-package --prerelease --python -p --python-platform "
    "--refresh-package --reinstall-package --resolution --upgrade-package -P --with -w --with-editable "
    "--with-requirements")
_UV_RUN = Wrapper(value_options=_UV_RESOLVING | _opts("--extra --group --no-extra --no-group --only-group --package"))
_UVX = Wrapper(value_options=_UV_RESOLVING | _opts("--build-constraint --build-constraints -b --constraint "
                                                   "--constraints -c --from --override --overrides"))
_PACKAGE_RUNNER = Wrapper(value_options=_opts("-p --package"))
_YARN_OPTIONS = _opts("--cwd --cache-folder --modules-folder --global-folder --link-folder --preferred-cache-folder "
                      "--mutex --network-concurrency --network-timeout --proxy --https-proxy --registry --use-yarnrc "
                      "--otp")      # yarn 1's; berry's --cwd
_FNM = _opts("--node-dist-mirror --fnm-dir --log-level --arch --version-file-strategy")
# pixi runs its words as one line of its own task shell
_PIXI_RUN = Wrapper(script_rest=True, value_options=_opts(
    "-e --environment -p --platform -m --manifest-path -w --workspace --config-file --auth-file "
    "--concurrent-downloads --concurrent-solves --pinning-strategy --pypi-keyring-provider --tls-root-certs --color"))

_DEVBOX_OPTIONS = _opts("-c --config -e --env --env-file --environment")
# nix's commands (src/nix/*.cc and main.cc's aliases): its settings are options too (`--max-jobs 4`, `--option N V`),
# so the sub-command is the first word naming one
_NIX_COMMANDS = _opts(
    "build bundle config copy daemon derivation develop edit env eval flake fmt formatter hash help help-stores key "
    "log nar path-info print-dev-env profile registry repl run search store upgrade-nix version why-depends "
    "add-to-store cat-nar cat-store copy-sigs dev-shell diff-closures dump-path hash-file hash-path ls-nar ls-store "
    "make-content-addressable optimise-store ping-store realisation sign-paths shell show-derivation show-config "
    "verify doctor")
_NIX_COMMAND = _opts("-c --command")
_NIX_DEVELOP = Wrapper(runs_rest=False, default_shell=True, command_after=_NIX_COMMAND, value_options=_opts("--phase"),
                       nothing_alone=_opts("--phase --unpack --configure --build --check --install --installcheck "
                                           "--help"))     # phases run no shell
_NIX_SHELL = Wrapper(runs_rest=False, default_shell=True, command_after=_NIX_COMMAND, nothing_alone=_opts("--help"))

# Secret injectors: the command after `--` (or after the options), or a --command line.
_DOPPLER_RUN = _opts("-p --project -c --config --token --fallback --mount --mount-format --mount-template "
                     "--name-transformer --command --api-host --dashboard-host --configuration --scope")
_INFISICAL_RUN = _opts("--env --path --projectId --token --tags --domain --command --log-level")
_SOPS_EXEC = Wrapper(positional=1, script_rest=True, value_options=_opts("--user --filename"))   # sh -c its text

LAUNCHERS: dict[str, Wrapper] = {
    **{name: _AFTER_E for name in ("xterm", "uxterm", "urxvt", "urxvtc", "rxvt", "rxvt-unicode",
                                   "x-terminal-emulator", "konsole", "mlterm", "aterm")},
    "Eterm": Wrapper(runs_rest=False, command_after=_opts("-e --exec")),
    **{name: Wrapper(runs_rest=False, command_after=_opts("-e --command")) for name in ("alacritty", "lxterminal")},
    "gnome-terminal": _GNOME, "mate-terminal": _GNOME, "xfce4-terminal": _XFCE, "terminator": _XFCE,
    # tilix: the words after the first -x or -e are the command (one word: a line); --command TEXT is a line
    "tilix": Wrapper(runs_rest=False, permute=True, value_options=_opts("--command"), command_options=_opts(
        "--command"), command_after=_opts("-e -x")),
    "kitty": Wrapper(value_options=_opts(
        "--class --app-id --name --os-window-tag --title -T --config -c --override -o --directory "
        "--working-directory -d --session --watcher -w --instance-group --listen-on --start-as --replay-commands "
        "--dump-bytes --detached-log --position"), subcommands={"@": OPAQUE}),      # `kitty @ launch` remotely
    # st runs the words after its options (or after -e); `-l LINE` opens a serial line instead
    "st": Wrapper(value_options=_opts("-c -f -g -n -o -T -t -w"), runs_nothing=_opts("-l")),
    # ghostty: -e takes the rest; its `command` setting (`--command=TEXT`) is a line for a shell
    "ghostty": Wrapper(runs_rest=False, permute=True, command_after=_opts("-e"), value_options=_opts(
        "--command --initial-command"), command_options=_opts("--command --initial-command")),
    # GNOME Console: all after the first -e or --; --command=TEXT is one line (kgx-utils.c)
    "kgx": Wrapper(runs_rest=False, command_after=_opts("-e -- --command")),
    "qterminal": Wrapper(runs_rest=False, command_after=_opts("-e --execute")),     # -e's value and the rest
    "terminology": Wrapper(runs_rest=False, command_after=_opts("-e --exec")),
    "cool-retro-term": Wrapper(runs_rest=False, command_after=_opts("-e")),
    # sakura: -e takes the rest (xterm's way), -x/--execute TEXT is one line (src/sakura.c)
    "sakura": Wrapper(runs_rest=False, permute=True, command_after=_opts("-e --xterm-execute"), value_options=_opts(
        "-t --title -f --font -n --ntabs -d --working-directory -x --execute -i --icon -c --columns -r --rows "
        "--config-file --colorset"), command_options=_opts("-x --execute")),
    # guake -e TEXT and tilda -c TEXT: a line typed into (or run by) the new terminal
    "guake": Wrapper(runs_rest=False, permute=True, command_options=_opts("-e --execute-command"), value_options=_opts(
        "-n --new-tab -s --select-tab -x --uuid-index -S --select-terminal --split-vertical --split-horizontal -e "
        "--execute-command -i --tab-index --bgcolor --fgcolor --bgcolor-current --fgcolor-current --change-palette "
        "--rename-tab -r --rename-current-tab --save-preferences --restore-preferences")),
    "tilda": Wrapper(runs_rest=False, permute=True, command_options=_opts("-c --command"), value_options=_opts(
        "-b --background-color -c --command -f --font -g --config-file -l --lines -w --working-dir -x --x-pos -y "
        "--y-pos -t --background-alpha")),
    "foot": Wrapper(value_options=_FOOT | _opts("-c --config -f --font -p --print-pid")),
    "footclient": Wrapper(value_options=_FOOT | _opts("-s --server-socket")),
    # `wezterm -e CMD` is `wezterm start CMD`
    "wezterm": Wrapper(value_options=_opts("--config-file --config"), subcommands={
        "start": Wrapper(value_options=_WEZTERM_WINDOW | _opts("--cwd --domain")),
        "connect": Wrapper(positional=1, value_options=_WEZTERM_WINDOW),
        "ssh": Wrapper(positional=1, script_rest=True, value_options=_WEZTERM_WINDOW | _opts("-o --ssh-option")),
        "cli": Wrapper(runs_rest=False, subcommands={
            "spawn": Wrapper(value_options=_opts("--pane-id --domain-name --window-id --cwd --workspace")),
            "split-pane": Wrapper(value_options=_opts("--pane-id --cells --percent --cwd --move-pane-id")),
            "send-text": OPAQUE}),    # typed into a pane's shell
        **{name: _NOTHING for name in ("ls-fonts", "show-keys", "imgcat", "set-working-directory", "record",
                                       "replay", "shell-completion", "help", "serial")}}),
    # without --run or --command its bash reads standard input
    "nix-shell": Wrapper(runs_rest=False, permute=True, value_options=_opts(
        "-p --packages -A --attr -I --include -i --arg --argstr -k --keep -j --max-jobs --cores --option --run "
        "--command"), command_options=_opts("--run --command"), default_shell=True,
        nothing_alone=_opts("--run --command"), pair_options=_opts("--arg --argstr --option")),
    # nix develop|shell … -c CMD; without one each runs a shell reading standard input (bash --rcfile, $SHELL);
    # `nix run nixpkgs#busybox -- rm f` runs the package's program (unwrap.py: _installable)
    "nix": Wrapper(runs_rest=False, command_names=_NIX_COMMANDS, subcommands={
        "develop": _NIX_DEVELOP, "dev-shell": _NIX_DEVELOP, "shell": _NIX_SHELL,
        "run": Wrapper(runs_rest=False, installable=True, command_after=_NIX_COMMAND),
        "env": Wrapper(runs_rest=False, subcommands={"shell": _NIX_SHELL})}),
    **{name: _EXEC_RUN for name in ("pyenv", "bundle")},
    # pipenv shell ARGS runs $SHELL ARGS (its fancy mode; the default one needs a terminal)
    "pipenv": Wrapper(runs_rest=False, value_options=_opts("--python --pypi-mirror"), subcommands={
        "exec": RUNS_ONE, "run": RUNS_ONE, "shell": Wrapper(
        shell_rest=True, value_options=_opts("--python --pypi-mirror"))}),
    "poetry": Wrapper(runs_rest=False, value_options=_opts("-C --directory -P --project"),
                      subcommands={"exec": RUNS_ONE, "run": RUNS_ONE}),
    **{name: Wrapper(runs_rest=False, subcommands={"run": _CONDA_RUN, "exec": RUNS_ONE})
       for name in ("conda", "mamba", "micromamba")},
    **{name: Wrapper(runs_rest=False, value_options=_opts("-C --cd -E --env -j --jobs"),
                     subcommands={"exec": _MISE_EXEC, "x": _MISE_EXEC, "run": RUNS_ONE}) for name in ("mise", "rtx")},
    **{name: Wrapper(runs_rest=False, subcommands={"exec": RUNS_ONE})
       for name in ("asdf", "rbenv", "nodenv", "goenv", "jenv", "plenv")},
    "nvm": Wrapper(runs_rest=False, subcommands={"exec": OPAQUE}),   # `nvm exec [VERSION] CMD`: which word runs?
    "fnm": Wrapper(runs_rest=False, value_options=_FNM,
                   subcommands={"exec": Wrapper(value_options=_FNM | {"--using"})}),
    "volta": Wrapper(runs_rest=False, subcommands={"run": Wrapper(value_options=_opts("--node --npm --yarn --pnpm "
                                                                                      "--env"))}),
    "direnv": Wrapper(runs_rest=False, subcommands={"exec": Wrapper(positional=1)}),    # direnv exec DIR cmd
    "devbox": Wrapper(runs_rest=False, subcommands={
        "run": Wrapper(value_options=_DEVBOX_OPTIONS),
        "shell": Wrapper(runs_rest=False, value_options=_DEVBOX_OPTIONS, default_shell=True,
                         runs_nothing=_opts("--print-env"))}),     # bash --rcfile F, its standard input passed on
    "pdm": Wrapper(runs_rest=False, value_options=_opts("-p --project"),
                   subcommands={"run": Wrapper(value_options=_opts("-p --project --venv --skip"))}),
    # `hatch run [+VAR|-VAR …] [ENV:]CMD`: its leading `-` words select a matrix (src/hatch/cli/run)
    "hatch": Wrapper(runs_rest=False, value_options=_opts("-e --env -p --project --data-dir --cache-dir --config"),
                     subcommands={"run": Wrapper(env_separator=":"), "env": Wrapper(runs_rest=False, subcommands={
                         "run": Wrapper(value_options=_opts("-e --env -i --include -x --exclude -f --filter"))}),
                                  "shell": Wrapper(
                         runs_rest=False, permute=True, default_shell=True, value_options=_opts("--name --path"),
                         command_options=_opts("--path"))}),    # a shell it has no module for is run as is
    "rye": Wrapper(runs_rest=False, subcommands={"run": Wrapper(value_options=_opts("--pyproject"))}),
    "pixi": Wrapper(runs_rest=False, value_options=_opts("-m --manifest-path -w --workspace"), subcommands={
        "run": _PIXI_RUN, "r": _PIXI_RUN,
        "exec": Wrapper(value_options=_opts("-s --spec -w --with -c --channel -p --platform"))}),
    "uv": Wrapper(runs_rest=False, value_options=_UV_GLOBAL, subcommands={
        "run": _UV_RUN, "tool": Wrapper(runs_rest=False, subcommands={"run": _UVX})}),
    "uvx": _UVX,
    # pnpm's -c/--shell-mode hands the command to /bin/sh
    "pnpm": Wrapper(runs_rest=False, value_options=_PNPM_OPTIONS, subcommands={
        "exec": Wrapper(value_options=_PNPM_OPTIONS | {"--resume-from"}, script_option="-c",
                        script_long=_opts("--shell-mode")),
        "dlx": Wrapper(value_options=_opts("--package"), script_option="-c", script_long=_opts("--shell-mode")),
        "run": RUNS_ONE}),
    # berry's `yarn exec TEXT ARGS` runs TEXT in its shell, ARGS after it; `workspace W CMD` and `workspaces
    # foreach … CMD` run `yarn CMD` in (each) workspace
    "yarn": Wrapper(runs_rest=False, value_options=_YARN_OPTIONS, subcommands={
        "exec": Wrapper(script_rest=True), "run": RUNS_ONE, "dlx": _PACKAGE_RUNNER,
        "workspace": Wrapper(positional=1, reenters="yarn"), "workspaces": Wrapper(runs_rest=False, subcommands={
            "foreach": Wrapper(value_options=_opts("--from -j --jobs --include --exclude"), reenters="yarn")})}),
    "bunx": _PACKAGE_RUNNER,
    "bun": Wrapper(runs_rest=False, subcommands={"x": _PACKAGE_RUNNER, "exec": Wrapper(script_rest=True)}),
    # python-dotenv's `dotenv run CMD` and dotenv-cli's `dotenv [-e F] [--] CMD`
    "dotenv": Wrapper(value_options=_opts("-f --file -q --quote -e --export -v -c -p"), runs_nothing=_opts("-p"),
                      command_after=_opts("--"), subcommands={"run": RUNS_ONE, **{
                          name: _NOTHING for name in ("list", "get", "set", "unset")}}),
    "dotenvx": Wrapper(runs_rest=False, command_after=_opts("--")),
    "op": Wrapper(runs_rest=False, value_options=_opts("--account --config --encoding --session"), subcommands={
        "run": Wrapper(value_options=_opts("--env-file --account --config --encoding --session"),
                       command_after=_opts("--"))}),
    "aws-vault": Wrapper(runs_rest=False, value_options=_opts(
        "--backend --prompt --keychain --secret-service-collection --pass-dir --pass-cmd --pass-prefix --file-dir"),
        subcommands={"exec": Wrapper(positional=1, value_options=_opts("-d --duration -t --mfa-token --region"),
                                     command_after=_opts("--"), default_shell=True)}),     # no command: $SHELL
    # cobra hands the words before `run` to run's own options too (`doppler -p x run -- CMD`)
    "doppler": Wrapper(runs_rest=False, value_options=_DOPPLER_RUN, command_options=_opts("--command"),
                       subcommands={"run": Wrapper(value_options=_DOPPLER_RUN, command_options=_opts("--command"),
                                                   command_after=_opts("--"))}),
    "infisical": Wrapper(runs_rest=False, value_options=_INFISICAL_RUN, command_options=_opts("--command"),
                         subcommands={"run": Wrapper(value_options=_INFISICAL_RUN, command_options=_opts("--command"),
                                                     command_after=_opts("--"))}),
    "sops": Wrapper(runs_rest=False, value_options=_opts("--config"),
                    subcommands={"exec-env": _SOPS_EXEC, "exec-file": _SOPS_EXEC}),
    "envchain": Wrapper(positional=1),
    "sshpass": Wrapper(value_options=_opts("-f -d -p -P")),
    # chamber exec SERVICE… -- CMD; teller run [-r] [-s] -- CMD (v1's --shell joins the words for sh -c)
    "chamber": Wrapper(runs_rest=False, value_options=_opts(
        "-r --retries --retry-mode -b --backend --backend-s3-bucket --kms-key-alias --min-throttle-delay"),
        subcommands={"exec": Wrapper(runs_rest=False, command_after=_opts("--"))}),
    "teller": Wrapper(runs_rest=False, value_options=_opts("-c --config"), subcommands={"run": Wrapper(
        script_rest=True)}),
    **CONTAINERS,       # containers, machines and remote hosts (core/shell/containers.py)
    **CLUSTERS,         # srun, mpirun, mpiexec (core/shell/clusters.py)
    # locks, limits, users, sessions and sandboxes set up before the command
    "systemd-inhibit": Wrapper(value_options=_opts("--what --who --why --mode"), runs_nothing=_opts("--list")),
    "cgexec": Wrapper(value_options=_opts("-g")),
    **{name: Wrapper(positional=1) for name in ("setlock", "with-lock-ex", "s6-setuidgid", "setuidgid",
                                                "envuidgid", "envdir")},
    "softlimit": Wrapper(value_options=_opts("-m -d -s -l -a -o -p -f -c -r -t")),
    **{name: RUNS_ONE for name in ("pgrphack", "run-one", "run-this-one", "keep-one-running", "run-one-constantly",
                                   "run-one-until-success", "run-one-until-failure", "torify", "tsocks")},
    "retry": Wrapper(value_options=_opts("-d --delay -j --jitter -m --message -t --times -u --until -w --while")),
    "rlwrap": Wrapper(value_options=_opts("-b -C -D -e -f -g -H -l -M -O -P -q -s -S -t -w -z")),
    "cpulimit": Wrapper(value_options=_opts("-l --limit -p --pid -e --exe -P --path")),
    "trickle": Wrapper(value_options=_opts("-d -u -w -t -l -n")),
    "nocache": Wrapper(value_options=_opts("-n")),
    "schroot": Wrapper(value_options=_opts("-c --chroot -u --user -d --directory -o --option -n --session-name -s "
                                           "--shell"), default_shell=True,
                       runs_nothing=_opts("-l --list -i --info --config --location -b --begin-session -e "
                                          "--end-session")),
    "flatpak-spawn": Wrapper(value_options=_opts(
        "--env --unset-env --forward-fd --directory --sandbox-expose --sandbox-expose-ro --sandbox-expose-path "
        "--sandbox-expose-path-ro --sandbox-flag --app-path --usr-path")),
    "daemonize": Wrapper(value_options=_opts("-c -e -o -p -l -u -E")),
    "caffeinate": Wrapper(value_options=_opts("-t -w")),
    "sandbox-exec": Wrapper(value_options=_opts("-f -n -p -D")),
    # queues that run the command later; nq -w/-t and tsp's queries take job ids, not a command
    "nq": Wrapper(runs_nothing=_opts("-w -t")),
    "tsp": Wrapper(value_options=_opts("-L -D -N"),
                   runs_nothing=_opts("-K -C -l -S -t -c -p -o -i -s -r -w -k -u -U -h -V")),
    "pueue": Wrapper(runs_rest=False, value_options=_opts("-c --config -p --profile"), subcommands={
        "add": Wrapper(script_rest=True, value_options=_opts(   # its words, joined, go to sh -c
            "-w --working-directory -d --delay -g --group -a --after -o --priority -l --label"))}),
    # watchexec runs its words, joined, with $SHELL -c
    "watchexec": Wrapper(script_rest=True, runs_nothing=_opts("--completions --manual"), value_options=_opts(
        "--completions --delay-run -E --env --socket --shell --stop-signal --stop-timeout --timeout --workdir "
        "--wrap-process -d --debounce --emit-events-to --map-signal -o --on-busy-update -s --signal -e --exts -f "
        "--filter --filter-file -j --filter-prog --fs-events -i --ignore --ignore-file --project-origin -w --watch "
        "-W --watch-non-recursive -F --watch-file --color")),
}
