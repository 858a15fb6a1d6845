"""The shell parse under the permission rules (core/shell/parse.py, issue 26.1): which simple commands a line
runs, when it is uncertain, and how deny and allow rules read the result. Through the CLI:
tests/test_deny_rules_cli.py."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from contextual.core.permission_rules import PermissionRules, parse_rule
from contextual.core.permissions import rule_denial
from contextual.core.shell.findings import Input
from contextual.core.shell.parse import parse_command
from contextual.core.shell.wrappers import WRAPPERS

DENY_RM = PermissionRules(deny=(parse_rule("Bash(rm:*)"),))

EVASIONS = ["echo $(rm v5)", "echo `rm v6`", "X=1 rm f", "(rm f)", "{ rm f; }", "rm\tf", "/bin/rm f",
            "command rm f", "'rm' f", "\\rm f", "bash -c 'rm f'", "ls | xargs rm", "r\"m\" f",
            "sudo -u me timeout -s KILL 5 nice -n 3 env A=1 rm f", "find . -name x -exec rm {} \\;",
            "eval 'rm f'", "bash -lc 'echo $(rm z)'", "a=$(rm x)", "cat <<EOF\n$(rm x)\nEOF", "cat <(rm x)",
            "if true; then rm x; fi", "f() { rm x; }; f", "time rm x", "exec rm x", "$'rm' x",
            "echo rm f | sh", "/bin/r? f", "{rm,f}", "ls ((; rm f", "true && rm f", "true; rm f", "coproc rm f",
            "ssh host rm f", "ssh -p 22 -o A=b me@host 'rm f'", "ssh -tp 22 host 'cd x && rm f'",
            "sudo -Eu root rm f", "flock /tmp/l -c 'rm f'", "flock -w 3 /tmp/l rm f", "runuser -u me -- rm f",
            "script -qc 'rm f' /dev/null", "echo rm f | bash -s x", "bash <<'EOF'\nrm f\nEOF",
            "sh <<EOF\ncd x && rm f\nEOF", "bash -s a <<<'rm f'", "sh <<< \"rm $F\"", "bash <<EOF\n$(rm f)\nEOF",
            "shopt -s expand_aliases; alias x='rm -rf'; x f", "strace -o log rm f", "pkexec rm f", "unshare -r rm f",
            "systemd-run -p A=b rm f", "fakeroot -- rm f", "valgrind --tool=none rm f",
            "ssh -o ProxyCommand='rm f' host", "ssh -oLocalCommand='rm f' host ls", "ssh -o \"$O\" host ls",
            "parallel -j 2 rm ::: a b", "parallel 'rm {}' ::: a", "ls | parallel", "rsync -avze 'rm f' a b:",
            "rsync --rsh='rm f' a b:", "rsync -e \"$RSH\" a b:", "tar --to-command='rm f' -xf a.tar",
            "tar -xIrm -f a.tar", "git -c alias.x='!rm f' x", "git -c core.sshCommand='rm f' fetch",
            "GIT_SSH_COMMAND='rm f' git fetch", "env PAGER='rm f' man ls", "export EDITOR='rm f'; git commit",
            "GIT_PAGER=\"$(rm f)\" git log",
            # found by a red team of the evening of 2026-11-26, each run by bash with a stand-in rm
            "echo ${y:-`rm x`}", "cat <<E\n`rm x`\nE", "echo `echo \\`rm x\\` `", "r\\\nm x",
            "bash -c 'r\\\nm x'", "coproc N { rm x; }", "shopt -s extglob\n/bin/r@(m) x",
            "x='a[$(rm x)]'; (( x ))", "let 'a[$(rm x)]'", "x='$(rm x)'; echo ${x@P}", "PS4='$(rm x)'; set -x; :",
            "mapfile -C 'rm x' -c 1 a <<< q", "BASH_ENV=/dev/stdin bash -c : <<< 'rm x'",
            "bash --rcfile <(echo 'rm x') -ic :", "bash <<EOF\necho \\'; rm x; echo \\'\nEOF",
            "source /dev/stdin <<< 'rm x'", "bash - <<< 'rm x'", "echo 'rm x' | bash /dev/stdin",
            "hash -p /bin/rm ls; ls x", "BASH_CMDS[ls]=/bin/rm; ls x", "BASH_ALIASES=([y]=rm)",
            "env 1=1 rm x", "env 'BASH_FUNC_y%%=() { rm x; }' bash -c y", "env --split-string='rm x'",
            "echo rm x | xargs env", "echo x | xargs -l rm", "echo rm | xargs -I% sh -c '% x'", "watch -d rm x",
            "script /dev/null -qc 'rm x'", "su root -c 'rm x'", "su --command='rm x'", "runuser root -c 'rm x'",
            "strace --output /dev/null rm x", "unshare --propagation private -m rm x",
            "ssh h -o 'ProxyCommand=rm x'", "ssh -F /dev/stdin h <<< 'ProxyCommand rm x'",
            "rsync a h:b -e 'rm x'", "RSYNC_CONNECT_PROG='rm x' rsync rsync://h/m", "rsync --rsync-path='rm x;' a h:",
            "tar xf a.tar --to-command='rm x'", "tar xIf 'rm x;cat' a.tar", "tar --use-comp='rm x;cat' -xf a.tar",
            "tar cf /dev/null --checkpoint=1 --checkpoint-action=exec='rm x' a",
            "TAR_OPTIONS='--to-command=rm\\ x' tar xf a.tar", "dbus-run-session -- rm x", "sg root 'rm x'",
            "setpriv rm x", "taskset 1 rm x", "chrt -o 0 rm x", "prlimit --nofile=100 rm x", "capsh -- -c 'rm x'",
            "setarch x86_64 rm x", "linux64 rm x", "ssh-agent rm x", "rbash -c 'rm x'", "tmux new-session -d 'rm x'",
            "npx -c 'rm x'", "npm exec -c 'rm x'", "npm exec -- rm x", "sem -j1 'rm x'", "chronic rm x",
            "echo q | ifne rm x", "echo q | pee 'rm x' cat", "mispipe 'rm x' cat", "entr -s 'rm x'", "lckdo L rm x",
            "git rebase -x 'rm x' HEAD~1", "git bisect run rm x", "git submodule foreach 'rm x'",
            "git difftool -y -x 'rm x' A B", "git grep -O'rm x;:' a", "git ls-remote --upload-pack='rm x' R",
            "git -c protocol.ext.allow=always ls-remote 'ext::sh -c rm% x'",
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.y GIT_CONFIG_VALUE_0='!rm x' git y",
            "V='!rm x' git --config-env=alias.y=V y", "echo a # c \\\nrm x",
            # a second red team, after the first fixes
            "timeout $NOPE 5 rm x", "echo 5 rm x | xargs timeout", "env --ch . rm x", "su --c='rm x'",
            "su root -- -c 'rm x'", "bash -c -- 'rm x'", "flock lk --command 'rm x'", "setarch x86_64 -R rm x",
            "su <<< 'rm x'", "echo 'rm x' | su", "sudo -s <<< 'rm x'", "script -q /dev/null <<< 'rm x'",
            "sudo FOO=1 rm x", "time FOO=1 rm x", "env -- X=1 rm x", "git -c alias.r=rebase r -x 'rm x' HEAD~1",
            "git -c 'alias.e=!env' e rm x", "git clone -c core.sshCommand='rm x' y:z d",
            "git -c 'credential.https://example.com.helper=!rm x' credential fill",
            "git -c 'trailer.sign.command=rm x' interpret-trailers", "git -c include.path=/dev/stdin diff",
            "git filter-branch -f --tree-filter 'rm x' HEAD", "git config diff.external 'rm x'",
            "export 'GIT_EXTERNAL_DIFF=rm x'; git diff", "read GIT_PAGER <<< 'rm x'; git log",
            ": ${GIT_PAGER:=rm x}; git log", "for GIT_PAGER in 'rm x'; do export GIT_PAGER; git log; done",
            "npx --call 'rm x'", "npm --loglevel silent exec -c 'rm x'", "tmux -c 'rm x'",
            "tmux -L s run-shell -d 0 'rm x'", "find . -exec env -u + rm x \\;", "bash /dev//stdin <<< 'rm x'",
            ". /dev/fd/3 3<<'E'\nrm x\nE", "parallel eval ::: 'rm x'", "parallel --limit 'rm x' echo ::: a",
            "strace --trace-path /tmp rm x", "zsh --emulate sh -c 'rm x'", "fish --command 'rm x'",
            "tar cf /dev/null --checkpoint=1 --checkpoint-act=exec='rm x' a", "ssh -qo 'ProxyCommand=rm x' h",
            "ssh -o $'ProxyCommand\trm x' h", "scp -o 'ProxyCommand=rm x' a h:b", "scp -S rm a h:b",
            "x='#$(rm x)'; echo ${x@P}", "read x <<'E'\na[$(rm x)]\nE\n(( x ))", "echo \"${x:-'$(rm x)'}\"",
            "mispipe 'echo a' 'rm x'", "rg --pre rm pattern x", "hyperfine -N 'rm x'", "fdfind x -x rm",
            "perf stat -x, rm x", "direnv exec . rm x", "gosu root rm x", "eatmydata rm x", "bwrap --bind / / rm x",
            # found reading the change: a nested shell ended the line's reading of its quoted $( ) too early
            "x='a[$(rm x)]'; bash -c 'ls'; (( x ))", "sg root -c 'rm x'",
            # a third red team (2026-11-27), each deleting a file through the CLI in bypass mode; found partly by
            # fuzzing tree-sitter against bash (blanks, line ends, and leaves read whole)
            'x=a; echo ${x#$(rm x)}', 'x=a; echo ${x%%$(rm x)}', 'x=a; echo ${x^^$(rm x)}',
            'x=a; echo "${x,$(rm x)}"', 'x=\x0becho rm x', 'x=\x0cecho rm x', 'x=\u3000echo rm x',
            'x=\u2028echo rm x', 'x=\recho rm x', 'echo ok <<<\r\nrm x', ': <\r\nrm x', 'echo\n\\rm x',
            'echo =~\nrm x', "PS4='$((rm x) )'; set -x; :", "x='a[$((rm x) )]'; (( x ))",
            "PS4='$(: # )\nrm x)'; set -x; :", "PS4='\\044(rm x) '; set -x; :", "x='\\044(rm x)'; echo ${x@P}",
            "printf -v 'BASH_CMDS[x]' /bin/rm; x victim", 'printf -vBASH_CMDS /bin/rm; 0 victim',
            "declare 'BASH_CMDS[x]=/bin/rm'; x victim", "read 'BASH_CMDS[x]' <<< /bin/rm; x victim",
            "declare -n r='BASH_CMDS[x]'; r=/bin/rm; x victim", 'declare -n r; r=BASH_CMDS; r[x]=/bin/rm; x victim',
            "shopt -s expand_aliases; printf -v 'BASH_ALIASES[x]' rm\nx victim",
            "printf -vPS4 '%s(rm x)' '$'; set -x; :", "set -k; git ls-remote ssh://x/y GIT_SSH_COMMAND='rm x #'",
            "compgen -C 'rm x' x", "set -o history\nhistory -s 'rm x'\nfc -s rm",
            "bash /proc/self/root/dev/stdin <<< 'rm x'", "source /proc/self/root/dev/stdin <<< 'rm x'",
            "zsh -c '=rm x'", 'fish -c "echo \'a\\\\\'\' ; rm x #\'"', 'sh -c "echo \\$\'\\\\\' ; rm x #\'"',
            'dash -c "echo \\$\'\\\\\' ; rm x #\'"', 'strace -o /dev/null --quiet rm x',
            'strace -o /dev/null --columns 5 rm x', 'ltrace -o /dev/null --indent 2 rm x',
            'setarch x86_64 --uname-2.6 rm x', 'watch -q 1 rm x', 'numactl -C 0 rm x', 'tini -s -e 0 rm x',
            'dumb-init -r 1:2 rm x', 'xvfb-run -w 0 rm x', 'chrt -d -T 1000000 -P 1000000 0 rm x',
            'parallel --arg-sep ,, rm ,, x', 'parallel -C , rm ::: x,y', 'fdfind -g x -Hx rm',
            'capsh --shell=/bin/rm -- x', "env -S 'rm\\_x'", "sftp -D 'rm x' h", "find /usr/bin/rm -exec '{}' x ';'",
            'fdfind -g rm /usr/bin -x \'{}\' "$PWD/x"', 'parallel \'"{}"\' x ::: rm',
            'hyperfine -N -r 1 -L c rm,x \'"{c}" x\'', 'exec 3</bin/rm; /dev/fd/3 x',
            'exec 3</bin/rm; /proc/self/fd/3 x', '/lib64/ld-linux-x86-64.so.2 /bin/rm x',
            'exec -a rm /usr/bin/busybox x', 'gdb -q -batch -ex run --args /bin/rm x',
            "printf '[alias]\\n\\tx = !rm x\\n' > g; GIT_CONFIG_GLOBAL=g git x",
            # programs that start a command somewhere else, missing from the table until helper-99's survey
            "sshpass -p pw rm -rf x", "sshpass -e ssh h 'rm x'", "xterm -T t -e rm x", "xterm -e 'rm x'",
            "urxvt -e rm x", "x-terminal-emulator -e rm x", "konsole --noclose -e rm x", "alacritty -e rm x",
            "lxterminal --command='rm x'", "gnome-terminal --title t -- rm x", "gnome-terminal -e 'rm x'",
            "xfce4-terminal -T t -x rm x", "terminator -e 'rm x'", "tilix -w d -e 'rm x'", "kitty -T t rm x",
            "kitty @ launch rm x", "foot -D d rm x", "wezterm start --cwd d -- rm x", "wezterm -e rm x",
            "wezterm cli spawn -- rm x", "tmux send-keys 'rm x' Enter", "tmux confirm-before 'run-shell \"rm x\"'",
            "nix-shell -p a b --run 'rm x'", "nix-shell --command 'rm x'", "nix develop .#d -c rm x",
            "nix shell nixpkgs#a --command rm x", "devbox run -e A=1 rm x", "mamba run -n env rm x",
            "micromamba run -p /e rm x", "conda run -n env2 rm x", "uv run --with a rm x", "uv --directory d run rm x",
            "uvx --from pkg rm", "uv tool run --python 3.12 rm", "pdm run --venv v rm x", "hatch run rm x",
            "rye run rm x", "pixi run -e dev 'rm x && ls'", "pixi exec -s p rm x", "pnpm exec -c 'rm x'",
            "pnpm --filter a exec rm x", "pnpm dlx --package p rm x", "yarn dlx -p p rm x", "bunx rm x",
            "bun x rm x", "bun exec 'rm x'", "asdf exec rm x", "rbenv exec rm x", "mise x node@20 -- rm x",
            "mise exec -c 'rm x'", "rtx exec -- rm x", "volta run --node 18 rm x", "fnm exec --using 18 rm x",
            "nvm exec 18 rm x", "poetry -C d run rm x", "dotenv run rm x", "dotenv -e .env -- rm x",
            "dotenvx run -f .env -- rm x", "op run --env-file e -- rm x", "aws-vault exec prof -- rm x",
            "doppler run -p p -- rm x", "doppler run --command 'rm x'", "infisical run --env dev -- rm x",
            "sops exec-env s.yaml 'rm x'", "sops exec-file s.yaml 'rm x {}'", "envchain ns rm x",
            "docker exec -u me c rm x", "docker container exec c rm x", "podman exec -w d c rm x",
            "kubectl -n ns exec p -c ctr -- rm x", "oc exec p -- rm x", "systemd-inhibit --why w rm x",
            "cgexec -g cpu:g rm x", "setlock -n l rm x", "with-lock-ex -w l rm x", "s6-setuidgid me rm x",
            "setuidgid me rm x", "envdir ./e rm x", "softlimit -m 100 rm x", "pgrphack rm x", "run-one rm x",
            "torify rm x", "tsocks rm x", "rlwrap -f f rm x", "cpulimit -l 50 rm x", "trickle -d 10 rm x",
            "nocache -n 2 rm x", "nq rm x", "tsp -L l rm x", "pueue add -g g 'rm x'", "schroot -c ch -- rm x",
            "flatpak-spawn --host --directory d rm x", "daemonize -c / /bin/rm x", "caffeinate -t 9 rm x",
            "sandbox-exec -n p rm x", "watchexec -e py 'rm x'", "doas -a style rm x",
            # eighth red team (helper-102): a `--` an option takes as its value (getopt and pflag give it to the
            # option) ended the reading; a git config set's options; launchers' missing spellings; a remote or
            # launched shell reading standard input
            "tar --exclude -- --to-command='rm x' -xf a.tar", "tar -xf -- -I 'rm x'", "rsync -f -- -e 'rm x' a h:b",
            "git grep -e -- -O'rm x'", "rg -g -- --pre 'rm x' d", "kubectl --kubeconfig -- exec p ls -- rm x",
            "kubectl exec -f -- ls -- rm x", "git config set -f .git/config alias.x '!rm x' && git x",
            "git send-email --to-cmd='rm x' p.patch", "git send-email --sendmail-cmd 'rm x' p.patch",
            "podman exec -l rm x", "podman exec -itl rm x", "podman container exec --latest rm x",
            "docker compose exec web rm x", "docker compose -f c.yml exec -T -u me web rm x",
            "docker-compose exec web rm x", "podman-compose exec web rm x", "echo 'rm x' | ssh h",
            "ssh h <<< 'rm x'", "echo 'rm x' | sshpass -p pw ssh h", "echo 'rm x' | aws-vault exec prof",
            "nix-shell -p a <<< 'rm x'", "echo 'rm x' | nix-shell", "st -e rm x", "st -T t rm x", "ghostty -e rm x",
            # helper-104: containers, machines, remote hosts, terminals and shells fed on standard input that the
            # table did not name (`docker run -v "$PWD":/w alpine rm -rf /w` deleted the project past Bash(rm:*))
            'docker run -v "$PWD":/w alpine rm -rf /w', "docker run --rm -it -e A=1 -v /a:/b alpine rm x",
            "podman run --rm --pod p alpine rm x", "docker container run alpine rm x", "docker create alpine rm x",
            "docker compose run --rm -e A=1 web rm x", "docker-compose run web rm x", "podman-compose run web rm x",
            "docker run --entrypoint rm alpine -rf /w", "docker run --entrypoint=rm alpine x",
            "podman run --entrypoint '[\"rm\",\"-rf\"]' alpine /w", "docker compose run --entrypoint 'rm -rf' web /w",
            "docker run --health-cmd 'rm x' alpine", "docker run -i alpine <<< 'rm x'", "nerdctl run alpine rm x",
            "nerdctl exec c rm x", "nerdctl container run -n ns alpine rm x", "lxc exec c -- rm x", "lxc exec c rm x",
            "incus exec c --env A=1 -- rm x", "lxc shell c <<< 'rm x'", "multipass exec vm -- rm x",
            "distrobox enter box -- rm x", "distrobox-enter -n box -e rm x", "distrobox enter box rm x",
            "distrobox enter box <<< 'rm x'", "toolbox run -c box rm x", "systemd-nspawn -qD /srv/c rm x",
            "systemd-nspawn -D d <<< 'rm x'", "machinectl shell .host /usr/bin/rm x", "machinectl shell <<< 'rm x'",
            "vagrant ssh -c 'rm x'", "vagrant ssh default --command='rm x'", "vagrant ssh <<< 'rm x'",
            "gcloud compute ssh vm --zone z --command 'rm x'",
            "gcloud --project p beta compute ssh vm --command='rm x'", "gcloud compute ssh vm -- rm x", "gcloud compute ssh vm <<< 'rm x'", "heroku run -a app rm x",
            "heroku run:detached 'rm x'", "fly ssh console -C 'rm x'", "flyctl ssh console -a app --command 'rm x'",
            "podman machine ssh rm x", "podman machine ssh vm 'rm x'", "kgx -e rm x", "kgx --command='rm x'",
            "sakura -e rm x", "sakura -x 'rm x'", "qterminal -e rm x", "terminology -e rm x", "cool-retro-term -e rm x",
            "guake -e 'rm x'", "tilda -c 'rm x'", "nix develop <<< 'rm x'",
            "nix --option sandbox false develop .#dev <<< 'rm x'", "nix shell nixpkgs#hello <<< 'rm x'",
            "pipenv shell -- -c 'rm x'", "pipenv shell <<< 'rm x'", "devbox shell <<< 'rm x'", "hatch shell <<< 'rm x'",
            # helper-106: an empty `--opt=` holds its value, clap's and pflag's `-c=TEXT` is TEXT, nix-shell's
            # two-word options may take a `--`, cobra's options before the sub-command, and table gaps
            "docker exec --user= c rm x", "docker exec -u= c rm x", "docker run --entrypoint= alpine rm x",
            "docker compose exec --user= web rm x", "lxc exec c --cwd= rm x", "mise exec -c='rm x'",
            "fly ssh console -C='rm x'", "nix-shell --argstr a -- --run 'rm x'", "ghostty --command='rm x'",
            "micromamba run -e base rm x", "pipenv --python 3.11 run rm x", "doppler -p x run -- rm x",
            "infisical --domain x run -- rm x", "fly -a app ssh console -C 'rm x'", "fly machine exec id 'rm x'",
            # helper-111: launchers and wrappers a survey of `X rm f` found unread (programs, spellings, options)
            "nix run nixpkgs#busybox -- rm x", "nix run 'nixpkgs#pkgsStatic.busybox' -- rm x",
            "nix run --impure github:NixOS/nixpkgs#toybox rm x", "nix run nixpkgs#coreutils -- rm x",
            "coreutils --coreutils-prog=rm x", "hatch run default:rm x", "hatch run +py=3.10 -version=9 test:rm x",
            "hatch run :rm x", "hatch env run -e test rm x", "kubectl exec p rm x", "kubectl exec -it p -c c rm x",
            "kubectl -n ns exec p rm x", "kubectl exec p -n ns rm x", "kubectl exec -f pod.yaml rm x",
            "kubectl run x --image=busybox --restart Never rm x", "oc exec p rm x", "oc rsh -c c p rm x",
            "oc rsh p <<< 'rm x'", "heroku ps:exec -a app 'rm x'", "heroku ps:exec -a app <<< 'rm x'",
            "yarn --cwd d exec rm x", "yarn exec 'rm x'", "yarn workspace w exec rm x",
            "yarn workspaces foreach -A exec rm x", "tilix -x rm x", "tilix -w d -e rm x", "mlterm -e rm x",
            "Eterm --exec rm x", "aterm -e rm x", "footclient -D d rm x", "chamber exec svc -- rm x",
            "chamber -b s3 exec a b -- rm x", "teller run -- rm x", "teller run --shell -- 'rm x'",
            "retry -t 3 -- rm x", "retry rm x", "srun rm x", "srun -p gpu -N 1 rm x", "srun --partition=gpu rm x",
            "srun --prolog=/bin/rm hostname", "srun -n1 true : -n1 rm x", "srun --multi-prog conf",
            "srun --new-plugin-option x rm x", "mpirun -np 2 rm x", "mpiexec -n 2 rm x",
            "mpirun --mca btl tcp,self -np 2 rm x", "mpiexec -genv A B -n 2 rm x", "mpirun -x PATH rm x",
            "mpirun -np 1 true : -np 1 rm x", "mpirun --app appfile", "unshare --map-users auto rm x",
            "unshare --map-groups auto rm x", "runuser -s /bin/rm root x", "runuser root -s /bin/rm x",
            "runuser -ls /bin/rm root x", "runuser root <<< 'rm x'", "doas -s <<< 'rm x'", "pkexec <<< 'rm x'",
            "systemd-run --on-calendar daily rm x", "systemd-run --service-type oneshot rm x",
            "systemd-run --timer-property A=b rm x", "systemd-run -S <<< 'rm x'", "dbus-launch --config-file f rm x",
            "perf record --call-graph dwarf rm x", "perf stat --pre 'rm x' true", "perf stat -M m rm x"]


@pytest.mark.parametrize("command", EVASIONS)
def test_every_way_of_running_rm_is_denied(command: str):
    assert DENY_RM.denies("Bash", {"command": command}, "/") is not None


@pytest.mark.parametrize("command", ["echo remove", "git rm-cache", "ls -l rmdir", "echo 'harm f'", "ssh rm ls",
                                     "ssh -l rm host ls", "flock rm ls",
                                     "python -c 'import os; os.remove(1)'", "git -c user.name=rm log",
                                     "git -c alias.x='rm f' x", "tar -cf rm.tar d", "rsync -av rm b:",
                                     "parallel echo ::: rm", "PAGER=cat git log", "RM=rm make",
                                     "command -v rm >/dev/null && echo ok", "exec {fd}>/tmp/lock; flock -n $fd",
                                     "git rm --cached f", "docker run --rm img", "grep -rn 'rm -rf' .",
                                     "cat <<'EOF' > s.sh\nrm -rf build\nEOF", "echo 'a \\\nrm'",
                                     "git commit -m \"$(cat <<'EOF'\nrm stale\nEOF\n)\"",
                                     "git commit -m 'docs: explain `rm -rf build` in README'",
                                     "sed -i 's/`rm -rf`/`rm -r`/' README.md", "grep -rn '$(rm' scripts/",
                                     "export PS1='[\\u@\\h \\W]\\$ '", "LESSOPEN='| /usr/bin/lesspipe %s' less f",
                                     "sudo -v", "git config core.pager less", "timeout 5 ls",
                                     "set -euo pipefail; ls", "declare -A seen; ls",
                                     "find . -name '*.py' -exec grep -l rmtree {} +", "numactl --hardware",
                                     "for f in a b; do\n  echo $f\ndone", "ls |\n  grep x", "env -S 'ls -la'",
                                     "echo \"a\nb\" 'c\nd'", "strace -c -o /dev/null ls", "exec 3>log; ls >&3",
                                     # launchers' own words that are not a command (helper-99)
                                     "xterm -title rm", "xterm -e ls rm", "gnome-terminal --title rm",
                                     "kitty -T rm ls", "wezterm start --cwd rm ls", "sshpass -p rm ssh h ls",
                                     "nix-shell -p rm --run ls", "nix build .#rm", "conda run -n rm ls",
                                     "uv run --with rm ls", "uvx --from rm ls", "mise x rm@1 -- ls",
                                     "dotenv -f rm run ls", "op run --env-file rm -- ls", "aws-vault exec rm -- ls",
                                     "docker exec -u rm c ls", "docker build -t rm .", "kubectl exec rm -- ls",
                                     "kubectl -n \"$NS\" get pods", "systemd-inhibit --why rm ls",
                                     "schroot -c rm -- ls", "tsp -r 3", "nq -w rm", "pueue add -g rm ls",
                                     "watchexec -e rm ls", "pnpm --filter rm install",
                                     # a `--` after an option, or alone, ends the options (helper-102)
                                     "rg -- --pre rm", "tar -cf a.tar -- --to-command=rm", "tar -- -I rm",
                                     "ssh -N -L 1:h:2 h", "ssh -fNL 1:h:2 h", "ssh -O exit h", "ssh h ls",
                                     "git send-email --to=rm p.patch", "podman exec -u -l c ls",
                                     "docker compose exec rm ls", "nix-shell --run ls", "nix-shell s.nix --run ls",
                                     "st -T rm ls", "aws-vault exec rm -- ls",
                                     # launchers' own words, and a look-alike of each (helper-104)
                                     "docker run --name rm alpine true", "docker run -e rm=1 alpine ls",
                                     "vagrant status", "gcloud compute instances list",
                                     "docker run --entrypoint ls alpine rm", "docker run --rm -v rm:/x alpine ls",
                                     "docker compose run --name rm web ls", "podman run --pod rm alpine ls",
                                     "lxc exec rm -- ls", "incus exec c --env rm=1 -- ls", "multipass exec rm -- ls",
                                     "distrobox enter rm -- ls", "toolbox run -c rm ls", "systemd-nspawn -D rm ls",
                                     "machinectl shell rm@c /bin/ls", "vagrant ssh -c ls rm",
                                     "gcloud compute ssh rm --command ls", "heroku run -a rm ls",
                                     "fly ssh console -a rm -C ls", "podman machine ssh --username rm vm ls",
                                     "kgx -T rm", "sakura -t rm -x ls", "guake -n rm -e ls", "tilda -f rm -c ls",
                                     "qterminal -w rm -e ls", "nix develop -c ls", "nix search nixpkgs shell",
                                     "pipenv shell -- -c ls", "docker run --rm -it python:3 python -c 'print(1)'",
                                     # helper-106
                                     "docker exec --user=rm c ls", "mise exec -c=ls", "ghostty --title=rm",
                                     "nix-shell --argstr a rm --run ls", "doppler run -p rm -- ls",
                                     "fly ssh console -a rm -C ls",
                                     # helper-111: launchers' own words, and options once missing (then opaque)
                                     "kubectl exec p ls rm", "kubectl -n rm exec p ls", "kubectl exec -c rm p ls",
                                     "kubectl run rm --image=busybox ls", "oc rsh -c rm p ls",
                                     "nix run nixpkgs#cowsay -- rm", "nix run . -- rm", "hatch run rm:pytest",
                                     "hatch env run -e rm pytest", "yarn workspace rm exec ls",
                                     "yarn --cwd rm exec ls", "tilix -t rm -e ls", "aterm -title rm -e ls",
                                     "footclient -T rm ls", "chamber exec rm -- ls", "teller run -- ls rm",
                                     "heroku ps:exec -a rm ls", "retry -m rm ls", "srun -J rm ls",
                                     "srun --partition=rm -N 1 python x.py", "mpirun --mca btl rm hostname",
                                     "mpirun -x rm hostname", "mpiexec -genv A rm -n 2 hostname",
                                     "mpiexec -disable-x -n 1 hostname", "unshare --map-users rm -r ls",
                                     "unshare --boottime 5 ls", "numactl -w 0 ls", "systemd-run --on-boot 5 ls",
                                     "systemd-run --user --unit rm ls", "doas -u rm ls", "doas -C /etc/doas.conf rm",
                                     "pkexec --user rm ls", "runuser -s /bin/bash root -c ls",
                                     "dbus-launch --config-file rm ls", "perf record --call-graph dwarf ls",
                                     "perf stat --pre true ls", "coreutils --coreutils-prog=ls rm"])
def test_commands_that_only_look_alike_are_not_denied(command: str):
    assert DENY_RM.denies("Bash", {"command": command}, "/") is None


def test_the_simple_commands_of_a_line_are_read_with_quotes_escapes_and_assignments_removed():
    parsed = parse_command("X=1 \\git 'sta'tus --short && echo \"a $B\" | tail -3")
    assert parsed.certain and not parsed.writes_files
    assert parsed.commands == (("git", "status", "--short"), ("echo", None), ("tail", "-3"))


def test_wrappers_are_listed_with_what_they_run():
    assert parse_command("sudo rm f").commands == (("sudo", "rm", "f"), ("rm", "f"))
    assert parse_command("xargs").commands == (("xargs",), ("echo",))
    assert parse_command("bash -c 'git push'").commands[-1] == ("git", "push")
    # The remote command of ssh is a shell line; allowing `ssh` does not allow what it runs there.
    assert parse_command("ssh -i key host 'git push; ls'").commands[1:] == (("git", "push"), ("ls",))
    ssh_allowed = PermissionRules(allow=(parse_rule("Bash(ssh:*)"),))
    assert ssh_allowed.allows("Bash", {"command": "ssh -N -L 8080:db:5432 host"}, "/")
    # with no remote command its shell reads standard input, which the line may hand it (`echo 'rm f' | ssh host`)
    assert not ssh_allowed.allows("Bash", {"command": "ssh host"}, "/")
    assert not ssh_allowed.allows("Bash", {"command": "ssh host rm f"}, "/")
    assert {"sudo", "env", "xargs", "find", "eval", "bash", "sh", "timeout", "nice", "command", "exec",
            "nohup", "time"} <= set(WRAPPERS)


def test_command_lines_carried_by_options_settings_and_variables_are_read_as_commands():
    assert parse_command("rsync -av -essh a b:").commands[1:] == (("ssh",),)
    assert parse_command("tar -cf a.tar -I 'zstd -19' d").commands[1:] == (("zstd", "-19"),)
    assert set(parse_command("git -c alias.st='!git status -s' st").commands[1:]) == {("git", "status", "-s")}
    # an alias without `!` is git's own line: `Bash(git push:*)` holds for `git -c alias.p=push p`
    assert parse_command("git -c alias.st='status -s' st").commands[1:] == (("git", "status", "-s"),)
    assert PermissionRules(deny=(parse_rule("Bash(git push:*)"),)).denies(
        "Bash", {"command": "git -c alias.p=push p"}, "/") is not None
    assert set(parse_command("GIT_PAGER=cat git log").commands) == {("cat",), ("git", "log")}
    assert parse_command("parallel gzip -k ::: a b").commands[1:] == (("gzip", "-k", None),)   # + its arguments
    # Allowing the program does not allow the command line it was handed, as with ssh.
    git_allowed = PermissionRules(allow=(parse_rule("Bash(git:*)"),))
    assert not git_allowed.allows("Bash", {"command": "git -c core.pager=less log"}, "/")
    assert git_allowed.allows("Bash", {"command": "git log"}, "/")


def test_a_shell_reading_a_here_document_runs_its_text_and_an_unknown_one_is_opaque():
    quoted = parse_command("bash <<'EOF'\ngit status\nls $HOME\nEOF")
    assert quoted.certain and quoted.commands == (("bash",), ("git", "status"), ("ls", None))
    assert parse_command("sh <<< 'ls'").commands == (("sh",), ("ls",))
    assert DENY_RM.denies("Bash", {"command": "bash <<'EOF'\nls\nEOF"}, "/") is None    # readable now, not opaque
    for unknown in ("sh <<EOF\n$CMD f\nEOF", "bash <<< \"$X\"", "cat s.sh | bash -s"):
        assert parse_command(unknown).opaque, unknown


@pytest.mark.parametrize("command", ["$CMD f", "ls ((", "echo x | bash", "/bin/r? f", "sh -c \"$S\"",
                                     "bash -c \"$(" * 12 + "rm x" + ")\"" * 12])
def test_lines_that_cannot_be_read_with_certainty_are_uncertain(command: str):
    assert not parse_command(command).certain


def test_a_terminal_or_container_command_starts_after_its_marker_and_an_unknown_word_before_it_is_opaque():
    """`xterm -e CMD`, `kubectl exec P -- CMD` (core/shell/wrapper.py: command_after): the words after the first
    marker are the command, a lone word with blanks a shell line; a `$VAR` before it may hold the marker."""
    assert parse_command("xterm -T t -e git push").commands[1:] == (("git", "push"),)
    assert parse_command("xterm -e 'ls; git push'").commands[1:] == (("ls",), ("git", "push"))
    assert parse_command("lxterminal --command='git push'").commands[1:] == (("git", "push"),)
    assert parse_command("kubectl exec p -- sh -c 'ls -- x'").commands[1:] == (("sh", "-c", "ls -- x"),
                                                                                ("ls", "--", "x"))
    for unknown in ("xterm $OPTS -e ls", "kubectl exec \"$POD\" -- ls"):
        assert parse_command(unknown).opaque, unknown
    for plain in ("xterm -T \"$T\"", "kubectl -n \"$NS\" get pods", "docker build -t \"$TAG\" ."):
        assert not parse_command(plain).opaque, plain
    # allowing the launcher does not allow what it runs in the container, as with ssh
    docker_allowed = PermissionRules(allow=(parse_rule("Bash(docker:*)"),))
    assert docker_allowed.allows("Bash", {"command": "docker ps"}, "/")
    assert not docker_allowed.allows("Bash", {"command": "docker exec c rm x"}, "/")
    assert not docker_allowed.allows("Bash", {"command": "docker compose exec web rm x"}, "/")     # helper-102


def test_a_container_or_remote_command_is_read_past_the_image_and_an_unknown_option_before_it_is_opaque():
    """helper-104 (core/shell/containers.py): `docker run [OPTS] IMAGE CMD` reads CMD, --entrypoint's value is its
    command word; where every option is listed, an unknown one may take the next word, so which word is the image is
    not known; `podman machine ssh [NAME] CMD` is read with and without the name."""
    assert parse_command("docker run --rm -v /a:/b -w /b img pytest -x").commands[1:] == (("pytest", "-x"),)
    assert parse_command("docker run --entrypoint=python img -m pytest").commands[1:] == (
        ("python", "-m", "pytest"),)
    assert parse_command("docker run --entrypoint '' img ls").commands[1:] == (("ls",),)   # the image's own then
    for unknown in ("docker run --new-option x alpine ls", "docker run --entrypoint \"$E\" alpine",
                    "podman run -Z alpine ls"):
        assert parse_command(unknown).opaque, unknown
    # with no command the image's default runs: opaque only when standard input is handed to it (-i)
    assert not parse_command("docker run --rm img").opaque
    assert parse_command("docker run --rm -i img").opaque
    assert parse_command("docker run -i img <<< 'ls'").commands[1:] == (("ls",),)
    assert set(parse_command("podman machine ssh vm ls").commands[1:]) == {("vm", "ls"), ("ls",)}
    # a permuted script option's long form with its value in the word (`su --command=TEXT` was opaque)
    for line in ("su --command='git push'", "vagrant ssh --command='git push'"):
        assert parse_command(line).commands[-1] == ("git", "push") and not parse_command(line).opaque, line
    # allowing the launcher does not allow what it runs there, as with ssh
    for launcher, line in (("docker", "docker run alpine rm x"), ("docker", "docker compose run web rm x"),
                           ("gcloud", "gcloud compute ssh vm --command 'rm x'"), ("vagrant", "vagrant ssh -c 'rm x'"),
                           ("heroku", "heroku run rm x"), ("lxc", "lxc exec c -- rm x"), ("nix", "nix develop")):
        allowed = PermissionRules(allow=(parse_rule(f"Bash({launcher}:*)"),))
        assert not allowed.allows("Bash", {"command": line}, "/"), line
    assert PermissionRules(allow=(parse_rule("Bash(docker:*)"),)).allows("Bash", {"command": "docker run --rm img"},
                                                                          "/")


def test_a_launchers_command_is_read_where_its_program_puts_it():
    """helper-111: `nix run FLAKE#ATTR` runs ATTR's program, `yarn workspace W CMD` is `yarn CMD`, hatch's `ENV:CMD`
    names an environment, mpirun's --mca takes two words, `kubectl exec -f FILE` names no pod; a job of several
    parts or one from a file, and an option srun does not list, are not read."""
    assert parse_command("nix run nixpkgs#busybox -- ls -l").commands[1:] == (("busybox", "ls", "-l"), ("ls", "-l"))
    assert parse_command("yarn workspace w exec 'ls -l'").commands[1:] == (("yarn", "exec", "ls -l"), ("ls", "-l"))
    assert parse_command("hatch run +py=3.10 test:pytest -x").commands[1:] == (("pytest", "-x"),)
    assert parse_command("mpirun --mca btl tcp,self -np 2 ./a.out").commands[1:] == (("./a.out",),)
    assert parse_command("kubectl exec -f pod.yaml ls").commands[1:] == (("ls",),)
    assert parse_command("runuser root -s /bin/bash f").commands[-1] == ("/bin/bash", "f")     # USER is optional
    for unknown in ("srun -n1 a : -n1 b", "srun --multi-prog conf", "mpirun --app=appfile", "srun --new x ls",
                    "nix run \"$PKG\" -- ls"):
        assert parse_command(unknown).opaque, unknown
    for plain in ("nix run . -- ls", "nix run nixpkgs#hello", "srun -n 2 hostname", "oc rsh p ls"):
        assert not parse_command(plain).opaque, plain


def test_a_deeply_nested_line_is_uncertain_and_does_not_exhaust_the_stack():
    line = "echo " + "$(" * 3000 + "rm x" + ")" * 3000
    parsed = parse_command(line)
    assert DENY_RM.denies("Bash", {"command": line}, "/") is not None
    assert parsed.commands                                   # read without a RecursionError


def test_a_line_nested_past_the_tree_depth_is_opaque_whatever_it_runs():
    """tree-sitter finds a node's parent from the root down, so each command of a line nested N deep cost N steps:
    a checkout's script of 40,000 `$(` (run as `bash build.sh`, read for the deny rules) held the check for hours.
    Past MAX_TREE_DEPTH the line is unreadable: every deny rule holds it, no allow rule matches it."""
    from contextual.core.shell.walk import MAX_TREE_DEPTH
    allow_echo = PermissionRules(allow=(parse_rule("Bash(echo:*)"), parse_rule("Bash(true)")))
    for line in ("if true; then " * MAX_TREE_DEPTH + "echo; " + "fi; " * MAX_TREE_DEPTH,
                 "true && " * MAX_TREE_DEPTH + "true"):
        assert parse_command(line).opaque
        assert DENY_RM.denies("Bash", {"command": line}, "/") is not None
        assert not allow_echo.allows("Bash", {"command": line}, "/")
    shallow = "echo $(echo $(true)) && " + "true && " * 100 + "true"      # 100 deep
    assert not parse_command(shallow).opaque and allow_echo.allows("Bash", {"command": shallow}, "/")


def test_a_line_with_a_syntax_error_is_opaque_and_says_so():
    """tree-sitter and bash can disagree on a line tree-sitter cannot parse (`[ a \\< b ]; r$'m' x` ran rm past a
    word search), so no rule is checked against it: every deny rule holds, no allow rule matches."""
    allow_all_git = PermissionRules(allow=(parse_rule("Bash(git:*)"), parse_rule("Bash(echo:*)")))
    for line in ("echo (( ok", "[ a \\< b ]; r$'m' x", "for y in a; { r$'m' x; }", "echo `# c`; r$'m' x"):
        parsed = parse_command(line)
        assert parsed.syntax_error and parsed.opaque and DENY_RM.denies("Bash", {"command": line}, "/"), line
    assert allow_all_git.allows("Bash", {"command": "git log ((("}, "/") is None
    assert allow_all_git.allows("Bash", {"command": "git log | echo x"}, "/") is not None
    denial = rule_denial("Bash", {"command": "echo (( ok"}, DENY_RM, Path("/"))
    assert "does not parse with certainty" in denial["error"]["message"]


OPAQUE = ["$CMD f", "R=r; ${R}m f", "$(printf 'r%s' m) f", "echo cm0gZgo= | base64 -d | sh", "eval \"$X\"",
          "source <(echo rm f)", ". <(curl -s x)", "sudo $OPTS rm f", "bash -c \"$SCRIPT\""]
PLAIN = ["git commit -m push", "git log --grep push", "source venv/bin/activate", ". ./env.sh", "echo $HOME",
         "cat $FILE", "python -m pytest -q", "make clean", "grep -r rm ."]


def test_a_command_whose_text_only_the_running_shell_knows_is_denied_by_any_bash_deny_rule(tmp_path):
    """No rule can be checked against text made when the line runs, so a deny rule holds: the model is told to
    write the command out plainly. Lines whose commands are all known stay allowed (the scripts they source are
    read from disk: here they set variables)."""
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    (tmp_path / "venv" / "bin" / "activate").write_text('export VIRTUAL_ENV="$PWD/venv"\nPATH="$VIRTUAL_ENV/bin:$PATH"\n')
    (tmp_path / "env.sh").write_text("export DJANGO_SETTINGS_MODULE=app.settings\n")
    for command in OPAQUE:
        assert parse_command(command).opaque, command
        assert DENY_RM.denies("Bash", {"command": command}, "/") is not None, command
        denial = rule_denial("Bash", {"command": command}, DENY_RM, Path("/"))
        assert "write the command out plainly" in denial["error"]["message"]
    for command in PLAIN:
        assert not parse_command(command).opaque, command
        assert DENY_RM.denies("Bash", {"command": command}, str(tmp_path)) is None, command


def test_a_program_left_to_read_its_commands_from_standard_input_is_named_to_the_model():
    """`ssh host` with no command reads one from standard input, so under a deny rule it is refused: the model is
    told why in words it can act on (give ssh the command), not only the other kinds of opaque line."""
    message = rule_denial("Bash", {"command": "ssh host"}, DENY_RM, Path("/"))["error"]["message"]
    assert "standard input" in message and "give ssh, su or docker the command itself" in message


def test_a_deny_rule_skips_the_commands_own_options_before_its_sub_command():
    rules = PermissionRules(deny=(parse_rule("Bash(git push:*)"), parse_rule("Bash(docker rm:*)")))
    denied = lambda command: rules.denies("Bash", {"command": command}, "/") is not None   # noqa: E731
    assert denied("git -C . push") and denied("git -c a=b push origin") and denied("git --no-pager push")
    assert denied("git --git-dir=.git push") and denied("docker -H tcp://h rm c")
    assert not denied("git commit -m push") and not denied("git -C . status") and not denied("git log --grep push")
    allow = PermissionRules(allow=(parse_rule("Bash(git status:*)"),))
    assert allow.allows("Bash", {"command": "git -C . status"}, "/") is None      # allow rules stay exact


def test_a_read_deny_rule_covers_a_file_a_bash_line_names():
    rules = PermissionRules(deny=(parse_rule("Read(.env)"), parse_rule("Read(secrets/**)")))
    denied = lambda command: rules.denies("Bash", {"command": command}, "/p") is not None   # noqa: E731
    for command in ["cat .env", "head -n 3 secrets/key.pem", "wc -l < .env", "tool --config=.env", "cat ./.env",
                    "cat /p/.env", "sudo cat .env", "bash -c 'cat .env'"]:
        assert denied(command), command
    for command in ["cat README.md", "cat .env.example", "grep -r KEY .", "ls"]:
        assert not denied(command), command


def test_allow_needs_every_simple_command_covered_and_no_file_written():
    rules = PermissionRules(allow=(parse_rule("Bash(git status:*)"), parse_rule("Bash(tail -3)")))
    allowed = lambda command: rules.allows("Bash", {"command": command}, "/") is not None   # noqa: E731
    assert allowed("git status --short") and allowed("git status 2>&1 | tail -3")
    assert not allowed("git status; rm -rf x") and not allowed("git status $(rm x)")
    assert not allowed("git status > out.txt") and allowed("git status 2>/dev/null")
    assert not allowed("sudo git status") and not allowed("/tmp/git status")     # path kept for allow
    assert not allowed("git statusx") and not allowed("git push")


def test_deny_rule_words_after_the_command_match_unknown_words_too():
    rules = PermissionRules(deny=(parse_rule("Bash(git push:*)"),))
    denied = lambda command: rules.denies("Bash", {"command": command}, "/") is not None   # noqa: E731
    assert denied("git push --force") and denied("git $(echo push)") and denied("/usr/bin/git push")
    assert not denied("git pull") and not denied("git")


@pytest.mark.parametrize("command,denied", [
    ("bash s.sh", True), ("sh -x s.sh", True), ("source s.sh", True), (". ./s.sh", True),
    ("./run.sh", True), ("./y victim", True), ("ln -s /bin/rm z; ./z victim", True), ("bash missing.sh", True),
    ("./copy victim", True), ("./safe.sh", False), ("bash safe.sh", False), ("ls -la", False)])
def test_what_a_line_runs_from_files_is_read_as_it_is_on_disk(tmp_path, command, denied):
    """A script an earlier step wrote (`bash s.sh`), a program named by a path that links to rm, a script whose
    first line names a shell: each is read now; one not there yet (this line makes it) is not read, so it holds."""
    (tmp_path / "s.sh").write_text("echo start\nrm -f victim\n")
    (tmp_path / "run.sh").write_text("#!/usr/bin/env bash\nset -e\nrm -f victim\n")
    (tmp_path / "safe.sh").write_text("#!/bin/sh\necho hello\n")
    (tmp_path / "y").symlink_to("/bin/rm")
    shutil.copy2(shutil.which("rm"), tmp_path / "copy")           # `cp /bin/rm copy` in an earlier step
    assert (DENY_RM.denies("Bash", {"command": command}, str(tmp_path)) is not None) == denied


def test_a_fifo_named_as_the_script_is_not_read_and_holds(tmp_path):
    """`mkfifo s.sh` in one step, `bash s.sh` in the next: opening it to read would block the check for good."""
    import os
    import threading
    os.mkfifo(tmp_path / "s.sh")
    found: list = []
    check = threading.Thread(target=lambda: found.append(DENY_RM.denies("Bash", {"command": "bash s.sh"},
                                                                        str(tmp_path))), daemon=True)
    check.start()
    check.join(10)
    assert not check.is_alive() and found and found[0] is not None


VENV_ACTIVATE = """# This file must be used with "source bin/activate" *from bash*
deactivate () {
    if [ -n "${_OLD_VIRTUAL_PATH:-}" ] ; then
        PATH="${_OLD_VIRTUAL_PATH:-}"
        export PATH
        unset _OLD_VIRTUAL_PATH
    fi
    if [ -n "${_OLD_VIRTUAL_PS1:-}" ] ; then
        PS1="${_OLD_VIRTUAL_PS1:-}"
        export PS1
    fi
    hash -r 2> /dev/null
}
VIRTUAL_ENV="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export VIRTUAL_ENV
PATH="$VIRTUAL_ENV/bin:$PATH"
export PATH
if [ -z "${VIRTUAL_ENV_DISABLE_PROMPT:-}" ] ; then
    _OLD_VIRTUAL_PS1="${PS1:-}"
    PS1="(venv) ${PS1:-}"
    export PS1
fi
"""


def write_scripts(folder, files: dict[str, str]) -> None:
    """Executable files under `folder`, by relative path."""
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o755)


@pytest.mark.parametrize("files,command,denied", [
    # a second red team of the files read (2026-11-27): each ran rm under bash, or blocked ordinary work
    ({"s": "rm -f victim\n"}, "./s", True),                                  # no shebang: bash reads it itself
    ({"s.sh": "#!/usr/bin/env -S bash -e\nrm -f victim\n"}, "./s.sh", True),
    ({"s": "\ufeff#!/bin/sh\nrm -f victim\n"}, "./s", True),                 # a BOM hides the shebang
    ({"s": "#!/usr/bin/zsh\nrm -f victim\n"}, "./s", True),
    ({"s.sh": "echo hi\n", "sub/s.sh": "rm ../victim\n"}, "cd sub && bash s.sh", True),
    ({"b.sh": "echo victim\n"}, "sed -i s/echo/rm/ b.sh; bash b.sh", True),  # the line changes it first
    ({"y": "#!/bin/sh\necho hi\n"}, "cp /bin/rm y; ./y victim", True),
    ({"s.sh": "echo hi\nrm victim  # \u3000\n"}, "bash s.sh", True),     # a character bash reads otherwise
    ({}, "ln -s /bin/rm y; PATH=.:$PATH y victim", True), ({}, "export PATH=$PWD:$PATH; y victim", True),
    ({"tool.py": "#!/usr/bin/env python3\nimport os\nos.remove('victim')\n"}, "./tool.py", False),   # a program
    ({"venv/bin/activate": VENV_ACTIVATE}, "source venv/bin/activate && python -m pytest -q", False),
    ({"scripts/test.sh": "#!/bin/bash\nset -euo pipefail\npython -m pytest \"$@\"\n"}, "bash scripts/test.sh -q",
     False)])
def test_files_a_line_runs_are_read_as_bash_would_run_them(tmp_path, files, command, denied):
    write_scripts(tmp_path, files)
    assert (DENY_RM.denies("Bash", {"command": command}, str(tmp_path)) is not None) == denied


def test_a_tree_of_scripts_is_read_once_each_and_the_check_ends(tmp_path):
    """`a` runs `./b` a hundred times, `b` runs `./c` a hundred times: each file is read once (it was read N² times
    and a few KB of files held the check for minutes)."""
    import threading
    for name, line in (("a", "./b\n"), ("b", "./c\n"), ("c", "echo hi\n")):
        (tmp_path / name).write_text("#!/bin/sh\n" + line * 1000)
        (tmp_path / name).chmod(0o755)
    found: list = []
    check = threading.Thread(target=lambda: found.append(DENY_RM.denies("Bash", {"command": "./a"}, str(tmp_path))),
                             daemon=True)
    check.start()
    check.join(20)
    assert not check.is_alive() and found == [None]


def test_a_program_under_home_is_found_where_the_shell_finds_it(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    tool = tmp_path / "home" / ".local" / "bin" / "tool"
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/bin/sh\necho 1.0\n")
    tool.chmod(0o755)
    project = tmp_path / "proj"
    project.mkdir()
    assert DENY_RM.denies("Bash", {"command": "~/.local/bin/tool --version"}, str(project)) is None
    tool.write_text("#!/bin/sh\nrm -rf \"$1\"\n")
    assert DENY_RM.denies("Bash", {"command": "~/.local/bin/tool x"}, str(project)) is not None


# A fourth red team (helper hE): each ran a stand-in `rm` under bash, and through the CLI in bypass mode with a
# deny rule for it, before the fix (tests/test_deny_rules_cli.py).
FOURTH_RED_TEAM = [
    # an alias used as a wrapper: its text goes in the word's place, and the words after it may be the command
    "shopt -s expand_aliases\nalias A=''\nA rm x", "shopt -s expand_aliases\nalias A=command\nA rm x",
    "shopt -s expand_aliases\nalias A='X=1 '\nA rm x", "shopt -s expand_aliases\nalias A='true;'\nA rm x",
    "shopt -s expand_aliases\nalias A='sudo ' B=''\nA B rm x",
    # arithmetic bash evaluates beyond (( )), $(( )) and let: an offset, a subscript, an array's index, for (( ))
    "y='a[$(rm x)]'; s=abc; echo ${s:y}", "y='a[$(rm x)]'; echo \"${s:0:y}\"", "y='a[$(rm x)]'; echo ${b[y]}",
    "y='a[$(rm x)]'; b[y]=1", "y='a[$(rm x)]'; b=([y]=1)", "y='a[$(rm x)]'; z=${b[y]}",
    "y='a[$(rm x)]'; for ((i=y; i<1; i++)); do :; done",
    # a shell's -c text after options that take a value
    "bash -c -o errexit 'rm x'", "sh -co errexit 'rm x'", "bash -xco errexit 'rm x'", "bash -Oc extglob 'rm x'",
    "bash -c +O extglob 'rm x'", "bash -c -O extglob -- 'rm x'", "bash -c -o $OPT 'rm x'", "bash -c - 'rm x'",
    # sudo -k runs the command after it; setarch under an architecture's name
    "sudo -k rm x", "sudo --reset-timestamp rm x", "x86_64 rm x", "i386 -R rm x",
    # a here-document ends at the delimiter bash reads, quotes removed
    "cat <<E\"F\"\nx\nEF\nrm x\nE\"F\"", "cat <<E'F'\nx\nEF\nrm x\nE'F'", "cat <<E\"\"\nx\nE\nrm x\nE\"\"",
    "cat <<-E\"F\"\nx\n\tEF\nrm x\nE\"F\"",
    # startup and config files found from HOME and the like; git's hooks folder and exec path; zip's test command
    "HOME=. bash -lc :", "HOME=$PWD git x", "XDG_CONFIG_HOME=. git x", "export HOME=.; bash -ic :",
    "git -c core.hooksPath=h commit -m m", "git config core.hooksPath h", "git --exec-path=d zz",
    "GIT_EXEC_PATH=d git zz", "zip -T -TT 'rm x' a.zip f", "zip -T --unzip-command='rm x' a.zip f", "run-parts d",
    # an ssh config file runs its ProxyCommand; text in $'…' with escapes that an arithmetic evaluates
    "ssh -F cfg h true", "ssh -qFcfg h true", "scp -F cfg h:a b", "rsync -e 'ssh -F cfg' a h:b",
    "y=$'a[\\x24(rm x)]'; echo $((y))", "y=$'a[\\044(rm x)]'; echo ${b[y]}",
    "read y <<< $'a[\\u0024(rm x)]'; echo $((y))"]


@pytest.mark.parametrize("command", FOURTH_RED_TEAM)
def test_a_fourth_red_teams_ways_of_running_rm_are_denied(command: str):
    assert DENY_RM.denies("Bash", {"command": command}, "/") is not None


@pytest.mark.parametrize("command", ["alias ll='ls -l'; ll", "alias ls='ls --color'; ls x", "sudo -k", "sudo -v",
                                     "x=abc; echo ${x:1} ${x:-d} ${#x}", "a=(1 2 3); echo ${a[1]}",
                                     "for ((i=0; i<3; i++)); do echo $i; done", "cat <<'EOF'\nhi\nEOF",
                                     "cat <<\"EOF\"\nhi\nEOF", "cat <<-EOF\n\thi\n\tEOF", "cat << E\\F\nx\nEF",
                                     "bash -o pipefail -c 'ls | wc -l'", "bash -ec 'ls'", "zip -r a.zip src",
                                     "git commit -m 'use ${x:1} and $(rm -rf) in docs'",
                                     "ssh -F /dev/null h ls", "echo $'\\x41'; echo $((1 + 2))"])
def test_what_the_fourth_red_team_fix_still_lets_through(command: str):
    assert DENY_RM.denies("Bash", {"command": command}, "/") is None, command


def test_an_allow_rule_does_not_allow_the_commands_a_line_evaluates_later():
    """`y='a[$(rm x)]'; echo $((y))` runs rm: allowing echo does not allow it (they were deny-only)."""
    allow = PermissionRules(allow=(parse_rule("Bash(echo:*)"), parse_rule("Bash(ls:*)")))
    for command in ["y='a[$(rm x)]'; echo $((y))", "y='$(rm x)'; echo ${y@P}", "y='a[$(rm x)]'; echo $[y]",
                    "y='a[$(rm x)]'; echo ${!y}", "y='a[$(rm x)]'; echo ${b[y]}"]:
        assert allow.allows("Bash", {"command": command}, "/") is None, command
    assert allow.allows("Bash", {"command": "y='a[$(ls)]'; echo $((y))"}, "/") is not None   # both covered


@pytest.mark.parametrize("files,command,denied", [
    # a startup file is the script a shell runs first
    ({"s.sh": "rm -f victim\n"}, "BASH_ENV=s.sh bash -c :", True),
    ({"s.sh": "rm -f victim\n"}, "env BASH_ENV=s.sh make", True),
    ({"s.sh": "rm -f victim\n"}, "bash --rcfile s.sh -ic :", True),
    ({"s.sh": "rm -f victim\n"}, "bash --init-file=s.sh -ic :", True),
    ({"s.sh": "rm -f victim\n"}, "ENV=s.sh sh -ic :", True),
    ({"s.sh": "echo hi\n"}, "BASH_ENV=s.sh bash -c :", False),
    # the line changes the file it runs through a word only known when it runs, a link, or a folder
    ({"s.sh": "echo hi\n"}, "F=s.sh; echo 'rm -f victim' > $F; bash s.sh", True),
    ({"s.sh": "echo hi\n"}, "echo 'rm -f victim' > s.s?; bash s.sh", True),
    ({"s.sh": "echo hi\n"}, "echo 'rm -f victim' | tee s.s?; ./s.sh", True),
    ({"s.sh": "echo hi\n"}, "cp /bin/rm s.s*; ./s.sh victim", True),
    ({"s.sh": "echo hi\n"}, "sed -i 's/echo hi/rm victim/' *.sh; ./s.sh", True),
    ({"s.sh": "echo hi\n", "e/s.sh": "rm -f victim\n"}, "cp e/s.sh .; ./s.sh", True),
    ({"s.sh": "echo hi\n", "e/s.sh": "rm -f victim\n"}, "cp e/s.sh .; bash s.sh", True),
    ({"sub/x/s.sh": "echo hi\n", "evil/x/s.sh": "rm -f victim\n"}, "mv sub old; mv evil sub; bash sub/x/s.sh", True),
    ({"s.sh": "echo hi\n"}, "echo $HOME; grep -r x .; ./s.sh", False),
    ({"venv/bin/activate": VENV_ACTIVATE}, "source venv/bin/activate && pip install -e .", False)])
def test_files_a_line_runs_first_or_changes_before_it_runs_them(tmp_path, files, command, denied):
    write_scripts(tmp_path, files)
    assert (DENY_RM.denies("Bash", {"command": command}, str(tmp_path)) is not None) == denied, command


def test_a_link_made_in_an_earlier_step_is_the_file_it_names(tmp_path):
    """`ln -s s.sh l` (or a hard link) in one step, `cp /bin/rm l; ./s.sh f` in the next: l is s.sh."""
    (tmp_path / "s.sh").write_text("echo hi\n")
    (tmp_path / "s.sh").chmod(0o755)
    (tmp_path / "l").symlink_to(tmp_path / "s.sh")
    (tmp_path / "h").hardlink_to(tmp_path / "s.sh")
    for command in ("cp /bin/rm l; ./s.sh victim", "cat /bin/rm > h; ./s.sh victim"):
        assert DENY_RM.denies("Bash", {"command": command}, str(tmp_path)) is not None, command


def test_source_reads_the_file_on_path_before_the_one_here(tmp_path, monkeypatch):
    """bash's `source x.sh` (no slash) reads the x.sh of a PATH folder first: a step wrote one there (a user's
    ~/.local/bin), another a harmless ./x.sh, and only the second was read."""
    folder, project = tmp_path / "bin", tmp_path / "proj"
    folder.mkdir()
    project.mkdir()
    (project / "x.sh").write_text("echo hi\n")
    monkeypatch.setenv("PATH", f"{folder}:/usr/bin:/bin")
    assert DENY_RM.denies("Bash", {"command": "source x.sh"}, str(project)) is None
    (folder / "x.sh").write_text("rm -f victim\n")
    for command in ("source x.sh", ". x.sh"):
        assert DENY_RM.denies("Bash", {"command": command}, str(project)) is not None, command


def test_aliases_naming_aliases_are_read_within_a_budget():
    """Seven aliases, each naming the next with six values, were read 6**7 times (47 s): past a budget the line is
    opaque, and the check ends at once."""
    import time
    names = "ABCDEFGH"
    line = "\n".join("alias " + " ".join(f"{name}='{names[i + 1]} {j}'" for j in range(6))
                     for i, name in enumerate(names[:-1])) + "\nA x"
    started = time.perf_counter()
    assert parse_command.__wrapped__(line).opaque and time.perf_counter() - started < 2


# A sixth red team (helper76): each ran a stand-in `rm` under bash 5.2, and deleted its file through the CLI in
# bypass mode with a deny rule for rm before the fix (tests/test_deny_rules_cli.py's SIXTH).
SIXTH_RED_TEAM = [
    # a declaration reads a quoted `(…)` value as an array's text, and evaluates subscripts and -i values; so
    # does unset: tree-sitter does not make them commands, so nothing on the line counted as evaluating text
    "declare -a a='($(rm x))'", "export -a a='($(rm x))'", "f(){ local -a a='($(rm x))'; }; f",
    "readonly -a r='($(rm x))'", "declare 'a[$(rm x)]=1'", "a=(1); unset 'a[$(rm x)]'",
    "declare -i n; n='a[$(rm x)]'", "typeset -i z='a[$(rm x)]'",
    # … and a builtin reached through `builtin` or `command` was not read as the builtin
    "builtin let 'a[$(rm x)]'", "command declare -a a='($(rm x))'", "a=(1); builtin unset 'a[$(rm x)]'",
    "builtin export GIT_SSH_COMMAND='rm x'; git ls-remote ssh://h/r", "command read GIT_PAGER <<< 'rm x'; git log",
    # bash reads the last redirection of standard input, not the first here-string
    "bash <<< 'ls' <<< 'rm x'", "bash <<'A' <<< 'rm x'\nls\nA", "bash <<< 'ls' < s.sh", "su <<< 'ls' <<< 'rm x'",
    "source /dev/stdin <<< 'ls' <<< 'rm x'",
    # programs that run a command: ip's netns and vrf exec (ip takes any unique start of a word), at and batch
    # (later, what they read), runcon
    "ip netns exec n rm x", "ip -all netns exec rm x", "ip net e n rm x", "ip vrf exec default rm x",
    "ip -batch f", "at now <<< 'rm x'", "echo 'rm x' | batch", "runcon -t t rm x",
    # a declaration whose name is known only when it runs (helper-131): any variable, GIT_EXTERNAL_DIFF too
    "V=GIT_EXTERNAL_DIF; export ${V}F='rm x;:'; git diff", "V=BASH_EN; export ${V}V=s.sh; bash -c :",
    "declare -x \"GIT_PAGER=$P\"; git log", "export \"$N\"; git log"]


@pytest.mark.parametrize("command", SIXTH_RED_TEAM)
def test_a_sixth_red_teams_ways_of_running_rm_are_denied(command: str):
    assert DENY_RM.denies("Bash", {"command": command}, "/") is not None


@pytest.mark.parametrize("command", ["export X=1; git commit -m 'explain `rm -rf build`'", "declare -A seen; ls",
                                     "unset seen; declare -i n=3; echo $n", "bash <<< 'rm x' <<'A'\nls\nA",
                                     "ip addr show", "ip route get 1.1.1.1", "at now <<< 'ls'", "at -l",
                                     "echo \"rm is a command\"", "exec {fd}>/tmp/lock; flock -n $fd"])
def test_what_the_sixth_red_team_fix_still_lets_through(command: str):
    assert DENY_RM.denies("Bash", {"command": command}, "/") is None, command


def test_an_allow_rule_does_not_allow_what_a_declaration_evaluates():
    """`Bash(echo:*)` allowed `export -a a='($(rm f))'; echo hi` in default mode: the rm the declaration runs was
    not read (it ran through the CLI, unasked)."""
    allow = PermissionRules(allow=(parse_rule("Bash(echo:*)"),))
    for command in ["export -a a='($(rm f))'; echo hi", "a=(1); unset 'a[$(rm f)]'; echo hi",
                    "builtin let 'a[$(rm f)]'; echo hi"]:
        assert allow.allows("Bash", {"command": command}, "/") is None, command
    # the declaration is a command to cover, as any other (`Bash(export:*)`)
    assert allow.allows("Bash", {"command": "export -a a=(1); echo hi"}, "/") is None
    allow = PermissionRules(allow=(parse_rule("Bash(echo:*)"), parse_rule("Bash(export:*)")))
    assert allow.allows("Bash", {"command": "export -a a=(1); echo hi"}, "/") is not None


def test_a_program_found_on_path_is_read_like_one_named_by_its_path(tmp_path, monkeypatch):
    """`ln -s /bin/rm ~/.local/bin/zap` (or a script there) in one step, `zap victim` in the next: a bare name runs
    what bash finds on PATH, and only `./zap` was read. The system's own folders are not read."""
    folder, project = tmp_path / "bin", tmp_path / "proj"
    folder.mkdir()
    project.mkdir()
    monkeypatch.setenv("PATH", f"{folder}:/usr/bin:/bin")
    write_scripts(folder, {"tool": "#!/bin/sh\necho 1.0\n"})

    def denied(command: str) -> bool:
        return DENY_RM.denies("Bash", {"command": command}, str(project)) is not None
    assert not denied("tool --version") and not denied("cat " + str(folder / "tool") + "; tool") \
        and not denied("ls -la") and not denied("cp \"$A\" b && ls") and not denied("f() { :; }; f")
    (folder / "zap").symlink_to("/bin/rm")
    write_scripts(folder, {"clean": "#!/bin/sh\nrm -rf \"$1\"\n"})
    assert denied("zap victim") and denied("clean victim") and denied("sudo -n zap victim")
    # made by the line itself, in a folder of PATH, before the name runs
    for command in (f"ln -s /bin/rm {folder}/zap2 && zap2 victim", f"cd {folder} && ln -s /bin/rm zap3; zap3 victim",
                    f"cp /bin/rm {folder}/ && mv {folder}/rm {folder}/tool; tool victim",
                    "ln -s /bin/rm \"$D/zap4\"; zap4 victim"):
        assert denied(command), command


RUNS_ITS_WORDS = "exec \"$@\"\n"


@pytest.mark.parametrize("files,command,denied", [
    # a script that runs the words it is given: `./g rm f` runs rm, shifted or not, through another script too
    ({"g.sh": RUNS_ITS_WORDS}, "bash g.sh rm victim", True), ({"g.sh": RUNS_ITS_WORDS}, "source g.sh rm victim", True),
    ({"g.sh": RUNS_ITS_WORDS}, "bash g.sh ls -la", False), ({"g.sh": RUNS_ITS_WORDS}, "bash g.sh $CMD victim", True),
    ({"g": "#!/bin/sh\nshift\n\"$@\"\n"}, "./g -v rm victim", True),
    ({"g": "#!/bin/sh\nshift\n$1 $2\n"}, "./g x rm f", True),
    ({"g": "#!/bin/sh\nshift\n\"$@\"\n", "h": "#!/bin/sh\nexec ./g x \"$@\"\n"}, "./h rm victim", True),
    ({"g": "#!/bin/sh\nshift\n\"$@\"\n", "h": "#!/bin/sh\nexec ./g x \"$@\"\n"}, "./h ls", False),
    ({"e.sh": "#!/bin/sh\necho \"$@\"; echo '$1'\n"}, "./e.sh rm victim", False),
    # a wrapper running a program names it only by running it (`sudo ./y` is not a line that may change ./y)
    ({"y": "#!/bin/sh\necho hi\n"}, "sudo -n ./y", False), ({"y": "#!/bin/sh\necho hi\n"}, "exec ./y", False),
    ({"s.sh": "echo hi\n"}, "sudo -n bash s.sh", False),
    ({"y": "#!/bin/sh\necho hi\n"}, "sudo -n cp /bin/rm ./y; ./y victim", True),
    ({"y": "#!/bin/sh\necho hi\n"}, "timeout 5 cp /bin/rm y; ./y victim", True)])
def test_a_script_runs_the_words_it_is_given(tmp_path, files, command, denied):
    write_scripts(tmp_path, files)
    assert (DENY_RM.denies("Bash", {"command": command}, str(tmp_path)) is not None) == denied, command


def test_text_evaluated_later_nested_past_the_limit_is_opaque():
    """`x=$(cat <<'E'` … `a[$(…)]` … `); (( x ))` nested past MAX_NESTING: bash still runs the innermost command
    (each `(( x ))` evaluates the next level), so the line the parse no longer reads is opaque."""
    from contextual.core.shell.findings import MAX_NESTING
    line = "rm x"
    for level in range(MAX_NESTING + 2):
        line = f"x=$(cat <<'E{level}'\na[$({line})]\nE{level}\n); (( x ))"
    assert DENY_RM.denies("Bash", {"command": line}, "/") is not None


def test_a_git_alias_used_at_the_nesting_limit_is_opaque():
    """`git -c alias.r=rebase r -x CMD` eight shells deep: git runs CMD though the parse no longer expands r."""
    from contextual.core.shell.findings import MAX_NESTING
    line = "git -c alias.r=rebase r -x 'rm x' HEAD~1"
    for level in range(MAX_NESTING):
        line = f"bash <<'E{level}'\n{line}\nE{level}"
    assert DENY_RM.denies("Bash", {"command": line}, "/") is not None


# A seventh red team (helper-95), each run by bash: tree-sitter hangs the words after a redirection's target on
# the redirection (`exec 2>/dev/null rm x` was the command `exec`); git's alias names ignore case; newer env's -a.
SEVENTH_RED_TEAM = ["exec 2>/dev/null rm x", "command >/dev/null rm x", "nice 2>/dev/null rm x",
                    "env >/dev/null rm x", "time 2>/dev/null rm x", "exec <<E rm x\nE", "exec <<E >/dev/null rm x\nE",
                    "exec >/dev/null 3>&1 rm x", "ls | exec >f rm x", "env -a n rm x", "env --argv0 n rm x"]


@pytest.mark.parametrize("command", SEVENTH_RED_TEAM)
def test_a_seventh_red_teams_ways_of_running_rm_are_denied(command: str):
    assert DENY_RM.denies("Bash", {"command": command}, "/") is not None


@pytest.mark.parametrize("command, denied", [
    ("git >/dev/null push", True), ("rm -r >/dev/null -f x", True),
    ("git -c alias.P=push P", True), ("git -c alias.pu=push Pu", True), ("git config alias.P push; git P", True),
    ("git -c alias.P=log P", False), ("echo >out rm -rf x", False), ("exec >log 2>&1; ls", False),
    ("git log >/dev/null --oneline", False)])
def test_words_after_a_redirection_and_git_aliases_in_other_letters_are_read(command: str, denied: bool):
    rules = PermissionRules.from_tables({"deny": ["Bash(git push:*)", "Bash(rm -rf:*)"]})
    assert (rules.denies("Bash", {"command": command}, "/") is not None) is denied


def test_the_words_after_a_redirections_target_are_the_commands_arguments():
    assert parse_command("echo >out rm -rf x").commands == (("echo", "rm", "-rf", "x"),)
    assert parse_command("exec 2>/dev/null rm x").commands == (("exec", "rm", "x"), ("rm", "x"))
    assert parse_command("{ ls; } >f rm x").opaque          # bash: a syntax error; tree-sitter: a target


@pytest.mark.parametrize("command, denied", [
    # the shell's own ways of naming .env: a `cd` first, `~+` and `~-`, ANSI-C escapes
    ("cd sub && cat ../.env", True), ("pushd sub; cat ../.env", True), ("cd .. && cat proj/.env", True),
    ("cat ~+/.env", True), ("cd sub && cat ~-/.env", True), ("cat ~/.env", True), ("cat $'\\x2eenv'", True),
    ("dd if=.env", True),
    # globs as bash reads them: `[^x]` and classes, extglob, dotglob, nocaseglob, inside `$( )` and `bash -c`
    ("cat .en[^x]", True), ("cat .[[:alpha:]]nv", True), ("shopt -s extglob\ncat .e@(n|x)v", True),
    ("shopt -s dotglob; cat *", True), ("GLOBIGNORE=x; cat *", True), ("BASHOPTS=dotglob bash -c 'cat *'", True),
    ("shopt -s nocaseglob; cat .EN?", True), ("echo $(cat .en?)", True), ("bash -c 'cat .en?'", True),
    ("cat *", False), ("cat ?env", False), ("cat [.]env", False), ("cat .EN?", False), ("cd sub && cat x", False),
    ("cat .envx", False), ("cat $'.env\\x2e'", False),
    # tenth red team (helper-107): a `cd` to a glob or through `~+`/`~-`, sequence braces, a value the line gives a
    # variable (an assignment, a `${X:-default}`)
    ("cd s[u]b && cat ../.env", True), ("cd s*b && cat ../.env", True), ("cd ~+/sub && cat ../.env", True),
    ("cd ~-/sub && cat ../.env", True), ("D=sub; cd $D && cat ../.env", True), ("cat .e{n..n}v", True),
    ("cat .{d..f}nv", True), ("X=.env; cat $X", True), ("export X=.env; cat \"$X\"", True),
    ("cat ${X:-.env}", True), ("cat \"${X-.env}\"", True), ("cat ${X:-sub/..}/.env", True),
    ("cd s*b && cat ../x", False), ("cat .{a..c}nv", False), ("X=.envx; cat $X", False), ("cat ${X:-x}", False),
    ("cat .env{}", False), ("cat .e{o..p}v", False), ("cat .e{p..m}v", True),
    # helper-122: braces inside a listed brace (`{.env,{x}}` is `.env {x}`), a word tree-sitter splits at `{\`
    ("cat {.env,x{y}}", True), ("cat .e{n,{x}}v", True), ("cat {a,b{.env,{c}}}", False), ("cat {\\.env,x}", True),
    ("cat .e{\\n,x}v", True),
    # git reads a `REV:PATH` word's file from its history or index
    ("git show HEAD:.env", True), ("git cat-file -p :.env", True), ("git show :0:.env", True),
    ("git show HEAD~2:./.env", True), ("git show HEAD:README", False), ("git push origin HEAD:main", False)])
def test_a_read_deny_rule_covers_a_file_a_bash_line_names_as_bash_reads_it(tmp_path, monkeypatch, command, denied):
    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    (project / ".env").write_text("SECRET\n")
    monkeypatch.setenv("HOME", str(project))
    rules = PermissionRules.from_tables({"deny": ["Read(.env)"]})
    assert (rules.denies("Bash", {"command": command}, str(project)) is not None) is denied, command


# An Edit deny rule held for the editing tools only: `echo x > secrets/k` replaced the file past `Edit(secrets/**)`.
@pytest.mark.parametrize("command, denied", [
    ("echo x > secrets/k", True), ("echo x >> ./secrets/k", True), ("ls &> secrets/log", True),
    ("cd secrets && echo x > k", True), ("bash -c 'echo x > secrets/k'", True), ("sudo tee secrets/k < a", True),
    ("echo x | tee -a secrets/k", True), ("sed -i 's/a/b/' secrets/k", True), ("sed -ni -e p secrets/k", True),
    ("cp a secrets/k", True), ("cp -t secrets a", True), ("install -m 600 a secrets/k", True),
    ("ln -sf /etc/passwd secrets/k", True), ("mv secrets/k x", True), ("rm -f secrets/k", True),
    ("truncate -s 0 secrets/k", True), ("dd if=/dev/zero of=secrets/k", True), ("shred -u secrets/k", True),
    # reading the file, or writing elsewhere, is not an edit of it
    ("cat secrets/k", False), ("sed -n p secrets/k", False), ("cp secrets/k copy", False), ("echo x > other", False),
    ("tee out < secrets/k", False), ("truncate -s 0 other", False), ("dd if=secrets/k of=copy", False),
    ("sed -e s/a/b/ secrets/k", False),
    # git's sub-commands that write or remove the paths they name
    ("git checkout -- secrets/k", True), ("git restore --source HEAD secrets/k", True), ("git rm -q secrets/k", True),
    ("git -C . mv a secrets/k", True), ("git checkout main", False), ("git status secrets/k", False),
    # red team (helper-109): `<>`, targets only known when it runs, option spellings getopt takes, folders removed
    # or restored with what is below them, find's actions, and more programs naming the files they write
    ("echo x <> secrets/k", True), ("exec 3<>secrets/k", True), ("ls | xargs -I{} sh -c 'echo x > secrets/k'", True),
    ("echo x > secre*/k", True), ("echo x > secrets/?", True), ("F=secrets/k; echo x > $F", True),
    ("export F=secrets/k; echo x > \"$F\"", True), ("echo x > ${F:-secrets/k}", True), ("rm -rf *", True),
    ("F=secrets/k; rm $F", True), ("mv -t secrets a", True), ("mv --target-directory=secrets a", True),
    ("mv a -t secrets", True), ("cp -rt secrets a", True), ("cp --target=secrets a", True),
    ("install -d secrets/new", True), ("rm -rf .", True), ("rm -rf ../proj", True), ("mv . ../other", True),
    ("git checkout .", True), ("git restore .", True), ("git rm -rf .", True), ("git -C secrets checkout k", True),
    ("find secrets -delete", True), ("find . -exec rm {} +", True), ("find . -fprint secrets/k", True),
    ("curl -sSLo secrets/k http://x", True), ("curl --output secrets/k http://x", True),
    ("wget -qO secrets/k http://x", True), ("wget --output-document=secrets/k http://x", True),
    ("wget -P secrets http://x/k", True), ("sort a -o secrets/k", True), ("sort --out=secrets/k a", True),
    ("uniq a secrets/k", True), ("split a secrets/k", True), ("gzip secrets/k", True), ("gunzip secrets/k.gz", True),
    ("unzip a.zip -d secrets", True), ("tar xzf a.tgz -C secrets", True), ("tar -cf secrets/k a", True),
    ("rsync -a a secrets/k", True), ("scp host:a secrets/k", True), ("touch secrets/new", True),
    ("mkdir -p secrets/a", True), ("perl -pi -e s/a/b/ secrets/k", True), ("ruby -i -pe 1 secrets/k", True),
    ("patch secrets/k d.diff", True), ("patch -o secrets/k a d.diff", True), ("cp x/k secrets/", True),
    ("curl -o out http://x/secrets/k", False), ("wget -O out http://x", False), ("sort -o out secrets/k", False),
    ("uniq secrets/k out", False), ("split secrets/k out", False), ("gzip -c secrets/k", False),
    ("unzip -l a.zip", False), ("tar -C secrets -cf out.tar .", False), ("tar -tf secrets/k", False),
    ("rsync secrets/k out", False), ("scp secrets/k host:k", False), ("touch secretsx/k", False),
    ("perl -pe s/a/b/ secrets/k", False), ("patch -o out secrets/k d.diff", False), ("rm -rf sub", False),
    ("find secrets -exec cat {} +", False), ("git -C sub checkout k", False), ("mv a -t sub", False),
    ("cp -rt sub a", False), ("F=other; echo x > $F", False), ("F=secrets/k; cat $F > out", False),
    ("echo x > ${F:-other}", False), ("sed -is/a/b/ secrets/k", False),
    # a long option's start, as getopt_long reads it (shell/getopt_words.py); an ambiguous one counts as each: curl
    # refuses `--outp` (--output, --output-dir) since 7.73, before it wrote the file
    ("cp --t secrets a", True), ("curl --outp secrets/k u", True), ("cp --verb a b", False),
    # helper-131: a wrapper's folder is one its command's paths are read from, as cd's; git's sub-commands writing
    # a file an option or operand names
    ("env -C secrets rm k", True), ("env --chdir=secrets git checkout -- k", True), ("env -Csecrets tee k", True),
    ("sudo -D secrets rm k", True), ("env -C sub rm k", False), ("git merge-file secrets/k a b", True),
    ("git merge-file -p secrets/k a b", False), ("git diff --output=secrets/k", True),
    ("git -C sub log --output ../secrets/k", True), ("git archive -o secrets/k HEAD", True),
    ("git format-patch -o secrets HEAD~1", True), ("git worktree add secrets/wt", True),
    ("git worktree remove --force secrets", True), ("git worktree add ../wt", False), ("git diff --stat", False),
    ("git diff --output=out", False)])
def test_an_edit_deny_rule_covers_a_file_a_bash_line_writes(tmp_path, command, denied):
    project = tmp_path / "proj"
    (project / "secrets").mkdir(parents=True)
    (project / "secrets" / "k").write_text("SECRET\n")
    (project / "sub").mkdir()
    for rule in ("Edit(secrets/**)", "Write(secrets/**)"):
        rules = PermissionRules.from_tables({"deny": [rule]})
        assert (rules.denies("Bash", {"command": command}, str(project)) is not None) is denied, (rule, command)


# A folder removed, moved or restored goes with the protected file below it (helper-109): `rm -r secrets` passed
# `Edit(secrets/k)`, as did `rm -rf .`; a rule with no literal folder (`**/k`) is matched against what is on disk.
@pytest.mark.parametrize("command, denied", [
    ("rm -r secrets", True), ("rm -rf .", True), ("mv secrets x", True), ("git checkout -- .", True),
    ("find . -delete", True), ("cp x/k secrets", True), ("gzip -r secrets", True), ("rm -rf sub", False),
    ("mv a secrets/j", False), ("rm -r secrets/j", False), ("find sub -delete", False), ("cp a secrets", False)])
def test_an_edit_deny_rule_covers_a_file_below_a_folder_a_bash_line_removes(tmp_path, command, denied):
    project = tmp_path / "proj"
    (project / "secrets" / "j").mkdir(parents=True)
    (project / "secrets" / "k").write_text("SECRET\n")
    (project / "sub").mkdir()
    for rule in ("Edit(secrets/k)", "Write(**/k)"):
        rules = PermissionRules.from_tables({"deny": [rule]})
        assert (rules.denies("Bash", {"command": command}, str(project)) is not None) is denied, (rule, command)


# find's name tests narrow what its action removes: `find . -name __pycache__ -exec rm -rf {} +` was refused under
# any Edit rule with a folder below `.` (1 of the 3,876 recorded agent commands); it goes only where a protected path
# is, or is below, an entry so named.
@pytest.mark.parametrize("command, denied", [
    ("find . -name __pycache__ -type d -exec rm -rf {} +", False), ("find . -name '*.pyc' -delete", False),
    ("find . -name k -delete", True), ("find . -iname K -delete", True), ("find . -name secrets -exec rm -rf {} +", True),
    ("find . -name 'sec*' -type d -exec rm -r {} +", True), ("find secrets -name '*' -delete", True),
    ("find . -name x -o -name k -delete", True), ("find . -path '*/k' -delete", True), ("find . -delete", True),
    ("find . -name '*.txt' -exec cat {} +", False)])
def test_find_removes_only_what_its_name_tests_pass(tmp_path, command, denied):
    project = tmp_path / "proj"
    (project / "secrets").mkdir(parents=True)
    (project / "secrets" / "k").write_text("SECRET\n")
    (project / "src" / "__pycache__").mkdir(parents=True)
    for rule in ("Edit(secrets/**)", "Edit(secrets/k)", "Write(**/k)"):
        rules = PermissionRules.from_tables({"deny": [rule]})
        assert (rules.denies("Bash", {"command": command}, str(project)) is not None) is denied, (rule, command)


# Files written without being named (helper-110): `git reset --hard`, `git stash`, `git clean -f`, `ls | xargs rm`,
# `git apply d.diff`, `patch -p1 < d.diff` wrote secrets/k past `Edit(secrets/**)`. The work tree goes (git's, from
# -C or a cd), what xargs reads is what the find before its `|` prints (else any path), a diff's headers are read.
@pytest.mark.parametrize("command, denied", [
    # whole work-tree git commands: the repository's top (-C DIR in it too), below their pathspecs where given
    ("git reset --hard", True), ("git reset --merge HEAD~1", True), ("git reset --ha", True),
    ("git -C sub reset --keep", True), ("cd sub && git reset --hard", True), ("git stash", True),
    ("git stash -u", True), ("git stash pop", True), ("git stash apply stash@{0}", True),
    ("git stash push -m wip secrets", True), ("git clean -fdx", True), ("git clean -f -- secrets", True),
    ("git checkout -f main", True), ("git switch --discard-changes main", True), ("git switch -f x", True),
    ("git read-tree -u --reset HEAD", True), ("git --work-tree=. reset --hard", True),
    ("git reset --soft HEAD~1", False), ("git reset HEAD secrets/k", False), ("git reset", False),
    ("git stash list", False), ("git stash show -p", False), ("git stash drop", False),
    ("git stash push -- src", False), ("git clean -n", False), ("git clean -fd sub", False),
    ("git clean -fdx -e secrets sub", False), ("git -C inner reset --hard", False), ("git checkout main", False),
    ("git switch -c new", False), ("git read-tree HEAD", False), ("git --work-tree=sub reset --hard", False),
    # xargs: the names a find before its `|` prints (split at blanks unless -0), a here-string's words, else any path
    ("ls | xargs rm", True), ("git ls-files | xargs sed -i s/a/b/", True), ("xargs rm < list", True),
    ("find . -name k | xargs rm", True), ("find . -name '*.pyc' | grep x | xargs rm", True),
    ("find . -name '*.pyc' -printf '%h/k\\n' | xargs rm", True), ("find . -name '*.pyc'; xargs rm < list", True),
    ("{ echo secrets/k; find . -name '*.pyc'; } | xargs rm", True), ("find sub | xargs cp -t secrets", True),
    ("find . -name '*.pyc' | xargs -d / rm -r", True), ("xargs rm <<< 'a secrets/k'", True), ("ls |& xargs rm", True),
    ("mkdir -p 'e/x secrets' && find e -name k | xargs rm", True),
    ("find . -name '*.pyc' | xargs rm", False), ("find . -name '*.pyc' -print0 | xargs -0 rm -f", False),
    ("find src -type f | xargs rm", False), ("find . -name __pycache__ | xargs rm -rf", False),
    ("find sub | xargs cp -t sub", False), ("xargs rm <<< 'a b'", False),
    ("find . -name '*.txt' | xargs grep x", False),
    # a diff's files: on disk now, a here-document or here-string; any path where it is not known now
    ("git apply s.diff", True), ("git apply --stat --apply s.diff", True), ("git apply missing.diff", True),
    ("patch -p1 < s.diff", True), ("patch < s.diff", True), ("patch -i s.diff", True),
    ("cat s.diff | patch -p1", True),
    ("git diff | git apply -R", True), ("git am s.diff", True), ("git -C sub am ../s.diff", True),
    ("git apply fifo", True), ("patch -p1 < fifo", True), ("git apply /dev/stdin", True),
    ("git am --abort", True), ("git apply <<'EOF'\n--- a/secrets/k\n+++ b/secrets/k\nEOF", True),
    ("patch -p1 <<< $'--- a/secrets/k\\n+++ b/secrets/k'", True), ("git apply <<EOF\n+++ b/$X\nEOF", True),
    ("git apply o.diff", False), ("git apply --check s.diff", False), ("git apply --stat s.diff", False),
    ("git apply --cached s.diff", False), ("git apply -p2 s.diff", False),
    ("git apply --directory=sub s.diff", False),
    ("git -C sub apply ../s.diff", False), ("patch -p1 < o.diff", False), ("patch -p0 < s.diff", False),
    ("patch -d sub -p1 < s.diff", False), ("patch --dry-run -p1 < s.diff", False), ("patch src/a.py s.diff", False),
    ("git am --show-current-patch", False), ("git apply <<'EOF'\n--- a/src/a.py\n+++ b/src/a.py\nEOF", False),
    # helper-122: git's pathspecs as git reads them (magic, globs, from a file), a .git folder git passes over
    ("git checkout -- ':/secrets'", True), ("git restore 'secret?'", True), ("git checkout -- 's*/k'", True),
    ("git rm -q ':(icase)SECRETS/K'", True), ("git restore --pathspec-from-file=list", True),
    ("git checkout --pathspec-fr=list", True), ("git stash push -- ':(top)'", True), ("git clean -fdx :/", True),
    ("git --icase-pathspecs checkout -- SECRETS", True), ("git -C fake reset --hard", True),
    ("git checkout -- 'src/*'", False), ("git stash push -- 'src/*.py'", False),
    # find printing other names into the pipe, following links; xargs -I making a path of a name; GNU parallel
    ("find src -name '*.pyc' -fprintf /dev/stdout 'secrets/k\\n' | xargs rm", True),
    ("find -L src -delete", True), ("find src -follow -name '*.pyc' | xargs rm", True),
    ("find sub -maxdepth 0 | xargs -I{} rm -rf {}/../secrets", True),
    ("find sub -maxdepth 0 | xargs -I % sudo rm -f %/../secrets/k", True),
    ("find src -name '*.pyc' -print0 | xargs -0 -I{} mv {} sub/", False),
    ("parallel rm ::: secrets/k", True), ("find src | parallel rm", True), ("parallel echo ::: secrets/k", False)])
def test_an_edit_deny_rule_covers_the_files_a_line_writes_without_naming_them(tmp_path, command, denied):
    project = tmp_path / "proj"
    for folder in ("secrets", ".git/objects", ".git/refs", "sub", "inner/.git/objects", "inner/.git/refs",
                   "src/__pycache__", "fake/.git"):
        (project / folder).mkdir(parents=True)
    for top in (project, project / "inner"):
        (top / ".git" / "HEAD").write_text("ref: refs/heads/main\n")      # a git folder git takes for one
    (project / "secrets" / "k").write_text("SECRET\n")
    (project / "s.diff").write_text("--- a/secrets/k\n+++ b/secrets/k\n@@ -1 +1 @@\n-SECRET\n+T\n")
    (project / "o.diff").write_text("diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n")
    os.mkfifo(project / "fifo")       # read, it would block the check: not a diff known now
    rules = PermissionRules.from_tables({"deny": ["Edit(secrets/**)"]})
    assert (rules.denies("Bash", {"command": command}, str(project)) is not None) is denied, command


# helper-122: a diff patch reads as it reads it (indented whole, a name ending at a blank), one too long to read
# whole, a mail git am decodes first (base64, quoted-printable, format=flowed) and a StGit series (its patches are
# other files) wrote secrets/k past `Edit(secrets/**)`: they may name any path below the folder.
_HUNK = "@@ -1 +1 @@\n-SECRET\n+T\n"
_MAIL = "From 0 Mon Sep 17 00:00:00 2001\nFrom: u <u@x>\nSubject: [PATCH] x\n"


@pytest.mark.parametrize("name, text, command, denied", [
    ("indented.diff", "  --- secrets/k\n  +++ secrets/k\n  @@ -1 +1 @@\n  -SECRET\n  +T\n", "patch -p0 < D", True),
    ("blank.diff", "--- secrets/k x\n+++ secrets/k x\n" + _HUNK, "patch -p0 < D", True),
    ("quoted.diff", '--- "secrets/\\153" x\n+++ "secrets/\\153" x\n' + _HUNK, "patch -p0 -i D", True),
    ("long.diff", "x" * 1_000_100 + "\n--- secrets/k\n+++ secrets/k\n" + _HUNK, "patch -p0 < D", True),
    ("b64.mbox", _MAIL + "Content-Transfer-Encoding: base64\n\nLS0tIGEvc2VjcmV0cy9rCg==\n", "git am D", True),
    ("qp.mbox", _MAIL + "Content-Transfer-Encoding: quoted-printable\n\n+++ b/secrets/=6B\n", "git am D", True),
    ("flowed.mbox", _MAIL + "Content-Type: text/plain; format=flowed; delsp=yes\n\n+++ b/secr \nets/k\n",
     "git am D", True),
    ("series", "# This series applies on GIT commit 0\np1.patch\n", "git am D", True),
    ("list", "p1.patch\n", "git am --patch-format=stgit-series D", True),
    ("plain.mbox", _MAIL + "Content-Transfer-Encoding: 8bit\n\n--- a/src/a.py\n+++ b/src/a.py\n", "git am D", False),
    ("short.diff", "  --- src/a.py\n  +++ src/a.py x\n", "patch -p0 < D", False)], ids=lambda v: str(v)[:20])
def test_a_diff_is_read_as_patch_and_git_am_read_it(tmp_path, name, text, command, denied):
    project = tmp_path / "proj"
    (project / "secrets").mkdir(parents=True)
    (project / "secrets" / "k").write_text("SECRET\n")
    (project / name).write_text(text)
    rules = PermissionRules.from_tables({"deny": ["Edit(secrets/k)"]})
    line = command.replace("D", name)
    assert (rules.denies("Bash", {"command": line}, str(project)) is not None) is denied, line


def test_xargs_without_0_reads_a_name_holding_a_blank_as_two_that_may_name_any_path(tmp_path):
    """`find d -name k | xargs rm` with d/"x secrets"/k on disk runs `rm d/x secrets/k`: secrets/k goes."""
    project = tmp_path / "proj"
    (project / "secrets").mkdir(parents=True)
    (project / "secrets" / "k").write_text("SECRET\n")
    (project / "d" / "x secrets").mkdir(parents=True)
    (project / "d" / "x secrets" / "k").write_text("x\n")
    rules = PermissionRules.from_tables({"deny": ["Edit(secrets/**)"]})
    for command, denied in (("find d -name k | xargs rm", True), ("find . -name '*.pyc' | xargs rm", True),
                            ("find d -name k -print0 | xargs -0 rm", False),
                            ("find d -name k | xargs -0 rm", False)):
        assert (rules.denies("Bash", {"command": command}, str(project)) is not None) is denied, command


def test_what_each_command_reads_on_standard_input_is_recorded_with_the_command_before_its_pipe():
    parsed = parse_command("find . -name x | sudo xargs -0 rm; (ls) | xargs rm; patch -p1 < d.diff; "
                           "git apply <<< t; ls |& xargs rm")
    find = ("find", ".", "-name", "x")
    assert list(zip(parsed.commands, parsed.inputs)) == [
        (find, Input()), (("sudo", "xargs", "-0", "rm"), Input("pipe", None, find)),
        (("xargs", "-0", "rm"), Input("pipe", None, find)),
        (("rm", None), Input("pipe", None, find, ("xargs", "-0"), ("rm",))),
        (("ls",), Input()), (("xargs", "rm"), Input("pipe", None, ())),
        (("rm", None), Input("pipe", None, (), ("xargs",), ("rm",))),
        (("patch", "-p1"), Input("file", "d.diff")), (("git", "apply"), Input("text", "t")),
        (("ls",), Input()), (("xargs", "rm"), Input("other", None)),
        (("rm", None), Input("other", None, (), ("xargs",), ("rm",)))]


# git's help.autocorrect (helper-97): `git -c help.autocorrect=1 psuh` ran `git push` under `Bash(git push:*)`.
@pytest.mark.parametrize("command, denied", [
    ("git -c help.autocorrect=1 psuh origin main", True), ("git -c help.autocorrect=immediate psuh", True),
    ("git -c help.autocorrect=-1 psuh", True), ("git -c help.autocorrect=0x1 psuh", True),
    ("git -c help.AutoCorrect psuh", True), ("git -c help.autocorrect=true PUSH", True),
    ("git config help.autocorrect 1; git psuh", True), ("git config --global help.autocorrect 1 && git psuh", True),
    ("git config set help.autocorrect 1; git -c help.autocorrect=0 psuh", True),   # the file's 1 may still hold
    ("bash -c 'git -c help.autocorrect=1 psuh'", True), ("git -c help.autocorrect=5 -C x psuh", True),
    ("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=help.autocorrect GIT_CONFIG_VALUE_0=1 git psuh", True),
    ("export GIT_CONFIG_PARAMETERS=\"'help.autocorrect'='1'\"; git psuh", True),
    # git refuses a sub-command it has not, or runs the one named: let through
    ("git psuh", False), ("git -c help.autocorrect=0 psuh", False), ("git -c help.autocorrect=never psuh", False),
    ("git -c help.autocorrect=prompt psuh", False), ("git -c help.autocorrect=show psuh", False),
    ("git -c help.autocorrect=00 psuh", False), ("git -c help.autocorrect=false psuh", False),
    ("git -c help.autocorrect=1 status", False), ("git -c help.autocorrect=1 -c alias.st=status st", False),
    ("git config help.autocorrect 1; git log --oneline", False)])
def test_a_sub_command_git_guesses_under_help_autocorrect_holds_its_deny_rules(tmp_path, monkeypatch, command,
                                                                               denied):
    monkeypatch.setenv("HOME", str(tmp_path))         # no help.autocorrect from this machine's config files
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    rules = PermissionRules.from_tables({"deny": ["Bash(git push:*)"]})
    assert (rules.denies("Bash", {"command": command}, str(tmp_path)) is not None) is denied, command


def test_a_guessed_sub_command_is_unknown_and_may_be_any_of_the_lines_git_aliases():
    assert ("git", "-c", "help.autocorrect=1", None, "origin") in parse_command(
        "git -c help.autocorrect=1 psuh origin").commands
    # the alias nearest `y` is `x`: its rebase runs rm
    assert ("rm",) in parse_command("git -c help.autocorrect=1 -c 'alias.x=rebase -x rm' y").commands
    assert parse_command("git -c help.autocorrect=1 status").commands == (
        ("git", "-c", "help.autocorrect=1", "status"),)


@pytest.mark.parametrize("command, words", [
    ("git stash pop stash@{2}", ("git", "stash", "pop", "stash@{2}")),      # no comma, no `..`: as written
    ("cat a{b}c", ("cat", "a{b}c")),
    ("find . -exec rm {} +", ("find", ".", "-exec", "rm", "{}", "+")),
    ('cat {a","b}', ("cat", "{a,b}")),                                       # a quoted comma does not expand
    ("cat {a,b}x", ("cat", None)),
    ("cat .e{n..n}v", ("cat", None)),
    ("rm x{1..3}", ("rm", None)),
    ("cat {.env,{x}}", ("cat", None)), ("cat .e{n,{x}}v", ("cat", None)),     # a brace inside: still a list
])
def test_a_brace_is_a_pattern_only_where_bash_expands_it(command, words):
    """Bash expands `{…}` only around a comma or a `..` sequence; `stash@{2}` is a word as written (it counted as
    unknown, so `git stash pop stash@{2}` was refused under any Edit rule)."""
    assert parse_command(command).commands[0] == words


# helper-137 (2026-11-29): each ran `rm x` under bash 5.2 and was let past `Bash(rm:*)`; the first rows were allowed by
# `Bash(cat:*)`/`Bash(echo:*)` too. Mostly found by a fuzzer running random lines in bash against the parse.
HELPER_137 = [
    # tree-sitter drops a here-document's `$(` on a line starting with a blank, or after an empty first line
    "cat <<EOF\n  $(rm x)\nEOF", "cat <<-EOF\n\t$(rm x)\nEOF", "cat <<EOF\n\nx\n $(rm x)\nEOF",
    "y='a[$(rm x)]'; cat <<EOF\n  ${!y}\nEOF",
    # a backtick in a here-document inside `$(…)` was taken as read; bash ends `…` at its first backtick
    "echo $(cat <<E\n`rm x`\nE\n)", "echo `cat <<\\E\n  `rm x`\nE`",
    # `$((…))` is an arithmetic to bash, whose quotes and here-documents are text
    "cat <<E\nx$(( cat <<\\E\n`rm x`\nE ))\nE",
    # tree-sitter ends a here-document at a line `E && …`, bash does not
    "cat <<E\nx\nE && cat <<'F'\n`rm x`\nF\nE",
    # a process substitution in a `${…}` word, quoted for some operators, or after `<` in [[ ]]
    "x=${y:-<(rm x)}", "echo ${y:=<(rm x)}", "[[ a<(rm${IFS}x) ]]", "echo \"${y:?<(rm x)}\"",
    "y=a; echo \"${y/a/<(rm x)}\"", "case a in ${y:-<(rm x)}) ;; esac",
    # a quote inside `${…}` in a here-document is a character
    "cat <<E\n${y:-'$(rm x)'}\nE", "cat <<E\n\"${y:-'`rm x`'}\"\nE",
    # tree-sitter runs a `$'…'` after a word past its closing quote
    "echo x$'\\\\'; rm x #'", "echo a$'\\\\' && rm x; echo '",
    # a `$` ending its line joined to the next line's word; a `#` after an escaped blank; a target ending early
    "echo x >$\nrm x", "x=$\nrm x", "cat <<<$\nrm x", "echo a]\\ #; rm x", ">$'$'\\$ rm x", "x=$'$'\\$ rm x",
    ">$ rm x", "ls >\\  rm x", "x=\\\t rm x",
    # `!` twice, `time !`; history expansion turned on
    "! ! rm x", "time ! rm x", "set -o history -H\nhistory -s 'rm x'\n!!",
    "shopt -so history histexpand\nhistory -s 'rm x'\n!!",
    # BSD's and macOS' env -P and xargs -J; perf's recorders
    "env -P /bin rm x", "echo x | xargs -J % rm %", "perf stat record rm x", "perf sched record rm x",
    "perf trace record rm x", "perf ftrace -G f rm x", "perf kvm stat record rm x",
    # a library every program loads first
    "LD_PRELOAD=./x.so ls", "env LD_PRELOAD=./x.so ls", "export DYLD_INSERT_LIBRARIES=x.dylib; ls"]


@pytest.mark.parametrize("command", HELPER_137)
def test_helper_137s_ways_of_running_rm_are_denied(command: str):
    assert DENY_RM.denies("Bash", {"command": command}, "/") is not None


def test_an_allow_rule_does_not_allow_what_tree_sitter_read_as_text():
    allow = PermissionRules(allow=(parse_rule("Bash(cat:*)"), parse_rule("Bash(echo:*)"), parse_rule("Bash(ls:*)")))
    for command in ["cat <<EOF\n  $(rm x)\nEOF", "echo $(cat <<E\n`rm x`\nE\n)", "echo x$'\\\\'; rm x #'",
                    "cat <<E\n${y:-'$(rm x)'}\nE", "LD_PRELOAD=./x.so ls", "cat <<<$\nrm x", "echo x <$\nrm x"]:
        assert allow.allows("Bash", {"command": command}, "/") is None, command
    for command in ["cat <<EOF\n  ${HOME}/x $HOME\nEOF", "cat <<'EOF'\n  $(rm x)\nEOF", "echo $'it\\'s' 'a'"]:
        assert allow.allows("Bash", {"command": command}, "/") is not None, command


@pytest.mark.parametrize("command", ["cat <<EOF\n  ${HOME}/x\n  $HOME\nEOF", "cat <<'EOF'\n  $(rm -rf x)\nEOF",
                                     "(( a<(b) ))", "for ((i=0; i<(3); i++)); do :; done", "a[x<(1)]=2",
                                     "diff <(sort a) <(sort b)", "echo \"$(cat <(ls))\"", "grep '<(' f",
                                     "set +H; ls", "set -euo pipefail; ls", "echo $'it\\'s' 'a' $'\\\\'",
                                     "cat <<E\nx\nE\nls", "env -i ls", "perf stat -e cycles ls",
                                     "echo x | xargs -I % echo %", "LD_LIBRARY_PATH=build ls", "ls  # a comment",
                                     "echo a;#b", "echo a\\\\ #c", "echo x>f;ls", "echo `cat <f`"])
def test_what_the_helper_137_fix_still_lets_through(command: str):
    assert not parse_command(command).opaque, command
    assert DENY_RM.denies("Bash", {"command": command}, "/") is None, command
