"""The config in force and the model's providers: one object every part of the engine reads."""

from __future__ import annotations

from dataclasses import replace

from contextual.core.config import Config
from contextual.core.providers.base import Provider


class Settings:
    def __init__(self, config: Config, provider: Provider | None, summary_provider: Provider | None = None) -> None:
        self.config = config
        self.provider = provider
        self.summary_provider = summary_provider or provider

    def set_model(self, model: str) -> None:
        """`/model NAME`: the next calls use it; summaries follow unless set apart."""
        self.config = replace(self.config, model=model)

    def connect(self, config: Config, provider: Provider | None) -> None:
        """The window found at startup and the provider (the app opens its engine before asking the server)."""
        self.config = config
        self.provider = self.summary_provider = provider
