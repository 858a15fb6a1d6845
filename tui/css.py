"""Where a screen's stylesheet is: package data found through importlib.resources, so it works from a wheel."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def stylesheet(module: str) -> Path:
    """The .tcss file beside `module` (a dotted name, e.g. ``contextual.tui.screens.info``), as a file path:
    Textual reads CSS_PATH from disk, and an installed wheel's package data is on disk."""
    package, _, name = module.rpartition(".")
    return Path(str(resources.files(package).joinpath(f"{name}.tcss")))
