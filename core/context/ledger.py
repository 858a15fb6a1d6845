"""The loss ledger (issue 19.2) and the recall probe (issue 30): what a compaction dropped, and how much it kept.

Given the archived rounds, the summary that replaces them and what stays in the prompt (the kept rounds and
earlier summaries), list the facts the archive held (core/context/facts.py: the one extractor) that nothing left
in the prompt holds any more, each with where it came from, and count how many it keeps: "keeps 41 of 47 facts".
`repaired` appends the missing ones to a summary. Pure: no engine, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from contextual.core.context.fact_match import KINDS, Fact, Held, Kind, Source
from contextual.core.context.facts import extract_facts
from contextual.core.context.result_lines import plain_text
from contextual.core.messages import Message
from contextual.core.plural import plural

__all__ = ["CAPS", "KINDS", "Kind", "Ledger", "LostFact", "Source", "loss_ledger", "plain_text", "repaired"]

LostFact = Fact
# Per kind, how many facts a ledger keeps (the user's and the model's own first, then most-mentioned); the rest
# are only counted.
CAPS: dict[str, int] = {"constraint": 30, "error": 30, "path": 60, "identifier": 120, "number": 30}
REPAIR_HEADING = "## Facts the summary must keep"


@dataclass(frozen=True)
class Ledger:
    facts: tuple[LostFact, ...]
    omitted: dict[str, int]          # per kind, lost facts past the cap (counted, not listed)
    total: int = 0                   # every fact the archive held (the probe's denominator)

    def lost(self) -> int:
        """Every lost fact, listed or only counted."""
        return len(self.facts) + sum(self.omitted.values())

    def kept(self) -> int:
        return max(self.total - self.lost(), 0)

    def score(self) -> str:
        """The recall probe's line: "keeps 41 of 47 facts"."""
        return f"keeps {self.kept()} of {self.total} facts" if self.total else "no facts to keep"

    def lost_line(self, where: str = "/ledger") -> str:
        """What it lost, in the same words on the chat's line, its card and the export ("keeps 41 of 47 facts
        (/ledger: the 6 facts lost, to re-inject)"); '' when nothing was. ``where`` lists them."""
        if not self.lost():
            return ""
        return f"{self.score()} ({where}: the {plural(self.lost(), 'fact')} lost, to re-inject)"

    def recall(self) -> dict[str, int]:
        """The score as `contextual context --json` and the session show it."""
        return {"kept": self.kept(), "total": self.total, "lost": self.lost()}

    def to_dict(self) -> dict[str, Any]:
        return {"facts": [f.to_dict() for f in self.facts], "omitted": dict(self.omitted), "total": self.total}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> "Ledger":
        d = d or {}
        facts = tuple(LostFact.from_dict(f) for f in d.get("facts", []))
        omitted = dict(d.get("omitted", {}))
        total = d.get("total")
        # A ledger stored before the probe has no total: count its lost facts only.
        return cls(facts, omitted, total if isinstance(total, int) else len(facts) + sum(omitted.values()))


def loss_ledger(archive: Sequence[Message], summary_text: str, kept: Sequence[Message],
                also_held: Sequence[str] = ()) -> Ledger:
    """The facts of `archive` that neither `summary_text`, the `kept` messages nor `also_held` (earlier
    summaries, the system prompt…) hold any more. A name is held only by the summaries: the kept rounds still
    use it (that is why it is a fact), and the summary must say what it is. First source wins; ordered by kind,
    then by the user's and the model's own first, then by mentions."""
    extracted = extract_facts(archive, later=kept)
    held = Held([summary_text, *also_held, *(plain_text(m) for m in kept)])
    summarised = Held([summary_text, *also_held])
    rank = {f.key + f.kind: i for i, f in enumerate(extracted.facts)}
    lost = [f for f in extracted.facts if not (summarised if f.kind == "identifier" else held).holds(f)]
    facts: list[LostFact] = []
    omitted: dict[str, int] = {}
    for kind in KINDS:
        def order(f: Fact) -> tuple[int, int]:
            return -(f.mentions + 3 * (f"{f.kind}:{f.key}" in extracted.used)), rank[f.key + f.kind]
        of_kind = sorted((f for f in lost if f.kind == kind), key=order)
        facts.extend(of_kind[:CAPS[kind]])
        if len(of_kind) > CAPS[kind]:
            omitted[kind] = len(of_kind) - CAPS[kind]
    return Ledger(tuple(facts), omitted, len(extracted.facts))


def repaired(summary_text: str, ledger: Ledger) -> str:
    """The summary with the facts it misses appended, one line each (the probe's repair)."""
    if not ledger.facts:
        return summary_text
    lines = [f"- {f.kind}: {f.text}" + (f" ({f.source.location})" if f.source.location else "") for f in ledger.facts]
    return f"{summary_text.rstrip()}\n\n{REPAIR_HEADING}\n" + "\n".join(lines) + "\n"
