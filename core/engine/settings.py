"""The config in force and the model's providers: one object that every part of an engine reads, and that the
app's host shares with every engine it opens (`/clear`, `/resume`), so no copy is ever kept in sync by hand."""

from __future__ import annotations

from dataclasses import replace

from contextual.core.config import Config
from contextual.core.providers.base import Provider


class Settings:
    def __init__(self, config: Config, provider: Provider | None, summary_provider: Provider | None = None) -> None:
        self.config = config
        self.provider = provider
        self.summary_provider = summary_provider or provider
        self._loaded = config          # as the user configured it, before any window was found for a model

    async def set_model(self, model: str) -> None:
        """`/model NAME`: the next calls use it, and its own window (the user's setting, else the server's, else
        the model table's, as at startup); prices follow the name (`model_facts.cost`). Summaries follow too,
        unless set apart (`summary_model`)."""
        from contextual.core.model_facts import resolve_window
        config = replace(self.config, model=model)
        if not config.window_explicit:      # the old model's window is not the new one's
            loaded = self._loaded
            config = await resolve_window(replace(config, context_window=loaded.context_window,
                                                  window_source=loaded.window_source))
        self.config = config

    def connect(self, config: Config, provider: Provider | None) -> None:
        """The window found at startup and the provider (the app opens its engine before asking the server)."""
        self.config = config
        self.provider = self.summary_provider = provider
