"""The settings a session ran with, given again to a command that rebuilds its prompts (`contextual context`,
`contextual export --as-sent`): a session does not record them, so `context -c` after a run with
--context-window 8000 showed a 200k window unless given the same flags."""

from __future__ import annotations

import argparse
from typing import Any

from contextual.core.config import PROVIDERS

NAMES = ("provider", "model", "base_url", "context_window", "keep_rounds")


def add_settings(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("the settings the session's requests use (as for contextual itself; a "
                                      "session does not record them: give the ones it ran with)")
    group.add_argument("--provider", choices=PROVIDERS)
    group.add_argument("--model", metavar="NAME")
    group.add_argument("--base-url", metavar="URL")
    group.add_argument("--context-window", type=int, metavar="N")
    group.add_argument("--keep-rounds", type=int, metavar="N")


def settings_of(args: argparse.Namespace) -> dict[str, Any]:
    return {name: getattr(args, name) for name in NAMES}
