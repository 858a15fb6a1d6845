"""A wrapper's options read for what they run (for core/shell/unwrap.py): a shell's `-c TEXT`, an option whose
value is a command line (`rsync -e CMD`, `tar --to-command=CMD`), a setting whose value is one (`ssh -o
ProxyCommand=CMD`, `git -c core.pager=CMD`), env's assignments, and where the options end. How each word is
spelled (bundles, long options' unique starts, values) is core/shell/options.py's."""

from __future__ import annotations

import fnmatch
import re

from contextual.core.git_commands import autocorrect_runs
from contextual.core.git_line import git_line
from contextual.core.shell.aliases import Aliases
from contextual.core.shell.findings import Reader
from contextual.core.shell.nodes import Word
from contextual.core.shell.options import (is_script_option, is_stdin_path, known_option, long_option,
                                          may_take_next, setting_value, takes_next_word)
from contextual.core.shell.variables import Variables
from contextual.core.shell.wrapper import Wrapper
from contextual.core.shell.wrappers import SHELL


class WrapperOptions:
    def __init__(self, reader: Reader, variables: Variables, aliases: Aliases) -> None:
        self.reader = reader
        self.findings = reader.findings
        self.variables = variables
        self.aliases = aliases

    def leading(self, wrapper: Wrapper, rest: list[Word], depth: int) -> int | None:
        """Read the wrapper's leading options: the index of the first other word (-(index + 1) when a shell's -s
        was among them), or None when the wrapper was handed on as shell text or cannot be read."""
        if wrapper.git_options:
            return self._git_leading(wrapper, rest, depth)
        reads_stdin = False
        i = 0
        while i < len(rest):
            word = rest[i]
            if word is None and wrapper.positional and i + 1 >= len(rest):
                break                     # `flock $FD`: the positional word, and nothing after it runs
            if word is None:
                self.findings.unreadable()    # `sudo $OPTS rm`: what the wrapper runs is only known then
                return None
            if word == "--":
                i += 1
                while wrapper.assignments and i < len(rest) and rest[i] is not None and "=" in (rest[i] or ""):
                    self.variables.assign(*(rest[i] or "").partition("=")[::2], depth)      # `env -- X=1 rm f`
                    i += 1
                break
            option, _, attached = word.partition("=")
            option = long_option(option, wrapper) if word.startswith("--") else option
            if is_script_option(word, wrapper):
                # bash -c [options] TEXT: the first word after -c that is not an option (nor an option's value:
                # `bash -co errexit TEXT`, `bash -c -O extglob TEXT`)
                self.reader.script_word(attached if "=" in word and word.startswith("--") else
                                        _script_after(wrapper, word, list(rest[i + 1:])), depth)
                return None
            if word.startswith(("-", "+")) and len(word) > 1:
                if wrapper.flag_options is not None and not known_option(word, wrapper):
                    self.findings.unreadable()    # `docker run --new X rm f`: which word is the image?
                    return None
                following = rest[i + 1] if i + 1 < len(rest) else None
                if wrapper.command_options and not wrapper.permute:      # permuted ones were read already
                    self.command_option(word, option, attached, following, wrapper, depth)
                reads_stdin |= wrapper is SHELL and word.startswith("-") and not word.startswith("--") and "s" in word
                bundled = _bundled_value(word, following, wrapper)
                if bundled is not None:
                    option, value = bundled
                    # `ssh -F cfg`, `-qFcfg`: a config file, whose ProxyCommand or LocalCommand ssh runs
                    if value is None or is_stdin_path(value) or value != "/dev/null":
                        self.findings.unreadable()
                        return None
                if option in wrapper.opaque_options or (wrapper is SHELL and option in ("--rcfile", "--init-file")):
                    value = attached if "=" in word else following
                    if value is None or is_stdin_path(value) or option == "--config-env":
                        self.findings.unreadable()    # `bash --rcfile <(echo rm f) -ic :`, `ssh -F /dev/stdin`
                        return None
                    if wrapper is SHELL:
                        self.findings.scripts.append(value)    # `bash --rcfile s.sh -ic :` runs s.sh: from disk
                takes_next = takes_next_word(word, option, attached, wrapper)
                setting = setting_value(word, following, wrapper)
                if setting != "":
                    # `ssh -o ProxyCommand='rm f' host`, `-qo…`: a setting whose value is a command line it runs
                    self.setting(setting, wrapper, depth)
                # `mpirun --mca btl tcp CMD`: an option with two values (nix-shell's --arg NAME VALUE)
                i += (3 if option in wrapper.pair_options else 2) if takes_next else 1
                continue
            if wrapper.assignments and "=" in word and not word.startswith("-"):   # `env 1=1 rm f` runs rm
                name, _, value = word.partition("=")
                self.variables.assign(name, value, depth)
                i += 1
                continue
            break
        return -(i + 1) if reads_stdin else i

    def _git_leading(self, wrapper: Wrapper, rest: list[Word], depth: int) -> int | None:
        """git's own options (core/git_line.py): each `-c` setting read, the index of the sub-command (`--help` is
        `help`'s, which runs nothing of the line's), the end where none runs (`git --version`, `git -C`)."""
        line = git_line(rest)
        if line.unknown_option or any(w is not None and w.partition("=")[0] in wrapper.opaque_options
                                      for w in line.others):
            self.findings.unreadable()    # `git $OPTS push`; `--config-env` takes a setting from a variable
            return None
        for setting in line.settings:
            self.setting(setting, wrapper, depth)
        return len(line.options) if line.sub else len(rest)

    def permuted(self, wrapper: Wrapper, rest: list[Word], depth: int) -> bool:
        """GNU getopt reads options anywhere (`su root -c 'rm f'`, `rsync a b -e 'rm f'`): the script option
        and the command options among all the words. True when the script option handed the rest on."""
        if None in rest[:_options_end(wrapper, rest)] and (
                wrapper.script_option or wrapper.script_long or wrapper.command_options or wrapper.entry_options):
            self.findings.unreadable()    # `su root -c ls "$X"`: X='-crm f' is an option too, read later: it wins
            return True
        for i, word in enumerate(rest):
            if word is None or not word.startswith("-") or word == "-":
                continue
            if word == "--":
                # su and runuser hand what follows `--` to the shell, and an option may take it as its value
                # (`tar --exclude -- --to-command=CMD`): read on
                if not wrapper.script_option and not may_take_next(rest[i - 1] if i else None) and not (
                        i > 1 and rest[i - 2] in wrapper.pair_options):   # `nix-shell --argstr a -- --run CMD`
                    return False
                continue
            following = rest[i + 1] if i + 1 < len(rest) else None
            option, _, attached = word.partition("=")
            if is_script_option(word, wrapper):
                # `vagrant ssh --command='rm f'`: a long form's value may be in the word
                self.reader.script_word(attached if word.startswith("--") and "=" in word else following, depth)
                return True
            self.command_option(word, option, attached, following, wrapper, depth)
        return False

    def setting(self, setting: Word, wrapper: Wrapper, depth: int) -> None:
        if setting is None:
            self.findings.unreadable()    # `ssh -o "$OPT" host`: which setting is only known when it runs
            return
        found = re.match(r"\s*([^=\s]*)\s*(?:=|\s)\s*(.*)\Z", setting, re.S)    # NAME=VALUE, NAME VALUE, a tab
        name, value = (found.group(1), found.group(2)) if found else (setting, "")
        name, value = name.strip().lower(), value.strip()
        if name == "help.autocorrect" and autocorrect_runs(value):
            self.aliases.autocorrects = True      # git guesses a mistyped sub-command (core/git_commands.py)
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in wrapper.opaque_settings):
            self.findings.unreadable()    # git include.path: more settings, from a file
        elif any(fnmatch.fnmatchcase(name, pattern) for pattern in wrapper.command_settings):
            self.reader.script_word(value[1:] if value.startswith("!") else value, depth)   # git runs `!cmd` in sh
        elif any(fnmatch.fnmatchcase(name, pattern) for pattern in wrapper.bang_settings):
            self.aliases.set_git_alias(name.partition(".")[2], value)
            if value.startswith("!"):
                self.reader.script_word(value[1:], depth)     # git: `alias.x='!rm f'` is shell text, used or not

    def command_option(self, word: str, option: str, attached: str, following: Word, wrapper: Wrapper,
                       depth: int) -> None:
        """`rsync -e 'ssh -p 2'`, `-avze ssh`, `-essh`, `tar --to-command='sh x'` (or `--to-c=`, as getopt takes
        a long option's unique start): an option whose value is a command line the program runs."""
        if option in wrapper.command_options and len(option) > 2 and not word.startswith("--"):
            self.reader.script_word(attached if "=" in word else following, depth)     # zip's `-TT CMD`
            return
        if word.startswith("--"):
            option = long_option(option, wrapper)
            if option == "--checkpoint-action":
                action = attached if "=" in word else (following or "")
                if action.startswith("exec="):
                    self.reader.script_word(action[len("exec="):], depth)      # tar --checkpoint-action=exec=CMD
                return
            if option in wrapper.command_options:
                self.reader.script_word(_split_string(option, attached if "=" in word else following), depth)
            return
        for position, letter in enumerate(word[1:], start=1):
            if "-" + letter in wrapper.value_options:         # getopt: the first letter taking a value ends it
                if "-" + letter in wrapper.command_options:
                    value = word[position + 1:] or following
                    self.reader.script_word(_split_string("-" + letter, value), depth)
                    if value is not None and value.startswith("="):
                        self.reader.script_word(value[1:], depth)    # clap and pflag: `-c='rm f'` is `rm f`
                return


def _options_end(wrapper: Wrapper, rest: list[Word]) -> int:
    """Where getopt stops reading options: at a `--` no option takes as its value (`tar --exclude -- --to-command=C`
    reads on); su and runuser hand the words after it to the shell, whose options they are (`su root -- -c TEXT`)."""
    if wrapper.script_option:
        return len(rest)
    return next((i for i, w in enumerate(rest) if w == "--" and not may_take_next(rest[i - 1] if i else None)
                 and not (i > 1 and rest[i - 2] in wrapper.pair_options)), len(rest))


def _script_after(wrapper: Wrapper, word: str, after: list[Word]) -> Word:
    """The text a shell's `-c` runs: the first word after the options, each option's value skipped (`-o errexit`,
    `+O extglob`, `-co errexit`, `--rcfile F`); None when it cannot be told (an unknown word among them)."""
    if wrapper is not SHELL:              # getopt programs (flock, sg …): as before, the first non-option word
        while after and after[0] is not None and after[0].startswith(("-", "+")) and len(after[0]) > 1:
            after = after[1:]
        return after[0] if after else None
    pending = _values_taken(word, wrapper) if not word.startswith("--") else 0
    i = 0
    while i < len(after):
        current = after[i]
        if current is None:
            return None                   # an unknown option, value or text: which word runs is not known
        if pending:
            pending, i = pending - 1, i + 1
            continue
        if current in ("--", "-"):        # bash reads a lone `-` as the end of its options too
            i += 1
            break
        if not current.startswith(("-", "+")) or len(current) == 1:
            break
        if current.startswith("--"):
            pending = 1 if current in wrapper.value_options else 0
        else:
            pending = _values_taken(current, wrapper)
        i += 1
    if pending:
        return None
    return after[i] if i < len(after) else None


def _bundled_value(word: str, following: Word, wrapper: Wrapper) -> tuple[str, Word] | None:
    """A short option of `opaque_options` and its value, alone or in a bundle as getopt reads it (`-F cfg`,
    `-Fcfg`, `-qF cfg`); None when the word holds none."""
    if not word.startswith("-") or word.startswith("--"):
        return None
    for position, letter in enumerate(word[1:], start=1):
        if "-" + letter in wrapper.opaque_options:
            return "-" + letter, word[position + 1:] or following
        if "-" + letter in wrapper.value_options:
            return None                   # an earlier letter takes the rest as its value
    return None


def _values_taken(word: str, wrapper: Wrapper) -> int:
    """How many of the next words a bundle of a shell's short options takes as values (`-co`: one, for -o)."""
    sign = word[0]
    return sum(1 for letter in word[1:] if sign + letter in wrapper.value_options)


def _split_string(option: str, text: Word) -> Word:
    """env -S reads a backslash-underscore as a blank between words; bash would read it as an escaped `_`."""
    if option in ("-S", "--split-string") and text is not None:
        return text.replace("\\_", " ")
    return text
