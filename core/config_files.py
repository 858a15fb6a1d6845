"""The config files: the user's (`$CONTEXTUAL_HOME/config.toml`), the project's committed one and its local one
(`.contextual/config.toml`, `config.local.toml`). The keys a file may hold and their values, one file read and
checked, and the three merged as load_config (core/config.py) puts them in force: what a project file would widen
(allow rules, permission_mode, the endpoint, the model, hooks) held back until the user approves it (core/trust.py).
Also the rules and hooks in force as /permissions and /hooks read them again."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Mapping

from contextual.core import credentials, secrets, trust
from contextual.core.config_text import ConfigTextError, parse_toml, read_config_text, unknown_keys
from contextual.core.hooks import Hooks, parse_hooks
from contextual.core.permission_rules import PermissionRules, RuleError


class ConfigError(Exception):
    """A setting is missing or malformed; the message is one line a user can act on."""


PERMISSION_MODES = ("default", "accept-edits", "plan", "bypass")
# Our permission modes in Claude Code's names: a hook's `permission_mode` gets them, and a flag, variable or config
# file may use them (`--permission-mode acceptEdits` was refused though hooks are told `acceptEdits`); ours stay
# the names shown and recorded.
CLAUDE_MODES = {"default": "default", "accept-edits": "acceptEdits", "plan": "plan", "bypass": "bypassPermissions"}
MODE_ALIASES = {claude: ours for ours, claude in CLAUDE_MODES.items() if claude != ours}
_INT = {"context_window", "output_reserve", "keep_rounds", "max_steps", "snapshot_keep"}
_COUNT = {"max_retries"}            # a whole number, 0 allowed
_FLOAT = {"summary_timeout", "snapshot_max_age_days"}
_RATIO = {"trigger_ratio", "warn_ratio"}    # a fraction in (0, 1]
_BOOL = {"auto_compact", "compaction_preview"}
_STR = {"provider", "base_url", "model", "api_key", "permission_mode", "summary_model"}
KNOWN_KEYS = _INT | _COUNT | _FLOAT | _BOOL | _STR | _RATIO
TABLES = {"models"}                 # sections kept as they are, checked by their reader
SECTIONS = {"output_reserve", "permissions", "trusted_projects", "hooks"}    # read apart from the settings above
SETTINGS = KNOWN_KEYS | TABLES | SECTIONS       # every key the top of a config file may hold
# A [models."NAME"] table's fields (core/model_facts.py reads them): the window, the answer's limit, the prices.
MODEL_PRICE_KEYS = ("input", "cached_input", "cache_write", "output")
MODEL_KEYS = ("window", "max_output", *MODEL_PRICE_KEYS)

def local_config_path(project_root: Path) -> Path:
    """The project's local settings: the user's own (written by "allow always"), kept out of git, so read as
    trusted like the user-level file — unlike the committed .contextual/config.toml a checkout brings."""
    return Path(project_root) / ".contextual" / "config.local.toml"


def coerce(key: str, value: Any, source: str) -> Any:
    try:
        if key in _INT:
            whole = int(value)
            if whole <= 0:
                raise ValueError
            return whole
        if key in _COUNT:
            whole = int(value)
            if whole < 0:
                raise ValueError
            return whole
        if key in _FLOAT:
            out = float(value)
            if out <= 0:
                raise ValueError
            return out
        if key in _RATIO:
            out = float(value)
            if not 0 < out <= 1:
                raise ValueError
            return out
        if key in _BOOL:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if key == "permission_mode":
            return MODE_ALIASES.get(str(value), str(value))
        return str(value)
    except (TypeError, ValueError):
        raise ConfigError(f"invalid value for {key} in {source}: {value!r}") from None


def _read_toml(path: Path) -> dict[str, Any]:
    # Only an absent file is no settings: a FIFO, a device or a folder where the file should be was skipped
    # without a word (and its deny rules with it); it is an unreadable file, said as any other
    if not path.exists():
        return {}
    try:
        data = parse_toml(read_config_text(path), path)
    except ConfigTextError as exc:
        raise ConfigError(str(exc)) from None
    unknown = set(data) - SETTINGS
    if unknown:
        raise ConfigError(f"unknown key(s) in {path}: {unknown_keys(unknown, SETTINGS)}")
    _check_models(data.get("models", {}), path)
    out = {k: v if k in TABLES else coerce(k, v, str(path)) for k, v in data.items()
           if k not in ("permissions", "trusted_projects", "hooks")}
    if "hooks" in data:
        try:
            out["hooks"] = parse_hooks(data["hooks"], str(path), SETTINGS)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    if "permissions" in data:
        try:
            out["permissions"] = PermissionRules.from_tables(data["permissions"], source=str(path), settings=SETTINGS)
        except RuleError as exc:
            raise ConfigError(str(exc)) from None
    return out


def _check_models(models: Any, path: Path) -> None:
    """[models."NAME"] tables hold only MODEL_KEYS: a typo (`windw = 1000`) or a setting written below one was
    dropped without a word, and the model ran with another window."""
    if not isinstance(models, dict) or not all(isinstance(entry, dict) for entry in models.values()):
        raise ConfigError(f"invalid value for models in {path}: expected a table like [models.\"NAME\"]")
    for name, entry in models.items():
        unknown = set(entry) - set(MODEL_KEYS)
        if unknown:
            table = f"[models.{json.dumps(name)}]"
            raise ConfigError(f"unknown key(s) in {table} of {path}: "
                              f"{unknown_keys(unknown, MODEL_KEYS, table, SETTINGS)}")


def _toml_value(value: Any) -> str:
    """A string or a list of strings as the config file writes it (`["Bash(npm test:*)"]`), not as Python does
    (`['Bash(npm test:*)']`): the trust question quotes the file."""
    return json.dumps(value, ensure_ascii=False)


def _permission_item(data: dict[str, Any], path: Path, kind: str = "permissions") -> trust.Item | None:
    """What the committed project file says that widens permissions (allow rules, permission_mode), as the piece
    the user approves (core/trust.py); deny rules are not in it: they always apply."""
    rules = data.get("permissions")
    allow = [r.text for r in rules.allow] if isinstance(rules, PermissionRules) else []
    mode = data.get("permission_mode")
    if not allow and mode is None:
        return None
    content = json.dumps({"allow": allow, "permission_mode": mode}, sort_keys=True)
    said = ([f"allow = {_toml_value(allow)}"] if allow else []) + (
        [f"permission_mode = {_toml_value(mode)}"] if mode is not None else [])
    details = tuple(f"allow {rule} without asking" for rule in allow)
    if mode is not None:
        details += (f"permission mode {mode}" + (": every tool call runs unasked" if mode == "bypass" else ""),)
    return trust.Item(kind, content, f"{' and '.join(said)} in {path}", details)


ENDPOINT_KEYS = ("provider", "base_url", "api_key")


def _endpoint_item(data: dict[str, Any], path: Path) -> trust.Item | None:
    """Where a project file would send the requests (and so the user's API key): a piece the user approves, as a
    checkout could otherwise point `base_url` at its own server and read the key from every request."""
    said = {k: data[k] for k in ENDPOINT_KEYS if k in data}
    if not said:
        return None
    details: list[str] = []
    if "base_url" in said:
        details.append(f"send every request, with your API key, to {said['base_url']}")
    if "provider" in said:
        details.append(f"speak the {said['provider']} protocol")
    if "api_key" in said:
        details.append("use an API key of its own")
    shown = ", ".join(f"{k} = {_toml_value(said[k])}" if k != "api_key" else "api_key" for k in said)
    return trust.Item("endpoint", json.dumps(said, sort_keys=True), f"{shown} in {path}",
                      (*details, "(takes effect at the next start)"))


CHOICE_KEYS = ("model", "summary_model")


def _model_item(data: dict[str, Any], path: Path) -> trust.Item | None:
    """The model a project file would run the requests on, with the user's key: a piece the user approves, as a
    checkout could otherwise move every call (or every summary) to the priciest model the key reaches."""
    said = {k: data[k] for k in CHOICE_KEYS if k in data}
    if not said:
        return None
    details = ([f"run every request on the model {said['model']}, billed to your key"] if "model" in said else [])
    if "summary_model" in said:
        details.append(f"write summaries with the model {said['summary_model']}, billed to your key")
    shown = ", ".join(f"{k} = {_toml_value(v)}" for k, v in said.items())
    return trust.Item("model", json.dumps(said, sort_keys=True), f"{shown} in {path}",
                      (*details, "(takes effect at the next start)"))


RuleSource = Literal["user", "project", "local"]


def _rule_paths(root: Path, home: Path) -> tuple[tuple[RuleSource, Path, str | None], ...]:
    """The three config files in load order: where each is shown as coming from, its path, and the trust kind its
    widening part waits under (None: the user's own file, never asked about)."""
    return (("user", home / "config.toml", None), ("project", root / ".contextual" / "config.toml", "permissions"),
            ("local", local_config_path(root), "local_permissions"))


@dataclass(frozen=True)
class RuleFile:
    """One config file's `[permissions]` as it reads now. `waiting`: its widening part not approved yet (its allow
    rules are inert until then; core/trust.py); `problem`: the file cannot be read, so its rules are unknown."""
    source: RuleSource
    path: Path
    rules: PermissionRules
    waiting: trust.Item | None = None
    problem: str = ""


def _permissions_waiting(data: dict[str, Any], path: Path, kind: str | None, home: Path, root: Path,
                         env: Mapping[str, str] | None) -> trust.Item | None:
    """A project file's widening part (its allow rules, its permission_mode) while the user has not approved it:
    inert until then. None for the user's own file (`kind` None) and for one approved or holding none."""
    item = _permission_item(data, path, kind) if kind is not None else None
    return item if item is not None and not trust.gate(home, root, item, env) else None


def rule_files(project_root: Path, home: Path, env: Mapping[str, str] | None = None) -> tuple[RuleFile, ...]:
    """Each config file's rules and whether its allow rules wait for approval, judged as load_config judges them."""
    root = Path(project_root).resolve()
    out: list[RuleFile] = []
    for source, path, kind in _rule_paths(root, home):
        try:
            data = _read_toml(path)
        except ConfigError as exc:
            out.append(RuleFile(source, path, PermissionRules(), problem=str(exc)))
            continue
        rules = data.get("permissions")
        waiting = _permissions_waiting(data, path, kind, home, root, env)
        out.append(RuleFile(source, path, rules if isinstance(rules, PermissionRules) else PermissionRules(), waiting))
    return tuple(out)


def rules_in_force(project_root: Path, home: Path, env: Mapping[str, str] | None = None
                   ) -> tuple[PermissionRules, PermissionRules]:
    """The rules of the three files as load_config puts them in force now, and as they would be once the project's
    waiting parts are approved (ConfigError: a file cannot be read)."""
    root, env = Path(project_root).resolve(), os.environ if env is None else env
    now, approved = (project_files(root, home, env, honour_all)[0].get("permissions", PermissionRules())
                     for honour_all in (False, True))
    return now, approved


def hooks_in_force(project_root: Path, home: Path, env: Mapping[str, str] | None = None) -> Hooks:
    """The `[hooks]` of the three files as load_config puts them in force now: a project's own held back
    (`approved=False`) unless approved as they read (core/trust.py). ConfigError: a file cannot be read."""
    root, env = Path(project_root).resolve(), os.environ if env is None else env
    hooks: Hooks = project_files(root, home, env, honour_all=False)[0]["hooks"]
    secrets.remember(*(found for hook in hooks.hooks for found in credentials.in_command(hook.command)))
    return hooks


def project_files(root: Path, home: Path, env: Mapping[str, str], honour_all: bool,
                  given: frozenset[str] = frozenset()) -> tuple[dict[str, Any], dict[str, Any], list[trust.Item]]:
    """The settings of the three files merged (user, project, local), the models' tables, and the project's
    widening pieces left out for want of approval (kept in when `honour_all`). `given`: the settings the user set
    by flag or environment, which win anyway: a project's model choice they all override is not said as skipped."""
    files: dict[str, Any] = {}
    models: dict[str, Any] = {}
    rules: list[PermissionRules] = []
    unapproved: list[trust.Item] = []
    user_hooks, project_hooks = Hooks(), Hooks()
    # The project's files may have come with the checkout: the committed one, and a config.local.toml a repository
    # could ship too (rules "allow always" writes there are approved as written: approve_local_rules).
    gated = {path: kind for _, path, kind in _rule_paths(root, home) if kind is not None}
    for path in (home / "config.toml", *gated):
        data = _read_toml(path)
        item = None if honour_all else _permissions_waiting(data, path, gated.get(path), home, root, env)
        if item is not None:
            unapproved.append(item)
            if isinstance(data.get("permissions"), PermissionRules):
                data["permissions"] = PermissionRules((), data["permissions"].deny)
            data.pop("permission_mode", None)
        endpoint = _endpoint_item(data, path) if path in gated else None
        if endpoint is not None and not honour_all and not trust.gate(home, root, endpoint, env):
            unapproved.append(endpoint)
            for key in ENDPOINT_KEYS:
                data.pop(key, None)
        choice = _model_item(data, path) if path in gated else None
        if choice is not None and not honour_all and not trust.gate(home, root, choice, env):
            if not set(CHOICE_KEYS).intersection(data) <= given:
                unapproved.append(choice)
            for key in CHOICE_KEYS:
                data.pop(key, None)
        if "hooks" in data:
            if path in gated:
                project_hooks = project_hooks + data.pop("hooks")
            else:
                user_hooks = user_hooks + data.pop("hooks")
        for name, table in data.pop("models", {}).items():   # the project's entry for a model wins per field
            models[name] = {**models.get(name, {}), **table} if isinstance(table, dict) else table
        if "permissions" in data:                            # rules add up across the files (deny still wins)
            rules.append(data.pop("permissions"))
        files.update(data)
    if rules:
        files["permissions"] = PermissionRules(tuple(dict.fromkeys(r for p in rules for r in p.allow)),
                                               tuple(dict.fromkeys(r for p in rules for r in p.deny)))
    if project_hooks:       # commands a checkout would run on our events: the user approves them first
        files = dict.fromkeys(hook.source for hook in project_hooks.hooks)     # the files, not their folder
        item = trust.Item("hooks", project_hooks.content(), f"hooks in {' and '.join(files)}",
                          tuple(h.describe() for h in project_hooks.hooks))
        if not honour_all and not trust.gate(home, root, item, env):
            unapproved.append(item)
            project_hooks = project_hooks.held_back()
    files["hooks"] = user_hooks + project_hooks
    return files, models, unapproved


def local_rules_item(project_root: Path) -> trust.Item | None:
    """The widening content of the project's config.local.toml as it reads now (None: it widens nothing)."""
    path = local_config_path(Path(project_root).resolve())
    return _permission_item(_read_toml(path), path, "local_permissions")


def approve_local_rules(home: Path, project_root: Path, before: trust.Item | None) -> bool:
    """The user's own "allow always" just wrote the local file: its widening content is theirs, approved as it
    now reads (core/trust.py), so it is not asked about at the next launch — only when what the file held `before`
    was approved too (or widened nothing): a checkout's shipped rules are not approved by a click on another one.
    Returns whether it approved."""
    if before is not None and not trust.gate(home, Path(project_root).resolve(), before):
        return False
    item = local_rules_item(project_root)
    if item is not None:
        trust.approve(home, Path(project_root), item.kind, item.content)
    return True
