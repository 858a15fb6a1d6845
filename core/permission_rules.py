"""Permission rules from config `[permissions] allow = [...]`, `deny = [...]` (CONTRACT, Additions).

Forms: `Tool` matches every call of it; `Bash(prefix:*)` a command that is `prefix` or starts with
`prefix ` (a word boundary), `Bash(cmd)` exactly that command; `Edit(glob)`, `Write(glob)` (and any tool with
a `file_path` argument, e.g. `Read(glob)`) the project-relative path, with the Glob tool's glob language;
MultiEdit follows Edit rules, and a deny rule for Edit or Write holds for every tool that edits; `mcp__NAME__TOOL`
one MCP tool and `mcp__NAME` every tool of that server.

Shell commands are judged on a real shell parse (core/shell/parse.py): every simple command the line would run
(inside `$(…)`, backticks, subshells, groups, pipelines, lists, and what wrappers such as `sudo`, `xargs`,
`bash -c` run) is compared word by word, quotes and escapes removed. A deny rule matches when any of them does
(the command word also without its folder: `/bin/rm`); an allow rule set allows a line only when each of its
simple commands is matched by one of its rules and nothing is written by an output redirection. A line that
cannot be read with certainty is matched by a deny rule whose command word appears anywhere in it as a word,
and by no allow rule. A path rule sees both the path as written and the path with symlinks resolved: allow
needs both to match, deny either."""

from __future__ import annotations

import functools
import os
import re
import shlex
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Collection

from contextual.core.config_text import unknown_keys
from contextual.core.tools._globs import compile_glob
from contextual.core.tools.base import EDITING_TOOLS, ToolError, on_disk
from contextual.core.tools.names import named_otherwise

if TYPE_CHECKING:
    from contextual.core.shell.nodes import Word
    from contextual.core.shell.parse import ShellParse

_RULE = re.compile(r"^(?P<tool>[A-Za-z][A-Za-z0-9_-]*)(?:\((?P<spec>.*)\))?$", re.DOTALL)


class RuleError(ValueError):
    """A rule that cannot be parsed; the message names it."""


@dataclass(frozen=True)
class Rule:
    text: str
    tool: str
    spec: str | None
    _glob: Callable[[str], bool] | None = field(default=None, compare=False, repr=False)
    _words: tuple[str, ...] = field(default=(), compare=False, repr=False)     # a Bash spec's words
    _prefix: bool = field(default=False, compare=False, repr=False)           # Bash(words:*)

    def applies_to(self, tool_name: str, *, deny: bool) -> bool:
        if self.tool == tool_name or (self.tool == "Edit" and tool_name == "MultiEdit"):
            return True
        if deny and self.tool in EDITING_TOOLS and tool_name in EDITING_TOOLS:
            return True    # a deny rule for Edit or Write keeps every tool that edits off its paths (Write, MultiEdit)
        # mcp__NAME (no tool part) covers every tool of that server.
        return self.tool.startswith("mcp__") and "__" not in self.tool[5:] and tool_name.startswith(self.tool + "__")

    def matches(self, tool_name: str, args: Any, root: str, *, deny: bool) -> bool:
        if not self.applies_to(tool_name, deny=deny):
            return False
        if self.spec is None:
            return True
        args = args if isinstance(args, dict) else {}
        if tool_name == "Bash":
            command = args.get("command")
            if not isinstance(command, str):
                return False
            if deny:
                return self.denies_command(command)
            parsed = _parse(command)
            # latent: `y='a[$(rm f)]'; echo $((y))` runs rm; allowing echo does not allow it
            return (parsed.certain and not parsed.writes_files and bool(parsed.commands) and not loads_code(parsed)
                    and all(self.matches_words(words, deny=False) for words in parsed.commands + parsed.latent))
        path = args.get("file_path")
        if not isinstance(path, str) or self._glob is None:
            return False
        candidates = [p for p in _relative_paths(path, root) if p is not None]
        if not candidates:
            return False
        hits = [self._glob(p) for p in candidates]
        # macOS, Windows: `.ENV` opens `.env`; macOS opens a name in either Unicode form (NFC `é`, NFD `e` + accent)
        case = deny and not any(hits) and folds_case(root)
        if case or (deny and not any(hits) and not all(p.isascii() for p in (self.spec, *candidates))):
            folded = _folded_glob(self.spec, case)
            hits = [folded(_folded(p, case)) for p in candidates]
        return any(hits) if deny else all(hits) and len(candidates) == 2

    def denies_command(self, command: str) -> bool:
        parsed = _parse(command)
        # latent: commands in quoted text bash may evaluate later (`x='a[$(rm f)]'; (( x ))`)
        return parsed.opaque or any(self.matches_words(words, deny=True)
                                    for words in parsed.commands + parsed.latent)

    @property
    def command_word(self) -> str:
        """A Bash rule's program (`rm` of `Bash(rm:*)`), "" for any other rule."""
        from contextual.core.shell.nodes import command_name
        return command_name(self._words[0]) if self._words else ""

    def matches_words(self, words: tuple[Word, ...], *, deny: bool) -> bool:
        """One simple command against this Bash rule. A word only known when the shell runs (None) matches
        anything for deny (any number of words: bash splits an unquoted one) and nothing for allow; deny compares
        command words without their folders, and skips options between the command word and the rule's next word
        (`git -C repo push` is a `git push`)."""
        pattern = self._words
        if not pattern or not words:
            return False
        from contextual.core.shell.nodes import command_name
        if deny and command_name(pattern[0]) != command_name(str(words[0])):
            return False
        if not deny and pattern[0] != words[0]:
            return False
        want = pattern[1:]
        if deny and self._prefix:
            # `rm -rf:*` denies rm -fr, rm -r -f, rm -rfv, rm x -rf, rm -R --force and rm --rec -f: its options in
            # any order, bundle or spelling (core/shell/option_spellings.py); its other words in their order, with
            # options between them
            from contextual.core.shell.option_spellings import options_of
            options = options_of(command_name(pattern[0]), want)
            groups, plain = options.needed(want)
            if groups and not options.shows(groups, _after(words, options.sub)):
                return False
            return _in_order(plain, words[1:])
        # a sub-command may start after the command word's own options (`git -C repo push`)
        starts = _past_options(words, {1}, end_of_options=False) if deny and want else {1}
        return any(self._rest_matches(want, words[start:], deny) for start in starts)

    def _rest_matches(self, want: tuple[str, ...], rest: tuple[Word, ...], deny: bool) -> bool:
        if deny and None in rest:
            return _spread(want, rest)
        if len(rest) < len(want) or (not self._prefix and len(rest) != len(want)):
            return False
        return all(word == w for w, word in zip(want, rest))


def _spread(want: tuple[str, ...], rest: tuple[Word, ...]) -> bool:
    """Whether the words are an exact deny rule's, each unknown one (None) standing for any number of words: bash
    splits an unquoted `$X` at blanks (`git push $R` with R='origin main'), and an empty one is no word."""
    places = {0}                          # how many of the rule's words the words so far may have matched
    for word in rest:
        if word is None:
            places = set(range(min(places), len(want) + 1))
        else:
            places = {k + 1 for k in places if k < len(want) and want[k] == word}
        if not places:
            return False
    return len(want) in places


def _after(words: tuple[Word, ...], sub: str) -> tuple[Word, ...]:
    """The words a command's options are read from: after its sub-command (`git -C r branch -d x`: `-d`, not git's
    own `-C`, which is `git branch -C`'s copy) where the table is a sub-command's, else after the command word."""
    places = sorted(i for i in _past_options(words, {1}, end_of_options=False)
                    if sub and i < len(words) and words[i] in (sub, None))
    if not places:
        return words[1:]
    return words[places[0] + (words[places[0]] is not None):]        # `git $X -f`: $X may be anything


def _in_order(want: tuple[str, ...], rest: tuple[Word, ...]) -> bool:
    """Whether a deny prefix rule's words come in `rest` in their order, with options (each alone or with the word
    after it) and `--` allowed before and between them: `Bash(git push origin:*)` denies `git -C r push -f origin`
    and `git push -- origin`, not `git commit -m push origin`. One pass per rule word over the reachable places."""
    places = {0}
    for w in want:
        reachable = _past_options(rest, places)
        # an unknown word may be several (an unquoted `$X` split at blanks): it may match the next rule word too
        places = {i + 1 for i in reachable if i < len(rest) and (rest[i] == w or rest[i] is None)} | \
            {i for i in reachable if i < len(rest) and rest[i] is None}
        if not places:
            return False
    return True


def _past_options(words: tuple[Word, ...], starts: set[int], *, end_of_options: bool = True) -> set[int]:
    """Every place reached from `starts` by passing options, each alone or with the value after it (`-C repo`,
    `-c k=v`: which options take one is the command's business, so both are tried), and `--` when
    `end_of_options`."""
    reached, frontier = set(starts), list(starts)
    while frontier:
        i = frontier.pop()
        word = words[i] if i < len(words) else None
        if not (isinstance(word, str) and word.startswith("-") and len(word) > 1) or (
                word == "--" and not end_of_options):
            continue
        for nxt in (i + 1, i + 2) if "=" not in word and word != "--" else (i + 1,):
            if nxt <= len(words) and nxt not in reached:
                reached.add(nxt)
                frontier.append(nxt)
    return reached


@functools.lru_cache(maxsize=64)
def folds_case(root: str) -> bool:
    """Whether the project's file system folds case (macOS's and Windows' do by default): there `Read(.env)` must
    also refuse `.ENV`, the same file. Asked of the file system: a name of the root's path with its case swapped
    is the same file."""
    path = os.path.realpath(root)
    while True:
        head, name = os.path.split(path)
        if name != name.swapcase():
            try:
                return os.path.samefile(path, os.path.join(head, name.swapcase()))
            except OSError:
                return False
        if head == path:
            return False
        path = head


@functools.lru_cache(maxsize=256)
def _folded_glob(spec: str, case: bool) -> Callable[[str], bool]:
    return compile_glob(_folded(spec.removeprefix("./"), case))


def _folded(text: str, case: bool) -> str:
    """A name as a file system that folds it sees it: one Unicode form (NFC), and one case where `case`."""
    text = unicodedata.normalize("NFC", text)
    return text.casefold() if case else text


def _parse(command: str) -> ShellParse:
    # The shell parser (tree-sitter and a dozen modules, ~28 ms) loads at the first Bash line checked, not at launch:
    # config reads the rules as the app starts, and only their text is needed then.
    from contextual.core.shell.parse import parse_command
    return parse_command(command)


def parse_rule(text: object, where: str = "") -> Rule:
    """`where` (` in permissions.deny of FILE`) goes after the rule in an error, so a config's bad rule names its
    file."""
    if not isinstance(text, str) or not (found := _RULE.match(text.strip())):
        raise RuleError(f"invalid permission rule {text!r}{where}: write Tool, Tool(specifier) or mcp__SERVER__TOOL")
    tool, spec = found.group("tool"), found.group("spec")
    if (meant := named_otherwise(tool)) is not None:       # as written it would match no call
        raise RuleError(f"invalid permission rule {text!r}{where}: tool names are case-sensitive: {meant}, not {tool}")
    if spec is not None:
        spec = spec.strip()
        if not spec:
            raise RuleError(f"invalid permission rule {text!r}{where}: the part in parentheses is empty")
    glob: Callable[[str], bool] | None = None
    words: tuple[str, ...] = ()
    prefix = False
    if spec is not None and tool == "Bash":
        prefix = spec.endswith(":*")
        body = spec[:-2].strip() if prefix else spec
        try:
            words = tuple(shlex.split(body))
        except ValueError:                    # an unbalanced quote: the words as written
            words = tuple(body.split())
        if not words:
            raise RuleError(f"invalid permission rule {text!r}{where}: no command before ':*'")
    if spec is not None and tool != "Bash":
        try:
            glob = compile_glob(spec.removeprefix("./"))
        except ToolError as exc:
            raise RuleError(f"invalid permission rule {text!r}{where}: {exc}") from None
    return Rule(text.strip(), tool, spec, glob, words, prefix)


@dataclass(frozen=True)
class PermissionRules:
    allow: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()

    @classmethod
    def from_tables(cls, *tables: Any, source: str = "config", settings: Collection[str] = ()) -> "PermissionRules":
        """Union of `[permissions]` tables (user file, then project file); RuleError names a bad one (`settings`:
        the file's top-level keys, said to belong above the table when one is found in it)."""
        allow: list[Rule] = []
        deny: list[Rule] = []
        for table in tables:
            if table is None:
                continue
            if not isinstance(table, dict):
                raise RuleError(f"[permissions] in {source} must be a table with allow and deny lists")
            unknown = set(table) - {"allow", "deny"}
            if unknown:
                raise RuleError(f"unknown key(s) in [permissions] of {source}: "
                                f"{unknown_keys(unknown, ('allow', 'deny'), '[permissions]', settings)}")
            for kind, out in (("allow", allow), ("deny", deny)):
                rules = table.get(kind, [])
                if not isinstance(rules, list):
                    raise RuleError(f"permissions.{kind} in {source} must be a list of strings")
                out.extend(parse_rule(rule, f" in permissions.{kind} of {source}") for rule in rules)
        return cls(tuple(dict.fromkeys(allow)), tuple(dict.fromkeys(deny)))

    def denies(self, tool_name: str, args: Any, root: str, expand: bool = True) -> Rule | None:
        """The deny rule the call meets. `expand`: also a Bash line as bash hands its programs a word that becomes
        an option (_as_expanded), which is judged so without expanding again."""
        found = next((r for r in self.deny if r.matches(tool_name, args, root, deny=True)), None)
        if found is None and tool_name in EDITING_TOOLS and isinstance(args, dict):
            # an edit shows the file's old lines in its diff: a file withheld from Read is not edited either
            found = next((r for r in self.deny if r.tool == "Read" and r.matches("Read", args, root, deny=True)), None)
        if found is None and tool_name == "Bash" and isinstance(args, dict) and isinstance(args.get("command"), str):
            command = args["command"]
            found = self._withheld_in(command, root) or self._written_by(command, root) or \
                self._run_from_disk(command, root) or (self._as_expanded(command, root) if expand else None)
        return found

    def _as_expanded(self, command: str, root: str) -> Rule | None:
        """The line as bash hands its programs a glob or variable word that becomes an option (`tar cf a.tar *`
        beside a file named `--checkpoint-action=exec=…`; core/bash_files/option_words.py), judged as written
        out; where such a word cannot be written out, what the line runs is only known when it runs."""
        if not self.deny:
            return None
        from contextual.core.bash_files.option_words import expanded_line
        expanded = expanded_line(command, root)
        if not expanded.certain:
            return next((r for r in self.deny if r.tool == "Bash" and r.spec is not None), None)
        return self.denies("Bash", {"command": expanded.line}, root, expand=False) if expanded.line else None

    def _run_from_disk(self, command: str, root: str) -> Rule | None:
        """What the line runs from files (core/files_run.py), read as it is now: their commands against the Bash
        deny rules, the files their lines read and write against the Read and Edit ones (a script holding `cat
        secrets/k`, a hook writing `.env`)."""
        bash = [r for r in self.deny if r.tool == "Bash" and r.spec is not None]
        paths = [r for r in self.deny if r.tool in ("Read", *EDITING_TOOLS) and r.spec is not None]
        if not bash and not paths:
            return None
        from contextual.core.files_run import FilesRun

        def lines(text: str, folder: str) -> Rule | None:      # a file's words, as it says them
            return self._withheld_in(text, root, folder) or self._written_by(text, root, folder)
        found = FilesRun(bash, root, lines=lines if paths else None).denied_by(command)
        return found if isinstance(found, Rule) else None

    def _withheld_in(self, command: str, root: str, folder: str | None = None) -> Rule | None:
        """The Read deny rule covering a file the command line names (`cat .env`, `head -n 3 secrets/k`,
        `< .env`, `--config=.env`, `cd sub && cat ../.env`, `~+/.env`) or a glob names as the project is now
        (`cat .en?`, `cat {.env,x}`); a variable that expands to it only the shell knows. `folder`: where a file's
        lines run (core/files_run.py), read for the words they say, a word only known when they run let be."""
        reads = [r for r in self.deny if r.tool == "Read" and r.spec is not None]
        if not reads:
            return None
        from contextual.core.bash_files.reads import named_paths
        return _covering(reads, "Read", named_paths(command, folder or root, guess=folder is None), root)

    def _written_by(self, command: str, root: str, folder: str | None = None) -> Rule | None:
        """The Edit or Write deny rule covering a file the command line writes: an output redirection's target
        (`> secrets/k`), a file `tee`, `sed -i`, `cp`, `mv`, `rm`, `dd of=` … name, or a folder removed or restored
        with what is below it (`rm -r secrets`, `git checkout .`; core/bash_files/writes.py), or that git writes
        of a work tree (`git stash`: a tracked file; core/bash_files/git_state.py). `folder`: as for _withheld_in."""
        edits = [r for r in self.deny if r.tool in EDITING_TOOLS and r.spec is not None]
        if not edits:
            return None
        from contextual.core.bash_files.writes import holds_below, holds_named, written_paths
        writes = written_paths(command, folder or root, guess=folder is None)      # a file's: from where it runs
        found = _covering(edits, "Write", list(writes.files), root)
        if found is not None:
            return found
        for rule in edits:
            matches = functools.partial(_written_under, rule, root)
            # `rm -r d`, `git checkout .`: a protected path below it goes too; `find d -name x -delete`: below x
            if any(holds_below(tree, root, str(rule.spec), matches) for tree in writes.trees) or any(
                    holds_named(start, tests, root, str(rule.spec), matches) for start, tests in writes.named):
                return rule
        if not writes.git_trees:
            return None
        # `git stash`, `git clean -f`: a protected path below, only where git's state says it writes it
        from contextual.core.bash_files.git_state import git_touched
        index = git_touched(writes.git_trees, writes.git_kinds,
                            [(str(r.spec), functools.partial(_written_under, r, root)) for r in edits], root,
                            writes.git_stash)
        return None if index is None else edits[index]

    def withholds(self, rel: str, root: str) -> bool:
        """Whether a Read deny rule covers this project-relative path: its contents and name are not shown by
        Grep and Glob, and LS marks it."""
        return any(r.tool == "Read" for r in self.deny) and self.denies("Read", {"file_path": rel}, root) is not None

    def allows(self, tool_name: str, args: Any, root: str) -> Rule | None:
        """The allow rule that covers the call; for a Bash line with several simple commands each must be
        matched by one of the rules (the first is returned)."""
        found = next((r for r in self.allow if r.matches(tool_name, args, root, deny=False)), None)
        command = args.get("command") if isinstance(args, dict) else None
        if found is not None or tool_name != "Bash" or not isinstance(command, str):
            return found
        cover = bash_cover(self.allow, command)
        return cover[0] if cover else None


def _covering(rules: list[Rule], tool: str, paths: list[str], root: str) -> Rule | None:
    """The first deny rule covering one of `paths` (in their order) as a call of `tool` on that file."""
    return next((r for path in paths for r in rules if r.matches(tool, {"file_path": path}, root, deny=True)), None)


def bash_cover(rules: tuple[Rule, ...], command: str) -> list[Rule]:
    """For each simple command of the line, the first Bash allow rule matching it; [] when one is uncovered,
    the line is uncertain or it writes through a redirection."""
    parsed = _parse(command)
    if not parsed.certain or parsed.writes_files or not parsed.commands or loads_code(parsed):
        return []
    bash = [r for r in rules if r.tool == "Bash" and r.spec is not None]
    cover = [next((r for r in bash if r.matches_words(words, deny=False)), None)
             for words in parsed.commands + parsed.latent]       # a latent command runs too: it must be covered
    return [] if None in cover else cover                                       # type: ignore[return-value]


def runs_nothing(command: str) -> bool:
    """Whether a Bash line runs no command and opens no file: assignments of values known now (`X=1`), a test, a
    comment. Each call is a shell of its own, so what it sets is gone after; a value's `$(…)` is a command of the
    line, judged as any (`X=$(rm f)` runs rm)."""
    parsed = _parse(command)
    return parsed.certain and not parsed.opaque and not (
        parsed.commands or parsed.latent or parsed.redirected or parsed.writes_files or parsed.writes_unknown
        or parsed.scripts or parsed.program_files or parsed.loading)


def loads_code(parsed: ShellParse) -> bool:
    """Whether the line sets a variable that makes a program other than that language's interpreter load code from
    files (`LD_LIBRARY_PATH=. ls`, `PYTHONPATH=. pip list`; core/shell/wrappers.py: LOADING_VARIABLES): no allow
    rule allows it."""
    from contextual.core.shell.nodes import command_name
    from contextual.core.shell.wrappers import LOADING_VARIABLES
    names = [re.sub(r"[\d.]+$", "", command_name(str(words[0]))) for words in parsed.commands]
    run = [n for n in names if n not in _DECLARING]
    return any(not all(n in LOADING_VARIABLES[variable] for n in run) for variable in parsed.loading)


_DECLARING = frozenset({"env", "export", "declare", "typeset", "local", "readonly"})


def _written_under(rule: Rule, root: str, path: str) -> bool:
    return rule.matches("Write", {"file_path": path}, root, deny=True)


def _relative_paths(path: str, root: str) -> tuple[str | None, str | None]:
    """The path below the root as written (normalised) and with symlinks resolved; None when outside."""
    full = on_disk(path if os.path.isabs(path) else os.path.join(root, path))     # `l\x80`: the tools' name
    out = []
    for candidate in (os.path.normpath(full), os.path.realpath(full)):
        rel = os.path.relpath(candidate, root)
        out.append(None if rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel) else rel)
    return out[0], out[1]
