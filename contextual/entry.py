"""The `contextual` command's entry point: the command line's imports take about a quarter of a second, and a
Ctrl-C in them printed Python's KeyboardInterrupt traceback (exit -2) instead of one line and the shell's 130."""

from __future__ import annotations

import sys


def main() -> int:
    try:
        from contextual.cli import main as run
    except KeyboardInterrupt:
        print("contextual: interrupted", file=sys.stderr)
        return 130
    return run()
