"""The README is the user's guide: every slash command and every key of the app is in it, and its test command is
the one CI runs."""

from __future__ import annotations

from pathlib import Path

from contextual.tui import commands
from contextual.tui.app import ContextualApp

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")


def test_every_slash_command_is_documented():
    missing = [c.name for c in commands.COMMANDS if f"`{c.name}" not in README]
    assert missing == []


def test_every_key_of_the_main_screen_is_documented():
    shown_as = {"escape": "esc"}
    keys = {shown_as.get(key, key) for binding in ContextualApp.BINDINGS
            for key in binding.key.split(",")}   # type: ignore[union-attr]
    missing = sorted(k for k in keys if f"`{k}`" not in README and f"`{k} " not in README and f" {k}`" not in README)
    assert missing == []


def documented(key: str) -> bool:
    return any(form in README for form in (f"`{key}`", f"`{key} ", f" {key}`", f"({key})"))


def test_every_key_of_every_screen_and_widget_is_documented():
    """Modals, screens and the History/Scratchpad panes: their keys are the user's too."""
    import importlib
    import inspect
    import pkgutil

    from textual.binding import Binding

    import contextual.tui.screens as screens
    import contextual.tui.widgets as widgets
    shown_as = {"escape": "esc", "left": "←", "right": "→", "up": "↑", "down": "↓",
                "1": "1`–`4", "2": "1`–`4", "3": "1`–`4", "4": "1`–`4"}
    missing = []
    for package in (screens, widgets):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for name, cls in inspect.getmembers(module, inspect.isclass):
                for binding in cls.__dict__.get("BINDINGS", []) if cls.__module__ == module.__name__ else []:
                    key = binding.key if isinstance(binding, Binding) else binding[0]
                    missing += [f"{name}: {k}" for k in key.split(",") if not documented(shown_as.get(k, k))]
    assert missing == []


def test_every_long_option_of_the_command_line_is_documented():
    """`contextual`, `contextual context`, `export` and `replay`: each long option a user can type is in the README
    (hidden ones, help=SUPPRESS, are not the user's)."""
    import argparse

    from contextual import cli, context_cmd, export_cmd
    from contextual.core.replay import cli as replay_cli
    missing = []
    for module in (cli, context_cmd, export_cmd, replay_cli):
        parser = module.build_parser()
        for action in parser._actions:
            if action.help == argparse.SUPPRESS:
                continue
            missing += [f"{parser.prog} {o}" for o in action.option_strings
                        if o.startswith("--") and o != "--help" and o not in README]
    assert missing == []


def test_the_ci_runs_the_readmes_test_command_verbatim():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    command = ci.strip().splitlines()[-1]
    assert f"```sh\n{command}\n```" in README
    assert len(README.splitlines()) <= 180
