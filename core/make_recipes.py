"""What `make` runs from its makefile, for the deny rules (core/files_run.py reads each recipe line as a line of its
own, as package.json's scripts are): the recipes of the targets named (else the first target), of their
prerequisites in turn and of the pattern rules they match, from the makefile `-f` names or the first of GNUmakefile,
makefile, Makefile in the folder it runs in (`-C DIR`), read as it is when the call is checked, with what `include`
brings in (its words made as make makes them: variables, `$(wildcard …)` as the folder is now; found in the folder,
then in `-I`'s and the system's) and the files MAKEFILES names; the commands `$(shell …)` and `!=` run while make
reads it. Each makefile is a target make updates before the goals (`Makefile: gen` runs gen's recipe); one a recipe
may rewrite (make then reads it again) leaves what runs unknown. MAKEFLAGS' options count as the line's. A recipe's
variables are made as make makes them (`$(RM)` is `rm -f`, `$@` the target, `VAR=VALUE` on the line and in the
environment the line gives); a variable given several values (in both branches of an `ifeq`, which are both read)
is read with each; a function's result is a word only known when it runs, let be as a script's `$X` is; a target or
prerequisite so made may be any target. Every recipe of those targets counts, whether or not make finds its target
out of date.

Which recipes run is not known (None) where make's words are only known when it runs, where the makefile cannot be
read (a FIFO, too large, more than MAX_FILES with what it includes), where making its variables takes more than
MAX_WORK, where it evaluates text (`$(eval …)`, `--eval`), writes a file (`$(file …)`), runs Guile, includes a file
named by a function other than `wildcard` or by a variable with no value here, or runs its recipes with a shell other
than sh or bash (`SHELL = ./x`, `.RECIPEPREFIX`)."""

from __future__ import annotations

import glob
import itertools
import os
import re
from dataclasses import dataclass, field
from typing import Sequence

from contextual.core.package_scripts import Scripts
from contextual.core.regular_file import read_regular
from contextual.core.shell.nodes import Word, command_name

MAKES = frozenset({"make", "gmake", "bmake", "pmake"})
MAX_BYTES = 1024 * 1024          # of the makefile and what it includes, all together
MAX_FILES = 32                   # a makefile and what it includes (`include $(wildcard *.d)`)
MAX_TARGETS = 256                # targets followed from the goals
MAX_READINGS = 16                # of one recipe line, where its variables have several values
# Work of one check, in characters read and made while making variables, and rules looked through: variables
# that refer to each other many times (`A2 := $(A1)$(A1)…`, each a few thousand times) made terabytes, and the
# check held the app, deaf to Ctrl-C, for good. Past it which recipes run is not known. CPython's own Makefile
# (115 kB) takes 5.1 million.
MAX_WORK = 8_000_000
CALL_WORK = 64                   # of MAX_WORK, each variable made or referred to (half a million `$a` on a
                                 # line, 100,000 values of one variable each took seconds)
_VALUED = frozenset("CfIjloWE")              # make's short options that take a value
_LONG_VALUED = frozenset({"--directory", "--file", "--makefile", "--include-dir", "--jobs", "--load-average",
                          "--old-file", "--assume-old", "--what-if", "--new-file", "--assume-new", "--eval",
                          "--debug", "--output-sync", "--jobserver-style", "--shuffle"})
_DEFAULTS = {"RM": "rm -f", "MAKE": "make", "CC": "cc", "CXX": "g++", "CPP": "$(CC) -E", "AR": "ar", "AS": "as",
             "LD": "ld", "FC": "f77", "LEX": "lex", "YACC": "yacc", "SHELL": "/bin/sh", "ARFLAGS": "rv"}
_SHELLS = frozenset({"/bin/sh", "/bin/bash", "/usr/bin/sh", "/usr/bin/bash", "sh", "bash"})
_ASSIGN = re.compile(r"^(?:(?:override|export|private)\s+)*([^\s:#=!?+$()]+|\$[({][^)}]*[)}])\s*"
                     r"(:::=|::=|:=|\?=|\+=|!=|=)\s*(.*)$", re.S)
_RULE = re.compile(r"^([^:=#]+?)\s*(::?)(?!=)\s*(.*)$", re.S)
_DEFINE = re.compile(r"(?:(?:override|export)\s+)*define\s+(\S+?)\s*(?::::=|::=|:=|\?=|\+=|!=|=)?\s*$")
_UNREADABLE = ("eval", "file", "guile", "load")
_WILDCARD = re.compile(r"\$[({]wildcard\s")
_SYSTEM_INCLUDES = ("/usr/local/include", "/usr/gnu/include", "/usr/include")     # where make looks for an include
_FLAG_VARIABLES = ("MAKEFLAGS", "GNUMAKEFLAGS", "MFLAGS")         # make's options, from its environment
_REFERENCE = re.compile(r"([^\s:$(){}]+):([^\s=$]*)=([^\s$]*)")
UNKNOWN = '"$__MAKE__"'          # a word only known when make runs (a function's result)


Rule = tuple[list[str], list[str], list[str]]        # targets, prerequisites, recipe lines


class _Unknown(Exception):
    """Which recipes run cannot be told from the files."""


@dataclass
class _Makefile:
    values: dict[str, list[str]] = field(default_factory=dict)      # each variable's values, in order
    rules: list[Rule] = field(default_factory=list)
    parsed: list[str] = field(default_factory=list)                # `!=` lines, run by the shell while reading
    read: list[str] = field(default_factory=list)                  # lines whose `$(shell …)` may run then
    files: list[str] = field(default_factory=list)
    # each makefile as make names it (`Makefile`, `-f x.mk`, an include's word): a target make updates first
    names: list[str] = field(default_factory=list)
    size: int = 0                                                  # bytes read of them all
    grown: int = 0          # characters `+=` made, of the check's MAX_WORK: it grows every value of its variable


@dataclass(frozen=True)
class _Where:
    """What make reads its makefiles with: the folder it runs in, the folders `-I` names (an include not found
    there is looked for in them, then in the system's), and the values it has from elsewhere (its own, the
    environment's, the line's) for an include's words."""
    place: str
    folders: tuple[str, ...]
    given: dict[str, list[str]]
    overrides: dict[str, list[str]]


@dataclass
class _Making:
    """One check's making of variables: their values, the commands of `$(shell …)` found on the way, and the work
    left (MAX_WORK; past it which recipes run is not known)."""
    values: dict[str, list[str]]
    shells: list[str] = field(default_factory=list)
    left: int = MAX_WORK

    def spend(self, amount: int) -> None:
        self.left -= amount
        if self.left < 0:
            raise _Unknown


def recipes_run(words: Sequence[Word], place: str, environment: Sequence[tuple[str, str]] = ()) -> Scripts | None:
    """The recipe lines the command `words` (make) runs in the folder `place`, the variables the line gives
    (`environment`) in make's environment; None when that is not known."""
    if command_name(str(words[0])) not in MAKES:
        return Scripts()
    goals: list[str] = []
    files: list[str] = []
    folders: list[str] = []
    overrides: dict[str, list[str]] = {}
    flags = [w for name in _FLAG_VARIABLES for value in [dict(environment).get(name)] if value
             for w in _flag_words(value)]
    if None in flags:
        return None
    rest: list[Word] = [*flags, *words[1:]]
    i = 0
    while i < len(rest):
        word = rest[i]
        i += 1
        if word is None:
            return None                                   # `make $T`, `make $OPTS`
        option, value = "", ""
        value_word: Word = ""
        if word.startswith("--"):
            option, eq, value = word.partition("=")
            if option in _LONG_VALUED and not eq:
                value_word, i = (rest[i] if i < len(rest) else ""), i + 1
        elif word.startswith("-") and len(word) > 1:
            at = next((at for at in range(1, len(word)) if word[at] in _VALUED), 0)
            if at:
                option, value = "-" + word[at], word[at + 1:]
                if not value:
                    value_word, i = (rest[i] if i < len(rest) else ""), i + 1
        elif (assigned := _ASSIGN.match(word)) is not None:
            overrides[assigned.group(1)] = [assigned.group(3)]
        else:
            goals.append(word)
        if value_word is None or option == "--eval":
            return None                                   # `make -C "$D"`; `--eval`: text for make to evaluate
        value = value or value_word
        if option in ("-C", "--directory"):
            place = os.path.join(place, value)
        elif option in ("-f", "--file", "--makefile"):
            files.append(value)
        elif option in ("-I", "--include-dir"):
            folders.append(value)
    try:
        return _run(place, files, goals, overrides, dict(environment), folders)
    except _Unknown:
        return None


def _flag_words(value: str) -> list[Word]:
    """MAKEFLAGS' words as make's options (a first word without `-` is single-letter flags: `ks` is `-ks`); None
    where make unescapes a word (`\\ `), which is not read here."""
    if "\\" in value:
        return [None]
    words = value.split()
    if words and not words[0].startswith("-") and "=" not in words[0]:
        words[0] = "-" + words[0]
    return list(words)


def _run(place: str, files: list[str], goals: list[str], overrides: dict[str, list[str]],
         environment: dict[str, str], folders: list[str]) -> Scripts:
    named = [os.path.join(place, f) for f in files] or [
        p for p in (os.path.join(place, n) for n in ("GNUmakefile", "makefile", "Makefile")) if os.path.lexists(p)][:1]
    if not named:
        return Scripts()                                  # make's built-in rules only: the compilers
    made = _Makefile()
    given = {k: [v] for k, v in _DEFAULTS.items()} | {k: [v] for k, v in environment.items()}
    where = _Where(place, tuple(os.path.join(place, f) for f in folders), given, overrides)
    # MAKEFILES' files are read first, as `-include` reads them; the default goal is not one of theirs
    for name in environment.get("MAKEFILES", "").split():
        _include(name, where, made, missing_ok=True)
    skipped = len(made.rules)
    for path in named:
        _read(path, os.path.relpath(path, place), made, where)
    values = given | made.values
    values |= overrides
    if any(v.strip() not in _SHELLS for v in values.get("SHELL", [])) or ".RECIPEPREFIX" in values:
        raise _Unknown
    lines: list[str] = []
    making = _Making(values, left=MAX_WORK - made.grown)
    for text in made.parsed:
        making.shells += _expanded(text, making, {})
    for text in made.read:
        _expanded(text, making, {})
    # a rule's targets and prerequisites are made as make reads them (`$(PROG): $(OBJS:.c=.o)`)
    rules = [(_words(targets, making), _words(prerequisites, making), recipe)
             for targets, prerequisites, recipe in made.rules]
    first = next((t for targets, _, _ in rules[skipped:] for t in targets if not t.startswith(".") and "%" not in t),
                 "")
    if any(_remade(name, rules, place) for name in made.names):
        raise _Unknown                # a recipe may rewrite a makefile, which make then reads again
    # make first updates each makefile it read as a target (`Makefile: gen` runs gen's recipe), then the goals
    for target, prerequisites, recipe in _followed(rules, [*made.names,
                                                           *(goals or [first, *values.get(".DEFAULT_GOAL", [])])],
                                                   making):
        automatic = {"@": target, "<": prerequisites[0] if prerequisites else "", "^": " ".join(prerequisites),
                     "+": " ".join(prerequisites), "?": " ".join(prerequisites), "*": "", "|": "", "%": ""}
        for raw in recipe:
            lines += _expanded(raw.lstrip("@+- \t"), making, automatic)
    return Scripts(tuple(dict.fromkeys(making.shells + lines)), place, named[0])


def _read(path: str, name: str, made: _Makefile, where: _Where) -> None:
    """A makefile's variables and rules, joined into `made`; an `include` read in turn (`name`: the makefile as make
    names it)."""
    if len(made.files) >= MAX_FILES:
        raise _Unknown
    made.files.append(path)
    made.names.append(name)
    try:
        data = read_regular(path, MAX_BYTES - made.size + 1)
    except OSError:
        raise _Unknown from None
    made.size += len(data)
    if made.size > MAX_BYTES:
        raise _Unknown
    text = data.decode("utf-8", errors="replace")
    recipe: list[str] | None = None
    defining: tuple[str, list[str]] | None = None
    for line in _logical_lines(text):
        if defining is not None:
            if line.strip() == "endef":
                made.values.setdefault(defining[0], []).append("\n".join(defining[1]))
                defining = None
            else:
                defining[1].append(line)
            continue
        stripped = _uncommented(line).strip()
        if line.startswith("\t") and recipe is not None:
            recipe.append(line[1:])
            # …and as make may read it instead, out of a rule's context: a variable's value
            if (assigned := _ASSIGN.match(stripped)) is not None and "$" not in assigned.group(1):
                _assign(made, *assigned.groups())
            continue
        if not stripped:
            continue
        keyword = stripped.split(None, 1)[0]
        if "$" in stripped:
            made.read.append(stripped)        # made as make reads it (`X := $(shell …)`, a rule's words)
        if (define := _DEFINE.match(stripped)) is not None:
            defining = (define.group(1), [])
            continue
        if keyword in ("include", "-include", "sinclude"):
            making = _Making(_every_value(where.given, made.values, where.overrides), left=MAX_WORK - made.grown)
            for included in _included(stripped.split(None, 1)[1] if " " in stripped else "", where.place, making):
                _include(included, where, made, missing_ok=keyword != "include")
            continue
        if keyword in ("ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "vpath", "unexport", "undefine"):
            continue                          # both branches of a conditional are read
        if any(f"$({name} " in stripped or f"${{{name} " in stripped for name in _UNREADABLE):
            raise _Unknown
        assigned = _ASSIGN.match(stripped)
        rule = _RULE.match(stripped)
        if assigned and not (rule and rule.start(2) < assigned.start(2)):
            name, operator, value = assigned.groups()
            if "$" in name:
                raise _Unknown                # a variable whose name is made when make runs
            _assign(made, name, operator, value)
            continue
        if rule is None:
            continue
        targets, rest = rule.group(1).split(), rule.group(3)
        prerequisites, _, inline = rest.partition(";")
        if (own := _ASSIGN.match(prerequisites.strip())) is not None:
            recipe = None                     # `target: VAR = value`, a target's own variable: one more value
            _assign(made, *own.groups())
            continue
        if prerequisites.count(":"):          # a static pattern rule: `objs: %.o: %.c`
            prerequisites = prerequisites.split(":", 1)[1]
        recipe = [inline] if inline.strip() else []
        made.rules.append((targets, prerequisites.replace("|", " ").split(), recipe))


def _include(name: str, where: _Where, made: _Makefile, missing_ok: bool) -> None:
    """An included makefile, found as make finds it: in the folder make runs in, else (a relative name) in the
    folders `-I` names, then the system's; not found, `include` is _Unknown (make makes it or stops) and `-include`
    leaves a name make still tries to make with a rule it has (_remade)."""
    folders = () if os.path.isabs(name) else (*where.folders, *_SYSTEM_INCLUDES)
    found = next((p for p in (os.path.join(where.place, name), *(os.path.join(f, name) for f in folders))
                  if os.path.lexists(p)), None)
    if found is not None:
        _read(found, name, made, where)
    elif missing_ok:
        made.names.append(name)
    else:
        raise _Unknown


def _every_value(*tables: dict[str, list[str]]) -> dict[str, list[str]]:
    """Each variable with every value it may have where an include is read (the makefile's so far, the line's and
    the environment's, make's own): each is read."""
    out: dict[str, list[str]] = {}
    for table in tables:
        for name, values in table.items():
            out[name] = list(dict.fromkeys([*out.get(name, []), *values]))
    return out


def _included(text: str, place: str, making: _Making) -> list[str]:
    """The files an `include` names, as make expands its words when it reads the line: variables with each value
    they may have, `$(wildcard PATTERN …)` as the folder is now; any other function, or a name not known, is
    _Unknown (which file is read is only known when make runs)."""
    out: list[str] = []
    for reading in _expanded(_wildcards(text, place, making), making, {}):
        if UNKNOWN in reading:
            raise _Unknown
        out += reading.split()
    return list(dict.fromkeys(out))


def _wildcards(text: str, place: str, making: _Making) -> str:
    """The text with each `$(wildcard …)` (or `${wildcard …}`) replaced by the names it finds in `place`, sorted as
    make 3.82 and later sort them; a pattern starting at `~` (make's home folder) is _Unknown."""
    out, i = [], 0
    while (found := _WILDCARD.search(text, i)) is not None:
        end = _closing(text, found.start() + 1)
        patterns = [p for reading in _expanded(text[found.end():end], making, {}) for p in reading.split()]
        if any(UNKNOWN in p or p.startswith("~") for p in patterns):
            raise _Unknown
        names = sorted({os.path.relpath(hit, place) if not os.path.isabs(p) else hit
                        for p in patterns for hit in glob.glob(os.path.join(place, p))})
        out += [text[i:found.start()], " ".join(names)]
        i = end + 1
    return "".join(out) + text[i:]


def _remade(name: str, rules: list[Rule], place: str) -> bool:
    """Whether a rule with a recipe may make the makefile `name` (explicitly, or by a pattern whose prerequisites
    are there or are targets): make runs it, and if the file changes, reads it again as that recipe left it."""
    plain = os.path.normpath(name)
    targets = {os.path.normpath(t) for ts, _, _ in rules for t in ts if "%" not in t}
    for names, prerequisites, recipe in rules:
        if not any(line.strip() for line in recipe):
            continue
        for target in names:
            if UNKNOWN in target or os.path.normpath(target) == plain:
                return True
            stem = _stem(target, plain) if "%" in target else None
            if stem is not None and all(UNKNOWN in p or os.path.normpath(p.replace("%", stem)) in targets
                                        or os.path.lexists(os.path.join(place, p.replace("%", stem)))
                                        for p in prerequisites):
                return True
    return False


def _assign(made: _Makefile, name: str, operator: str, value: str) -> None:
    values = made.values.setdefault(name, [])
    if operator == "!=":
        made.parsed.append(value)             # run by the shell while make reads the makefile
        values.append(UNKNOWN)
    elif operator == "+=" and values:
        values[:] = [f"{v} {value}" for v in values]
        made.grown += sum(map(len, values))
        if made.grown > MAX_WORK:
            raise _Unknown                    # `X += …` thousands of times, over as many values of X
    else:
        values.append(value)


def _logical_lines(text: str) -> list[str]:
    """The makefile's lines, a `\\`+newline joined as make joins them (a blank in place; a recipe's kept for its
    shell, which joins it the same)."""
    return re.sub(r"\\\n[ \t]*", " ", text).split("\n")


def _uncommented(line: str) -> str:
    found = re.search(r"(?<!\\)#", line)
    return line[:found.start()] if found else line


def _words(words: list[str], making: _Making) -> list[str]:
    """A rule's targets or prerequisites as make makes them, every reading's; a word only known when make runs (a
    function's result) is UNKNOWN."""
    made = [w for text in _expanded(" ".join(words), making, {}) for w in text.split()]
    return list(dict.fromkeys(UNKNOWN if UNKNOWN in w else w for w in made))


def _followed(rules: list[Rule], goals: list[str], making: _Making) -> list[tuple[str, list[str], list[str]]]:
    """Each target make may build for the goals, with its prerequisites and recipe: an explicit rule's, else the
    pattern rules it matches; then their prerequisites in turn. A target only known when make runs may be any
    (its rule counts for every target), and so may such a prerequisite (every rule's target follows)."""
    out: list[tuple[str, list[str], list[str]]] = []
    queue, seen = list(goals), set[str]()
    while queue and len(seen) < MAX_TARGETS:
        target = queue.pop(0)
        if target in seen or not target:
            continue
        seen.add(target)
        making.spend(len(rules))              # each target looks through every rule
        if target == UNKNOWN:
            queue += [t for targets, _, _ in rules for t in targets if "%" not in t]
            out += [(UNKNOWN, p, r) for targets, p, r in rules if any("%" in t for t in targets)]
            continue
        explicit = [(p, r) for targets, p, r in rules if target in targets or UNKNOWN in targets]
        matched = [] if any(r for _, r in explicit) else [
            ([p.replace("%", stem) for p in prerequisites], recipe) for targets, prerequisites, recipe in rules
            for pattern in targets if "%" in pattern and (stem := _stem(pattern, target)) is not None]
        for prerequisites, recipe in explicit + matched:
            out.append((target, prerequisites, recipe))
            queue += prerequisites
    if queue:
        raise _Unknown                        # too many targets to follow
    return out


def _stem(pattern: str, target: str) -> str | None:
    before, _, after = pattern.partition("%")
    if target.startswith(before) and target.endswith(after) and len(target) >= len(before) + len(after):
        return target[len(before):len(target) - len(after)]
    return None


def _expanded(text: str, making: _Making, automatic: dict[str, str], depth: int = 0) -> list[str]:
    """A recipe line with its variables made (each reading of one with several values); the command of a
    `$(shell CMD)` goes to `shells`, another function's result is a word only known when make runs."""
    if depth > 8:
        raise _Unknown
    making.spend(len(text) + CALL_WORK)
    pieces: list[list[str]] = []
    i = 0
    while i < len(text):
        if text[i] != "$" or i + 1 >= len(text):
            end = text.find("$", i + 1)       # the text up to the next `$` is one piece, as it is
            end = len(text) if end < 0 else end
            pieces.append([text[i:end]])
            i = end
            continue
        char = text[i + 1]
        if char == "$":
            pieces.append(["$"])
            i += 2
        elif char in "({":
            end = _closing(text, i + 1)
            inner = text[i + 2:end]
            head, _, argument = inner.partition(" ")
            if head in _UNREADABLE:
                raise _Unknown
            if head == "shell":
                making.shells += _expanded(argument, making, automatic, depth + 1)
                pieces.append([UNKNOWN])
            elif (reference := _REFERENCE.fullmatch(inner)) is not None:
                name, before, after = reference.groups()      # `$(OBJS:.c=.o)`, `$(SRC:%.c=build/%.o)`
                pieces.append([" ".join(_substituted(w, before, after) for w in value.split())
                               for value in _value(name, making, automatic, depth)])
            elif " " in inner or "," in inner or ":" in inner or "$" in inner:
                pieces.append([UNKNOWN])      # a function, a computed name
            else:
                pieces.append(_value(inner, making, automatic, depth))
            i = end + 1
        else:
            pieces.append(_value(char, making, automatic, depth))
            i += 2
    count = 1                                 # the readings made, each as long as its longest pieces at most
    for piece in pieces:
        count = min(count * len(piece), MAX_READINGS + 1)
    making.spend(count * sum(max(map(len, piece), default=0) for piece in pieces))
    readings = list(itertools.islice(("".join(p) for p in itertools.product(*_runs_joined(pieces))),
                                     MAX_READINGS + 1))
    if len(readings) > MAX_READINGS:
        raise _Unknown
    return readings


def _runs_joined(pieces: list[list[str]]) -> list[list[str]]:
    """The pieces with each run of single readings joined into one: a product over a million pieces of one value
    each cost seconds a line."""
    out: list[list[str]] = []
    run: list[str] = []
    for piece in pieces:
        if len(piece) == 1:
            run.append(piece[0])
            continue
        if run:
            out.append(["".join(run)])
            run = []
        out.append(piece)
    return out + [["".join(run)]] if run else out


def _value(name: str, making: _Making, automatic: dict[str, str], depth: int) -> list[str]:
    """A variable's values, each made in turn (`$@`, `$(@D)`: the target's)."""
    making.spend(CALL_WORK)
    if name in automatic or (name[:1] in automatic and name[1:] in ("D", "F")):
        return [automatic.get(name, UNKNOWN)]
    if name not in making.values:
        return [UNKNOWN if name[:1].isalpha() or name[:1] == "_" else ""]
    return list(dict.fromkeys(out for value in making.values[name]
                              for out in _expanded(value, making, automatic, depth + 1)))


def _substituted(word: str, before: str, after: str) -> str:
    """A word of a substitution reference: `a.c` of `$(X:.c=.o)` is `a.o`, of `$(X:%.c=b/%.o)` `b/a.o`."""
    if "%" not in before:
        before, after = "%" + before, "%" + after
    stem = _stem(before, word)
    return word if stem is None else after.replace("%", stem, 1)


def _closing(text: str, at: int) -> int:
    """Where the `(` or `{` at `at` closes (nested ones counted)."""
    opening, closing, depth = text[at], ")" if text[at] == "(" else "}", 0
    for j in range(at, len(text)):
        depth += (text[j] == opening) - (text[j] == closing)
        if depth == 0:
            return j
    raise _Unknown
