"""Keep API keys out of what child processes (Bash, MCP servers) can read.

After the config has read them, the key variables Contextual reads (core.secrets.KEY_VARIABLES) are removed from
the process environment — ``del os.environ[...]`` also calls unsetenv, so children do not inherit it — and, on Linux, its
value is overwritten in the environment block the kernel shows as /proc/<pid>/environ (unsetenv only unlinks the
pointer; the original bytes stay readable there). Where that block cannot be written the README's security notes
say what stays open.
"""

from __future__ import annotations

import ctypes
import os
import sys

from contextual.core import secrets
from contextual.core.mcp.config import keep_start_environment


def drop_key_variables() -> list[str]:
    """Remove every key variable from this process's environment; returns their names."""
    # Other *_API_KEY variables belong to the user's own tools (a test suite may need them): they stay for
    # children, and are redacted from everything Contextual prints or records.
    keep_start_environment(os.environ)      # MCP configs' ${VAR} still read them, in every command alike
    names = [name for name in os.environ if name in secrets.KEY_VARIABLES]
    for name in names:
        del os.environ[name]
    if names and sys.platform.startswith("linux"):
        try:
            _wipe_initial_block({n.encode() for n in names})
        except (OSError, ValueError, IndexError):
            pass        # no /proc, or an unexpected layout: the variables are still gone from os.environ
    return names


def _wipe_initial_block(names: set[bytes]) -> None:
    """Zero the values of ``names`` in the block between env_start and env_end (fields 50-51 of /proc/self/stat)."""
    with open("/proc/self/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()
    start, end = int(fields[47]), int(fields[48])      # fields[0] is field 3 (state)
    if not 0 < start < end or end - start > 1 << 24:
        return
    block = ctypes.string_at(start, end - start)
    offset = 0
    for item in block.split(b"\0"):
        name, sep, value = item.partition(b"=")
        if sep and name in names and value:
            ctypes.memset(start + offset + len(name) + 1, 0, len(value))
        offset += len(item) + 1
