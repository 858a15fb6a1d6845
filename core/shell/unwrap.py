"""What a wrapper command runs (for core/shell/parse.py): the command after its options and positional words
(`sudo -u me rm f`), shell text read as a line of its own (`bash -c`, `eval`, a shell reading a here-document),
a script on disk (`bash s.sh`), find's `-exec` lists, a git alias used on the line. The wrappers and how each one
hands on a command are core/shell/wrappers.py's table."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import replace

from contextual.core.shell.aliases import Aliases
from contextual.core.shell.findings import MAX_NESTING, Reader
from contextual.core.shell.nodes import Word
from contextual.core.shell.options import (is_stdin_path, may_take_next, old_style, replace_string, replaced,
                                          takes_next_word)
from contextual.core.shell.wrapper_options import WrapperOptions
from contextual.core.shell.wrapper import Wrapper
from contextual.core.shell.wrappers import SHELL


class Unwrapper:
    def __init__(self, reader: Reader, options: WrapperOptions, aliases: Aliases) -> None:
        self.reader = reader
        self.findings = reader.findings
        self.options = options
        self.aliases = aliases

    def unwrap(self, wrapper: Wrapper, rest: list[Word], depth: int, stdin: Word = "",
               open_tail: bool = False) -> list[Word] | None:
        """The command the wrapper runs (None when it runs none or it was handed on as shell text). `stdin`: the
        text the line hands it on standard input ("" when none is known to, None when it is made when it runs)."""
        if self._handed_elsewhere(wrapper, rest, depth):
            return None
        if wrapper.installable:
            return self._installable(wrapper, rest, depth)
        if wrapper.old_style and rest and rest[0] and rest[0].isalpha():
            rest = old_style(rest, wrapper)       # `tar xIf CMD a.tar` is `tar -x -I CMD -f a.tar`
        if wrapper.dashdash_shell and "--" in rest:
            after = rest[rest.index("--") + 1:]
            shell = next((w.partition("=")[2] for w in rest if w is not None and w.startswith("--shell=")), None)
            if shell is not None:
                return [shell, *after]    # `capsh --shell=/bin/rm -- f` runs that program with the words after --
            return self.unwrap(SHELL, after, depth, stdin)   # `capsh -- -c 'rm f'`
        if wrapper.permute and self.options.permuted(wrapper, rest, depth):
            return None
        if wrapper.command_after:
            marker = _marker(wrapper, rest)
            if marker is not None:
                return self._after_marker(wrapper, rest, marker, depth)
            if not wrapper.runs_rest and not wrapper.subcommands and not wrapper.default_shell:
                return None               # `xterm -T t`: no command given (its window runs a shell)
        if wrapper.command_names:
            return self._named_subcommand(wrapper, rest, depth, stdin)
        original = rest
        i = self.options.leading(wrapper, rest, depth)
        if i is None:
            return None
        reads_stdin = i < 0             # a shell's -s: the script is standard input, the words its arguments
        if reads_stdin:
            i = -i - 1
        if any(w in wrapper.runs_nothing for w in rest[:i] if w is not None):
            return None                   # `command -v rm`: a lookup
        if wrapper.config_pair:
            self._config_pair(wrapper, rest[i:], depth)
            return None
        if wrapper.shell_rest:
            return self.unwrap(SHELL, rest[i:], depth, stdin)     # `pipenv shell -- -c 'rm f'` runs $SHELL -c …
        sub = rest[i] if i < len(rest) else None
        if sub is not None and self.aliases.has_git_alias(sub):
            if depth < MAX_NESTING:
                self._git_alias(sub, rest[i + 1:], depth, stdin)
            else:
                self.findings.unreadable()    # too deep to read what the alias runs, yet git runs it
            return None
        if sub is not None and wrapper.guesses_subcommand and self.aliases.guesses(sub):
            self._guessed(rest[:i], rest[i + 1:], depth, stdin)
            return None
        if sub is not None and sub in wrapper.subcommands:
            return self.unwrap(wrapper.subcommands[sub], rest[i + 1:], depth, stdin)   # `git rebase -x …`
        command = self._command_words(wrapper, rest, i, depth, open_tail)
        if command is None:
            return None
        if wrapper.optional_positional:
            # `podman machine ssh [NAME] CMD`: whether the first word names a machine is known when it runs
            other = self._command_words(replace(wrapper, positional=0), rest, i, depth, open_tail)
            if other and other != command:
                found = self._what_runs(wrapper, other, original, reads_stdin, depth, stdin, open_tail)
                if found:
                    self.reader.add(found, depth, stdin)
        # getopt reads options anywhere before `--` (`runuser root -s /bin/rm f` runs /bin/rm f)
        before = original[:original.index("--")] if "--" in original else original
        entry = _entry_words(wrapper, before if wrapper.permute else rest[:i])
        if entry is not None:
            command = entry + command     # `docker run --entrypoint rm IMAGE -rf /w` runs rm -rf /w
        return self._what_runs(wrapper, command, original, reads_stdin, depth, stdin, open_tail)

    def _handed_elsewhere(self, wrapper: Wrapper, rest: list[Word], depth: int) -> bool:
        """A wrapper whose words name no command it runs next: commands from elsewhere, find's -exec lists,
        alias definitions, a transport that runs a command named in a URL. True when so (what they run is read)."""
        if wrapper.opaque:
            self.findings.unreadable()    # tmux run-shell, source-file …: commands from elsewhere
            return True
        if wrapper.exec_options:
            self._find_exec(wrapper, rest, depth)
            return True
        if wrapper.alias_values:
            self.aliases.define(rest, depth)
            return True
        # in any case: less reads `--LESSKEY-SRC` as `--lesskey-src`
        if any(w is not None and (any(mark in w.lower() for mark in wrapper.opaque_markers)
                                  or w in wrapper.opaque_words) for w in rest):
            self.findings.unreadable()    # git's `ext::` transport runs a command named in a URL
            return True
        return False

    def _installable(self, wrapper: Wrapper, rest: list[Word], depth: int) -> list[Word] | None:
        """`nix run nixpkgs#busybox -- rm f`: the package's program, named by the last part of its attribute (unless
        the package names another), runs the words after `--` (or after the installable). Without a `FLAKE#ATTR`
        (a flake's default app, `-f FILE ATTR`) the program is a file's business, not read; nix 2.3's `nix run PKG
        -c CMD` runs CMD."""
        end = rest.index("--") if "--" in rest else len(rest)
        for j, word in enumerate(rest[:end]):
            if word is None:
                self.findings.unreadable()    # `nix run "$PKG" -- …`: which program is only known when it runs
                return None
            if "#" in word:
                name = word.partition("#")[2].rpartition(".")[2]
                return [name, *(rest[end + 1:] if end < len(rest) else rest[j + 1:])] if name else None
        marker = _marker(wrapper, rest[:end])
        return None if marker is None else self._after_marker(wrapper, rest, marker, depth)

    def _named_subcommand(self, wrapper: Wrapper, rest: list[Word], depth: int, stdin: Word) -> list[Word] | None:
        """`nix --option sandbox false develop`: the first word naming one of its commands is the sub-command,
        whatever options and values come before it."""
        for j, word in enumerate(rest):
            if word is None:
                self.findings.unreadable()    # `nix $ARGS develop`: $ARGS may be the sub-command
                return None
            if word in wrapper.subcommands:
                return self.unwrap(wrapper.subcommands[word], rest[j + 1:], depth, stdin)
            if word in wrapper.command_names:
                return None
        return None

    def _config_pair(self, wrapper: Wrapper, words: list[Word], depth: int) -> None:
        """`git config alias.e '!rm f'`: a setting that later runs a command."""
        if words[:1] == ["set"]:      # git 2.46's `git config set [--file F] NAME VALUE`: its options after `set`
            after = self.options.leading(wrapper, words[1:], depth)
            if after is None:
                return
            words = words[1 + after:]
        plain = [w for w in words if w is None or not w.startswith("-")]
        if len(plain) >= 2:
            self.options.setting(None if None in plain[:2] else f"{plain[0]}={plain[1]}", wrapper, depth)

    def _git_alias(self, name: str, after: list[Word], depth: int, stdin: Word) -> None:
        """`git -c alias.r=rebase r -x 'rm f'`: the alias, then the words after it."""
        value = self.aliases.take_git_alias(name)
        if value.startswith("!"):
            self.reader.script_word(None if None in after else " ".join([value[1:], *after]),  # type: ignore[list-item]
                                    depth)
        else:
            self.reader.add(["git", *value.split(), *after], depth + 1, stdin)     # `git -c alias.p=push p`: push

    def _guessed(self, options: list[Word], after: list[Word], depth: int, stdin: Word) -> None:
        """`git -c help.autocorrect=1 psuh`: git runs the command or alias nearest the mistyped one, and which only
        git knows. Listed with that word unknown (as `git $X`), each alias of the line read with the words after."""
        self.findings.listed(("git", *options, None, *after))
        for name in self.aliases.git_names():
            if depth < MAX_NESTING:
                self._git_alias(name, after, depth, stdin)
            else:
                self.findings.unreadable()

    def _command_words(self, wrapper: Wrapper, rest: list[Word], i: int, depth: int, open_tail: bool
                       ) -> list[Word] | None:
        """The words from the command the wrapper runs on (``i``: the first word after its options): past its
        positional words and the options after them, up to the word that ends them. None when unreadable."""
        if wrapper.named_compound and len(rest) > i + 1 and rest[i + 1] in ("{", "(", None):
            self.findings.unreadable()    # `coproc NAME { rm f; }`: the parser splits the body off the command
            return None
        positional = 0 if _given(wrapper.no_positional, wrapper, rest[:i]) else wrapper.positional
        if positional and (len(rest) <= i + positional or None in rest[i:i + positional]):
            if open_tail or len(rest) > i + positional:
                self.findings.unreadable()    # `timeout $T 5 rm`, `… | xargs timeout`: which word runs is unknown
                return None
        rest = rest[i + positional:]
        if wrapper.options_after_positional:
            j = self.options.leading(wrapper, rest, depth)
            if j is None:
                return None
            rest = rest[abs(j) - 1 if j < 0 else j:]
        if wrapper.until:
            end = next((j for j, w in enumerate(rest) if w in wrapper.until), len(rest))
            rest = rest[:end]
            if not rest:
                self.findings.unreadable()    # `… | parallel`: the commands are the lines it reads
                return None
        return rest

    def _what_runs(self, wrapper: Wrapper, rest: list[Word], original: list[Word], reads_stdin: bool, depth: int,
                   stdin: Word, open_tail: bool) -> list[Word] | None:
        """What the command words run: shell text read here (a script, standard input, each word its own line),
        a script on disk, or the command itself (its words returned). ``original``: all the wrapper's words."""
        if wrapper.default_shell and not (rest and wrapper.runs_rest) and not _given(
                wrapper.runs_nothing | wrapper.nothing_alone, wrapper, original) and (
                not wrapper.default_shell_with or _given(wrapper.default_shell_with, wrapper, original)):
            self.reader.script_word(stdin or None, depth)    # `su <<< 'rm f'`: a shell reading standard input
            return None
        if wrapper.each_word_script:
            for word in rest:
                self.reader.script_word(word, depth)     # pee, mispipe: each word its own command line
            return None
        if wrapper.script_rest:
            if rest:
                # parallel adds its arguments after the command: words only known then
                tail = ' "$ARGUMENT"' if wrapper.until else ""
                self.reader.script_word(None if None in rest else " ".join(rest) + tail,  # type: ignore[arg-type]
                                        depth)
            return None
        if not wrapper.runs_rest:
            if wrapper is SHELL and (reads_stdin or not rest or is_stdin_path(rest[0] or "")):
                # its script is standard input: a here-document read here, anything else (`echo rm f | sh`) unknown
                self.reader.script_word(stdin or None, depth)
            elif wrapper is SHELL and rest[0] is not None:
                self.findings.scripts.append(rest[0])      # `bash s.sh`: read from disk by the permission rules
            elif wrapper is SHELL:
                self.findings.unreadable()    # `bash "$F"`
            return None
        if not rest and open_tail:
            self.findings.unreadable()    # `… | xargs sudo`: the command is what it reads
            return None
        if not rest:
            return list(wrapper.default) or None
        if wrapper.replace_options:
            rest = replaced(rest, replace_string(original))
        if wrapper.env_separator and rest[0] is not None:
            rest = [rest[0].rpartition(wrapper.env_separator)[2], *rest[1:]]     # `hatch run test:rm f` runs rm
        if wrapper.reenters:
            return [wrapper.reenters, *rest]      # `yarn workspace w exec …` is `yarn exec …` there
        # xargs: the words it reads follow the command (`xargs env` runs what it reads)
        return list(rest) + [None] if wrapper.appends_input else list(rest)

    def _after_marker(self, wrapper: Wrapper, rest: list[Word], marker: int, depth: int) -> list[Word] | None:
        """`xterm -e rm f`, `kubectl exec P -- rm f`, `lxterminal --command='rm f'`: the command after the marker.
        An option right before it may take it as its value (`kubectl --kubeconfig -- exec p x -- rm f` runs rm): the
        command after the next marker is read too."""
        later = [marker]
        while may_take_next(rest[later[-1] - 1] if later[-1] else None) and (
                found := _marker(wrapper, rest[later[-1] + 1:])) is not None:
            later.append(later[-1] + 1 + found)
        if None in rest[:later[-1]]:
            self.findings.unreadable()    # `xterm $OPTS -e ls`: $OPTS may hold the -e that starts the command
            return None
        for other in later[1:]:
            words = self._command_after(rest, other, depth)
            if words:
                self.reader.add(words, depth)
        return self._command_after(rest, marker, depth)

    def _command_after(self, rest: list[Word], marker: int, depth: int) -> list[Word] | None:
        word = rest[marker] or ""
        words = ([word.partition("=")[2]] if "=" in word else []) + rest[marker + 1:]
        if len(words) == 1 and words[0] is not None and re.search(r"\s", words[0]):
            self.reader.script_word(words[0], depth)    # `xterm -e 'rm f'`: a lone word with blanks goes to a shell
            return None
        return words or None

    def _find_exec(self, wrapper: Wrapper, rest: list[Word], depth: int) -> None:
        if None in rest:
            # `find . $X`, `find . -exec echo "$X" -exec rm f ';'`: a word only known when it runs may be (or split
            # into) an action or the end of one, so which words are commands is not known
            self.findings.unreadable()
            return
        i = 0
        while i < len(rest):
            word = rest[i]
            bundled = word is not None and re.fullmatch(r"-[A-Za-z]+", word) is not None and \
                "-" + word[-1] in wrapper.exec_options        # fd's `-Hx rm`: the last letter of a bundle
            if word in wrapper.exec_options or bundled:
                end = i + 1
                while end < len(rest) and not (rest[end] == ";" or (rest[end] == "+" and rest[end - 1] == "{}")):
                    end += 1
                self.reader.add(list(rest[i + 1:end]), depth)
                i = end
            i += 1


def _given(options: frozenset[str], wrapper: Wrapper, words: list[Word]) -> bool:
    """Whether one of these options is among a wrapper's words, alone, with `=VALUE`, or in a bundle of short flags
    before one taking a value (`podman exec -itl`, `ssh -fN`; not the value of `-u -l`)."""
    i = 0
    while i < len(words):
        word = words[i]
        if word is None or not word.startswith("-") or word == "--":
            i += 1
            continue
        option, _, attached = word.partition("=")
        if option in options:
            return True
        for letter in word[1:] if not word.startswith("--") else "":
            if "-" + letter in options:
                return True
            if "-" + letter in wrapper.value_options:
                break
        i += 2 if takes_next_word(word, option, attached, wrapper) else 1
    return False


def _entry_words(wrapper: Wrapper, options: list[Word]) -> list[Word] | None:
    """The command words an entrypoint option gives (its last one wins): a JSON list (podman), else split as a
    shell would (compose); None when none is given, `[]` for an empty one (the image's command then runs)."""
    if not wrapper.entry_options:
        return None
    value: Word = ""
    given = False
    for j, word in enumerate(options):
        if word is None:
            continue
        option, equals, attached = word.partition("=")
        following = options[j + 1] if j + 1 < len(options) else None
        if option in wrapper.entry_options:
            given, value = True, attached if equals else following
        elif word.startswith("-") and not word.startswith("--"):
            for k, letter in enumerate(word[1:], start=1):       # a getopt bundle: `-ls PROG`, `-sPROG`
                if "-" + letter in wrapper.entry_options:
                    given, value = True, word[k + 1:] or following
                    break
                if "-" + letter in wrapper.value_options:
                    break
    if not given:
        return None
    if value is None:
        return [None]                     # `--entrypoint "$P"`: the command is only known when it runs
    try:
        listed = json.loads(value) if value.lstrip().startswith("[") else None
    except ValueError:
        listed = None
    if isinstance(listed, list) and all(isinstance(w, str) for w in listed):
        return list(listed)
    try:
        return list(shlex.split(value))
    except ValueError:
        return [None]


def _marker(wrapper: Wrapper, rest: list[Word]) -> int | None:
    """Where the command starts: the first word of `command_after`, alone or as `--long=VALUE`."""
    for i, word in enumerate(rest):
        if word is not None and (word in wrapper.command_after or (
                word.startswith("--") and "=" in word and word.partition("=")[0] in wrapper.command_after)):
            return i
    return None
