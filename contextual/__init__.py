"""Contextual: the one import package. The entry modules (command line, headless `-p`, `contextual undo`) sit
here; the engine, the TUI and the prompt texts are its subpackages ``contextual.core``, ``contextual.tui`` and
``contextual.prompts``. The wheel maps the repository's top-level core/, tui/ and prompts/ folders into it
(pyproject's package-dir); core/ never imports the entry modules or the TUI."""

from pathlib import Path as _Path

# A checkout keeps those folders beside this package, not inside it: let the package find its subpackages there
# too, so a clone (or a second work tree) runs its own code without an install. An installed wheel has them inside
# and skips this.
_here = _Path(__file__).resolve().parent
if not (_here / "core").is_dir() and (_here.parent / "core" / "__init__.py").is_file():
    __path__.append(str(_here.parent))

from contextual.core import __version__  # noqa: E402

__all__ = ["__version__"]
