"""The launchers of the wrapper table (core/shell/launchers.py) that run a command in a container, a machine or a
remote host: `docker|podman|nerdctl run|create|exec`, compose's `run` and `exec`, lxc/incus, multipass, distrobox,
toolbox, systemd-nspawn, machinectl, vagrant, gcloud, heroku, fly, kubectl. Each one's options are its own
(docker 28's --help, podman, nerdctl, compose, toolbox, lxc/incus, fly and systemd's sources, gcloud 528's --help).
Where every option is listed (flag_options), another before the command makes the line opaque: it may take the
next word, and then which word is the image or the command is unknown. An image's own entrypoint that runs the
words after it (`docker run --rm img rm -rf /w` where img's entrypoint is `git`) is not knowable here: the words
after the image are read as the command, as `docker exec C CMD` is."""

from __future__ import annotations

from contextual.core.shell.wrapper import Wrapper
from contextual.core.shell.wrapper import opts as _opts

_STDIN = _opts("-i --interactive")      # with no command, an image's default (often a shell) reads what it is fed

# docker 28: `docker run --help`, and the hidden aliases --net, --net-alias, --dns-opt
_DOCKER_GLOBAL = _opts("-H --host -c --context --config -l --log-level --tlscacert --tlscert --tlskey")
_DOCKER_RUN_VALUES = _opts(
    "--add-host --annotation -a --attach --blkio-weight --blkio-weight-device --cap-add --cap-drop --cgroup-parent "
    "--cgroupns --cidfile --cpu-count --cpu-percent --cpu-period --cpu-quota --cpu-rt-period --cpu-rt-runtime -c "
    "--cpu-shares --cpus --cpuset-cpus --cpuset-mems --detach-keys --device --device-cgroup-rule --device-read-bps "
    "--device-read-iops --device-write-bps --device-write-iops --dns --dns-option --dns-opt --dns-search "
    "--domainname --entrypoint -e --env --env-file --expose --gpus --group-add --health-cmd --health-interval "
    "--health-retries --health-start-interval --health-start-period --health-timeout -h --hostname "
    "--io-maxbandwidth --io-maxiops --ip --ip6 --ipc --isolation --kernel-memory -l --label --label-file --link "
    "--link-local-ip --log-driver --log-opt --mac-address -m --memory --memory-reservation --memory-swap "
    "--memory-swappiness --mount --name --network --net --network-alias --net-alias --oom-score-adj --pid "
    "--pids-limit --platform -p --publish --pull --restart --runtime --security-opt --shm-size --stop-signal "
    "--stop-timeout --storage-opt --sysctl --tmpfs --ulimit -u --user --userns --uts -v --volume --volume-driver "
    "--volumes-from -w --workdir")
_DOCKER_RUN_FLAGS = _opts("-d --detach --disable-content-trust --help --init -i --interactive --no-healthcheck "
                          "--oom-kill-disable --privileged -P --publish-all -q --quiet --read-only --rm --sig-proxy "
                          "-t --tty --use-api-socket")
_DOCKER_EXEC = Wrapper(positional=1, value_options=_opts("-e --env --env-file -u --user -w --workdir --detach-keys "
                                                         "--preserve-fds"))

# podman: cmd/podman/common/create.go, netflags.go, containers/run.go, the aliases of utils/alias.go, and the root's
# persistent flags (root.go), which every sub-command takes
_PODMAN_PERSISTENT = _opts(
    "--cgroup-manager --cpu-profile --memory-profile --conmon --network-config-dir --default-mounts-file "
    "--events-backend --hooks-dir --cdi-spec-dir --max-workers --namespace --network-backend --root "
    "--registries-conf --runroot --imagestore --pull-option --runtime --storage-driver --tmpdir --volumepath "
    "--storage-opt --log-level --runtime-flag")
_PODMAN_PERSISTENT_FLAGS = _opts("--transient-store --trace --help --syslog")
_PODMAN_GLOBAL = _PODMAN_PERSISTENT | _opts("--ssh -c --connection --url -H --host --config --context --identity "
                                            "--tls-cert --tls-key --tls-ca --tls-details --out --module")
_PODMAN_RUN_VALUES = _PODMAN_PERSISTENT | _opts(
    "--add-host --annotation --arch -a --attach --authfile --blkio-weight --blkio-weight-device --cap-add --cap-drop "
    "--cert-dir --cgroup-conf --cgroup-parent --cgroupns --cgroups --chrootdirs --cidfile --conmon-pidfile "
    "--cpu-period --cpu-quota --cpu-rt-period --cpu-rt-runtime -c --cpu-shares --cpus --cpuset-cpus --cpuset-mems "
    "--creds --decryption-key --detach-keys --device --device-cgroup-rule --device-read-bps --device-read-iops "
    "--device-write-bps --device-write-iops --dns --dns-option --dns-opt --dns-search --entrypoint -e --env "
    "--env-file --env-merge --expose --gidmap --gpus --group-add --group-entry --health-cmd --healthcheck-command "
    "--health-interval --healthcheck-interval --health-log-destination --health-max-log-count "
    "--health-max-log-size --health-on-failure --health-retries --healthcheck-retries --health-start-period "
    "--healthcheck-start-period --health-startup-cmd --health-startup-interval --health-startup-retries "
    "--health-startup-success --health-startup-timeout --health-timeout --healthcheck-timeout -h --hostname "
    "--hosts-file --hostuser --image-volume --init-path --ip --ip6 --ipc --kernel-memory -l --label --label-file "
    "--log-driver --log-opt --mac-address -m --memory --memory-reservation --memory-swap --memory-swappiness "
    "--mount --name --network --net --network-alias --oom-score-adj --os --override-os --override-arch "
    "--passwd-entry --personality --pid --pidfile --pids-limit --platform --pod --pod-id-file --preserve-fd "
    "--preserve-fds -p --publish --pull --rdt-class --requires --restart --retry --retry-delay --sdnotify "
    "--seccomp-policy --secret --security-opt --shm-size --shm-size-systemd --signature-policy --stop-signal "
    "--stop-timeout --subgidname --subuidname --sysctl --systemd --timeout --tmpfs --tz --uidmap --ulimit --umask "
    "--unsetenv -u --user --userns --uts --variant -v --volume --volumes-from -w --workdir")
_PODMAN_RUN_FLAGS = _PODMAN_PERSISTENT_FLAGS | _opts(
    "-d --detach --disable-content-trust --env-host --http-proxy --init -i --interactive --no-healthcheck "
    "--no-hostname --no-hosts --oom-kill-disable --passwd --privileged -P --publish-all -q --quiet --read-only "
    "--read-only-tmpfs --replace --rm --rmi --rootfs --sig-proxy -t --tty --unsetenv-all --tls-verify")
# podman's --latest names the container instead of a word: `podman exec -l rm f` runs rm
_PODMAN_EXEC = Wrapper(positional=1, no_positional=_opts("-l --latest"),
                       value_options=_DOCKER_EXEC.value_options | _PODMAN_PERSISTENT | _opts("--preserve-fd --cidfile"))
# `podman machine ssh [NAME] [CMD]`: NAME when a machine has that name, and the words a line for its shell
_PODMAN_MACHINE_SSH = Wrapper(positional=1, optional_positional=True, script_rest=True, default_shell=True,
                              value_options=_PODMAN_PERSISTENT | _opts("--username"))

# nerdctl: cmd/nerdctl/container/container_run*.go, container_exec.go and main.go's persistent flags
_NERDCTL_GLOBAL = _opts("-a -H --address --host -n --namespace --snapshotter --storage-driver --cni-path "
                        "--cni-netconfpath --data-root --cgroup-manager --hosts-dir --host-gateway-ip --bridge-ip "
                        "--cdi-spec-dirs --userns-remap --global-dns --global-dns-opts --global-dns-search")
_NERDCTL_GLOBAL_FLAGS = _opts("--debug --debug-full --insecure-registry --experimental --kube-hide-dupe "
                              "--selinux-enabled")
_NERDCTL_RUN_VALUES = _NERDCTL_GLOBAL | _opts(
    "--add-host --annotation -a --attach --blkio-weight --blkio-weight-device --cap-add --cap-drop --cgroup-conf "
    "--cgroup-parent --cgroupns --cidfile --cosign-certificate-identity --cosign-certificate-identity-regexp "
    "--cosign-certificate-oidc-issuer --cosign-certificate-oidc-issuer-regexp --cosign-key --cpu-period "
    "--cpu-quota --cpu-rt-period --cpu-rt-runtime --cpu-shares --cpus --cpuset-cpus --cpuset-mems --detach-keys "
    "--device --device-read-bps --device-read-iops --device-write-bps --device-write-iops --dns --dns-opt "
    "--dns-option --dns-search --domainname --entrypoint -e --env --env-file --expose --gpus --group-add "
    "--health-cmd --health-interval --health-retries --health-start-period --health-timeout -h --hostname "
    "--init-binary --ip --ip6 --ipc --ipfs-address --isolation --kernel-memory -l --label --label-file --log-driver "
    "--log-opt --mac-address -m --memory --memory-reservation --memory-swap --memory-swappiness --mount --name --net "
    "--network --oom-score-adj --pid --pidfile --pids-limit --platform -p --publish --pull --rdt-class --restart "
    "--runtime --security-opt --shm-size --stop-signal --stop-timeout --sysctl --systemd --tmpfs --ulimit --umask "
    "-u --user --userns --uts --verify -v --volume --volumes-from -w --workdir")
_NERDCTL_RUN_FLAGS = _NERDCTL_GLOBAL_FLAGS | _opts(
    "-d --detach --help --init -i --interactive --no-healthcheck --oom-kill-disable --privileged -P --publish-all "
    "-q --quiet --read-only --rm --rootfs --sig-proxy -t --tty")
_NERDCTL_EXEC = Wrapper(positional=1, value_options=_NERDCTL_GLOBAL | _opts("-e --env --env-file -u --user -w "
                                                                            "--workdir"),
                        flag_options=_NERDCTL_GLOBAL_FLAGS | _opts("-d --detach -i --interactive --privileged -t "
                                                                   "--tty --help"))


def _run(values: frozenset[str], flags: frozenset[str], health: frozenset[str], creates: bool = False) -> Wrapper:
    """`… run [OPTIONS] IMAGE [CMD…]` (`create` keeps the command to run later): the words after the image are the
    command; --entrypoint's value is its first word then; a health check's command line is read too."""
    return Wrapper(positional=1, value_options=values, flag_options=flags, entry_options=_opts("--entrypoint"),
                   command_options=health, default_shell=not creates, default_shell_with=_STDIN)


_DOCKER_HEALTH = _opts("--health-cmd")
_PODMAN_HEALTH = _opts("--health-cmd --healthcheck-command --health-startup-cmd")
_DOCKER_RUN = _run(_DOCKER_RUN_VALUES, _DOCKER_RUN_FLAGS, _DOCKER_HEALTH)
_PODMAN_RUN = _run(_PODMAN_RUN_VALUES, _PODMAN_RUN_FLAGS, _PODMAN_HEALTH)
_NERDCTL_RUN = _run(_NERDCTL_RUN_VALUES, _NERDCTL_RUN_FLAGS, _DOCKER_HEALTH)
_CONTAINER_COMMANDS = {
    "docker": {"exec": _DOCKER_EXEC, "run": _DOCKER_RUN,
               "create": _run(_DOCKER_RUN_VALUES, _DOCKER_RUN_FLAGS, _DOCKER_HEALTH, creates=True)},
    "podman": {"exec": _PODMAN_EXEC, "run": _PODMAN_RUN,
               "create": _run(_PODMAN_RUN_VALUES, _PODMAN_RUN_FLAGS, _PODMAN_HEALTH, creates=True)},
    "nerdctl": {"exec": _NERDCTL_EXEC, "run": _NERDCTL_RUN,
                "create": _run(_NERDCTL_RUN_VALUES, _NERDCTL_RUN_FLAGS, _DOCKER_HEALTH, creates=True)},
}

# compose runs a command in a service's container: `docker compose exec web CMD`, `docker compose run web CMD`
# (docker compose's docs/reference, podman-compose's parsers; its --entrypoint is split as a shell would)
_COMPOSE_EXEC = Wrapper(positional=1, value_options=_opts("-e --env -u --user -w --workdir --index"))
_COMPOSE_RUN = Wrapper(positional=1, entry_options=_opts("--entrypoint"), value_options=_opts(
    "--cap-add --cap-drop --entrypoint -e --env --env-from-file -l --label --labels --name -p --publish --pull -u "
    "--user -v --volume --volumes -w --workdir"), flag_options=_opts(
    "--build -d --detach --dry-run -i --interactive --no-deps -T --no-tty -P --service-ports -q --quiet "
    "--quiet-build --quiet-pull --remove-orphans --rm -t --tty --use-aliases -h --help"))
_COMPOSE = Wrapper(runs_rest=False, subcommands={"exec": _COMPOSE_EXEC, "run": _COMPOSE_RUN}, value_options=_opts(
    "-f --file -p --project-name --profile --env-file --project-directory --ansi --parallel --progress -c --context "
    "-H --host --log-level --tlscacert --tlscert --tlskey --podman-path --podman-args --pod-args"))

# lxc (LXD) and incus: `exec C [--] CMD` (options anywhere before `--`); `shell C` is `exec C -- su -l`
_LXC_OPTIONS = _opts("--env --mode --user --group --cwd --project")
_LXC = Wrapper(runs_rest=False, value_options=_opts("--project"), subcommands={
    "exec": Wrapper(positional=1, options_after_positional=True, value_options=_LXC_OPTIONS),
    "shell": Wrapper(positional=1, options_after_positional=True, value_options=_LXC_OPTIONS, runs_rest=False,
                     default_shell=True)})
# distrobox-enter: the command after -e/--exec/--; the Go rewrite also takes the words after the name
_DISTROBOX_ENTER = Wrapper(positional=1, optional_positional=True, options_after_positional=True,
                           value_options=_opts("-n --name -a --additional-flags"), command_after=_opts("-e --exec --"),
                           default_shell=True, runs_nothing=_opts("-h --help -V --version -d --dry-run"))
# systemd-nspawn (src/nspawn/nspawn.c): with no command it runs a shell; with --boot the words go to init
_NSPAWN = Wrapper(default_shell=True, runs_nothing=_opts("-b --boot -h --help --version"), value_options=_opts(
    "--settings -D --directory --template -i --image --image-policy --mstack --oci-bundle --root-hash "
    "--root-hash-sig --verity-data --pivot-root --chdir -E --setenv -u --uid --user --kill-signal --notify-ready "
    "--suppress-sync -M --machine --hostname --uuid -S --slice --property --register --private-users-ownership "
    "--private-users-delegate --network-interface --network-macvlan --network-ipvlan --network-veth-extra "
    "--network-bridge --network-zone --network-namespace-path -p --port --capability --drop-capability "
    "--ambient-capability --no-new-privileges --system-call-filter -Z --selinux-context -L --selinux-apifs-context "
    "--rlimit --oom-score-adjust --cpu-affinity --personality --resolv-conf --timezone --link-journal "
    "--forward-journal --forward-journal-max-use --forward-journal-keep-free --forward-journal-max-file-size "
    "--forward-journal-max-files --bind --bind-ro --inaccessible --tmpfs --overlay --overlay-ro --bind-user "
    "--bind-user-shell --bind-user-group --console --background --set-credential --load-credential"),
    flag_options=_opts(
    "-h --help --version -q --quiet --no-pager --cleanup --no-ask-password -x --ephemeral --read-only --volatile -a "
    "--as-pid2 -b --boot --keep-unit --private-users --private-users-chown -U --private-network -n --network-veth "
    "-j -P --pipe --share-system --system"))
# machinectl shell [[USER@]MACHINE [CMD…]]: its options also after `shell`, up to the machine
_MACHINECTL_VALUES = _opts("-p --property -P -s --signal -H --host -M --machine -n --lines -o --output -E --setenv "
                           "--kill-whom --verify --runner --format --uid --max-addresses")
_MACHINECTL = Wrapper(runs_rest=False, value_options=_MACHINECTL_VALUES, subcommands={"shell": Wrapper(
    positional=1, default_shell=True, value_options=_MACHINECTL_VALUES, flag_options=_opts(
        "-h --help --version --value -a --all -l --full --no-pager --no-legend --read-only --mkdir -q --quiet "
        "--no-ask-password -V --now --force --user --system"))})

# remote hosts: a line for the remote shell (`-c`, `--command`, `-C`), else the shell reads standard input
_VAGRANT_SSH = Wrapper(runs_rest=False, permute=True, value_options=_opts("-c --command"), script_option="-c",
                       script_long=_opts("--command"), default_shell=True, nothing_alone=_opts("-c --command"),
                       opaque_words=_opts("--"))     # the words after `--` are ssh's, the remote line among them
_GCLOUD_WIDE = _opts("--account --billing-project --configuration --flags-file --flatten --format --project "
                     "--verbosity --access-token-file --impersonate-service-account --trace-token")
# gcloud compute ssh, its alpha/beta tracks, tpus tpu-vm ssh, cloud-shell ssh: flags anywhere; --ssh-flag and
# --flags-file hand ssh or gcloud options (a ProxyCommand), and the words after `--` are ssh's: opaque
_GCLOUD_SSH = Wrapper(runs_rest=False, permute=True, value_options=_GCLOUD_WIDE | _opts(
    "--command --container --ssh-flag --ssh-key-file --strict-host-key-checking --zone --network --region "
    "--dest-group --ssh-key-expiration --ssh-key-expire-after --worker --output-directory"),
    command_options=_opts("--command"), default_shell=True, nothing_alone=_opts("--command"),
    runs_nothing=_opts("--dry-run --troubleshoot --help -h"), opaque_words=_opts("--"),
    opaque_markers=frozenset({"--ssh-flag", "--flags-file"}))
_GCLOUD_COMPUTE = Wrapper(runs_rest=False, value_options=_GCLOUD_WIDE | _opts("--zone --region"), subcommands={
    "ssh": _GCLOUD_SSH, "tpus": Wrapper(runs_rest=False, subcommands={
        "tpu-vm": Wrapper(runs_rest=False, subcommands={"ssh": _GCLOUD_SSH})})})
_GCLOUD_GROUPS = {"compute": _GCLOUD_COMPUTE,
                  "cloud-shell": Wrapper(runs_rest=False, value_options=_GCLOUD_WIDE, subcommands={"ssh": _GCLOUD_SSH})}
_GCLOUD = Wrapper(runs_rest=False, value_options=_GCLOUD_WIDE, opaque_options=_opts("--flags-file"), subcommands={
    **_GCLOUD_GROUPS, **{track: Wrapper(runs_rest=False, value_options=_GCLOUD_WIDE, subcommands=_GCLOUD_GROUPS)
                         for track in ("alpha", "beta")}})
# heroku run (packages/cli/src/commands/run): its words, joined, are the dyno's command line
_HEROKU_VALUES = _opts("-a --app -r --remote")
_HEROKU = Wrapper(runs_rest=False, subcommands={
    "run": Wrapper(script_rest=True, value_options=_HEROKU_VALUES | _opts("-e --env -s --size --type"),
                   flag_options=_opts("-x --exit-code --listen --no-launcher --no-notify --no-tty -h --help")),
    "run:detached": Wrapper(script_rest=True, value_options=_HEROKU_VALUES | _opts("-e --env -s --size --type"),
                            flag_options=_opts("--no-launcher -t --tail -h --help")),
    "run:inside": Wrapper(positional=1, script_rest=True, value_options=_HEROKU_VALUES,
                          flag_options=_opts("-x --exit-code --listen --no-launcher -h --help")),
    # ps:exec (commands/ps/exec.ts, not strict): its words, joined, are the remote line, else a shell is opened
    "ps:exec": Wrapper(script_rest=True, default_shell=True, runs_nothing=_opts("--status"), value_options=(
        _HEROKU_VALUES | _opts("-d --dyno")), flag_options=_opts("--ssh --status -h --help"))})
# fly ssh console -C CMD (flyctl's internal/command/ssh/console.go), flags anywhere, also before `ssh console`
# (cobra hands them to console); fly machine exec [ID] TEXT
_FLY_CONSOLE = _opts("-C --command --machine -A --address --container -u --user -o --org -a --app -c --config -r "
                     "--region -g --process-group -t --access-token")
_FLY_MACHINE = Wrapper(runs_rest=False, value_options=_opts("-a --app -c --config -t --access-token"), subcommands={
    "exec": Wrapper(positional=1, optional_positional=True, script_rest=True, value_options=_opts(
        "-a --app -c --config --container --timeout -t --access-token"))})
_FLY = Wrapper(runs_rest=False, value_options=_FLY_CONSOLE, command_options=_opts("-C --command"), subcommands={
    "machine": _FLY_MACHINE, "m": _FLY_MACHINE, "ssh": Wrapper(
        runs_rest=False, value_options=_FLY_CONSOLE, command_options=_opts("-C --command"), subcommands={
            "console": Wrapper(runs_rest=False, permute=True, command_options=_opts("-C --command"),
                               default_shell=True, nothing_alone=_opts("-C --command"),
                               value_options=_FLY_CONSOLE)})})

# kubectl up to 1.30 (and oc) ran `exec POD CMD` without `--` (1.31 refuses it); `-f FILE` names the pod instead.
# Its options (pflag) anywhere; the globals are cli-runtime's and klog's.
_KUBE_GLOBAL = _opts(
    "--as --as-group --as-uid --cache-dir --certificate-authority --client-certificate --client-key --cluster "
    "--context --kubeconfig --kuberc -n --namespace --password --profile --profile-output --request-timeout -s "
    "--server --tls-server-name --token --user --username -v --v --vmodule --log-dir --log-file "
    "--log-file-max-size --log-flush-frequency --log-backtrace-at --stderrthreshold")
_KUBE_FLAGS = _opts("--insecure-skip-tls-verify --match-server-version --warnings-as-errors --disable-compression "
                    "--add-dir-header --alsologtostderr --logtostderr --one-output --skip-headers "
                    "--skip-log-headers -h --help")
_KUBE_EXEC = Wrapper(positional=1, options_after_positional=True, no_positional=_opts("-f --filename"),
                     value_options=_KUBE_GLOBAL | _opts("-c --container -f --filename --pod-running-timeout"),
                     flag_options=_KUBE_FLAGS | _opts("-i --stdin -t --tty -q --quiet"))
# kubectl run NAME --image=IMAGE ARGS: ARGS are the container's command (as `docker run IMAGE CMD`); --overrides
# may set one in JSON (pkg/cmd/run/run.go, with cmd/delete's and cli-runtime's print flags)
_KUBE_RUN = Wrapper(positional=1, options_after_positional=True, opaque_markers=frozenset({"--overrides"}),
                    value_options=_KUBE_GLOBAL | _opts(
                        "--annotations --image --image-pull-policy --env --port -l --labels --restart --detach-keys "
                        "--field-manager --override-type --pod-running-timeout --grace-period --timeout -f "
                        "--filename -k --kustomize -o --output --template"),
                    flag_options=_KUBE_FLAGS | _opts(
                        "--rm -i --stdin -t --tty --attach --leave-stdin-open --command --expose -q --quiet "
                        "--privileged --save-config --force --wait -R --recursive --show-managed-fields "
                        "--allow-missing-template-keys --record --dry-run --cascade"))
# oc rsh [OPTIONS] POD [CMD…] (pkg/cli/rsh): options before the pod only; without a command /bin/sh reads stdin
_OC_RSH = Wrapper(positional=1, default_shell=True, value_options=_KUBE_GLOBAL | _opts(
    "-c --container --shell --timeout --pod-running-timeout"), flag_options=_KUBE_FLAGS | _opts("-t --tty -T --no-tty"))

CONTAINERS: dict[str, Wrapper] = {
    **{name: Wrapper(runs_rest=False, value_options=global_, subcommands={
        **commands, "container": Wrapper(runs_rest=False, subcommands=commands), "compose": _COMPOSE,
        **({"machine": Wrapper(runs_rest=False, subcommands={"ssh": _PODMAN_MACHINE_SSH})} if name == "podman"
           else {})})
       for name, global_, commands in (("docker", _DOCKER_GLOBAL, _CONTAINER_COMMANDS["docker"]),
                                       ("podman", _PODMAN_GLOBAL, _CONTAINER_COMMANDS["podman"]),
                                       ("nerdctl", _NERDCTL_GLOBAL, _CONTAINER_COMMANDS["nerdctl"]))},
    "docker-compose": _COMPOSE, "podman-compose": _COMPOSE,
    **{name: Wrapper(runs_rest=False, command_after=_opts("--"), value_options=_KUBE_GLOBAL, subcommands={
        "exec": _KUBE_EXEC, "run": _KUBE_RUN, **({"rsh": _OC_RSH} if name == "oc" else {})})
       for name in ("kubectl", "oc")},
    "lxc": _LXC, "incus": _LXC,
    "multipass": Wrapper(runs_rest=False, subcommands={"exec": Wrapper(
        positional=1, options_after_positional=True, value_options=_opts("-d --working-directory"))}),
    "distrobox": Wrapper(runs_rest=False, subcommands={"enter": _DISTROBOX_ENTER}),
    "distrobox-enter": _DISTROBOX_ENTER,
    "toolbox": Wrapper(runs_rest=False, value_options=_opts("--log-level"), subcommands={"run": Wrapper(
        value_options=_opts("-c --container -d --distro -r --release --preserve-fds --log-level"),
        flag_options=_opts("-y --assumeyes --log-podman -v --verbose -h --help"))}),
    "systemd-nspawn": _NSPAWN, "machinectl": _MACHINECTL,
    "vagrant": Wrapper(runs_rest=False, subcommands={"ssh": _VAGRANT_SSH}),
    "gcloud": _GCLOUD, "heroku": _HEROKU, "fly": _FLY, "flyctl": _FLY,
}
