"""The one clock for everything written to disk: UTC, ISO 8601, milliseconds, a `Z` suffix."""

from __future__ import annotations

from datetime import datetime, timezone


def now_iso() -> str:
    """e.g. ``2026-11-22T19:30:00.123Z`` — sorts as text, and means the same in every time zone."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def local_minutes(iso: str) -> str:
    """A stored time as the user reads it, in this machine's time zone: ``2026-11-22T19:30:00.123Z`` is
    ``2026-11-22 20:30`` in Paris. Text that is not a time comes back as written, to the minute."""
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso[:16].replace("T", " ")
    return (moment.astimezone() if moment.tzinfo is not None else moment).strftime("%Y-%m-%d %H:%M")
