"""A count and its noun, the one way every message writes it (core's notes, the app's rows and titles)."""

from __future__ import annotations


def plural(n: int, noun: str, nouns: str = "", *, grouped: bool = False) -> str:
    """plural(1, 'round') -> '1 round'; plural(3, 'round') -> '3 rounds'; `nouns` for a noun not made with an
    `s`: plural(2, 'match', 'matches') -> '2 matches'; `grouped`: '1,234 characters'."""
    figure = f"{n:,}" if grouped else str(n)
    return f"{figure} {noun_for(n, noun, nouns)}"


def noun_for(n: int, noun: str, nouns: str = "") -> str:
    """The noun alone, for a count said otherwise ('the MCP servers a and b')."""
    return noun if n == 1 else nouns or noun + "s"


def times(name: str, n: int) -> str:
    """'Read' once, 'Read ×3' for three: the tool trail's count, History's for a run of the same call, the fold
    note's for the steps it counts together."""
    return f"{name} ×{n}" if n > 1 else name


def listing(names: list[str]) -> str:
    """Names in a sentence: 'a', 'a and b', 'a, b and c'."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}" if names else ""
