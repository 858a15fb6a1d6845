"""Settings, resolved flags > environment > project config > user config > defaults (CONTRACT)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, Mapping

from contextual.core import credentials, secrets, trust
from contextual.core.config_text import ConfigTextError, parse_toml, read_config_text, unknown_keys
from contextual.core.hooks import Hooks, parse_hooks
from contextual.core import window_budget as budget
from contextual.core.permission_rules import PermissionRules, RuleError


class ConfigError(Exception):
    """A setting is missing or malformed; the message is one line a user can act on."""


PERMISSION_MODES = ("default", "accept-edits", "plan", "bypass")
# Our permission modes in Claude Code's names: a hook's `permission_mode` gets them, and a flag, variable or config
# file may use them (`--permission-mode acceptEdits` was refused though hooks are told `acceptEdits`); ours stay
# the names shown and recorded.
CLAUDE_MODES = {"default": "default", "accept-edits": "acceptEdits", "plan": "plan", "bypass": "bypassPermissions"}
MODE_ALIASES = {claude: ours for ours, claude in CLAUDE_MODES.items() if claude != ours}
PROVIDERS = ("openai", "anthropic")
ANTHROPIC_BASE_URL = "https://api.anthropic.com"      # the anthropic provider's endpoint when none is set


@dataclass(frozen=True)
class Config:
    project_root: Path
    home: Path
    provider: str = "openai"
    base_url: str | None = None
    model: str | None = None
    api_key: str | None = field(default=None, repr=False)
    context_window: int = 200_000
    # The user's output_reserve (None: scaled with the window, core/window_budget.py: auto_reserve) and the model's
    # own output limit where the model table knows it; `output_reserve` below is what is reserved.
    reserve_setting: int | None = None
    output_limit: int | None = None
    summary_timeout: float = 120.0
    keep_rounds: int = 10
    permission_mode: str = "default"
    max_steps: int = 50
    max_retries: int = 4                # attempts after the first when a call fails transiently (0: none)
    summary_model: str | None = None
    auto_compact: bool = True
    compaction_preview: bool = False      # issue 19.1: automatic compactions wait for the user's review too
    warn_ratio: float = 0.7
    trigger_ratio: float = 0.8
    snapshot_keep: int = 50             # ghost snapshots: the newest N turns are kept ...
    snapshot_max_age_days: float = 30.0  # ... and none older than this (issue 16.5)
    # Where context_window came from: "flag", "env", "config" (the user's: detection never overrides them),
    # "default", or what core.model_facts found ("server: llama.cpp /props", "table").
    window_source: str = "default"
    # The window probe had no answer at all (the server was down at launch): the window is the table's or the
    # default, said so, and the server is asked again after the first call that succeeds (Settings.recheck_window).
    server_unreached: bool = False
    # The window (and its source) that a window a server stated in its error replaced, this run or an earlier one
    # (core/server_windows.py keeps it per server and model for the next runs).
    window_replaced: tuple[int, str] | None = None
    # The window is Ollama's default num_ctx, not one the server stated: asked again, like an unreached server's,
    # after the first call that succeeds (the model is loaded then, and /api/ps states the window it runs with).
    window_guessed: bool = False
    # What the launch says about the window when where it came from needs words (the app's chat, -p's stderr).
    window_note: str | None = None
    # [models."NAME"] tables of the config files: window and prices per model (core.model_facts reads them).
    models: dict[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    # `[permissions]` allow/deny rules of the user and project files together (core/permission_rules.py).
    permissions: PermissionRules = field(default_factory=PermissionRules)
    # The project's committed widening pieces left inert for want of approval (core/trust.py), and the rules and
    # mode in force once they are approved (the app's approval applies them without reading the files again).
    unapproved: tuple[trust.Item, ...] = field(default=(), compare=False)
    # `[hooks]` of every config file (core/hooks.py), the project's held back until approved.
    hooks: Hooks = field(default_factory=Hooks, compare=False)
    if_approved: tuple[PermissionRules, str] | None = field(default=None, compare=False)

    @property
    def trust_notices(self) -> tuple[str, ...]:
        return tuple(item.skipped(self.project_root) for item in self.unapproved)

    @property
    def window_explicit(self) -> bool:
        return self.window_source in ("flag", "env", "config")

    def with_window(self, window: int, source: str) -> "Config":
        """The same settings with a window found elsewhere (the reserve follows it: output_reserve)."""
        return replace(self, context_window=window, window_source=source)

    @property
    def output_reserve(self) -> int:
        """The answer's reserve: the user's when it leaves a prompt room, else scaled with the window."""
        return budget.answer_reserve(self.context_window, self.reserve_setting, self.output_limit)

    @property
    def reserve_problem(self) -> str | None:
        """One line when the user's output_reserve leaves this window no room for a prompt (then unused)."""
        return budget.reserve_problem(self.context_window, self.reserve_setting)

    @property
    def reserve_notice(self) -> str | None:
        """The line shown when a detected window overrode the user's output_reserve (a window the user set too
        is a start error instead: load_config)."""
        problem = self.reserve_problem
        return None if problem is None else f"{problem}; using {self.output_reserve:,} for now"

    @property
    def threshold(self) -> int:
        """A6/E5 and issue 24: compact at trigger_ratio × window, or earlier where the reserve demands it."""
        return budget.compaction_threshold(self.context_window, self.output_reserve, self.trigger_ratio)

    @property
    def reply_max_tokens(self) -> int:
        """A step's max_tokens: the answer's reserve, at most 8,192 (a ReAct step is one thought and one action;
        the live turn and `export --as-sent` ask the same)."""
        return min(self.output_reserve, REPLY_MAX_TOKENS)

    @property
    def prompt_limit(self) -> int:
        """What any single prompt may use: the window minus the answer's reserve."""
        return max(1, self.context_window - self.output_reserve)

    @property
    def effective_summary_model(self) -> str | None:
        return self.summary_model or self.model

    def missing_model_message(self) -> str | None:
        """One line naming exactly what to set, or None when a model is configured."""
        if not self.model:
            return (f"no model configured: set CONTEXTUAL_MODEL (or pass --model, or put model = \"...\" in "
                    f"{self.home / 'config.toml'} or .contextual/config.toml)")
        if not self.base_url:
            # the project's own endpoint, skipped for want of approval, is named: else its base_url seems ignored
            skipped = [item.skipped(self.project_root) for item in self.unapproved if item.kind == "endpoint"]
            return (f"no endpoint configured: set CONTEXTUAL_BASE_URL (or pass --base-url, or put base_url = \"...\" "
                    f"in {self.home / 'config.toml'}), e.g. http://localhost:11434/v1 for Ollama"
                    + "".join(f"; {line}" for line in skipped))
        return None


REPLY_MAX_TOKENS = 8192

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

ENV_NAMES = {
    "provider": "CONTEXTUAL_PROVIDER",
    "base_url": "CONTEXTUAL_BASE_URL",
    "model": "CONTEXTUAL_MODEL",
    "api_key": "CONTEXTUAL_API_KEY",
    "context_window": "CONTEXTUAL_CONTEXT_WINDOW",
    "summary_timeout": "CONTEXTUAL_SUMMARY_TIMEOUT",
    "keep_rounds": "CONTEXTUAL_KEEP_ROUNDS",
    "permission_mode": "CONTEXTUAL_PERMISSION_MODE",
    "max_steps": "CONTEXTUAL_MAX_STEPS",
    "summary_model": "CONTEXTUAL_SUMMARY_MODEL",
    "auto_compact": "CONTEXTUAL_AUTO_COMPACT",
    "trigger_ratio": "CONTEXTUAL_TRIGGER_RATIO",
    "max_retries": "CONTEXTUAL_MAX_RETRIES",
}


def default_home(env: Mapping[str, str]) -> Path:
    return Path(env.get("CONTEXTUAL_HOME") or Path.home() / ".contextual").expanduser()


def local_config_path(project_root: Path) -> Path:
    """The project's local settings: the user's own (written by "allow always"), kept out of git, so read as
    trusted like the user-level file — unlike the committed .contextual/config.toml a checkout brings."""
    return Path(project_root) / ".contextual" / "config.local.toml"


def _coerce(key: str, value: Any, source: str) -> Any:
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
    if not path.is_file():
        return {}
    try:
        data = parse_toml(read_config_text(path), path)
    except ConfigTextError as exc:
        raise ConfigError(str(exc)) from None
    unknown = set(data) - SETTINGS
    if unknown:
        raise ConfigError(f"unknown key(s) in {path}: {unknown_keys(unknown, SETTINGS)}")
    _check_models(data.get("models", {}), path)
    out = {k: v if k in TABLES else _coerce(k, v, str(path)) for k, v in data.items()
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


def _from_env(env: Mapping[str, str], provider: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    # The ecosystem's own names first (of the provider in force), so the CONTEXTUAL_ ones win over them.
    eco_key = secrets.key_variables(provider)[1]
    eco_url = "ANTHROPIC_BASE_URL" if provider == "anthropic" else "OPENAI_BASE_URL"
    if env.get(eco_key):
        out["api_key"] = env[eco_key]
    if env.get(eco_url):
        out["base_url"] = env[eco_url]
    for key, name in ENV_NAMES.items():
        if env.get(name) not in (None, ""):
            out[key] = _coerce(key, env[name], name)
    return out


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
    now, approved = (_project_files(root, home, env, honour_all)[0].get("permissions", PermissionRules())
                     for honour_all in (False, True))
    return now, approved


def hooks_in_force(project_root: Path, home: Path, env: Mapping[str, str] | None = None) -> Hooks:
    """The `[hooks]` of the three files as load_config puts them in force now: a project's own held back
    (`approved=False`) unless approved as they read (core/trust.py). ConfigError: a file cannot be read."""
    root, env = Path(project_root).resolve(), os.environ if env is None else env
    hooks: Hooks = _project_files(root, home, env, honour_all=False)[0]["hooks"]
    secrets.remember(*(found for hook in hooks.hooks for found in credentials.in_command(hook.command)))
    return hooks


def _project_files(root: Path, home: Path, env: Mapping[str, str], honour_all: bool
                   ) -> tuple[dict[str, Any], dict[str, Any], list[trust.Item]]:
    """The settings of the three files merged (user, project, local), the models' tables, and the project's
    widening pieces left out for want of approval (kept in when `honour_all`)."""
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


def load_config(project_root: Path, flags: Mapping[str, Any] | None = None,
                env: Mapping[str, str] | None = None) -> Config:
    """Resolve every setting; flags whose value is None count as not given."""
    env = os.environ if env is None else env
    flags = {k: v for k, v in (flags or {}).items() if v is not None}
    root = Path(project_root).resolve()
    home = default_home(env)
    files, models, unapproved = _project_files(root, home, env, honour_all=False)
    provider = str(flags.get("provider") or env.get("CONTEXTUAL_PROVIDER") or files.get("provider") or "openai")
    from_env = _from_env(env, provider)
    merged = {**files, **from_env}
    merged.update({k: _coerce(k, v, "--" + k.replace("_", "-")) for k, v in flags.items() if k in KNOWN_KEYS | {"output_reserve"}})
    merged["window_source"] = ("flag" if "context_window" in flags else "env" if "context_window" in from_env
                               else "config" if "context_window" in files else "default")
    merged["models"] = models
    if "output_reserve" in merged:
        merged["reserve_setting"] = merged.pop("output_reserve")
    merged["unapproved"] = tuple(unapproved)
    if unapproved:      # what approving in the app would change: the rules and the mode, with the usual precedence
        widened = {**_project_files(root, home, env, honour_all=True)[0], **from_env}
        widened.update({k: v for k, v in flags.items() if k == "permission_mode"})
        merged["if_approved"] = (widened.get("permissions", PermissionRules()),
                                 str(widened.get("permission_mode", Config.permission_mode)))
    cfg = Config(project_root=root, home=home, **{k: v for k, v in merged.items() if k in {f.name for f in fields(Config)}})
    secrets.remember_environment(env)          # every key variable and shell token seen, not only the key used
    # http://user:pass@…, …?key=…; a hook's `-H "Authorization: Bearer …"` (its command is shown when it fails)
    secrets.remember(cfg.api_key, *credentials.in_url(cfg.base_url or ""),
                     *(found for hook in cfg.hooks.hooks for found in credentials.in_command(hook.command)))
    if cfg.api_key is not None and cfg.api_key != cfg.api_key.strip():    # " sk-…", "sk-…\r" from a CRLF .env file
        cfg = replace(cfg, api_key=cfg.api_key.strip())
    if cfg.api_key and not all("!" <= c <= "~" for c in cfg.api_key):
        # Two keys pasted on two lines, a key with a space or a curly quote: the header fails and httpx's error
        # quoted it whole (the newline defeats redaction). Said once, without the key.
        raise ConfigError("the API key holds a line break, a space or a character outside printable ASCII, which "
                          "no HTTP header can carry: check CONTEXTUAL_API_KEY (or the provider's key variable)")
    if cfg.provider not in PROVIDERS:
        raise ConfigError(f"unknown provider {cfg.provider!r}: use one of {', '.join(PROVIDERS)}")
    if cfg.permission_mode not in PERMISSION_MODES:
        raise ConfigError(f"unknown permission mode {cfg.permission_mode!r}: use one of {', '.join(PERMISSION_MODES)}")
    if cfg.provider == "anthropic" and not cfg.base_url:
        cfg = replace(cfg, base_url=ANTHROPIC_BASE_URL)
    if cfg.window_explicit and cfg.reserve_problem:     # both the user's: say so rather than guess
        raise ConfigError(cfg.reserve_problem)
    return cfg
