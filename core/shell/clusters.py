"""The launchers of the wrapper table (core/shell/launchers.py) that start a command on a cluster's nodes: Slurm's
`srun` (its options: src/common/slurm_opt.c, those srun takes) and MPI's `mpirun`/`mpiexec` (Open MPI 4 and 5,
MPICH's and Intel's hydra). Every option is listed (flag_options): another makes the line opaque, since it may
take the next word. A job of several parts (`srun A : B`, `mpirun -n 1 A : -n 1 B`) or one read from a file
(`srun --multi-prog`, `mpirun --app`, `mpiexec -configfile`) is not read here: opaque."""

from __future__ import annotations

from contextual.core.shell.wrapper import Wrapper
from contextual.core.shell.wrapper import opts as _opts

# srun reads its options up to the first other word (getopt's "+"); its prologs and epilogs are programs it runs
_SRUN_PROGRAMS = _opts("--prolog --epilog --task-prolog --task-epilog")
_SRUN = Wrapper(command_options=_SRUN_PROGRAMS, opaque_words=_opts(": --multi-prog"), value_options=_opts(
    "--accel-bind --account -A --acctg-freq --bbf --autocomplete --bcast-exclude --begin -b --bb "
    "--cluster-constraint --chdir -D --clusters -M --cluster --comment --constraint -C --container "
    "--container-id --runtime --context --core-spec -S --cores-per-socket --cpu-bind --cpu_bind --cpu-freq "
    "--cpus-per-gpu --cpus-per-task -c --deadline --delay-boot --dependency -d --distribution -m --epilog "
    "--error -e --exclude -x --export --extra --extra-node-info -B --gpu-bind --tres-bind --gpu-freq --gpus "
    "-G --gpus-per-node --gpus-per-socket --gpus-per-task --treewidth --tres-per-task --gres --gres-flags "
    "--hint --ignore-signals --input -i --jobid --job-name -J --licenses -L --mail-type --mail-user --threads "
    "-T --mcs-label --mem --mem-bind --mem-per-cpu --mem-per-gpu --mem-update --mincpus --mpi --msg-timeout "
    "--network --nodefile -F --nodelist -w --nodes -N --ntasks -n --ntasks-per-core --ntasks-per-node "
    "--ntasks-per-socket --ntasks-per-tres --ntasks-per-gpu --open-mode --output -o --pack-group --het-group "
    "--partition -p --prefer --priority --profile --prolog --qos -q --relative -r --reservation --resources "
    "--segment --signal --slurmd-debug --sockets-per-node --switches --task-epilog --task-prolog "
    "--tasks-per-node --thread-spec --threads-per-core --time -t --time-min --tmp --wait -W --wckey"),
    flag_options=_opts(   # no value, or one only attached (`--exclusive=user`, `-K1`)
    "--async --bcast --consolidate-segments --compress --contiguous --debugger-test --disable-status -X "
    "--exclusive --exact --external-launcher --help -h --hold -H --immediate -I --interactive "
    "--kill-on-bad-exit -K --label -l --oom-kill-step --multi-prog --nice --no-allocate -Z --no-kill -k "
    "--overcommit -O --overlap --oversubscribe -s --parsable --preserve-env -E --propagate --pty --quiet -Q "
    "--quit-on-interrupt --reboot --resv-ports --send-libs --spread-job --spread-segments --stepmgr "
    "--test-only --unbuffered -u --use-min-nodes --usage --verbose -v --version -V --wait-for-children "
    "--whole --x11"))


def _both(names: str) -> frozenset[str]:
    """Open MPI and hydra take their long options after one dash or two (`-np 2`, `--np 2`)."""
    return frozenset(dashes + name for name in names.split() for dashes in ("-", "--"))


# mpirun/mpiexec: a launch agent (the program started on each node) is run too; --mca, -genv take two words
_MPI_PROGRAMS = _both("launch-agent launcher-exec bootstrap-exec")
_MPI = Wrapper(
    command_options=_MPI_PROGRAMS, pair_options=_both("mca gmca prtemca pmixmca genv env"),
    opaque_words=_opts(":") | _both("app configfile"), opaque_markers=frozenset({"-app=", "-configfile="}),
    value_options=_MPI_PROGRAMS | _opts("-n -c -H -N -x -f") | _both(
        "n np c host hosts hostfile machinefile default-hostfile rankfile rf npersocket npernode ppn ppr map-by "
        "rank-by bind-to cpus-per-proc cpus-per-rank cpu-set output-filename output display stdin xterm path "
        "prefix preload-files wdir wd mca gmca prtemca pmixmca genv env genvlist envlist am tune timeout "
        "report-uri ompi-server runtime-options personality app configfile launcher bootstrap iface rmk demux "
        "outfile-pattern errfile-pattern prepend-pattern gpus-per-proc usize localhost nameserver "
        "order-nodes max-restarts stream-buffering pset dvm"),
    flag_options=_opts("-q -v -V -h -l -s -d") | _both(
        "quiet verbose version help display-map display-devel-map display-allocation report-bindings "
        "oversubscribe nooversubscribe use-hwthread-cpus tag-output timestamp-output merge-stderr-to-stdout "
        "allow-run-as-root bynode byslot nolocal noprefix preload-binary enable-recovery disable-recovery "
        "report-state-on-timeout get-stack-traces debug-daemons leave-session-attached xml genvall genvnone "
        "envall envnone prepend-rank info print-all-exitcodes disable-x enable-x profile silent-abort "
        "set-sid"))

CLUSTERS: dict[str, Wrapper] = {"srun": _SRUN, "mpirun": _MPI, "mpiexec": _MPI, "mpiexec.hydra": _MPI,
                                "orterun": _MPI, "prterun": _MPI}
