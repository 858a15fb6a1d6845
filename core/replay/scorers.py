"""Other definitions of "a later step needs this line", beside the published one (core/replay/metrics.py).

A policy tuned against one scorer can learn its shape (issue 28: a cover step that kept one line per name of
the scorer's own regex). These definitions score the same replayed prompts differently, so a policy that keeps
what a model needs scores alike under all of them, and one shaped like a metric does not:

- `split`: names tokenised differently — dotted names and paths split into their parts (`a.b/c.py` is `a`, `b`,
  `c`, `py`), parts of 4+ characters;
- `short`: names of 2+ characters (`os`, `re`, `df`, `row` count too);
- `newest`: the published names, but once a later output showed a name again only the newest output's lines
  holding it count (the old version of an edited line no longer does).

Only the measuring code uses these; no policy imports them (tests/test_architecture.py checks it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from contextual.core.replay.metrics import RecallPair, identifiers, recall_pairs

_PART = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
_SHORT = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]{1,}")


def split_names(text: str) -> set[str]:
    return set(_PART.findall(text))


def short_names(text: str) -> set[str]:
    return {name for name in (m.rstrip("./-") for m in _SHORT.findall(text)) if len(name) >= 2}


@dataclass(frozen=True)
class Scorer:
    names: Callable[[str], set[str]]
    newest_only: bool = False


SCORERS: dict[str, Scorer] = {
    "split": Scorer(split_names),
    "short": Scorer(short_names),
    "newest": Scorer(identifiers, newest_only=True),
}


def alternative_pairs(preamble: list[str], task: str, responses: list[str], outputs: list[str]) -> list[RecallPair]:
    """The observation pairs of every alternative scorer, each pair tagged with its scorer's name."""
    out: list[RecallPair] = []
    for name, scorer in SCORERS.items():
        pairs = recall_pairs(preamble, task, responses, outputs, scorer.names, scorer.newest_only, name)
        out.extend(p for p in pairs if p.kind == "observation")
    return out
