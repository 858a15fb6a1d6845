"""perl's and xargs' words as the programs read them, for the deny rules: perl's switches end at its first operand and
some take only the rest of their word (`-x`, `-M`), others the next word (`-I`), so which operand is the script and
which are edited in place (`-i`) follows perl.c; xargs hands `sh -c TEXT` the words it reads as arguments (`_ {}`),
which do not change how sh reads TEXT, and as TEXT itself where TEXT holds the `-I` string. Each line is first run
by the real program in a scratch folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from contextual.core.permission_rules import PermissionRules
from contextual.core.shell.parse import parse_command
from tests.waits import HANG_GUARD

EDIT = PermissionRules.from_tables({"deny": ["Edit(secrets/**)"]})
DENY_RM = PermissionRules.from_tables({"deny": ["Bash(rm:*)"]})
needs_perl = pytest.mark.skipif(shutil.which("perl") is None, reason="perl is not installed")


def _run(line: str, folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", line], cwd=folder, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=20, check=False)


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "p"
    (folder / "secrets").mkdir(parents=True)
    (folder / "secrets" / "k").write_text("a\n")
    (folder / "victim").write_text("keep\n")
    (folder / "s.pl").write_text("#!perl\ns/a/b/;\n")
    return folder


@needs_perl
@pytest.mark.parametrize("line", [
    "perl -pi -x s.pl secrets/k",              # -x takes only the rest of its word: s.pl is the script
    "perl -pi -I inc s.pl secrets/k", "perl -pi.bak -e s/a/b/ secrets/k", "perl -pie s.pl secrets/k",
    "perl -pe s/a/b/ -i secrets/k", "perl -0pi -e s/a/b/ secrets/k", "perl -i -pe s/a/b/ -- secrets/k",
])
def test_a_file_perl_edits_in_place_is_written(tmp_path: Path, line: str):
    folder = _folder(tmp_path)
    ran = _run(line, folder)
    assert (folder / "secrets" / "k").read_text() == "b\n", (line, ran.stderr)
    assert EDIT.denies("Bash", {"command": line}, str(folder)) is not None, line


@needs_perl
@pytest.mark.parametrize("line", [
    "perl -p -e s/a/b/ secrets/k -i",          # after the first operand, -i is the script's argument
    "perl -I -pi s.pl secrets/k",              # -I takes the next word: -pi is a folder, s.pl the script
    "perl -Mi -pe 1 secrets/k",                # -M takes the rest of its word: a module named i
    "perl -e 'print 1' -- -i secrets/k",
])
def test_a_file_perl_only_reads_is_not_written(tmp_path: Path, line: str):
    folder = _folder(tmp_path)
    _run(line, folder)
    assert (folder / "secrets" / "k").read_text() == "a\n", line
    assert EDIT.denies("Bash", {"command": line}, str(folder)) is None, line


@needs_perl
@pytest.mark.parametrize("line, edits", [
    ("perl e.pl secrets/k", True), ("./e.pl secrets/k", True), ("perl -w e.pl secrets/k", True),
    ("perl -x e.pl secrets/k", True), ("perl s.pl secrets/k", False), ("./s.pl secrets/k", False),
])
def test_the_switches_of_a_scripts_first_line_are_perls_too(tmp_path: Path, line: str, edits: bool):
    """perl reads `#!/usr/bin/perl -pi` as its own -p -i: a script so begun edits the files named after it."""
    folder = _folder(tmp_path)
    (folder / "e.pl").write_text("#!/usr/bin/perl -pi\ns/a/b/;\n")
    for script in ("e.pl", "s.pl"):
        (folder / script).chmod(0o755)
    (folder / "s.pl").write_text("#!/usr/bin/perl\ns/a/b/;\n")
    _run(line, folder)
    assert ((folder / "secrets" / "k").read_text() == "b\n") is edits, line
    assert (EDIT.denies("Bash", {"command": line}, str(folder)) is not None) is edits, line


def test_a_fifo_named_as_the_script_is_not_waited_on(tmp_path: Path):
    """Its first line is read as core/regular_file.py reads what outside put there: opening a FIFO blocked the
    check for good (the writer never comes)."""
    folder = _folder(tmp_path)
    os.mkfifo(folder / "p.pl")
    verdicts: list[object] = []
    check = threading.Thread(daemon=True, target=lambda: verdicts.extend(
        EDIT.denies("Bash", {"command": line}, str(folder)) for line in ("perl p.pl secrets/k", "./p.pl secrets/k")))
    check.start()
    check.join(HANG_GUARD)
    assert not check.is_alive() and verdicts == [None, None]


def test_xargs_hands_sh_its_words_as_arguments_and_sh_reads_its_text_as_bash_does(tmp_path: Path):
    folder = _folder(tmp_path)
    line = "echo victim | xargs -I{} sh -c 'rm -f \"$1\"' _ {}"
    _run(line, folder)
    assert not (folder / "victim").exists()
    parsed = parse_command(line)
    assert not parsed.opaque and ("rm", "-f", None) in parsed.commands
    assert DENY_RM.denies("Bash", {"command": line}, str(folder)) is not None
    allowed = PermissionRules.from_tables({"allow": ["Bash(echo:*)", "Bash(ls:*)", "Bash(xargs:*)", "Bash(sh:*)"]})
    for quiet in ("ls | xargs -I{} sh -c 'echo \"$1\"' _ {}", "ls | xargs -n1 sh -c 'echo hi'",
                  "ls | xargs sh -c 'echo \"$@\"' _"):
        assert not parse_command(quiet).opaque, quiet
        assert DENY_RM.denies("Bash", {"command": quiet}, str(folder)) is None, quiet
        assert allowed.allows("Bash", {"command": quiet}, str(folder)) is not None, quiet     # each program allowed


@pytest.mark.parametrize("line", ["printf '; rm victim' | xargs -I{} sh -c 'echo {}'",
                                  "printf '; rm victim' | xargs -0I{} sh -c 'echo {}'",        # -I in a bundle
                                  "printf '; rm victim' | xargs -P 1 -I {} bash -c 'echo {}'",  # after a value
                                  "printf '; rm victim' | xargs -rtI % sh -c 'echo %'",
                                  "printf '; rm victim' | xargs --repl sh -c 'echo {}'",        # a long one's start
                                  "printf '; rm victim' | xargs -0 -I{} sh -c 'echo {}'"])
def test_an_xargs_input_made_into_shell_text_leaves_it_unknown(tmp_path: Path, line: str):
    folder = _folder(tmp_path)
    _run(line, folder)
    assert not (folder / "victim").exists(), line
    assert parse_command(line).opaque, line


def test_xargs_optional_values_are_only_in_their_word(tmp_path: Path):
    """`--max-lines`, `--replace`, `--eof` take a value only after `=`: the next word is the command."""
    for line in ("echo victim | xargs --max-lines rm", "echo victim | xargs --replace rm {}"):
        folder = _folder(tmp_path / str(len(line)))
        _run(line, folder)
        assert not (folder / "victim").exists(), line
        assert DENY_RM.denies("Bash", {"command": line}, str(folder)) is not None, line


@pytest.mark.parametrize("line", ["sh $X -c ls", "sh -o $X -c ls", "sh -eo \"$X\" -c ls", "sh -c $X ls",
                                  "sh -c \"echo \\$'\\\\\\\\' ; rm f\"", "dash -- \"$X\""])
def test_what_sh_reads_as_its_text_must_be_known_and_free_of_bash_quoting(line: str):
    assert parse_command(line).opaque, line
