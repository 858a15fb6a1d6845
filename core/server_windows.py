"""The windows servers stated when they rejected a prompt, kept per server and model for the next runs.

A server that rejects a prompt for its size and states its window (llama.cpp started with `-c 4096` under a
setting of 8,192) gives this run its window (core/engine/settings.py: Settings.take_server_window). It is kept in
``$CONTEXTUAL_HOME/server-windows.json``, not in the session: the window belongs to the server and its model, so
the next `-p`, a `-c` resume, the app's restart and a new session against the same server all start with it
instead of learning it again through a rejected call (and a first compaction at the old sizes before that).

An entry names the window it replaced and where that came from ("set" for the user's own setting): it applies only
while the run would start with that same window from that same source, so changing the setting, or a server that
now states another window at startup, forgets it. The key is the wire, the base URL without its user:password,
query or fragment, and the model; no key or token is written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from contextual.core import secrets
from contextual.core.atomic import atomic_write
from contextual.core.clock import now_iso
from contextual.core.config import Config

FILE = "server-windows.json"
MAX_ENTRIES = 200
# A window a server states in its rejection is taken from this size up (llama.cpp's -c 4096, Ollama's 2048): a
# smaller figure cannot hold the system prompt and a step, so it is more likely the prompt's own size misread.
MIN_TAKEN_WINDOW = 2048
TAKEN_SOURCE = "server: said in its error"
KEPT_SOURCE = "server: said in an earlier run's error"


@dataclass(frozen=True)
class Kept:
    window: int
    replaced: int          # the window in force when the server stated this one
    source: str            # where that came from: "set" (flag, env, config) or the detection's source
    at: str


def takes(stated: int | None, current: int) -> bool:
    """Whether a window a server stated in its error replaces the one in use: smaller, and not a misreading."""
    return stated is not None and MIN_TAKEN_WINDOW <= stated < current


def _source_kind(source: str) -> str:
    return "set" if source in ("flag", "env", "config") else source


def server_key(config: Config) -> str:
    """The wire, the base URL as the server is reached (no user:password, query or fragment) and the model."""
    url = config.base_url or "(default)"
    try:
        parts = urlsplit(url)
        host = parts.netloc.rpartition("@")[2]
        url = urlunsplit((parts.scheme.lower(), host.lower(), parts.path.rstrip("/"), "", ""))
    except ValueError:
        url = "(unreadable url)"
    return secrets.redact(f"{config.provider} {url} {config.model or ''}")


def _path(config: Config) -> Path:
    return Path(config.home) / FILE


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def kept_for(config: Config) -> Kept | None:
    entry = _read(_path(config)).get(server_key(config))
    if not isinstance(entry, dict):
        return None
    window, replaced = entry.get("window"), entry.get("replaced")
    if type(window) is not int or type(replaced) is not int or not takes(window, replaced):
        return None
    return Kept(window, replaced, str(entry.get("source", "")), str(entry.get("at", "")))


def with_kept_window(config: Config) -> Config:
    """The config a run starts with: the window a server stated in an earlier run's error, when this run would
    start with the very window (and source) that error replaced."""
    if not config.model:
        return config
    kept = kept_for(config)
    if kept is None or kept.replaced != config.context_window or kept.source != _source_kind(config.window_source):
        return config
    return replace(config.with_window(kept.window, KEPT_SOURCE), window_guessed=False,
                   window_replaced=(config.context_window, config.window_source),
                   window_note=_kept_note(kept.window, config.context_window, config.window_source))


def remember(config: Config, window: int) -> None:
    """Keep ``window``, which the server stated in its error while ``config`` was in force, for the next runs. A
    cache: a read-only home or a full disk only costs the next run one rejected call."""
    if not config.model:
        return
    replaced, source = config.window_replaced or (config.context_window, config.window_source)
    path = _path(config)
    entries = _read(path)
    key = server_key(config)
    entries.pop(key, None)
    entries[key] = {"window": window, "replaced": replaced, "source": _source_kind(source), "at": now_iso()}
    kept = dict(list(entries.items())[-MAX_ENTRIES:])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(kept, indent=1).encode("utf-8"), durable=False)
    except OSError:
        pass


def _kept_note(window: int, replaced: int, source: str) -> str:
    """What a launch says when it starts with a window kept from an earlier run's error."""
    where = "set" if _source_kind(source) == "set" else "found"
    return (f"using a window of {window:,} tokens, which the server stated when it rejected a prompt in an earlier "
            f"run, not the {replaced:,} {where} ({source}); --context-window {window} makes it the setting, and "
            f"another setting forgets it")
