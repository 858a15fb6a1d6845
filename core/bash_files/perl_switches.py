"""perl reads switches from its script's `#!` line as from its own (perlrun): `perl s.pl f`, or `./s.pl f`, where
s.pl begins `#!/usr/bin/perl -pi`, edits f in place as `perl -pi s.pl f` does. The switches found there join the
line's words, so that the table's reading of `-i` (write_programs.py) sees them."""

from __future__ import annotations

import os

from contextual.core import regular_file
from contextual.core.bash_files.reads import in_folders
from contextual.core.bash_files.write_programs import PROGRAMS
from contextual.core.bash_files.write_words import read_options
from contextual.core.shell.nodes import Word, command_name

FIRST_LINE = 4096           # perl reads one line; a longer one is no switches of ours to find


def with_script_switches(words: tuple[Word, ...], folders: list[str]) -> tuple[Word, ...]:
    """The words as perl runs them: `perl`, the script's `#!` switches, then the line's. A script run by its own
    name (`./s.pl f`) whose `#!` names perl is perl running it. Unchanged where no script's first line says so."""
    head = words[0] if words else None
    if not isinstance(head, str):
        return words
    if command_name(head) != "perl":
        if "/" not in head or not (switches := _switches(head, folders)):
            return words
        return ("perl", *switches, *words)
    perl = PROGRAMS["perl"]
    seen, _, operands = read_options(words[1:], perl)
    if seen & perl.scripts or not operands or not isinstance(operands[0], str):
        return words                                    # `-e`: no script file; `$S`: not known now
    switches = _switches(operands[0], folders)
    at = len(words) - len(operands)                     # the script: the first word after the options
    return (*words[:at], *switches, *words[at:]) if switches else words


def _switches(script: str, folders: list[str]) -> list[str]:
    found: list[str] = []
    for path in in_folders(script, folders):
        try:        # a FIFO named as the script would block the check for good: core/regular_file.py
            line = regular_file.read_regular(path, FIRST_LINE).split(b"\n", 1)[0].decode("utf-8", "replace")
        except OSError:
            continue
        words = line[2:].split() if line.startswith("#!") else []
        at = next((i for i, w in enumerate(words) if "perl" in os.path.basename(w)), None)
        if at is not None:
            found += [w for w in words[at + 1:] if w.startswith("-") and w != "--"]
    return found
