"""What a compaction did with the rounds it archived, in words: the one wording of the card, the chat line,
/compactions, the export, `contextual context`, `-p` and the model's note. Light on purpose (only `plural`): the
app's card imports it at launch, which the session schema must not load (tests/test_launch_imports.py).

A summary made in parts may end before it is whole: the user stopped it (esc), or a later request timed out or
failed. Its finished parts are kept either way, and ``ended`` says which: "" (the user), TIMED_OUT or failed(why).
"""

from __future__ import annotations

from typing import Callable, Protocol

from contextual.core.plural import plural

TIMED_OUT = "timed out"
# The name of a compaction's "before → after" wherever it is said: the meter's first figure (the next prompt counted
# whole, before anything is fitted to the window). "next prompt" is the meter's second figure, what is sent after
# fitting: the card and the chat line said "next prompt 121k → 702" beside a meter's "next prompt 5.9k".
ESTIMATE = "trigger estimate"


def trigger_share(estimate: int, threshold: int) -> float:
    """The trigger estimate as a share of the trigger line, the one share it is said with: the meter's "(97%)" and
    the turn's warning's (which had said 71 %, a share of the window, beside the meter's 97 % for the same figure)."""
    return estimate / max(1, threshold)


def against_trigger(estimate: int, threshold: int, figure: Callable[[int], str]) -> str:
    """"7.1k of 7.3k trigger line (97%)": the wide meter's words, and the turn's warning's."""
    return f"{figure(estimate)} of {figure(threshold)} trigger line ({trigger_share(estimate, threshold):.0%})"


def before_after(pre: int, post: int, figure: Callable[[int], str]) -> str:
    """"trigger estimate 121k → 702 tokens": the card's, the chat line's, the export's, `-p`'s and `context`'s."""
    return f"{ESTIMATE} {figure(pre)} → {figure(post)} tokens"


def failed(reason: str) -> str:
    """``ended`` for a later request of the summary that failed."""
    return f"failed ({reason})"


def cause(ended: str) -> str:
    """"stopped" (by the user), "timed out" or "failed (…)"."""
    return ended or "stopped"


def parts_kept(parts: tuple[int, int], rounds_archived: int, rounds_truncated: int) -> str:
    """"2 of 3 parts kept; 4 rounds summarised, 3 truncated" ("1 of 1 part kept": not "1 of 1 parts"). One large
    round cut into parts: "1 of 3 parts kept, no whole round in them; 1 round truncated" (was "0 rounds summarised")."""
    kept, summarised = f"{parts[0]} of {plural(parts[1], 'part')} kept", rounds_archived - rounds_truncated
    if summarised <= 0:
        return f"{kept}, no whole round in them; {plural(rounds_truncated, 'round')} truncated"
    return f"{kept}; {plural(summarised, 'round')} summarised, {rounds_truncated} truncated"


def outcome(rounds_archived: int | None, parts: tuple[int, int] | None = None, rounds_truncated: int = 0,
            ended: str = "") -> str:
    """"5 rounds archived"; for a summary that ended before it was whole, "timed out: 2 of 3 parts kept; …"."""
    if parts is None:
        return f"{'older rounds' if rounds_archived is None else plural(rounds_archived, 'round')} archived"
    return f"{cause(ended)}: {parts_kept(parts, rounds_archived or 0, rounds_truncated)}"


def heading(ended: str) -> str:
    """The card's first line for such a summary."""
    return ("Compaction stopped" if not ended else f"Summary {ended}") + ": the finished parts are kept"


def why(parts: tuple[int, int] | None, ended: str) -> str:
    """Why the rounds the kept parts did not reach have no summary, as the model's note says it."""
    kept, total = parts or (0, 0)
    who = "the user stopped the summary" if not ended else f"the summary {ended}"
    return f"{who} after {kept} of {total} parts"


def kept_line(note: str) -> str:
    """The chat's line for why fewer rounds were kept whole than asked (keep_fit.kept_note), live and resumed."""
    return f"compaction: {note}"


def merged_line(merged: int) -> str:
    """The chat's line for a summary that replaced ``merged`` earlier ones (issue 24), live and resumed."""
    return f"compaction: {merged + 1} summaries outgrew a quarter of the window: merged into one"


class Logged(Protocol):
    """What `line` reads of a compaction (core/session/schema.py: CompactionRecord, whose module imports this one)."""
    @property
    def trigger(self) -> str: ...
    @property
    def pre_tokens(self) -> int | None: ...
    @property
    def post_tokens(self) -> int | None: ...
    @property
    def rounds_archived(self) -> int | None: ...
    @property
    def parts(self) -> tuple[int, int] | None: ...
    @property
    def rounds_truncated(self) -> int: ...
    @property
    def ended(self) -> str: ...
    @property
    def fallback(self) -> str | None: ...


def line(record: Logged, figure: Callable[[int], str], lost: str = "") -> str:
    """The chat's line for a compaction, live and resumed, and `-p "/compact"`'s result: its figures (``figure``:
    each front end's way with a number), what it did, what it lost (``lost``, in the front end's words) and, when it
    cut rounds without a summary, why."""
    figures = (before_after(record.pre_tokens, record.post_tokens, figure) + ", "
               if record.pre_tokens is not None and record.post_tokens is not None else "")
    note = f"compacted ({record.trigger}): {figures}" + outcome(record.rounds_archived, record.parts,
                                                               record.rounds_truncated, record.ended)
    return note + (f" · {lost}" if lost else "") + (f" · fallback: {record.fallback}" if record.fallback else "")


def written(record: Logged, lost: str = "") -> str:
    """The chat's line with its figures written out (14,600, not 14.6k): `-p "/compact"`'s result and the export's."""
    return line(record, lambda n: f"{n:,}", lost)
