"""What a package manager runs from package.json's `scripts`, for the deny rules (core/files_run.py reads each as a
line of its own): `npm test` runs pretest, test and posttest, each a line for `sh -c` in the package's folder;
`npm run NAME` (also yarn's, pnpm's, bun's, and `yarn NAME`, `pnpm NAME`, `bun NAME` where NAME is a script)
preNAME, NAME and postNAME with the words after NAME; an install (`npm install`, `npm ci`, a bare `yarn`) the
lifecycle scripts. The package.json is the nearest one up from the folder the command runs in (or the one
`--prefix`, `--cwd`, `-C`, `--dir` name), as npm finds it, read as it is when the call is checked. Which scripts
run is not known (None) where a word before `--` is only known when it runs.

Not read: a workspace's packages (`-w`, `--workspaces`, `--filter`, `-r`: the root's scripts are), node_modules/.bin,
first on the scripts' PATH (a package's programs are programs), the scripts of the dependencies an install
fetches, `.npmrc` settings (`script-shell`, `ignore-scripts`)."""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from typing import Sequence

from contextual.core.regular_file import read_regular
from contextual.core.shell.nodes import Word, command_name

RUNNERS = frozenset({"npm", "pnpm", "yarn", "bun"})
MAX_BYTES = 1024 * 1024       # of one package.json
_RUN = frozenset({"run", "run-script", "rum", "urn"})
_TEST = frozenset({"test", "t", "tst"})
# npm's spellings of install and the commands that install the package itself first
_INSTALL = frozenset("install i in ins inst insta instal isnt isnta isntal isntall add ci clean-install ic "
                     "install-clean isntall-clean install-test it install-ci-test cit rebuild rb pack publish link "
                     "ln".split())
_INSTALL_TESTS = frozenset({"install-test", "it", "install-ci-test", "cit"})
LIFECYCLE = ("preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare",
             "prepack", "postpack", "prepublishOnly", "publish", "postpublish")
# bun's own commands that share a script's usual name (bun runs a script of another name given alone)
_BUN_OWN = frozenset("test build x exec init create upgrade pm link unlink remove rm update outdated publish patch "
                     "repl help".split())
# options naming the folder it runs in, and others taking a value (the word after is not its sub-command)
_FOLDERS = frozenset({"--prefix", "--cwd", "-C", "--dir"})
_VALUED = _FOLDERS | frozenset({"-w", "--workspace", "--filter", "-F", "--loglevel", "--cache", "--registry",
                                "--userconfig", "--reporter", "--config", "--cache-folder", "--modules-folder"})


@dataclass(frozen=True)
class Scripts:
    """The script lines one command runs, in the folder they run in, and the package.json they come from."""
    lines: tuple[str, ...] = ()
    folder: str = ""
    package: str = ""


def scripts_run(words: Sequence[Word], place: str) -> Scripts | None:
    """The scripts the command `words` (npm, pnpm, yarn, bun) runs when run in the folder `place`; None when that
    is not known."""
    program = command_name(str(words[0]))
    if program not in RUNNERS:
        return Scripts()
    rest = list(words[1:])
    end = rest.index("--") if "--" in rest else len(rest)
    plain: list[str] = []
    i = 0
    while i < end:
        word = rest[i]
        if word is None:
            return None                                    # `npm run "$X"`, `npm $OPTS test`
        name, eq, attached = word.partition("=")
        value: Word = attached
        if word.startswith("-") and name in _VALUED and not eq:
            value, i = (rest[i + 1] if i + 1 < end else ""), i + 1
        if word.startswith("-") and name in _FOLDERS:
            if value is None:
                return None
            place = os.path.join(place, os.path.expanduser(value))   # `npm --prefix sub test`, `yarn --cwd sub`
        elif not word.startswith("-"):
            plain.append(word)
        i += 1
    sub = plain[0] if plain else ""
    found = _package(place)
    if found is None:
        return None
    package, scripts = found
    if not package:
        return Scripts()
    if sub in _RUN:
        named, after = (plain[1], _after(rest, plain[1])) if len(plain) > 1 else ("", [])
    elif program == "bun" and sub in _BUN_OWN:
        return Scripts(package=package)                    # `bun test`, `bun build`: its own test runner, bundler
    elif sub in _TEST or sub in ("start", "stop", "restart"):
        named, after = ("test" if sub in _TEST else sub), _after(rest, sub)
    elif sub in _INSTALL or (not sub and program == "yarn"):
        names = [*LIFECYCLE, *(("pretest", "test", "posttest") if sub in _INSTALL_TESTS else ())]
        return Scripts(tuple(scripts[n] for n in names if n in scripts), os.path.dirname(package), package)
    elif program != "npm" and sub in scripts:
        named, after = sub, _after(rest, sub)             # `yarn build`, `pnpm lint`, `bun dev`
    else:
        return Scripts(package=package)
    names = [f"pre{named}", named, f"post{named}"] + (["prestop", "stop", "poststop", "prestart", "start",
                                                        "poststart"] if named == "restart" else [])
    lines = [scripts[n] + ("".join(f" {shlex.quote(w)}" for w in after) if n == named else "")
             for n in names if n in scripts]
    return Scripts(tuple(lines), os.path.dirname(package), package)


def _after(rest: list[Word], name: str) -> list[str]:
    """The words npm hands the script after its name: those after `--`, else the plain ones after the name."""
    if "--" in rest:
        return [str(w) for w in rest[rest.index("--") + 1:]]
    return [str(w) for w in rest[rest.index(name) + 1:] if isinstance(w, str) and not w.startswith("-")]


def _package(place: str) -> tuple[str, dict[str, str]] | None:
    """The nearest package.json from `place` up and its scripts (("", {}) when there is none); None when it cannot
    be read (a FIFO, a folder, too large). One that is not JSON stops the package manager: no scripts."""
    folder = os.path.abspath(place)
    while True:
        path = os.path.join(folder, "package.json")
        if os.path.lexists(path):
            try:
                data = read_regular(path, MAX_BYTES + 1)
            except OSError:
                return None
            if len(data) > MAX_BYTES:
                return None
            try:
                scripts = json.loads(data).get("scripts", {})
            except (ValueError, AttributeError):
                return path, {}
            if not isinstance(scripts, dict):
                return path, {}
            return path, {str(k): v for k, v in scripts.items() if isinstance(v, str)}
        parent = os.path.dirname(folder)
        if parent == folder:
            return "", {}
        folder = parent
