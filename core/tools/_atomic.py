"""Changing a file safely: tell the snapshot layer first, write it whole (`core.atomic.atomic_write`), record the
new mtime."""

from __future__ import annotations

from pathlib import Path

from contextual.core.atomic import atomic_write
from contextual.core.tools.base import ToolContext

__all__ = ["announce_change", "atomic_write", "record_mtime"]


async def announce_change(ctx: ToolContext, paths: list[Path]) -> None:
    """Let the ghost-snapshot layer copy files before a tool changes them."""
    if ctx.before_change is not None:
        await ctx.before_change(paths)


def record_mtime(ctx: ToolContext, path: Path) -> float:
    """A8/C4: the agent's own reads and writes set the mtime it will compare against next time."""
    mtime = path.stat().st_mtime
    ctx.mtimes[str(path)] = mtime
    return mtime
