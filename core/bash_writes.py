"""The files a Bash line writes, as far as its words say: for Edit and Write deny rules (core/permission_rules.py).

An output redirection's target (`> secrets/k`, `>> log`, `&> out`) is shell syntax, so a rule holds for it whatever
the program; beyond that, the programs whose words name the files they write or remove: `tee FILE…`, `sed -i …
FILE…`, `truncate`/`shred`/`rm`/`unlink` and `mv` (each operand), `cp`/`install`/`ln` (the destination, or `-t DIR`),
`dd of=FILE`, `git checkout|restore|rm|mv` (their paths). Seen from each folder the line moves to, as a Read rule's
paths are (core/bash_paths.py). A program that writes a file it names in its own language (`python -c
"open('k','w')"`, `patch`) is not read, as a program that deletes one is not an `rm` (docs/permissions.md, "Rules are
not a sandbox")."""

from __future__ import annotations

from contextual.core.bash_paths import folders_of, in_folders
from contextual.core.shell.nodes import Word, command_name
from contextual.core.shell.parse import parse_command

_EACH_OPERAND = frozenset({"tee", "truncate", "shred", "rm", "unlink", "mv"})
_GIT_WRITES = frozenset({"checkout", "restore", "rm", "mv"})
_DESTINATION = frozenset({"cp", "install", "ln"})
# options of those programs that take the next word as their value (so it is not an operand)
_VALUE_OPTIONS = {"truncate": {"-s", "-r", "--size", "--reference"}, "shred": {"-n", "-s", "--iterations", "--size"},
                  "cp": {"-S", "--suffix"}, "install": {"-m", "-o", "-g", "-S", "--mode", "--owner", "--group",
                                                        "--suffix"},
                  "ln": {"-S", "--suffix"}, "mv": {"-S", "--suffix"}, "sed": {"-e", "-f", "-l", "--expression",
                                                                                "--file", "--line-length"}}


def written_paths(command: str, root: str) -> list[str]:
    """Every path the line may write, once each, as seen from the folders it moves to."""
    parsed = parse_command(command)
    folders = folders_of(parsed.commands, root)
    named = [*parsed.written, *(p for words in parsed.commands for p in _written_by(words))]
    return list(dict.fromkeys(full for p in named if p for full in in_folders(p, folders)))


def _written_by(words: tuple[Word, ...]) -> list[str]:
    if not words or not isinstance(words[0], str):
        return []
    program = command_name(words[0])
    if program == "dd":
        return [w[3:] for w in words[1:] if isinstance(w, str) and w.startswith("of=")]
    if program == "git":
        # `git checkout -- k`, `git restore k`, `git rm k`, `git mv a k`: each word after the sub-command may be a
        # file it writes or removes (a branch name as well: matched against the rules, it names no protected file)
        rest = [w for w in words[1:] if isinstance(w, str) and not w.startswith("-")]
        at = next((i for i, w in enumerate(rest) if w in _GIT_WRITES), None)    # past git's own `-C DIR`
        return rest[at + 1:] if at is not None else []
    if program not in _EACH_OPERAND and program not in _DESTINATION and program != "sed":
        return []
    operands, target = _operands(words[1:], _VALUE_OPTIONS.get(program, set()))
    if program == "sed":
        in_place = any(isinstance(w, str) and (w.startswith("-i") or w.startswith("--in-place") or
                                                (w.startswith("-") and not w.startswith("--") and "i" in w))
                       for w in words[1:])
        script_given = any(w in ("-e", "-f", "--expression", "--file") or (isinstance(w, str) and (
            w.startswith("--expression=") or w.startswith("--file="))) for w in words[1:])
        return (operands if script_given else operands[1:]) if in_place else []
    if program in _DESTINATION:
        return [target] if target else operands[-1:] if len(operands) > 1 else []
    return operands


def _operands(words: tuple[Word, ...], value_options: set[str]) -> tuple[list[str], str]:
    """The words that are not options (nor an option's value), and the value of `-t`/`--target-directory`."""
    out: list[str] = []
    target, i, options_end = "", 0, False
    while i < len(words):
        word = words[i]
        if isinstance(word, str) and not options_end and word.startswith("-") and word != "-":
            if word == "--":
                options_end = True
            elif word in ("-t", "--target-directory") and i + 1 < len(words) and isinstance(words[i + 1], str):
                target = str(words[i + 1])
                i += 1
            elif word.startswith("--target-directory="):
                target = word.partition("=")[2]
            elif word in value_options:
                i += 1
        elif isinstance(word, str):
            out.append(word)
        i += 1
    return out, target
