"""Reading a config file (config.toml, .mcp.json, a project's config.local.toml): bounded, and parsed safely.

A checkout brings its own config files, and they are read before the user is asked to trust them: a 400 MB
`.mcp.json` took 1.6 GB before its server was reported "not approved", and 6 kB of nested brackets ended the
launch in a 3,000-line RecursionError. A config file is read up to MAX_BYTES, regular files only, and a parse that
nests too deeply is an error naming the file, as any malformed one is. JSON's depth is bounded before it is parsed:
Python 3.13's decoder recurses in C up to about 10,000 levels, so a RecursionError is no limit one can rely on.
"""

from __future__ import annotations

import difflib
import json
import tomllib
from pathlib import Path
from typing import Any, Callable, Collection, Iterable

from contextual.core import bounded_json
from contextual.core.regular_file import NotRegular, read_regular

MAX_BYTES = 1 << 20            # a config file of a megabyte is already far past any real one
_TOO_DEEP = "cannot read {path}: its values nest too deeply"


class ConfigTextError(ValueError):
    """One line naming the file and what is wrong with it."""


def read_config_text(path: Path) -> str:
    """The file's text; ConfigTextError past MAX_BYTES, for anything but a regular file, or not UTF-8."""
    try:
        raw = read_regular(path, MAX_BYTES + 1)      # a FIFO planted as config.toml must not hang the launch
    except NotRegular as exc:
        raise ConfigTextError(f"cannot read {path}: it is {exc.kind}, not a regular file") from None
    except OSError as exc:
        raise ConfigTextError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise ConfigTextError(f"{path} is over {MAX_BYTES // (1 << 20)} MB: too large for a config file")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigTextError(f"cannot read {path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None


def unknown_keys(found: Iterable[str], known: Iterable[str], table: str = "", settings: Collection[str] = ()) -> str:
    """The unknown keys of a config table, each with the known key it most likely meant ("context_windw (did you
    mean context_window?)"). A key of `settings` found under the `[table]` header was meant for the top of the
    file: TOML gives a table every key below its header (a line appended after a table), so that is said instead."""
    choices = sorted(known)
    named = []
    for key in sorted(found):
        close = difflib.get_close_matches(key, choices, n=1)
        if table and key in settings:
            named.append(f"{key} (a setting: TOML puts a key below {table} into that table; move it above the "
                         "file's first table)")
        else:
            named.append(f"{key} (did you mean {close[0]}?)" if close else key)
    return ", ".join(named)


def parse_toml(text: str, path: Path) -> dict[str, Any]:
    parsed: dict[str, Any] = _parsed(tomllib.loads, tomllib.TOMLDecodeError, text, path)
    return parsed


def parse_json(text: str, path: Path) -> Any:
    try:
        bounded_json.check_depth(text)
    except bounded_json.JSONDepthError:
        raise ConfigTextError(_TOO_DEEP.format(path=path)) from None
    return _parsed(json.loads, json.JSONDecodeError, text, path)


def _parsed(parse: Callable[[str], Any], malformed: type[ValueError], text: str, path: Path) -> Any:
    try:
        return parse(text)
    except malformed as exc:
        raise ConfigTextError(f"cannot read {path}: {exc}") from None
    except RecursionError:
        raise ConfigTextError(_TOO_DEEP.format(path=path)) from None
