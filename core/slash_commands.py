"""The built-in slash commands by name, for the front ends that cannot import the app's table (tui/commands.py, which
names the same commands: tests/test_print_commands.py holds them together), and the rules both read: a `/word`
that names no command, and /compact's arguments.

`-p` runs `/compact [N] [instructions]`; every other built-in is the app's, and `-p` refuses it with the way to do
it from the shell (`HEADLESS`): a built-in command's text never reaches the model.
"""

from __future__ import annotations

import difflib
from pathlib import Path

COMPACT = "/compact"
_IN_THE_APP = "open the app (`contextual -c`) and type it there"

# Every built-in but /compact, with what a headless user does instead.
HEADLESS: dict[str, str] = {
    "/context": "`contextual context -c` prints the next prompt layer by layer (no model called)",
    "/cost": "`--output-format json` gives each run's usage and total_cost_usd",
    "/rewind": f"{_IN_THE_APP}; `contextual undo` takes back the latest turn's file changes",
    "/undo": "`contextual undo` (this project's latest session; `-r ID` another)",
    "/resume": "`-r ID` continues that session (`-c` the latest)",
    "/fork": "`--fork` with `-r ID` or `-c` continues in a copy of that session",
    "/clear": "leave out -c and -r: each -p run without them starts a new session",
    "/title": _IN_THE_APP,
    "/model": "`--model NAME`",
    "/compactions": "`contextual context -c` lists the session's compactions and the facts each kept",
    "/ledger": f"{_IN_THE_APP}; `contextual context -c --json` gives each compaction's recall",
    "/diff": "`contextual export -c --as-sent` writes each request as it was sent",
    "/policies": _IN_THE_APP,
    "/mcp": "`contextual context` names the MCP servers' tools and what their descriptions cost",
    "/permissions": "the [permissions] tables of the config files; the app's /permissions lists them",
    "/hooks": "the [[hooks.*]] tables of the config files; the app's /hooks lists them",
    "/memory": "add the line to AGENTS.md yourself (or $CONTEXTUAL_HOME/AGENTS.md, yours for every project)",
    "/init": _IN_THE_APP,
    "/export": "`contextual export -c [--as-sent] [-o FILE]`",
    "/copy": "`-p` prints the answer on stdout: pipe it to your clipboard (`| pbcopy`, `| wl-copy`, `| xclip`)",
    "/theme": _IN_THE_APP,
    "/help": "`contextual --help`",
    "/quit": "-p ends by itself when its turn does",
}
NAMES: tuple[str, ...] = (COMPACT, *HEADLESS)

# Other agents' commands a user may send out of habit: not commands here, so never sent either.
ELSEWHERE: dict[str, str] = {"/exit": HEADLESS["/quit"]}


def compact_arguments(argument: str) -> tuple[str | None, int | None]:
    """`/compact [N] [instructions]`'s argument: (instructions or None, N or None)."""
    first, _, rest = argument.partition(" ")
    if first.isdigit():
        return rest.strip() or None, int(first)
    return argument.strip() or None, None


def split(text: str) -> tuple[str, str] | None:
    """'/compact 2 keep the API notes' -> ('/compact', '2 keep the API notes'); None when not a `/word`."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, rest = stripped.partition(" ")
    return name, rest.strip()


def unknown(text: str, names: list[str]) -> tuple[str, str | None] | None:
    """(the word, the nearest of ``names``) for a message that starts with a `/word` naming none of them; None when it
    is no such message. A path (`/usr/bin/python fails`, `/tmp/x.py`: a second `/` in the word, or a file that
    exists) goes to the model: a mistyped `/compcat 3` was sent as a prompt."""
    words = text.split(maxsplit=1)
    first = words[0] if words else ""
    if not first.startswith("/") or "/" in first[1:] or (len(first) > 1 and Path(first).exists()):
        return None
    if first == "/" and len(words) > 1:         # "/ is this right?": a sentence
        return None
    if first in names:
        return None
    near = difflib.get_close_matches(first, names, n=1, cutoff=0.6)
    return first, (near[0] if near else None)
