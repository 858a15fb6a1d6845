"""A list screen's priority key (enter picks the highlighted row, the ledger's r too) is read as the app takes it,
ahead of the keys typed just before it in the same burst (a fast typist, tmux send-keys, keys piled up while the app
was busy). Those the app has handed to the list, and a cursor key is a plain binding, which Textual reads only once
the key has bubbled from the list back up to the app, a queue at a time: `down down enter` picked the row the
cursor was on before the downs (/resume, /model, /rewind, /policies, /compactions, /ledger). So the row is read
behind them on that same way up, in each queue from the list's to the app's; a list closed meanwhile reads nothing.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from textual.dom import DOMNode
from textual.widget import Widget


def after_moves(rows: Widget, read: Callable[[], Any]) -> None:
    """`read` (which reads the highlighted row) once the keys handed to `rows` before this one have been read."""
    _behind(rows.ancestors_with_self, read)


def _behind(way_up: Sequence[DOMNode], read: Callable[[], Any]) -> None:
    here, rest = way_up[0], way_up[1:]
    if rest:
        here.call_later(_behind, rest, read)
    else:
        here.call_later(read)
