"""Which folder a command runs in by a wrapper's option (`env -C DIR`, `sudo -D DIR`, `find -execdir`): read for the
deny rules (core/files_run.py: the scripts a line runs; core/bash_files/reads.py: the folders its relative paths
are read in), as `cd` is."""

from __future__ import annotations

from contextual.core.shell.nodes import Word, command_name

# wrappers' options naming the folder the command runs in; find's -execdir: each found one (not known here)
CHDIR_OPTIONS = {"env": ("-C", "--chdir"), "sudo": ("-D", "--chdir"), "systemd-run": ("--working-directory",),
                 "unshare": ("-w", "--wd"), "nsenter": ("-w", "--wd"), "find": ("-execdir", "-okdir")}


def chdir_targets(words: tuple[Word, ...]) -> list[Word]:
    """The folders a wrapper's options move the command it runs to (`env -C DIR`, `env -CDIR`, `env --chdir=DIR`),
    in their order; None for one only known when it runs (a word of the line's, each folder find finds)."""
    name = command_name(str(words[0])) if words and isinstance(words[0], str) else ""
    targets: list[Word] = []
    for option in CHDIR_OPTIONS.get(name, ()):
        for i, word in enumerate(words[1:], start=1):
            if word == option:
                targets.append(None if name == "find" or i + 1 >= len(words) else words[i + 1])
            elif isinstance(word, str) and option.startswith("--") and word.startswith(option + "="):
                targets.append(word.partition("=")[2])
            elif isinstance(word, str) and len(option) == 2 and word.startswith(option) and len(word) > 2 and \
                    name != "find":
                targets.append(word[2:])            # `env -Csub`: getopt's attached value
    return targets
