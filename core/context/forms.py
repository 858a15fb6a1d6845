"""A stored form is never larger than its full form (issue 24): the one check, made wherever a form is chosen
(history's tool results in L3, the turn's stored observations). Counted in tokens, the unit the window is in:
a JSON stored form can have fewer characters yet more tokens than the plain text it stands for."""

from __future__ import annotations

from typing import Callable

from contextual.core.tokens import shared_cache


def not_larger(stored: str, full: str | None, count: Callable[[str], int] = shared_cache.count) -> str:
    """``stored`` unless ``full`` is known and no larger; then ``full`` (it says more for no more tokens)."""
    if full is None or stored == full:
        return stored
    return stored if count(stored) < count(full) else full
