"""The files the code reads at runtime besides its modules, read through importlib.resources so that they are found
in a wheel, a zip or a checkout alike. A missing or unreadable one is a damaged install, named as such (never
mistaken for a missing model, a dump that cannot be written, or a bug)."""

from __future__ import annotations

from importlib import resources

# Every data file, relative to the `contextual` package; pyproject's package-data ships them.
FILES = ("core/model_table.toml", "core/data/cl100k_base.tiktoken", "tui/app.tcss")


class InstallDamaged(RuntimeError):
    """A data file of the package is missing or unreadable."""

    def __init__(self, name: str, cause: str) -> None:
        super().__init__(f"this install of contextual lacks its data file contextual/{name} ({cause}); "
                         "reinstall it (python -m pip install --force-reinstall contextual)")
        self.name = name


def read_bytes(name: str) -> bytes:
    """The file `name` (e.g. ``core/model_table.toml``) of the installed package."""
    package, _, rest = name.partition("/")
    try:
        return resources.files(f"contextual.{package}").joinpath(rest).read_bytes()
    except OSError as exc:
        raise InstallDamaged(name, exc.strerror or type(exc).__name__) from None


def read_text(name: str) -> str:
    try:
        return read_bytes(name).decode("utf-8")
    except UnicodeDecodeError:
        raise InstallDamaged(name, "not UTF-8") from None


def missing() -> list[str]:
    """The data files this install lacks (a start-up check costs a few stat calls)."""
    absent = []
    for name in FILES:
        package, _, rest = name.partition("/")
        try:
            if not resources.files(f"contextual.{package}").joinpath(rest).is_file():
                absent.append(name)
        except (OSError, ModuleNotFoundError):
            absent.append(name)
    return absent
