"""Forking a session (issue 30.2): a new, self-contained session file holding a copy of the parent's record up
to a message, and the parent's id; the parent is only read, never changed.

The copy is entry by entry (uuids, parent links, timestamps, compactions, snapshots and rewinds kept, so the fork
loads as the parent did at that point), written through a SessionWriter so the new file has its own id, its
lock and its index sidecar. Its first entry is `{"type": "system", "subtype": "fork", "parentSessionId",
"forkedBefore"}`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contextual.core.session.entry_lines import read_entries
from contextual.core.session.lock import SessionError
from contextual.core.session.schema import system_body
from contextual.core.session.writer import SessionWriter


def fork_session(home: Path, project_root: Path, parent: Path, before_id: str | None = None,
                 entries: list[dict[str, Any]] | None = None) -> SessionWriter:
    """A new session holding the parent's entries before the message `before_id` (all of them when None).
    ``entries``: the parent's as already loaded (a fork of what the app shows, not of what the parent's own writer
    added since); read from ``parent`` when None. Returns its writer, open and locked (close it, or go on recording
    into it)."""
    if entries is None:
        entries = [entry for _, entry in read_entries(parent)[0]]
    if before_id is not None and not any(e.get("uuid") == before_id for e in entries):
        raise SessionError(f"no message {before_id} in session {parent.stem}")
    parent_id = next((e["sessionId"] for e in entries if isinstance(e.get("sessionId"), str)), parent.stem)
    writer = SessionWriter.create(home, project_root)
    writer.append_entry(system_body("fork", parentSessionId=parent_id, forkedBefore=before_id))
    for entry in entries:
        if before_id is not None and entry.get("uuid") == before_id:
            break
        writer.append_entry({k: v for k, v in entry.items() if k != "sessionId"})
    return writer
