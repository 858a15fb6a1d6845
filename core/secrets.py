"""Every API key this process has seen, in one registry, and the one rule that redacts them.

Whatever leaves the process — stdout/stderr, session files, logs, tool observations, the screen — passes through
``redact`` (text) or ``redact_value`` (JSON-like values). Providers, the session writer, the headless printer and the
TUI all call this module; nothing keeps its own list of keys.
"""

from __future__ import annotations

import threading
from typing import Any, Iterable, Mapping

from contextual.core import credentials
from contextual.core.textsafe import strip_control

REDACTED = "[redacted]"
# Shorter "secrets" (test keys like "x") would shred ordinary text if redacted everywhere.
MIN_SECRET_LENGTH = 6
# The variables Contextual itself reads a key from; any other *_API_KEY it sees is redacted too.
KEY_VARIABLES = ("CONTEXTUAL_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY")

KEY_ROOM = 256           # how far past a cut `head` looks for the rest of a key (longer than any key)
_lock = threading.Lock()
_known: tuple[str, ...] = ()


def key_variables(provider: str) -> tuple[str, str]:
    """The variables a key is read from for ``provider``, the winner first (core/config.py reads them; a
    refused key's error names them)."""
    return "CONTEXTUAL_API_KEY", "ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"


def is_key_variable(name: str) -> bool:
    return name in KEY_VARIABLES or name.upper().endswith("_API_KEY")


def remember(*values: str | None) -> None:
    """Add keys to the registry (too-short values are ignored: they would redact ordinary words)."""
    global _known
    # A key pasted with a space or read from a CRLF file is sent stripped: the stripped form is what can come back
    fresh = {v.strip() for v in values if isinstance(v, str) and len(v.strip()) >= MIN_SECRET_LENGTH}
    if not fresh - set(_known):
        return
    with _lock:
        _known = tuple(sorted(set(_known) | fresh, key=len, reverse=True))   # longest first: no partial leftovers


def remember_environment(env: Mapping[str, str]) -> None:
    """Every key variable in ``env`` joins the registry, and so do the shell's tokens under a credential's name
    (core/credentials.py: in_environment; GITHUB_TOKEN, NPM_TOKEN…)."""
    remember(*(value for name, value in env.items() if is_key_variable(name)), *credentials.in_environment(env))


def known() -> tuple[str, ...]:
    return _known


def redact(text: str, keys: Iterable[str] | None = None) -> str:
    for key in (_known if keys is None else keys):
        if key in text:
            text = text.replace(key, REDACTED)
    return text


def redact_shown(text: str, keys: Iterable[str] | None = None) -> str:
    """Text a person reads (a terminal, a log, an export): terminal escapes stripped, then keys redacted, in that
    order, as a key split by an escape sequence (`sk-…\x1b[m…`) is whole once the escape goes."""
    return redact(strip_control(text), keys)


def head(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text``, redacted before the cut: cut first, a key across the cut kept its
    start, which redaction no longer knows (a line shown or logged at N characters)."""
    return redact(text[:limit + KEY_ROOM])[:limit]


def key_start_at_end(text: str, keys: Iterable[str] | None = None) -> int:
    """How many characters at the end of ``text`` could be the start of a key (0: none). Streamed text holds them
    back until the next fragment shows whether a whole key follows."""
    longest = 0
    for key in (_known if keys is None else keys):
        for size in range(min(len(key) - 1, len(text)), longest, -1):
            if text.endswith(key[:size]):
                longest = size
                break
    return longest


def redact_value(value: Any, keys: Iterable[str] | None = None) -> Any:
    """The same value with every key replaced in every string, dict keys included (a new value; input untouched)."""
    keys = tuple(_known if keys is None else keys)
    if not keys:
        return value
    return _walk(value, keys)


def _walk(value: Any, keys: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        return redact(value, keys)
    if isinstance(value, dict):
        return {_walk(k, keys) if isinstance(k, str) else k: _walk(v, keys) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_walk(v, keys) for v in value]
    return value


def usable(keys: Iterable[str] | None) -> tuple[str, ...]:
    """Keys long enough to redact, longest first."""
    return tuple(sorted({k for k in (keys or ()) if isinstance(k, str) and len(k.strip()) >= MIN_SECRET_LENGTH},
                        key=len, reverse=True))
