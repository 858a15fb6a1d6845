"""Which parts of a configured value are credentials: what the config reader registers with core/secrets.py, so
that a token given to an endpoint or an MCP server is redacted wherever it comes back (an error quoting the URL, a
server's stderr, /mcp), as the API key is.

A value counts when its name says so (`GITHUB_TOKEN`, `X-Api-Key`, `Authorization`, `--token`, `?api_key=`), when
it carries an auth scheme (`Bearer …`, `Basic …`), or as the user:password of a URL. The names only decide which
values count: redacting every env value or header would shred ordinary text (`/usr/bin`, `application/json`).
"""

from __future__ import annotations

import base64
import re
import shlex
from typing import Iterable, Mapping
from urllib.parse import unquote, urlsplit

# Words of a name that hold a credential; a part ending in one of _ENDINGS counts too (apiKey, accessToken)
# ("auth" alone is not one: AUTH_MODE=oauth2 would redact the word oauth2 everywhere)
_WORDS = frozenset({"key", "apikey", "token", "secret", "password", "passwd", "pwd", "pass", "authorization",
                    "credential", "credentials", "cookie", "bearer", "sig", "signature"})
_ENDINGS = ("apikey", "token", "secret", "password")
# An auth scheme's token: one with a digit, 8 characters or more (`token expired` in a hook's echo is no credential)
_SCHEME = re.compile(r"(?i)\b(bearer|basic|token|apikey)\s+((?=[^\s'\";,&|<>()]*\d)[^\s'\";,&|<>()]{8,})")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")


def secret_name(name: str) -> bool:
    """Whether a variable, header, flag or query parameter of this name holds a credential."""
    parts = [p for p in re.split(r"[^a-z0-9]+", name.lower()) if p]
    return any(p in _WORDS or p.endswith(_ENDINGS) for p in parts)


def in_url(url: str) -> tuple[str, ...]:
    """The user:password of a URL (as written, decoded, and as the Basic header httpx makes of it) and the values
    of its credential-named query parameters."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return ()
    found: list[str] = []
    userinfo, at, _ = parts.netloc.rpartition("@")
    if at and userinfo:
        user, _, password = userinfo.partition(":")
        for pair in {userinfo, f"{unquote(user)}:{unquote(password)}"}:
            found += [pair, base64.b64encode(pair.encode()).decode()]
        found += [password, unquote(password)]
    for field in parts.query.split("&"):
        name, eq, value = field.partition("=")
        if eq and value and secret_name(unquote(name)):
            found += [value, unquote(value)]
    return tuple(found)


def in_setting(name: str, value: str) -> tuple[str, ...]:
    """The credentials one named setting (an env variable, a header) holds: all of it under a credential's name,
    the token after an auth scheme (a Basic one decoded too), and those of any URL in it."""
    found = [value] if secret_name(name) else []
    for scheme, token in _SCHEME.findall(value):
        found.append(token)
        if scheme.lower() == "basic":
            found += _basic(token)
    for url in _URL.findall(value):
        found += in_url(url)
    return tuple(found)


def in_args(args: Iterable[str]) -> tuple[str, ...]:
    """A command line's credentials: the value of a credential-named flag (`--token X`, `--api-key=X`) and what
    each argument holds as a setting without a name (a URL's password, `Bearer X`)."""
    found: list[str] = []
    words = list(args)
    for i, arg in enumerate(words):
        flag, eq, value = arg.partition("=")
        if arg.startswith("-") and secret_name(flag):
            if eq:
                found.append(value)
            elif i + 1 < len(words) and not words[i + 1].startswith("-"):     # `--no-auth --port` has none
                found.append(words[i + 1])
        found += in_setting("", arg)
    return tuple(found)


def in_command(line: str) -> tuple[str, ...]:
    """A shell line's credentials: its words read as `in_args` reads a command line, and any `Bearer X` or URL in
    it (a line the shell cannot split is read word by word)."""
    try:
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        words = line.split()
    return (*in_setting("", line), *in_args(words))


# A token, not a word: long, without spaces, letters and digits mixed (`ghp_…`, `AKIA…`, a JWT). A variable under a
# credential's name may hold a word (`SECRET_KEY_BASE=development`), which redacted everywhere would shred text.
_TOKEN_LIKE = re.compile(r"(?=[^\s]*[A-Za-z])(?=[^\s]*\d)[^\s]{8,}")


# The shell's own places, whose names only look like a password's (`pwd`): the project path was redacted everywhere.
_SHELL_PLACES = frozenset({"PWD", "OLDPWD"})


def in_environment(env: Mapping[str, str]) -> tuple[str, ...]:
    """The shell's own credentials: the values of variables named like one (`GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`,
    `NPM_TOKEN`) that look like a token. A command that prints the environment (`env`, `printenv`) would otherwise
    put them in the session file, on the screen and in the next prompt."""
    return tuple(value for name, value in env.items()
                 if name.upper() not in _SHELL_PLACES and secret_name(name) and _token_like(value.strip()))


def _token_like(value: str) -> bool:
    return bool(_TOKEN_LIKE.fullmatch(value)) and not value.startswith(("/", "~", "."))     # a path is a place


def _basic(token: str) -> list[str]:
    try:
        pair = base64.b64decode(token, validate=True).decode("utf-8")
    except ValueError:          # not base64 (binascii.Error), not ASCII, not UTF-8 once decoded
        return []
    return [pair, pair.partition(":")[2]]
