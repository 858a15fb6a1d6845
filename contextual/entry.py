"""The `contextual` command's entry point: the command line's imports take about a quarter of a second, and a
Ctrl-C in them printed Python's KeyboardInterrupt traceback (exit -2) instead of one line and the shell's 130.
A reader that stops early (`contextual context | head`) ends the output quietly, as other commands do."""

from __future__ import annotations

import os
import sys

SIGPIPE_STATUS = 141       # what a shell reports for a command a closed pipe ended (128 + SIGPIPE)


def main() -> int:
    try:
        from contextual.cli import main as run
    except KeyboardInterrupt:
        print("contextual: interrupted", file=sys.stderr)
        return 130
    try:
        status = run()
        sys.stdout.flush()       # here, not at exit, where a closed pipe is "Exception ignored" and status 120
        return status
    except BrokenPipeError:
        # the reader is gone: nothing more can be shown, and Python's flush at exit would raise again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return SIGPIPE_STATUS
