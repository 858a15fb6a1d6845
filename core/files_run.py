"""What a Bash line runs from files, read for the deny rules (core/permission_rules.py): the script a shell or
`source` reads (`bash s.sh`, written by an earlier step), a program named by a path (`./y`: a link to /bin/rm, a
copy of it) and a program that is a script bash runs (a shell's shebang, another shell's, or none: bash runs a
text file the kernel will not). Each is read as it is when the call is checked.

A file's own lines are matched command by command; a value known only when it runs is let be (real scripts are
full of `"$@"` and `${PS1:-}`: refusing them refused every `source venv/bin/activate`), a parse that cannot be
trusted (a syntax error, characters bash reads otherwise) is not. What cannot be checked
holds every Bash deny rule: a file not there yet (the line makes it), one the line itself mentions as well (it may
change it first: `cp /bin/rm y; ./y f`), a relative path after a `cd` on the same line (it is not the one under
the root), a file that cannot be read, more files than MAX_FILES, scripts deeper than MAX_DEPTH."""

from __future__ import annotations

import filecmp
import os
import re
import shutil
from typing import Protocol, Sequence

from contextual.core import regular_file
from contextual.core.shell_nodes import Word, command_name
from contextual.core.shell_parse import ShellParse, parse_command

MAX_DEPTH = 3              # a script that runs a script that runs …
MAX_BYTES = 256 * 1024     # of one script
MAX_FILES = 24             # read for one check: a tree of scripts N wide and three deep took minutes at N = 1000
# The system's own programs and scripts are programs, not read (/usr/bin/lesspipe holds an `rm`); /usr/local and
# /opt are not among them: a line running as root can write there.
SYSTEM_FOLDERS = ("/usr/bin/", "/usr/sbin/", "/usr/lib", "/usr/share/", "/bin/", "/sbin/", "/lib", "/etc/")
_MOVES = frozenset({"cd", "pushd", "popd"})
# commands whose words write no file (an `echo $HOME`, a `grep -r x .` beside `source venv/bin/activate`)
_READS_ONLY = frozenset({"echo", "printf", "test", "[", "true", "false", ":", "export", "local", "declare", "set",
                         "unset", "source", ".", "shift", "return", "exit", "ls", "cat", "grep", "rg", "head", "tail",
                         "wc", "du", "stat", "file", "diff", "which", "type", "command"})
# Interpreters that are not shells: what their script does is a program's business (docs/permissions.md)
_NOT_A_SHELL = re.compile(rb"#!\s*\S*?(?:/env(?:\s+-\S+)*\s+)?\S*?(python[\d.]*|node|nodejs|deno|bun|perl|ruby|php|lua"
                          rb"|Rscript|java|tclsh|wish|expect|awk|gawk|mawk|sed|make|osascript|pwsh)\b")


class DenyRule(Protocol):
    def matches_words(self, words: tuple[Word, ...], *, deny: bool) -> bool: ...

    @property
    def command_word(self) -> str: ...


class FilesRun:
    """One check's reading of files, with its budget and the files already read."""

    def __init__(self, rules: Sequence[DenyRule], root: str) -> None:
        self.rules, self.root = rules, root
        self.read: set[str] = set()
        self.left = MAX_FILES

    def denied_by(self, command: str, depth: int = 0) -> DenyRule | None:
        """The deny rule what the line runs from files matches; the first one when something cannot be checked."""
        if depth > MAX_DEPTH:
            return self.rules[0]
        parsed = parse_command(command)
        programs = [words for words in parsed.commands + parsed.latent
                    if isinstance(words[0], str) and "/" in words[0]]
        if not self._certain(parsed, programs):
            return self.rules[0]
        texts = [self._text(self._full(path)) for path in parsed.scripts]
        # `source x.sh` reads the x.sh found on PATH before the one here (bash's sourcepath): both are read
        texts += [self._text(on_path) for path in parsed.scripts if (on_path := _on_path(path)) is not None]
        for words in programs:
            full = self._full(str(words[0]))
            if not os.path.exists(full):
                if full.startswith(SYSTEM_FOLDERS):
                    continue              # `command not found`
                return self.rules[0]      # made by this line: only known when it runs
            program = os.path.realpath(full)       # `ln -s /bin/rm y` earlier, then `./y f`
            found = next((r for r in self.rules if r.matches_words((program, *words[1:]), deny=True)
                          or r.matches_words((_copy_of(program, r), *words[1:]), deny=True)), None)
            if found is not None:
                return found
            if not program.startswith(SYSTEM_FOLDERS) and _runs_in_a_shell(program):
                texts.append(self._text(program))
        for text in texts:
            if text is None:
                return self.rules[0]
            text = text.removeprefix("\ufeff")
            read = parse_command(text)
            if read.misread:              # a file no one can read as bash does: what it runs is not known
                return self.rules[0]
            found = _matching(self.rules, read) or self.denied_by(text, depth + 1)
            if found is not None:
                return found
        return None

    def _certain(self, parsed: ShellParse, programs: list[tuple[Word, ...]]) -> bool:
        """Whether the files the line runs are the ones on disk now: no `cd` before a relative one, none of them
        named by another command of the line too (it may write it first), also by another name for the same file
        (a link) or through a folder holding it (`cp e/s.sh .`), and no word or output redirection known only
        when the line runs (`> $F`, `cp /bin/rm s.s*`: it may name the file)."""
        run = [*parsed.scripts, *(str(words[0]) for words in programs)]
        if not run:
            return True
        if any(not os.path.isabs(os.path.expanduser(p)) for p in run) and any(
                isinstance(words[0], str) and command_name(words[0]) in _MOVES for words in parsed.commands):
            return False
        if parsed.writes_unknown:
            return False
        known: dict[str, set[str]] = {}       # each word's names, looked up on disk once (a stat, a realpath)

        def identity(path: str) -> set[str]:
            if path not in known:
                known[path] = self._identity(path)
            return known[path]
        runs = {p: (identity(p), {f"below:{a}" for a in self._folders_above(p)}) for p in run}
        identities = set().union(*(names for names, _ in runs.values()))
        named: dict[str, int] = {}
        for words in parsed.commands:
            reads_only = command_name(str(words[0])) in _READS_ONLY
            runner = any(isinstance(w, str) and identity(w) & identities for w in words)
            if not runner and not reads_only and None in words[1:]:
                return False              # `cp /bin/rm "$F"; ./y f`: the unknown word may be ./y
            for word in words[1:]:
                if isinstance(word, str) and not word.startswith("-"):
                    folder = set() if reads_only else {f"below:{f}" for f in self._folder(word)}
                    for key in identity(word) | folder:
                        named[key] = named.get(key, 0) + 1
        for path in parsed.redirected:
            for key in identity(path):
                named[key] = named.get(key, 0) + 2
        # a script is named once by the shell that runs it; a program by nothing else
        return all(max(named.get(key, 0) for key in runs[p][0]) + max((named.get(key, 0) for key in runs[p][1]),
                                                                       default=0)
                   <= (1 if p in parsed.scripts else 0) for p in run)

    def _identity(self, path: str) -> set[str]:
        """The names of the file a word names: as written, with links resolved, and its inode (a hard link)."""
        full = self._full(path)
        keys = {full, os.path.realpath(full)}
        try:
            info = os.stat(full)
            keys.add(f"inode:{info.st_dev}:{info.st_ino}")
        except OSError:
            pass
        return keys

    def _folder(self, path: str) -> set[str]:
        """A folder a word names, as written and resolved (`cp e/s.sh .` writes ./s.sh); none for a file."""
        full = self._full(path)
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

    def _full(self, path: str) -> str:
        return os.path.normpath(os.path.join(self.root, os.path.expanduser(path)))

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


def _on_path(name: str) -> str | None:
    """The file `source NAME` (no slash) reads from a folder of PATH, as bash looks for it; None when none."""
    if "/" in name or not name:
        return None
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(folder or ".", name)
        if folder and os.path.isfile(candidate):
            return candidate
    return None


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
