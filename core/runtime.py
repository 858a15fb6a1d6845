"""Wiring shared by the headless run and the app: provider, session (new or resumed), snapshots, engine."""

from __future__ import annotations

from pathlib import Path
from typing import Awaitable, Callable

from core.agent import Engine
from core.config import Config, ConfigError


def _session_path(config: Config, resume_id: str | None, continue_latest: bool) -> Path | None:
    from core.session import find_session, latest_session
    if resume_id:
        path = find_session(config.home, config.project_root, resume_id)
        if path is None:
            raise ConfigError(f"no session {resume_id} for {config.project_root} under {config.home / 'projects'}")
        return path
    if continue_latest:
        path = latest_session(config.home, config.project_root)
        if path is None:
            raise ConfigError(f"no earlier session for {config.project_root}: start one without -c")
        return path
    return None


async def open_engine(config: Config, *, resume_id: str | None = None, continue_latest: bool = False,
                      interactive: bool = True, provider=None) -> tuple[Engine, Callable[[], Awaitable[None]]]:
    """Build a ready engine; the returned closer flushes the session and closes the provider."""
    from core.session import SessionLocked, SessionWriter, load_session
    from core.snapshot.ghost import GhostSnapshots
    if provider is None and config.missing_model_message() is None:
        from core.providers.factory import make_provider
        provider = make_provider(config)
    secrets = [config.api_key] if config.api_key else []
    path = _session_path(config, resume_id, continue_latest)
    loaded = None
    try:
        if path is not None:
            loaded = load_session(path)
            writer = SessionWriter.reopen(path, secrets=secrets)
        else:
            writer = SessionWriter.create(config.home, config.project_root, secrets=secrets)
    except SessionLocked as exc:
        raise ConfigError(str(exc)) from None
    snapshots = GhostSnapshots(config.project_root, writer.session_id, config.home)
    engine = Engine(config, provider, session=writer, interactive=interactive, snapshots=snapshots)
    if loaded is not None:
        usage = loaded.last_usage.total if loaded.last_usage is not None else None
        engine.restore(loaded.history, usage, loaded.todos, loaded.compactions)
        engine.warnings = list(loaded.warnings)
    await writer.start()

    async def close() -> None:
        try:
            await writer.close()
        finally:
            if provider is not None:
                await provider.aclose()
    return engine, close
