"""Ghost snapshots: the working tree recorded before each turn changes it, so the turn can be undone."""

from contextual.core.snapshot.ghost import DEFAULT_WARN_AFTER, SEED_WARN_AFTER, GhostSnapshots, SnapshotRecord

__all__ = ["DEFAULT_WARN_AFTER", "SEED_WARN_AFTER", "GhostSnapshots", "SnapshotRecord"]
