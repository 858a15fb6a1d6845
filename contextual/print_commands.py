"""A slash command given to `-p` (core/slash_commands.py): `/compact [N] [instructions]` runs headless, its summary
accepted without a preview; any other built-in command, or a `/word` naming no command, is refused in one line
that says how to do it from the shell. Neither reaches the model: `-p "/compact"` was sent as the user's message."""

from __future__ import annotations

from typing import TYPE_CHECKING

from contextual.core import slash_commands
from contextual.core.context import compaction_words

if TYPE_CHECKING:
    from contextual.core.config import Config
    from contextual.core.session.schema import CompactionRecord

NOT_SENT = "nothing was sent to the model"


def compact_request(prompt: str) -> tuple[str | None, int | None] | None:
    """(instructions, N) when the prompt is `/compact [N] [instructions]`, else None."""
    parts = slash_commands.split(prompt)
    if parts is None or parts[0] != slash_commands.COMPACT:
        return None
    return slash_commands.compact_arguments(parts[1])


def refusal(prompt: str, config: Config, resuming: bool) -> str | None:
    """The one line that ends a `-p` run before anything is opened, or None when the prompt goes ahead (a task, a
    custom command, /compact on a session)."""
    parts = slash_commands.split(prompt)
    if parts is None:
        return None
    name = parts[0]
    if name == slash_commands.COMPACT:
        return None if resuming else (f"{name} compacts a session: add -c (this project's latest) or -r ID; "
                                      f"{NOT_SENT}")
    if name in slash_commands.HEADLESS:
        return f"{name} is the app's command, not run by -p: {slash_commands.HEADLESS[name]}; {NOT_SENT}"
    from contextual.core.custom_commands import load_commands
    custom = [c.name for c in load_commands(config.project_root, config.home)]
    found = slash_commands.unknown(prompt, [*slash_commands.NAMES, *custom])
    if found is None:
        return None
    word, near = found
    how = slash_commands.ELSEWHERE.get(word)
    said = f": {how}" if how else f": did you mean {near}?" if near else ""
    return f"unknown command {word}{said} ({NOT_SENT}; `contextual --help` lists what -p does)"


def compacted(record: CompactionRecord) -> str:
    """`-p "/compact"`'s result: the app's chat line for it, its figures written out, and what it lost."""
    ledger = record.loss_ledger
    lost = (f"{ledger.score()} (the app's /ledger lists the {ledger.lost()} lost)"
            if ledger is not None and ledger.lost() else "")
    return compaction_words.written(record, lost)


def not_compacted(why: str, keep: int | None, rounds: int) -> str:
    """A /compact that archived nothing: why, and the way to archive more when rounds are there to archive."""
    hint = f"; `/compact N` keeps only the last N of the {rounds} rounds" if keep is None and rounds >= 2 else ""
    return f"nothing compacted: {why}{hint}"

