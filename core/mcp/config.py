"""Which MCP servers to start (CONTRACT Additions): `$CONTEXTUAL_HOME/mcp.json`, then `.mcp.json` at the
project root, whose entries win by name. The shape is the one Claude Code and others already use:

    {"mcpServers": {"NAME": {"command": "npx", "args": ["-y", "pkg"], "env": {"K": "v"}},
                    "NAME2": {"type": "http", "url": "https://host/mcp", "headers": {"Authorization": "..."}}}}

(`"type": "sse"` reaches servers that still speak the older HTTP+SSE transport.)

`${VAR}` and `${VAR:-default}` in strings are expanded from the environment as it was when the process started
(before the CLI drops the key variables), so `-p`, `contextual context` and the app expand alike and tokens stay
out of the file. A server's name is `[A-Za-z0-9_-]` without `__`, so `mcp__SERVER__TOOL` parses one way only.
A malformed file or entry is reported in one line and skipped; the other servers still start.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from contextual.core import credentials, secrets, trust
from contextual.core.config_text import ConfigTextError, parse_json, read_config_text
from contextual.core.plural import listing, noun_for

DEFAULT_STARTUP_TIMEOUT = 30.0     # seconds for the handshake and the tool listing
DEFAULT_TOOL_TIMEOUT = 120.0       # seconds for one tools/call
DEFAULT_MAX_OUTPUT_TOKENS = 25_000  # one result's cap, as Claude Code's MAX_MCP_OUTPUT_TOKENS; "max_output_tokens"
_NAME = re.compile(r"[A-Za-z0-9_-]+")
LISTED_NAMES = 10                  # servers named in the line that says what the file asks for; then a count
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass(frozen=True)
class ServerSpec:
    name: str
    transport: str                                   # "stdio" | "http" (streamable) | "sse" (the older HTTP one)
    source: Path                                     # the file that defined it
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict, repr=False)      # tokens: never in a repr or a traceback
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    tool_timeout: float = DEFAULT_TOOL_TIMEOUT
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS
    written: str = ""            # the command line or URL as the file has it, `${VAR}` unexpanded: what /mcp shows


_start_environment: dict[str, str] | None = None


def keep_start_environment(env: Mapping[str, str]) -> None:
    """Called once before anything changes the process environment; later calls keep the first copy."""
    global _start_environment
    if _start_environment is None:
        _start_environment = dict(env)


def start_environment() -> Mapping[str, str]:
    """What `${VAR}` reads: the environment kept at start, else the current one."""
    return os.environ if _start_environment is None else _start_environment


def check_name(name: str) -> None:
    """ValueError unless `mcp__NAME__tool` can be read back one way (a rule for `mcp__my__srv` must not be
    taken as tool `srv` of a server `my`)."""
    if not _NAME.fullmatch(name):
        raise ValueError("the name may hold only letters, digits, '_' and '-'")
    if "__" in name:
        raise ValueError("the name may not hold '__' (it separates server and tool in mcp__SERVER__TOOL)")


def config_files(project_root: Path, home: Path) -> list[Path]:
    """Lowest precedence first."""
    return [home / "mcp.json", project_root / ".mcp.json"]


def _expand(value: str, env: Mapping[str, str]) -> str:
    return _VAR.sub(lambda m: env.get(m.group(1), m.group(2) or ""), value)


def _strings(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{what} must be a list of strings")
    return value


def _mapping(value: Any, what: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ValueError(f"{what} must be an object of strings")
    return value


def _seconds(entry: dict[str, Any], key: str, default: float) -> float:
    value = entry.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(f"{key} must be a positive number of seconds")
    return float(value)


def _tokens(entry: dict[str, Any]) -> int:
    value = entry.get("max_output_tokens", DEFAULT_MAX_OUTPUT_TOKENS)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError("max_output_tokens must be a positive whole number")
    return value


def _kind(entry: dict[str, Any]) -> Any:
    """The entry's transport as written: its `type`, else http when it has a `url`, else stdio."""
    return entry.get("type", "http" if "url" in entry else "stdio")


def parse_entry(name: str, entry: Any, source: Path, env: Mapping[str, str]) -> ServerSpec:
    """One `mcpServers` entry; ValueError with a short reason when it is not usable."""
    check_name(name)
    if not isinstance(entry, dict):
        raise ValueError("the entry must be an object")
    kind = _kind(entry)
    startup = _seconds(entry, "startup_timeout_sec", DEFAULT_STARTUP_TIMEOUT)
    tool_timeout = _seconds(entry, "tool_timeout_sec", DEFAULT_TOOL_TIMEOUT)
    cap = _tokens(entry)
    if kind == "stdio":
        command = entry.get("command")
        if not isinstance(command, str) or not command.strip():
            raise ValueError('a stdio server needs "command"')
        args = _strings(entry.get("args", []), '"args"')
        extra = _mapping(entry.get("env", {}), '"env"')
        return ServerSpec(name, "stdio", source, command=_expand(command, env),
                          args=tuple(_expand(a, env) for a in args),
                          env={k: _expand(v, env) for k, v in extra.items()}, startup_timeout=startup,
                          tool_timeout=tool_timeout, max_output_tokens=cap, written=" ".join((command, *args)))
    if kind in ("http", "streamable-http", "streamable_http", "sse"):
        url = entry.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError('an http server needs "url" starting with http:// or https://')
        headers = _mapping(entry.get("headers", {}), '"headers"')
        return ServerSpec(name, "sse" if kind == "sse" else "http", source, url=_expand(url, env),
                          headers={k: _expand(v, env) for k, v in headers.items()}, startup_timeout=startup,
                          tool_timeout=tool_timeout, max_output_tokens=cap, written=url)
    raise ValueError(f'unsupported "type" {kind!r} (use stdio, http or sse)')


def load_servers(project_root: Path, home: Path, env: Mapping[str, str] | None = None,
                 trusted: bool | None = None, unapproved: list[trust.Item] | None = None
                 ) -> tuple[list[ServerSpec], list[str]]:
    """The servers to start, and one line per problem found on the way. The project's `.mcp.json` names
    commands a checkout would run: it is used only when approved (core/trust.py) or `trusted` says so; a file
    left out is added to `unapproved` (the app asks about it)."""
    env = start_environment() if env is None else env
    specs: dict[str, ServerSpec] = {}
    problems: list[str] = []
    for path in config_files(project_root, home):
        if not path.exists():       # a FIFO or a folder there is said below, as an unreadable file
            continue
        try:
            text = read_config_text(path)
            doc = parse_json(text, path)
        except ConfigTextError as exc:
            problems.append(f"MCP config: {exc}; its servers are skipped")
            continue
        servers = doc.get("mcpServers") if isinstance(doc, dict) else None
        if not isinstance(servers, dict):
            problems.append(f'MCP config {path} has no "mcpServers" object; skipped')
            continue
        item = servers_item(path, text, servers)
        project_file = path.parent != home
        file_env = env
        if project_file:
            # A checkout's `${CONTEXTUAL_API_KEY}` would hand our key to its server (or, in a header, to its URL)
            for key in sorted({name for name, _ in _VAR.findall(text) if name in secrets.KEY_VARIABLES}):
                problems.append(f"MCP config {path}: ${{{key}}} is Contextual's own key and is not given to a "
                                "project's server (it reads as unset)")
            file_env = {k: v for k, v in env.items() if k not in secrets.KEY_VARIABLES}
        if project_file and not (trusted if trusted is not None else trust.gate(home, project_root, item)):
            problems.append(item.skipped(project_root))
            if unapproved is not None:
                unapproved.append(item)
            continue
        for name, entry in servers.items():
            if isinstance(entry, dict) and entry.get("disabled") is True:
                specs.pop(name, None)
                continue
            try:
                specs[name] = parse_entry(name, entry, path, file_env)
                secrets.remember(*given_credentials(specs[name]))
            except ValueError as exc:
                problems.append(f"MCP server {name!r} in {path}: {exc}; skipped")
    return list(specs.values()), problems


def given_credentials(spec: ServerSpec) -> tuple[str, ...]:
    """The tokens a server is handed (expanded): its headers', env's, URL's and command line's credentials. They
    are registered as secrets where the file is read, so the server's stderr, a failure quoting its URL, /mcp and
    the session redact them as they do the API key."""
    return (*credentials.in_url(spec.url), *credentials.in_args((spec.command, *spec.args)),
            *(found for table in (spec.headers, spec.env) for name, value in table.items()
              for found in credentials.in_setting(name, value)))


def servers_item(path: Path, text: str, servers: dict[str, Any]) -> trust.Item:
    """A project's `.mcp.json` as the piece the user approves: bound to the file's exact text; the details say
    what each server would start, its transport read as parse_entry reads it (a `url` beside `"type": "stdio"` was
    shown as a connection while its command ran), the command line quoted word by word as the file has it (a
    blank or `;` inside a word shows as part of it)."""
    def shown(name: str, entry: Any) -> str:
        if not isinstance(entry, dict):
            return f"{name}: (not an object)"
        if entry.get("disabled") is True:
            return f"{name}: disabled, not started"

        def given(key: str, sep: str) -> str:      # what it is given besides: `${VAR}`s read from your environment
            table = entry.get(key)
            if not isinstance(table, dict) or not table:
                return ""
            return f"; {key} {', '.join(f'{k}{sep}{v}' for k, v in table.items())}"
        kind = _kind(entry)
        if kind == "stdio":
            args = entry.get("args", [])
            words = [str(w) for w in [entry.get("command", "?"), *(args if isinstance(args, list) else [args])]]
            return f"{name}: runs {shlex.join(words)}{given('env', '=')}"
        if kind in ("http", "streamable-http", "streamable_http", "sse"):
            return f"{name}: connects to {entry.get('url', '?')}{given('headers', ': ')}"
        return f"{name}: not started (unsupported \"type\" {kind!r})"
    names = [str(n) for n in servers]        # "the MCP servers tracker in …" read wrong for one server
    if len(names) > LISTED_NAMES:            # 40,000 of them made -p's line 269 kB long
        names = [*names[:LISTED_NAMES - 1], f"{len(names) - LISTED_NAMES + 1:,} more"]
    what = f"the MCP {noun_for(len(servers), 'server')} {listing(names)} in {path}"
    return trust.Item("mcp_servers", text, what, tuple(shown(str(n), e) for n, e in servers.items()))
