"""What a Bash line runs from files, read for the deny rules (core/permission_rules.py): the script a shell or
`source` reads (`bash s.sh`, written by an earlier step), a program named by a path (`./y`: a link to /bin/rm, a
copy of it) and a program that is a script bash runs (a shell's shebang, another shell's, or none: bash runs a
text file the kernel will not); what a git command runs from files (core/git_runs.py: its hooks are programs, an
alias or a setting from a config file a line); what npm, yarn, pnpm and bun run from package.json's scripts
(core/package_scripts.py: each a line, run in the package's folder) and make from its makefile's recipes
(core/make_recipes.py); the file a program takes its own commands
from (`awk -f F`, `sed -f F`, `ed f < F`: read as that program given the text on its line). Each is read as it is
when the call is checked.

A file's own lines are matched command by command; a value known only when it runs is let be (real scripts are
full of `"$@"` and `${PS1:-}`: refusing them refused every `source venv/bin/activate`), a parse that cannot be
trusted (a syntax error, characters bash reads otherwise) is not. What cannot be checked holds every Bash deny
rule: a file not there yet (the line makes it), one the line itself mentions as well (it may change it first: `cp
/bin/rm y; ./y f`), a relative path after a `cd` on the same line (it is not the one under the root), a file that
cannot be read, more files than MAX_FILES or more text than MAX_TEXT, scripts deeper than MAX_DEPTH; a hook or git
config file the line may write before git reads it, a folder a git command runs in that is only known when it runs.

The lines of each file read are also judged for the files they read and write (`lines`: the Read and Edit deny
rules; a script holding `cat secrets/k` is refused as `bash -c 'cat secrets/k'` is), from each folder the line
may run them in; where there is no Bash deny rule, what cannot be checked is let be, as those rules let an opaque
line be."""

from __future__ import annotations

import filecmp
import os
import re
import shlex
import shutil
from typing import Callable, NamedTuple, Protocol, Sequence

from contextual.core import regular_file
from contextual.core.git_runs import GitRun, Repository, ask_git, git_run
from contextual.core.make_recipes import MAKES, recipes_run
from contextual.core.package_scripts import RUNNERS, Scripts, scripts_run
from contextual.core.script_arguments import UNKNOWN, with_arguments
from contextual.core.shell.folder_options import chdir_targets
from contextual.core.shell.nodes import Word, command_name
from contextual.core.shell.parse import ShellParse, parse_command
from contextual.core.shell.said import TEXT, ProgramFile
from contextual.core.shell.wrappers import WRAPPERS

MAX_DEPTH = 3              # a script that runs a script that runs …
MAX_BYTES = 256 * 1024     # of one script
MAX_FILES = 24             # read for one check: a tree of scripts N wide and three deep took minutes at N = 1000
# Characters of text read as lines for one check, all its files and lines together: each command costs about a
# millisecond to read, and a checkout's package.json script of 500,000 `a;` (1 MB) held the check for minutes
# (50,000 of them took 38 s on a 2-core machine under a load of 15)
MAX_TEXT = 128 * 1024
# The system's own programs and scripts are programs, not read (/usr/bin/lesspipe holds an `rm`); /usr/local and
# /opt are not among them: a line running as root can write there.
SYSTEM_FOLDERS = ("/usr/bin/", "/usr/sbin/", "/usr/lib", "/usr/share/", "/bin/", "/sbin/", "/lib", "/etc/")
_MOVES = frozenset({"cd", "pushd", "popd"})
MAX_PLACES = 8             # folders a line's commands may run in (`cd a && … cd b && …`)
# commands whose words write no file (an `echo $HOME`, a `grep -r x .` beside `source venv/bin/activate`)
_READS_ONLY = frozenset({"echo", "printf", "test", "[", "true", "false", ":", "export", "local", "declare", "set",
                         "unset", "source", ".", "shift", "return", "exit", "ls", "cat", "grep", "rg", "head", "tail",
                         "wc", "du", "stat", "file", "diff", "which", "type", "command", "cd", "pushd", "popd"})
# bash's builtins and keywords: it runs them, not a program of that name on PATH (`echo`, `test`)
_BUILTINS = frozenset(". : [ [[ ! { alias bg bind break builtin caller cd command compgen complete compopt continue "
                      "coproc declare dirs disown echo enable eval exec exit export false fc fg getopts hash help "
                      "history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly "
                      "return select set shift shopt source suspend test time times trap true type typeset ulimit "
                      "umask unalias unset wait".split())
# Interpreters that are not shells: what their script does is a program's business (docs/permissions.md)
_NOT_A_SHELL = re.compile(rb"#!\s*\S*?(?:/env(?:\s+-\S+)*\s+)?\S*?(python[\d.]*|node|nodejs|deno|bun|perl|ruby|php|lua"
                          rb"|Rscript|java|tclsh|wish|expect|awk|gawk|mawk|sed|make|osascript|pwsh)\b")


class DenyRule(Protocol):
    def matches_words(self, words: tuple[Word, ...], *, deny: bool) -> bool: ...

    @property
    def command_word(self) -> str: ...


# A file's line judged for what it reads and writes, from a folder it may run in: the deny rule it meets, if any.
LineJudge = Callable[[str, str], DenyRule | None]


class FilesRun:
    """One check's reading of files, with its budget and the files already read. `rules`: the Bash deny rules
    (what cannot be checked holds the first: `held`); `lines`: the judge of a file's lines for the files they read
    and write (the Read and Edit deny rules). With no Bash deny rule what can be read is judged and the rest let
    be, as those rules let an opaque line be."""

    def __init__(self, rules: Sequence[DenyRule], root: str, ask: Callable[[str, tuple[str, ...]],
                 Repository | None] = ask_git, lines: LineJudge | None = None) -> None:
        self.rules, self.root, self.ask, self.lines = rules, root, ask, lines
        self.held: DenyRule | None = rules[0] if rules else None
        self.read: set[str] = set()
        self.left = MAX_FILES
        self.text_left = MAX_TEXT
        self.repositories: dict[tuple[str, tuple[str, ...]], Repository | None] = {}
        self.watched: dict[str, None] = {}       # the files deciding what git runs, of every line read so far

    def denied_by(self, command: str, depth: int = 0, start: str | None = None) -> DenyRule | None:
        """The deny rule what the line runs from files matches; `held` when something cannot be checked.
        The line itself (depth 0) is held to what it may write before git reads it; a file's lines (a script, a
        hook, an alias) only for the files they name: a value known when it runs is let be there. `start`: the
        folder it runs in, when not the root."""
        if depth > MAX_DEPTH:
            return self.held
        parsed = parse_command(command)
        programs = [words for words in parsed.commands + parsed.latent
                    if isinstance(words[0], str) and "/" in words[0]]
        places = self._places(parsed, start or self.root)
        if places is None and depth == 0 and (programs or parsed.scripts or parsed.program_files or
                                              self._runs_git(parsed)) and self.held:
            return self.held              # `cd "$D" && git commit`: which repository's hooks is not known
        folders = places or [start or self.root]
        # `zap f` runs the zap bash finds on PATH: outside the system's folders (~/.local/bin, ~/.cargo/bin, a
        # virtualenv's bin) an earlier step may have made it a link to rm, or a script
        # each name looked up once: a script's pipeline of thousands of commands looked up PATH for each (and the
        # paths found were checked as often), seconds per hundred
        bares = {word: _bare(word, parsed.defined) for word in dict.fromkeys(
            words[0] for words in parsed.commands + parsed.latent)}
        looked_up = [(bares[words[0]], words) for words in parsed.commands + parsed.latent]
        from_path = [(bare.program, *words[1:]) for bare, words in looked_up if bare.program is not None]
        # a name on no folder of PATH: `command not found`, or one the line makes (`ln -s /bin/rm "$D/zap"`)
        missing = {str(words[0]) for bare, words in looked_up if bare.missing}
        if self.held and self._made_here(parsed, list(dict.fromkeys(p for bare in bares.values()
                                                                  for p in [*bare.absent, bare.program] if p)),
                                         folders, missing if depth == 0 else set()):
            return self.held              # `ln -s /bin/rm ~/.local/bin/zap; zap f`: made by this line
        git = self._git(parsed, folders, strict=depth == 0)
        if git is None and self.held:
            return self.held
        git = git or GitRun()
        self.watched.update(dict.fromkeys(git.watched))
        packages = self._packages(parsed, folders)
        if packages is None and self.held:
            return self.held              # `npm --prefix "$D" test`, `npm run "$X"`: which scripts is not known
        for scripts in packages or []:
            self.watched[scripts.package] = None      # package.json: a file the line must not write first
        if self.held and not self._certain(parsed, programs, list(self.watched), folders, strict=depth == 0):
            return self.held
        # each text with the words it is run with (`bash s.sh rm f`, `./g rm f`): its "$@" may run them; and the
        # folder it runs in, when it is not the line's (a package's scripts run in the package's folder)
        texts: list[tuple[str | None, tuple[Word, ...], str | None]] = [
            (self._text(full), _arguments(parsed, path), None)
            for path in parsed.scripts for full in self._fulls(path, folders)]
        # `source x.sh` reads the x.sh found on PATH before the one here (bash's sourcepath): both are read
        texts += [(self._text(on_path), _arguments(parsed, path), None) for path in parsed.scripts
                  if (on_path := _on_path(path)) is not None]
        # `awk -f p.awk`, `sed -f s.sed`, `ed f < s.ed`: the program's own commands, as its line with them written out
        texts += [(_program_line(given, self._text(full)), (), None)
                  for given in parsed.program_files for full in self._fulls(given.path, folders)]
        # what git runs: its hooks are programs; an alias or a setting's command line is a line of its own; what
        # npm runs: package.json's scripts, each a line for `sh -c`
        given: list[tuple[str, str | None]] = [(line, None) for line in git.texts]
        given += [(line, scripts.folder) for scripts in packages or [] for line in scripts.lines]
        for line, runs_in in given:
            if f"text:{runs_in}:{line}" not in self.read:      # each once per check, however many lines run it
                self.read.add(f"text:{runs_in}:{line}")
                texts.append((line, (), runs_in))
        # a hook is run with words of git's choosing: (program, None) matches a rule with any words
        runs = [*((words, words[1:]) for words in [*programs, *from_path]),
                *(((program, None), ()) for program in git.programs)]
        for words, arguments in runs:
            for full in self._fulls(str(words[0]), folders):
                if not os.path.exists(full):
                    if full.startswith(SYSTEM_FOLDERS) or not self.held:
                        continue          # `command not found`
                    return self.held      # made by this line: only known when it runs
                program = os.path.realpath(full)       # `ln -s /bin/rm y` earlier, then `./y f`
                found = next((r for r in self.rules if r.matches_words((program, *words[1:]), deny=True)
                              or r.matches_words((_copy_of(program, r), *words[1:]), deny=True)), None)
                if found is not None:
                    return found
                if not program.startswith(SYSTEM_FOLDERS) and _runs_in_a_shell(program):
                    texts.append((self._text(program), tuple(arguments), None))
        for text, arguments, runs_in in texts:
            self.text_left -= len(text or "")
            if text is None or self.text_left < 0:
                if self.held:
                    return self.held
                continue
            text = text.removeprefix("\ufeff")
            read = parse_command(text)
            if read.misread:              # a file no one can read as bash does: what it runs is not known
                if self.held:
                    return self.held
                continue
            where = [runs_in] if runs_in else folders
            found = self._judged(text, read, where) or \
                self._with_arguments(text, arguments, depth, where, runs_in or start) or \
                self.denied_by(text, depth + 1, runs_in or start)
            if found is not None:
                return found
        return None

    def _judged(self, text: str, read: ShellParse, folders: Sequence[str]) -> DenyRule | None:
        """A file's text: its commands against the Bash deny rules, the files it reads and writes (from each
        folder it may run in) against the others."""
        found = _matching(self.rules, read)
        if found is None and self.lines is not None:
            found = next((rule for folder in folders if (rule := self.lines(text, folder)) is not None), None)
        return found

    def _with_arguments(self, text: str, arguments: tuple[Word, ...], depth: int, folders: Sequence[str],
                        start: str | None = None) -> DenyRule | None:
        """The script's lines with the words it is run with in place of `"$@"`, `$1` … (core/script_arguments.py).
        A word of the line only known when it runs, put where a command goes, holds every rule; in a file's
        lines such a word is let be."""
        for line in with_arguments(text, arguments, UNKNOWN if depth == 0 else ""):
            read = parse_command(line)
            if any(UNKNOWN in (words[0] or "") for words in read.commands) and self.held:
                return self.held          # `./g "$CMD" f` with g = `exec "$@"`
            found = self._judged(line, read, folders) or self.denied_by(line, depth + 1, start)
            if found is not None:
                return found
        return None

    def _packages(self, parsed: ShellParse, folders: Sequence[str]) -> list[Scripts] | None:
        """The package.json scripts the line's npm, pnpm, yarn and bun commands run (core/package_scripts.py), and
        the makefile recipes its make commands run (core/make_recipes.py), from each folder they may run in; None
        when that is not known."""
        out: list[Scripts] = []
        for words in parsed.commands + parsed.latent:
            name = command_name(str(words[0]))
            if name not in RUNNERS and name not in MAKES:
                continue
            for place in folders:
                found = scripts_run(words, place) if name in RUNNERS else recipes_run(words, place, parsed.assigned)
                if found is None:
                    return None
                if found.package:
                    out.append(found)
        return out

    def _fulls(self, path: str, folders: Sequence[str]) -> list[str]:
        """The files a path names from each folder the line may be in (one for an absolute path)."""
        return list(dict.fromkeys(self._full(path, folder) for folder in folders))

    def _places(self, parsed: ShellParse, start: str) -> list[str] | None:
        """The folders the line's commands may run in: `start` (the root, or a package's folder for its scripts),
        and each folder a `cd` (or a wrapper's option:
        `env -C DIR`) names, from each folder found before; None when one is only known when it runs (`cd "$D"`,
        `find -execdir`) or there are too many."""
        places = [start]
        for words in parsed.commands:
            name = command_name(str(words[0]))
            targets: list[Word] = []
            if name in ("cd", "pushd"):
                plain = [w for w in words[1:] if w is None or not w.startswith("-") or w == "-"]
                targets = plain[:1] or ["~"]
            targets += chdir_targets(words)
            for target in targets:
                if target is None:
                    return None
                if target == "-":
                    continue              # a folder it was in before
                places += [os.path.normpath(os.path.join(place, os.path.expanduser(target))) for place in places]
                places = list(dict.fromkeys(places))
                if len(places) > MAX_PLACES:
                    return None
        return places

    def _runs_git(self, parsed: ShellParse) -> bool:
        return any(self._is_git(str(words[0])) for words in parsed.commands + parsed.latent)

    def _is_git(self, word: str) -> bool:
        """Whether the command word runs git: by its name, or a path to it, a link or a copy (`cp /usr/bin/git g`)."""
        if command_name(word) == "git":
            return True
        full = self._full(word)
        if "/" not in word or not os.path.isfile(full):
            return False
        program = shutil.which("git")
        try:
            return program is not None and (os.path.realpath(full) == os.path.realpath(program)
                                            or filecmp.cmp(full, program, shallow=False))
        except OSError:
            return False

    def _git(self, parsed: ShellParse, places: list[str], strict: bool) -> GitRun | None:
        """What the line's git commands run from files (core/git_runs.py), in each folder they may run in; None
        when it cannot be told, or the line's git guesses its sub-command (help.autocorrect in a config file); in a
        file's lines, `git "$@"` is let be and a guess is read as git's aliases and a git line."""
        out = GitRun()
        for words in parsed.commands + parsed.latent:
            if not self._is_git(str(words[0])):
                continue
            for place in places:
                found = git_run(words, place, self.root, self._ask)
                if found is None and not strict:
                    continue
                if found is None or (found.guesses and strict):
                    return None           # help.autocorrect's guess runs what `git rebsae -x CMD` would too
                out.programs += [p for p in found.programs if p not in out.programs]
                out.watched += [w for w in found.watched if w not in out.watched]
                out.texts += [t for t in found.texts if t not in out.texts]
        return out

    def _ask(self, where: str, options: tuple[str, ...]) -> Repository | None:
        """The repository git finds there (core/git_runs.ask_git), asked once per check."""
        if (where, options) not in self.repositories:
            self.repositories[where, options] = self.ask(where, options)
        return self.repositories[where, options]

    def _certain(self, parsed: ShellParse, programs: list[tuple[Word, ...]], watched: Sequence[str] = (),
                 places: Sequence[str] = (), strict: bool = True) -> bool:
        """Whether the files the line runs are the ones on disk now: no `cd` before a relative one, none of them
        named by another command of the line too (it may write it first), also by another name for the same file
        (a link) or through a folder holding it (`cp e/s.sh .`), and no word or output redirection known only
        when the line runs (`> $F`, `cp /bin/rm s.s*`: it may name the file). `watched`: the files deciding what
        git runs (hooks, config files, present or not): named by no command, and, when `strict`, an unknown word
        only in a git command; a word names a file from each folder of `places` (`cd .git && … > hooks/x`)."""
        mentions = {p.path: p.mentions for p in parsed.program_files}    # `awk -f p.awk` names it by giving it
        run = [*parsed.scripts, *mentions, *(str(words[0]) for words in programs)]
        if not run and not watched:
            return True
        if any(not os.path.isabs(os.path.expanduser(p)) for p in run) and any(
                isinstance(words[0], str) and command_name(words[0]) in _MOVES for words in parsed.commands):
            return False
        if parsed.writes_unknown and (run or strict):
            return False
        known: dict[str, set[str]] = {}       # each word's names, looked up on disk once (a stat, a realpath)
        bases = list(places) or [self.root]

        def identity(path: str) -> set[str]:
            if path not in known:
                known[path] = set().union(*(self._identity(path, base) for base in bases))
            return known[path]
        runs = {p: (identity(p), {f"below:{a}" for a in self._folders_above(p)}) for p in [*run, *watched]}
        identities = set().union(*(runs[p][0] for p in run))
        gits = [words for words in parsed.commands if self._is_git(str(words[0]))]
        named: dict[str, int] = {}
        written: dict[str, int] = {}          # … by a command that may write (not `cat`, `ls`, `grep`)
        for words in (_own_words(command, parsed.commands) for command in parsed.commands):
            # make reads the makefile `-f` names; what it writes is in its recipes, read as lines of their own
            reads_only = command_name(str(words[0])) in _READS_ONLY | MAKES
            if not reads_only and None in words[1:]:
                runner = any(isinstance(w, str) and identity(w) & identities for w in words)
                if run and not runner:
                    return False          # `cp /bin/rm "$F"; ./y f`: the unknown word may be ./y
                if watched and strict and not any(words[len(words) - len(g):] == g for g in gits):
                    return False          # `cp e "$F"; git commit`: it may be a hook (git's own, or a wrapper's)
            for given in words[1:]:
                # `--target-directory=.git/hooks`, dd's `of=.git/hooks/pre-commit`: the value names a file too
                for word in {given, given.partition("=")[2]} if isinstance(given, str) and "=" in given else {given}:
                    if not isinstance(word, str) or not word or word.startswith("-"):
                        continue
                    folder = set() if reads_only else {f"below:{f}" for base in bases for f in self._folder(word, base)}
                    for key in identity(word) | folder:
                        named[key] = named.get(key, 0) + 1
                        written[key] = written.get(key, 0) + (not reads_only)
        for path in parsed.redirected:
            for key in identity(path):
                named[key] = named.get(key, 0) + 2
                written[key] = written.get(key, 0) + 2

        def times(p: str, counts: dict[str, int]) -> int:
            return max(counts.get(key, 0) for key in runs[p][0]) + max((counts.get(key, 0) for key in runs[p][1]),
                                                                       default=0)
        # a script is named once by the shell that runs it, a program file as its program's words give it; a
        # program by nothing else; a hook or a config file written by nothing (`cat .git/config` only reads it)
        return all(times(p, named) <= max(mentions.get(p, 0), p in parsed.scripts) for p in run) and \
            not any(times(p, written) for p in watched)

    def _made_here(self, parsed: ShellParse, paths: list[str], places: Sequence[str], missing: set[str]) -> bool:
        """Whether a command that may write (or a redirection) names one of the programs bare names run, or would
        run once made (the same name in each folder of PATH searched before), or the folder holding one (`cp e
        ~/.local/bin/`); when the line (not a file's) runs a name found nowhere on PATH yet (`missing`), also a
        word only known when it runs in another command (`ln -s /bin/rm "$D/zap"; zap f`)."""
        if not paths:
            return False
        if missing and (parsed.writes_unknown or any(
                None in words[1:] and command_name(str(words[0])) not in _READS_ONLY | missing
                for words in parsed.commands)):
            return True                   # `ln -s /bin/rm "$D/zap"; zap f`: the unknown word may name it
        keys = set().union(*(self._identity(p) for p in paths))
        folders = {os.path.dirname(p) for p in paths} | {os.path.realpath(os.path.dirname(p)) for p in paths}
        for words in parsed.commands:
            if command_name(str(words[0])) in _READS_ONLY:
                continue                  # `cat ~/.local/bin/zap` does not make it
            for given in words[1:]:
                if not isinstance(given, str) or not given:
                    continue
                for word in {given, given.partition("=")[2]} - {""}:
                    for base in places:
                        full = self._full(word, base)
                        if self._identity(word, base) & keys or {full, os.path.realpath(full)} & folders:
                            return True
        return any(self._identity(path) & keys for path in parsed.redirected)

    def _identity(self, path: str, base: str | None = None) -> set[str]:
        """The names of the file a word names (from the folder `base`, the root unless given): as written, with
        links resolved, and its inode (a hard link)."""
        full = self._full(path, base)
        keys = {full, os.path.realpath(full)}
        try:
            info = os.stat(full)
            keys.add(f"inode:{info.st_dev}:{info.st_ino}")
        except OSError:
            pass
        return keys

    def _folder(self, path: str, base: str | None = None) -> set[str]:
        """A folder a word names, as written and resolved (`cp e/s.sh .` writes ./s.sh); none for a file."""
        full = self._full(path, base)
        return {full, os.path.realpath(full)} - {"/"} if os.path.isdir(full) else set()

    def _folders_above(self, path: str) -> set[str]:
        """The folders holding the file, as written and resolved (a copy or a move into one, or of one, lands
        there); the project root only when the file is right in it (`pip install -e .` beside `source
        venv/bin/activate` is not a write to it)."""
        out: set[str] = set()
        for base in (self._full(path), os.path.realpath(self._full(path))):
            parent, first = os.path.dirname(base), True
            while parent and parent != "/":
                if first or os.path.normpath(parent) != os.path.normpath(self.root):
                    out.add(parent)
                parent, first = os.path.dirname(parent), False
        return out

    def _full(self, path: str, base: str | None = None) -> str:
        return os.path.normpath(os.path.join(base or self.root, os.path.expanduser(path)))

    def _text(self, full: str) -> str | None:
        """The file's text; "" when this check read it already; None when it cannot be read or the budget is
        spent."""
        key = os.path.realpath(full)
        if key in self.read:
            return ""
        self.read.add(key)
        self.left -= 1
        data = read_regular(full, MAX_BYTES + 1) if self.left >= 0 else None
        if data is None or len(data) > MAX_BYTES or b"\0" in data:
            return None
        return data.decode("utf-8", errors="replace")


def _program_line(given: ProgramFile, text: str | None) -> str | None:
    """The line a program file's text is judged as (`awk -- 'TEXT'`); None when it cannot be read, "" when this
    check read it already."""
    return text and given.line.replace(TEXT, shlex.quote(text))


def _on_path(name: str) -> str | None:
    """The file `source NAME` (no slash) reads from a folder of PATH, as bash looks for it; None when none."""
    if "/" in name or not name:
        return None
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(folder or ".", name)
        if folder and os.path.isfile(candidate):
            return candidate
    return None


def _arguments(parsed: ShellParse, script: str) -> tuple[Word, ...]:
    """The words after the script on the command that runs it (`bash s.sh rm f`: `rm f`)."""
    for words in parsed.commands:
        if script in words[1:]:
            return tuple(words[words.index(script) + 1:])
    return ()


def _own_words(words: tuple[Word, ...], commands: Sequence[tuple[Word, ...]]) -> tuple[Word, ...]:
    """A wrapper's own words, without the command it runs (listed on its own): `exec ./y` and `sudo bash s.sh`
    name ./y and s.sh only by running them."""
    if WRAPPERS.get(command_name(str(words[0]))) is None:
        return words
    tails = [len(c) for c in commands if 0 < len(c) < len(words) and words[len(words) - len(c):] == c]
    return words[:len(words) - max(tails)] if tails else words


class _Bare(NamedTuple):
    program: str | None                   # what bash runs, when it is not one of the system's programs
    absent: list[str]                     # the same name in the folders of PATH searched before it
    missing: bool = False                 # found in no folder of PATH


def _bare(word: object, defined: Sequence[str]) -> _Bare:
    """For a command word without a folder (not a builtin, nor a function or alias the line defines): the program
    bash runs from PATH unless it is one of the system's, and the paths of that name in the folders of PATH
    searched before it that are not the system's (a line may make one)."""
    if not isinstance(word, str) or not word or "/" in word or word in _BUILTINS or word in defined:
        return _Bare(None, [])
    absent: list[str] = []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if not folder:
            continue
        candidate = os.path.normpath(os.path.join(folder, word))
        system = candidate.startswith(SYSTEM_FOLDERS)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return _Bare(None if system else candidate, absent)
        if not system:
            absent.append(candidate)
    return _Bare(None, absent, missing=True)


def _matching(rules: Sequence[DenyRule], parsed: ShellParse) -> DenyRule | None:
    return next((r for r in rules if any(r.matches_words(w, deny=True) for w in parsed.commands + parsed.latent)),
                None)


def read_regular(full: str, limit: int) -> bytes | None:
    """Up to `limit` bytes of a regular file; None for anything else. A FIFO named as the script (`mkfifo s.sh`,
    then `bash s.sh`) would block the check for good: it is opened without waiting and not read."""
    try:
        return regular_file.read_regular(full, limit)
    except OSError:
        return None


def _runs_in_a_shell(full: str) -> bool:
    """Whether running the file runs a shell over it: a shell's shebang (or any interpreter not known to be
    another language: `env -S bash -e`, zsh, a renamed dash), or text with no shebang at all, which the kernel
    refuses and bash then reads itself. A binary, and a script of another language, are programs."""
    head = read_regular(full, 256)
    if head is None or head.startswith(b"\x7fELF") or b"\0" in head:
        return False
    # a byte-order mark hides the shebang from the kernel: bash reads the file, whatever it names
    return head.startswith(b"\xef\xbb\xbf") or not (head.startswith(b"#!") and _NOT_A_SHELL.match(head))


def _copy_of(path: str, rule: DenyRule) -> str:
    """The rule's program when the file is a byte-for-byte copy of it (`cp /bin/rm y`, then `./y f`), else the
    path."""
    program = shutil.which(rule.command_word) if rule.command_word else None
    try:
        if program and filecmp.cmp(path, program, shallow=False):
            return program
    except OSError:
        pass
    return path
