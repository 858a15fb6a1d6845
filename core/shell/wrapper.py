"""What a command word that runs another command is, for the table of them (core/shell/wrappers.py and
core/shell/launchers.py): how it hands the command on, read by core/shell/unwrap.py and its option reading."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Wrapper:
    """How a command word that runs another command hands it on."""
    value_options: frozenset[str] = frozenset()   # options followed by a value, which is skipped
    pair_options: frozenset[str] = frozenset()    # … by two (nix-shell --argstr NAME VALUE): a `--` may be one
    positional: int = 0                           # words before the command (timeout's duration)
    no_positional: frozenset[str] = frozenset()   # … none after one of these options (`podman exec --latest`)
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
    git_options: bool = False                     # git: its own options before the sub-command, as git_line reads them
    # the words after the first of these (or a long one's `=VALUE` and them) are the command, whatever comes
    # before: `xterm … -e rm f`, `kubectl exec P … -- rm f`; a lone word with blanks is a line for a shell
    command_after: frozenset[str] = frozenset()
    # every option it takes is here or in value_options: another before the command makes the line opaque, since
    # it may take the next word (`docker run --new-opt X rm f`: is rm the image or the command?)
    flag_options: frozenset[str] | None = None
    entry_options: frozenset[str] = frozenset()   # docker run --entrypoint PROG IMAGE ARGS: PROG is the command
    optional_positional: bool = False             # podman machine ssh [NAME] CMD: read with the word and without
    default_shell_with: frozenset[str] = frozenset()   # default_shell only with one of these (docker run -i)
    # its sub-commands' names, found past options whose values are not all known (nix's settings are options)
    command_names: frozenset[str] = frozenset()
    shell_rest: bool = False                      # pipenv shell ARGS: the words after its options are a shell's
    env_separator: str = ""                       # hatch run ENV:CMD: the command word's part after the last one
    installable: bool = False                     # nix run FLAKE#ATTR [--] ARGS: ATTR's last part runs ARGS
    reenters: str = ""                            # yarn workspace W exec …: its words are this program's again


def opts(text: str) -> frozenset[str]:
    """A set of option spellings written as one string."""
    return frozenset(text.split())


OPAQUE = Wrapper(opaque=True)
RUNS_ONE = Wrapper()        # runs the rest as it is: nohup, setsid, valgrind …
