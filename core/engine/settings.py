"""The config in force and the model's providers: one object that every part of an engine reads, and that the
app's host shares with every engine it opens (`/clear`, `/resume`), so no copy is ever kept in sync by hand."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from contextual.core.config import Config
from contextual.core.hooks import Hooks

if TYPE_CHECKING:      # the app's host makes its Settings before the first frame; providers load with connect()
    from contextual.core.providers.base import ListedModel, Provider


@dataclass(frozen=True)
class Launched:
    """What the user configured, read again later: the window before any was found for a model (a model without a
    window of its own starts from it) and the mode (whether shift+tab's cycle reaches bypass)."""
    context_window: int
    window_source: str
    permission_mode: str

    @classmethod
    def of(cls, config: Config) -> Launched:
        return cls(config.context_window, config.window_source, config.permission_mode)


class Settings:
    def __init__(self, config: Config, provider: Provider | None, summary_provider: Provider | None = None) -> None:
        self.config = config
        self.provider = provider
        self.summary_provider = summary_provider or provider
        self._launched = Launched.of(config)

    async def set_model(self, model: str) -> None:
        """`/model NAME`: the next calls use it, and its own window (the user's setting, else the server's, else
        the model table's, as at startup); prices follow the name (`model_facts.cost`). Summaries follow too,
        unless set apart (`summary_model`)."""
        from contextual.core.model_facts import resolve_window
        config = replace(self.config, model=model)
        if not config.window_explicit:      # the old model's window is not the new one's
            launched = self._launched
            config = await resolve_window(replace(config, context_window=launched.context_window,
                                                  window_source=launched.window_source))
        self.config = config
        if self.provider is None and config.missing_model_message() is None:   # the first model of this run
            import asyncio

            from contextual.core.providers.factory import make_provider
            self.provider = self.summary_provider = await asyncio.to_thread(make_provider, config)

    async def recheck_window(self) -> str | None:
        """After a call that succeeded: a server that did not answer at launch (not started yet), or Ollama whose
        window was its default num_ctx (the model loads at the first call, then /api/ps states it), is asked for its
        window once more, as the launch would have; a window other than the one in use is taken for the rest of
        this run. Returns the line that says so, or None (asked once: a server that answers calls but states no
        window is not asked at every step)."""
        before = self.config
        if not (before.server_unreached or before.window_guessed):
            return None
        from contextual.core.model_facts import recheck_note, resolve_window
        launched = self._launched
        found = await resolve_window(replace(before, context_window=launched.context_window,
                                             window_source=launched.window_source))
        self.config = replace(self.config, server_unreached=False, window_guessed=False)
        if found.window_source.startswith("server") and found.context_window != before.context_window:
            self.config = replace(self.config, context_window=found.context_window,
                                  window_source=found.window_source, output_limit=found.output_limit,
                                  window_replaced=found.window_replaced)
            return recheck_note(before, found)
        return None

    def take_server_window(self, window: int) -> str:
        """The rest of this run uses the window a server stated when it rejected a prompt (a setting larger than the
        server was started with: llama.cpp's `-c 4096`, Ollama's num_ctx), and the next runs start with it
        (core/server_windows.py); returns the line that says so."""
        from contextual.core import server_windows
        from contextual.core.model_facts import smaller_window_note
        before = self.config
        server_windows.remember(before, window)
        self.config = replace(before.with_window(window, server_windows.TAKEN_SOURCE), window_guessed=False,
                              window_replaced=before.window_replaced or (before.context_window,
                                                                         before.window_source))
        return smaller_window_note(before, window)

    async def list_models(self) -> list[ListedModel]:
        """The models the server lists (with the window each entry states), also before any model is chosen (a
        provider made only to ask); a server without a listing is a ProviderError of one line."""
        from contextual.core.providers.base import ProviderError
        provider, asking = self.provider, None
        if provider is None:
            if not self.config.base_url and self.config.provider != "anthropic":
                raise ProviderError(self.config.missing_model_message() or "no endpoint configured")
            import asyncio

            from contextual.core.providers.factory import make_provider
            provider = asking = await asyncio.to_thread(make_provider, self.config)
        try:
            lister = getattr(provider, "list_models", None)
            if lister is None:
                raise ProviderError("this provider cannot list its models")
            return list(await lister())
        finally:
            if asking is not None:
                await asking.aclose()

    def cycle_permission_mode(self) -> str:
        """The next permission mode (``permissions.next_mode``; bypass only when configured so), in force for
        the next tool call of every engine sharing these settings; returns it."""
        from contextual.core.permissions import next_mode
        mode = next_mode(self.config.permission_mode, self._launched.permission_mode)
        self.config = replace(self.config, permission_mode=mode)
        return mode

    def accept_edits(self) -> None:
        """From the permission dialog: file edits run without asking for the rest of this run (Claude Code's
        "allow all edits during this session"), as shift+tab's accept-edits does."""
        self.config = replace(self.config, permission_mode="accept-edits")

    def leave_plan(self, mode: str) -> None:
        """The user approved the plan a plan-mode turn answered with: its work runs in `mode`, asking before edits
        (default) or not (accept-edits); never wider, as a key press never widens to bypass."""
        if mode not in ("default", "accept-edits"):
            raise ValueError(f"a plan is carried out in default or accept-edits mode, not {mode}")
        self.config = replace(self.config, permission_mode=mode)

    def reload_hooks(self) -> Hooks:
        """The hooks as the config files say now, for the next event of every engine sharing these settings (/hooks
        re-reads them when it opens: edits apply without a restart, once seen). A project's hook runs as at launch,
        only approved as it reads (core/trust.py), or identical to one running now (an approval the trust store
        could not keep holds for this run). ConfigError (a file cannot be read): the hooks stay as they were."""
        from contextual.core.config_files import hooks_in_force
        running = {h.key for h in self.config.hooks.hooks if h.approved}
        read = hooks_in_force(self.config.project_root, self.config.home)
        hooks = Hooks(tuple(replace(h, approved=h.approved or h.key in running) for h in read.hooks),
                      read.notes)
        self.config = replace(self.config, hooks=hooks)
        return hooks

    def connect(self, config: Config, provider: Provider | None) -> None:
        """The window found at startup and the provider (the app opens its engine before asking the server)."""
        # The permissions in force win over those of the config the caller read: the user may have approved the
        # project's rules (approve_project) while the server was being asked.
        self.config = replace(config, permissions=self.config.permissions, permission_mode=self.config.permission_mode,
                              unapproved=self.config.unapproved, if_approved=self.config.if_approved,
                              hooks=self.config.hooks)
        self.provider = self.summary_provider = provider

    def reload_rules(self) -> None:
        """The `[permissions]` rules as the config files say now, the project's widening ones only where approved
        (core/config_files.py: rules_in_force), for the next tool call of every engine sharing these settings: the
        config is read once at launch, and /permissions changes a file. ConfigError (a file cannot be read): the
        rules stay as they were."""
        from contextual.core.config_files import rules_in_force
        now, approved = rules_in_force(self.config.project_root, self.config.home)
        waiting = self.config.if_approved          # what approving at the trust question would put in force
        self.config = replace(self.config, permissions=now,
                              if_approved=None if waiting is None else (approved, waiting[1]))

    def approve_project(self) -> None:
        """The user approved the project's widening rules and mode (core/trust.py): they apply from now on."""
        if self.config.if_approved is None:
            return
        rules, mode = self.config.if_approved
        self.config = replace(self.config, permissions=rules, permission_mode=mode, unapproved=(), if_approved=None,
                              hooks=self.config.hooks.all_approved())
        self._launched = replace(self._launched, permission_mode=mode)     # the project's mode, as if launched so
