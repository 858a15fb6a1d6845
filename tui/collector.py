"""Python's garbage collector, tuned for a screen of many widgets.

Each frame Textual makes tens of thousands of objects that live until the next one or so (every line of every
widget is a Strip holding seven caches). At Python's default of 700 new objects between young collections they
outlive two of them, reach the oldest generation and set off a collection of the whole heap: with a full chat
(30 turns, about 450,000 objects) one of ~350 ms about once a turn, a third of a turn with an instant model, and a
key pressed meanwhile waited for it. With 10,000 they die young: a young collection takes ~2 ms, and a full one
comes every ten turns or so. (tests/conftest.py sets the same for the suite's own process.)
"""

from __future__ import annotations

import gc

YOUNG = 10_000


def tune() -> None:
    """Raise the young generation's threshold (never lower one set higher, by the embedding process or a user)."""
    young, *older = gc.get_threshold()
    if young and young < YOUNG:      # 0: automatic collection is off, and stays so
        gc.set_threshold(YOUNG, *older)
