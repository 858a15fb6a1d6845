"""Commands a program runs from its own language (core/shell/languages.py): awk's `system()`, pipes and `getline`,
sed's `e`, `s///e`, `w` and `r`, vim's `:!` and its kin, and the programs that run a line one of their options gives
(sort --compress-program, split --filter, man -P). Each line is first run by bash in a scratch folder, where it
does what it is said to do (removes `victim`, prints the secret, changes `.env`), so a case that no longer does
fails here rather than passing for nothing. Through the CLI: tests/test_deny_rules_cli.py."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from contextual.core.permission_rules import PermissionRules
from contextual.core.shell.parse import parse_command
from contextual.core.shell.sed_script import read_script

DENY_RM = PermissionRules.from_tables({"deny": ["Bash(rm:*)"]})
HAS_GNU_SED = subprocess.run(["sed", "--debug", "-n", "p", os.devnull], capture_output=True).returncode == 0


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "p"
    (folder / "secrets").mkdir(parents=True)
    (folder / "secrets" / "k").write_text("TOKEN-hidden\n")
    (folder / ".env").write_text("E=1\n")
    (folder / "victim").write_text("keep\n")
    (folder / "x").write_text("a\nb\n")
    (folder / "cmds").write_text("rm victim\n")
    return folder


def _bash(line: str, folder: Path) -> subprocess.CompletedProcess:
    """The line as the Bash tool runs it: bash, in the folder, standard input /dev/null."""
    return subprocess.run(["bash", "-c", line], cwd=folder, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=20, check=False)


def _present(line: str) -> None:
    """Skips a case whose program is not installed here (it names it first, after any `printf … > f;` or `|`)."""
    program = next(w for w in line.replace(";", " ; ").replace("|", " | ").split()
                   if w.isidentifier() and w not in ("printf", "S", "VIMINIT"))
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")


# Each removes `victim` in bash; the command it runs is a literal of its language, read as a nested line.
READ_AS_LINES = [
    "awk 'BEGIN { system(\"rm victim\") }'", "awk 'BEGIN { printf \"\" | \"rm victim\" }'",
    "awk 'BEGIN { \"rm victim\" | getline }'", "awk 'BEGIN { while ((\"rm victim\" | getline l) > 0) print l }'",
    "awk 'BEGIN { system (\"rm \\\"victim\\\"\") }'", "awk -F: -v n=1 -- 'END { system(\"rm victim\") }' x",
    # where awks differ on a `/` (mawk reads a regex after `$` and `length`), both readings are read
    "awk 'BEGIN { x = $/\"/; system(\"rm victim\"); y = \"/\" }'",
    "awk 'BEGIN { print length /\"/; system(\"rm victim\"); x = \"/\" }'",
    "sed -n '1e rm victim' x", "sed -n -e p -e '$e rm victim' x", "sed -n 's/a/b/;1e rm victim' x",
    "sed -n '1e rm vic\\x74im' x", "sed -n '1e\\\nrm victim' x", "sed -n --expression='1e rm victim' x",
    "sed -n '/a/I,+1{e rm victim\n}' x", "sed -n -i.bak '1e rm victim' x", "sed -ne '1e rm victim' x",
    "split --filter='rm victim' x", "split -l 1 x --fil 'rm victim'",
    "vim -es -u NONE -c '!rm victim' -c 'q!'", "vim -es -u NONE '+sil! !rm victim' '+q!'",
    "ex -s -u NONE -c 'g/a/!rm victim' -c 'q!' x", "vim -es -u NONE -c 'r !rm victim' -c 'q!'",
    "vim -es -u NONE -c 'w !rm victim' -c 'q!' x", "vim -es -u NONE -c '%!rm victim' -c 'q!' x",
]


@pytest.mark.parametrize("line", READ_AS_LINES)
def test_a_command_a_programs_own_language_gives_as_a_literal_is_read_as_a_nested_line(tmp_path, line):
    _present(line)
    folder = _folder(tmp_path)
    ran = _bash(line, folder)
    assert not (folder / "victim").exists(), (line, ran.stderr)         # bash ran rm through the program
    parsed = parse_command(line)
    assert any(words[0] == "rm" for words in parsed.commands) and not parsed.opaque, (line, parsed.commands)
    assert DENY_RM.denies("Bash", {"command": line}, str(folder)) is not None, line


# Each removes `victim` in bash too, by a command made when it runs or taken from elsewhere: opaque.
OPAQUE = [
    "awk '{ system($0) }' cmds", "awk -v c='rm victim' 'BEGIN { system(c) }'",
    "awk 'BEGIN { c = \"rm victim\"; c | getline }'", "awk '{ print \"\" | $0 }' cmds",
    "awk 'BEGIN { system(\"rm \" \"victim\") }'",
    "sed 's/.*/rm victim/e' cmds", "sed -n 'e' cmds",
    "S='1e rm victim'; sed -n \"$S\" x", "printf '!rm victim\\nq!\\n' > s.vim; vim -es -u NONE -S s.vim",
    "vim -es -u NONE -c 'call system(\"rm victim\")' -c 'q!'",
    "vim -es -u NONE -c 'exe \"!rm victim\"' -c 'q!'",
    "vim -es -u NONE -c '%s/a/\\=system(\"rm victim\")/' -c 'q!' x",
    "printf '!rm victim\\nq!\\n' | vim -es -u NONE",
    "VIMINIT='!rm victim' vim -c 'q!'",
]


@pytest.mark.parametrize("line", OPAQUE)
def test_a_command_a_program_makes_when_it_runs_or_takes_from_elsewhere_leaves_the_line_opaque(tmp_path, line):
    _present(line)
    folder = _folder(tmp_path)
    ran = _bash(line, folder)
    assert not (folder / "victim").exists(), (line, ran.stderr)
    assert parse_command(line).opaque, line
    assert DENY_RM.denies("Bash", {"command": line}, str(folder)) is not None, line


# Lines that run nothing of the kind: not opaque, allowed by an allow rule for their program, not refused.
PLAIN = [
    ("awk '{ print $1 }' x", "awk"), ("awk -F: '$3 > 100 { print $1 }' x", "awk"),
    ("awk '{ s += $1 } END { print s / NR }' x", "awk"), ("awk '/a|b/ { n++ } END { print n }' x", "awk"),
    ("sed -n '1,10p' x", "sed"), ("sed -i 's/a/b/g' x", "sed"), ("sed -i '1a    def f(self):' x", "sed"),
    ("sed -n '/a/I,+1p;$=' x", "sed"), ("sed -i -e '1a\\' -e '    return x' x", "sed"),
    ("sed --sandbox '1e rm victim' x", "sed"),          # sed refuses e, r and w in the sandbox
    ("sed -n '1x rm victim' x", "sed"),                  # a script sed refuses runs nothing
    ("vim -es -u NONE -c '%s/a/b/g' -c wq x", "vim"), ("ex -s -u NONE -c '%s/a/b/|x' x", "ex"),
    ("sort -k2 -t, x", "sort"), ("split -l 1 x part_", "split"), ("man -w ls", "man"),
]


@pytest.mark.parametrize("line,program", PLAIN)
def test_a_line_whose_program_runs_nothing_of_its_own_is_read_as_before(tmp_path, line, program):
    _present(line)
    folder = _folder(tmp_path)
    _bash(line, folder)
    assert (folder / "victim").exists(), line
    parsed = parse_command(line)
    assert not parsed.opaque and [w[0] for w in parsed.commands] == [program], (line, parsed.commands)
    allow = PermissionRules.from_tables({"allow": [f"Bash({program}:*)"]})
    assert allow.allows("Bash", {"command": line}, str(folder)) is not None, line
    assert DENY_RM.denies("Bash", {"command": line}, str(folder)) is None, line


def test_an_allow_rule_for_the_program_does_not_allow_what_its_language_runs():
    """`Bash(awk:*)` let `awk 'BEGIN{system("rm f")}'` run unasked: what it runs must be allowed too. An
    interpreter's code is its own business: `Bash(python:*)` allows any Python, as `python x.py` is any Python."""
    allow = lambda *rules: PermissionRules.from_tables({"allow": list(rules)})    # noqa: E731
    awk, sed = "awk 'BEGIN { system(\"rm f\") }'", "sed -n '1e rm f' x"
    assert allow("Bash(awk:*)").allows("Bash", {"command": awk}, "/") is None
    assert allow("Bash(awk:*)", "Bash(rm:*)").allows("Bash", {"command": awk}, "/") is not None
    assert allow("Bash(sed:*)").allows("Bash", {"command": sed}, "/") is None
    for line in ("sort --compress-program=rm -S 1 x", "split --filter='rm f' x", "man -P 'rm f' ls",
                 "MANOPT='-P rm\\ f' man ls", "sed 's/.*/rm f/e' x", "vim -c '!rm f'"):
        program = line.split()[0] if "=" not in line.split()[0] else "man"
        assert allow(f"Bash({program}:*)").allows("Bash", {"command": line}, "/") is None, line
    python = "python -c 'import os; os.system(\"rm f\")'"
    assert allow("Bash(python:*)").allows("Bash", {"command": python}, "/") is not None


def test_a_long_options_start_naming_several_hides_nothing_gawk_runs(tmp_path):
    """`--s` starts both --sandbox and --source: gawk (5.2) takes it for an option it does not know, ends its
    options there and runs `-e`'s program, unsandboxed. The one getopt reading (core/shell/getopt_words.py) keeps
    such a start as given for a language's program; had it counted it as each option, as it does for what a line
    writes, --sandbox would have hidden the rm."""
    line = "gawk -e 'BEGIN { system(\"rm victim\") }' --s"
    folder = _folder(tmp_path)
    if shutil.which("gawk"):
        ran = _bash(line, folder)
        assert not (folder / "victim").exists(), ran.stderr
    parsed = parse_command(line)
    assert ["rm", "victim"] in [list(words) for words in parsed.commands] and not parsed.opaque, parsed.commands
    assert DENY_RM.denies("Bash", {"command": line}, str(folder)) is not None


@pytest.mark.parametrize("after", ["-Q --sandbox", "--sandbox", "--foo --version"])
def test_an_awk_sandbox_or_version_option_is_not_taken_to_run_nothing(tmp_path, after):
    """gawk ends its options at one it does not know and runs `-e`'s program with the rest as its arguments: `-Q
    --sandbox` ran the rm, which the reading took for sandboxed; BWK awk ignores options it does not know."""
    line = f"gawk -e 'BEGIN {{ system(\"rm victim\") }}' {after}"
    folder = _folder(tmp_path)
    if shutil.which("gawk") and after.startswith("-Q"):
        _bash(line, folder)
        assert not (folder / "victim").exists()
    assert DENY_RM.denies("Bash", {"command": line}, str(folder)) is not None, line


# Each prints the secret or changes .env in bash, through a file the program's language names.
READS = ["sed -n 'r secrets/k' x", "awk 'BEGIN { getline l < \"secrets/k\"; print l }'",
         "vim -es -u NONE -c 'r secrets/k' -c '%p' -c 'q!'", "awk 'BEGIN { system(\"cat secrets/k\") }'",
         "sed -n '1e cat secrets/k' x"]
WRITES = ["sed -n 'w .env' x", "sed -n 's/a/b/w .env' x", "awk '{ print > \".env\" }' x",
          "awk 'BEGIN { printf \"x\" >> \".env\" }'", "vim -es -u NONE -c 'w! .env' -c 'q!' x",
          "ex -s -u NONE -c '%d' -c x .env", "vim -es -u NONE -c '%d|wq' .env"]


@pytest.mark.parametrize("line", READS + WRITES)
def test_read_and_edit_deny_rules_hold_for_the_files_a_programs_language_names(tmp_path, line):
    _present(line)
    folder = _folder(tmp_path)
    ran = _bash(line, folder)
    if line in READS:
        assert "TOKEN-hidden" in ran.stdout, (line, ran.stderr)
    else:
        assert (folder / ".env").read_text() != "E=1\n", (line, ran.stderr)
    rule = "Read(secrets/**)" if line in READS else "Edit(.env)"
    found = PermissionRules.from_tables({"deny": [rule]}).denies("Bash", {"command": line}, str(folder))
    assert found is not None and found.text == rule, line


# Scripts GNU sed refuses (it runs nothing of them) and scripts it reads, some only as GNU sed does.
REFUSED = ["1x rm f", "s/a/b", "s/a/b/q", "1", "y/ab/c/x", "w", "p p", "1,p", "/a", "s\nx\ny\n"]
READ = ["s\\a\\b\\e", "p;\x0b1e rm f", "s/a/b/\r\n1e rm f", ":a p;ba", "~p", "b end p\n:end",
        "s/[/]/x/e", "1!{p}", "$!N;P;D", "a\\\ntext\\\nmore", "y/a\\/b/c\\/d/", "0,/re/d", "p#c", "v 4.2 p"]


@pytest.mark.skipif(not HAS_GNU_SED, reason="GNU sed (its --debug) is not installed")
@pytest.mark.parametrize("script", REFUSED + READ)
def test_a_sed_script_is_refused_here_exactly_where_gnu_sed_refuses_it(tmp_path, script):
    """A script sed refuses runs nothing, so this reading refuses only where sed does: one it reads past sed's
    refusal could hide an `e` (`s\\a\\b\\e` takes the backslash as its delimiter; a vertical tab is a blank).
    Where older seds read more (`r` with no file name), this reading reads it too."""
    gnu = subprocess.run(["sed", "--debug", "-n", "-e", script, os.devnull], cwd=tmp_path, capture_output=True)
    assert (read_script(script) is None) == (gnu.returncode != 0), (script, gnu.stderr)


E_TEXTS = ["echo a\\tb", "echo a\\;echo b", "echo \\x41\\o102\\d067", "echo a\\nb", "printf %s\\\\n x",
           "\\echo lead", "echo tail\\"]


@pytest.mark.skipif(not HAS_GNU_SED, reason="GNU sed (its --debug) is not installed")
@pytest.mark.parametrize("text", E_TEXTS)
def test_the_command_of_sed_s_e_is_the_text_gnu_sed_hands_the_shell(tmp_path, text):
    script = f"1e {text}"
    [line] = read_script(script).lines            # type: ignore[union-attr]
    by_sed = subprocess.run(["sed", "-n", script], input="x\n", capture_output=True, text=True, cwd=tmp_path)
    by_sh = subprocess.run(["sh", "-c", line], capture_output=True, text=True, cwd=tmp_path)
    assert by_sed.stdout == by_sh.stdout, (script, line)


# ed takes its commands on standard input: a here-document, a here-string, the text printf or echo pipes in (each
# removed `victim` in bash, past `Bash(rm:*)`, before ed was read).
ED_RUNS = ["printf '!rm victim\\nq\\n' | ed", "ed -s x <<< '!rm victim'", "echo -e '1r !rm victim\\nq' | ed -s x",
           "ed -s x <<'E'\nr !rm victim\nq\nE", "ed -s x <<< 'g/a/!rm victim'", "ed -s x <<< '  !rm victi\\m'",
           "printf '999a\\n!rm victim\\n.\\nq\\n' | ed -s x",     # ed goes on past the `a` it refuses
           "ed -s x <<< 'w !rm victim'", "ed -s victim <<< '!rm %'", "ed -s '!rm victim' <<< q"]


@pytest.mark.parametrize("line", ED_RUNS)
def test_what_ed_runs_from_its_standard_input_is_read_as_a_nested_line(tmp_path, line):
    _present(line)
    folder = _folder(tmp_path)
    ran = _bash(line, folder)
    assert not (folder / "victim").exists(), (line, ran.stderr)
    parsed = parse_command(line)
    assert any(words[0] == "rm" for words in parsed.commands) and not parsed.opaque, (line, parsed.commands)
    assert DENY_RM.denies("Bash", {"command": line}, str(folder)) is not None, line
    assert PermissionRules.from_tables({"allow": ["Bash(ed:*)", "Bash(printf:*)", "Bash(echo:*)"]}).allows(
        "Bash", {"command": line}, str(folder)) is None, line


ED_FILES = [("ed -s x <<< 'r secrets/k\n,p\nq'", "Read(secrets/**)"), ("printf '!cat secrets/k\\nq\\n' | ed -s x",
            "Read(secrets/**)"), ("ed -s x <<< 'w .env'", "Edit(.env)"), ("ed -s .env <<< $'1d\\nw'", "Edit(.env)"),
            ("ed -s x <<< $'f .env\\nw'", "Edit(.env)"), ("printf '1d\\nw\\n' | ed -s .env", "Edit(.env)")]


@pytest.mark.parametrize("line,rule", ED_FILES)
def test_the_files_an_ed_script_reads_and_writes_hold_the_read_and_edit_rules(tmp_path, line, rule):
    _present(line)
    folder = _folder(tmp_path)
    ran = _bash(line, folder)
    assert "TOKEN-hidden" in ran.stdout if rule.startswith("Read") else (folder / ".env").read_text() != "E=1\n"
    found = PermissionRules.from_tables({"deny": [rule]}).denies("Bash", {"command": line}, str(folder))
    assert found is not None and found.text == rule, line


def test_ed_fed_text_only_known_when_it_runs_is_opaque_and_a_plain_edit_is_not():
    for line in ("cat cmds | ed -s x", "ed -s x", "ed -s x <<< \"$S\"", "ed -s x <<E\n$a\nE",
                 "printf '%d\\n' 1 | ed -s x", "ed -s x <<< '!!'"):
        assert parse_command(line).opaque, line
    for line in ("printf '1d\\nw\\nq\\n' | ed -s x", "ed -s x <<< $'2a\\n    raise e\\n.\\nw'", "ed -s x < /dev/null"):
        parsed = parse_command(line)
        assert not parsed.opaque and [w[0] for w in parsed.commands if w[0] != "printf"] == ["ed"], line
        assert PermissionRules.from_tables({"allow": ["Bash(ed:*)", "Bash(printf:*)"]}).allows(
            "Bash", {"command": line}, "/") is not None, line


# A program's commands from a file (`awk -f`, `sed -f`, `ed < F`) are read from disk as they are when the line is
# checked, as that program given the text on its line (`awk -f` reading secrets/k passed `Read(secrets/**)`: the
# line was opaque, which only the Bash rules hold).
PROGRAM_FILES = {"r.awk": 'BEGIN { system("rm victim") }', "k.awk": 'BEGIN { getline l < "secrets/k"; print l }',
                 "e.awk": 'BEGIN { print "x" > ".env" }', "r.sed": "1e rm victim\n", "k.sed": "r secrets/k\n",
                 "r.ed": "!rm victim\nq\n", "e.ed": "w .env\nq\n", "ok.awk": "{ print $1 }", "ok.sed": "s/a/b/\n"}
FROM_FILES = [("awk -f r.awk", "Bash(rm:*)"), ("awk -f k.awk x", "Read(secrets/**)"), ("awk -fe.awk", "Edit(.env)"),
              ("sed -n -f r.sed x", "Bash(rm:*)"), ("sed -fk.sed x", "Read(secrets/**)"),
              ("ed -s x < r.ed", "Bash(rm:*)"), ("cat x && ed -s x < e.ed", "Edit(.env)")]


@pytest.mark.parametrize("line,rule", FROM_FILES)
def test_a_programs_commands_in_a_file_are_read_from_disk_for_every_deny_rule(tmp_path, line, rule):
    _present(line.replace("cat x && ", ""))
    folder = _folder(tmp_path)
    for name, text in PROGRAM_FILES.items():
        (folder / name).write_text(text)
    ran = _bash(line, folder)
    assert not (folder / "victim").exists() or "TOKEN-hidden" in ran.stdout or \
        (folder / ".env").read_text() != "E=1\n", (line, ran.stderr)
    parsed = parse_command(line)
    assert not parsed.opaque and not parsed.certain, line       # no allow rule allows it: it is asked
    found = PermissionRules.from_tables({"deny": ["Bash(rm:*)", "Read(secrets/**)", "Edit(.env)"]}).denies(
        "Bash", {"command": line}, str(folder))
    assert found is not None and found.text == rule, line


def test_a_program_file_the_line_makes_or_that_is_not_there_holds_every_bash_rule_and_a_plain_one_runs(tmp_path):
    folder = _folder(tmp_path)
    for name, text in PROGRAM_FILES.items():
        (folder / name).write_text(text)
    held = ["printf 'BEGIN { system(\"rm victim\") }' > p.awk; awk -f p.awk", "awk -f new.awk",
            "printf '1e rm victim\\n' > s.sed; sed -n -f s.sed x", "cp r.sed ok.sed; sed -f ok.sed x",
            "echo q > s.ed && ed -s x < s.ed", "awk -f - x", "sed -f /dev/stdin x"]
    for line in held:
        assert DENY_RM.denies("Bash", {"command": line}, str(folder)) is not None, line
    for line in ("awk -f ok.awk x", "sed -f ok.sed x", "sudo awk -f ok.awk x", "ed -s x < ok.sed"):
        assert DENY_RM.denies("Bash", {"command": line}, str(folder)) is None, line
        assert PermissionRules.from_tables({"allow": ["Bash"]}).allows("Bash", {"command": line}, str(folder))
        assert PermissionRules.from_tables({"allow": ["Bash(awk:*)", "Bash(sed:*)", "Bash(ed:*)"]}).allows(
            "Bash", {"command": line}, str(folder)) is None, line
