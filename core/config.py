"""Settings, resolved flags > environment > project config > user config > defaults (CONTRACT)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

from contextual.core import credentials, secrets, trust
from contextual.core import window_budget as budget
from contextual.core.config_files import KNOWN_KEYS, PERMISSION_MODES, coerce, project_files
# Re-exported: the error load_config raises, for its many callers
from contextual.core.config_files import ConfigError as ConfigError
from contextual.core.hooks import Hooks
from contextual.core.permission_rules import PermissionRules

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
            # the project's own model, skipped for want of approval, is named: else its model seems ignored
            skipped = [item.skipped(self.project_root) for item in self.unapproved if item.kind == "model"]
            return (f"no model configured: set CONTEXTUAL_MODEL (or pass --model, or put model = \"...\" in "
                    f"{self.home / 'config.toml'} or .contextual/config.toml)"
                    + "".join(f"; {line}" for line in skipped))
        if not self.base_url:
            # the project's own endpoint, skipped for want of approval, is named: else its base_url seems ignored
            skipped = [item.skipped(self.project_root) for item in self.unapproved if item.kind == "endpoint"]
            return (f"no endpoint configured: set CONTEXTUAL_BASE_URL (or pass --base-url, or put base_url = \"...\" "
                    f"in {self.home / 'config.toml'}), e.g. http://localhost:11434/v1 for Ollama"
                    + "".join(f"; {line}" for line in skipped))
        return None


REPLY_MAX_TOKENS = 8192

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
            out[key] = coerce(key, env[name], name)
    return out


def load_config(project_root: Path, flags: Mapping[str, Any] | None = None,
                env: Mapping[str, str] | None = None) -> Config:
    """Resolve every setting; flags whose value is None count as not given."""
    env = os.environ if env is None else env
    flags = {k: v for k, v in (flags or {}).items() if v is not None}
    root = Path(project_root).resolve()
    home = default_home(env)
    # the user's own model choice (flag, environment) wins over a project's: that one is moot, not skipped aloud
    given = frozenset(k for k in ("model", "summary_model") if flags.get(k) or env.get(ENV_NAMES[k]))
    files, models, unapproved = project_files(root, home, env, honour_all=False, given=given)
    provider = str(flags.get("provider") or env.get("CONTEXTUAL_PROVIDER") or files.get("provider") or "openai")
    from_env = _from_env(env, provider)
    merged = {**files, **from_env}
    merged.update({k: coerce(k, v, "--" + k.replace("_", "-")) for k, v in flags.items() if k in KNOWN_KEYS | {"output_reserve"}})
    merged["window_source"] = ("flag" if "context_window" in flags else "env" if "context_window" in from_env
                               else "config" if "context_window" in files else "default")
    merged["models"] = models
    if "output_reserve" in merged:
        merged["reserve_setting"] = merged.pop("output_reserve")
    merged["unapproved"] = tuple(unapproved)
    if unapproved:      # what approving in the app would change: the rules and the mode, with the usual precedence
        widened = {**project_files(root, home, env, honour_all=True)[0], **from_env}
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
