"""Wiring shared by the headless run and the app: provider, session (new or resumed), snapshots, engine.

One implementation: `contextual -p` calls ``open_engine``; the app (tui/host.py) builds its engine with
``new_engine`` and attaches a session lazily with ``open_writer`` / ``restore_into`` — the same functions.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable

from contextual.core import secrets
from contextual.core.agent import Engine
from contextual.core.config import Config, ConfigError
from contextual.core.engine.settings import Settings
from contextual.core.ports import SessionSink, SnapshotHook
from contextual.core.providers.base import Provider

if TYPE_CHECKING:       # loaded where a session is opened: `-p` without one never imports them
    from contextual.core.session.loader import LoadedSession
    from contextual.core.session.writer import SessionWriter
    from contextual.core.snapshot.ghost import GhostSnapshots


def session_path(config: Config, resume_id: str | None, continue_latest: bool) -> Path | None:
    """The session file to resume (None: a new session); a one-line ConfigError when there is none."""
    from contextual.core.session import find_session, latest_session
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


def make_provider(config: Config) -> Provider | None:
    """The configured provider, or None when no model is configured yet (the app still opens)."""
    if config.missing_model_message() is not None:
        return None
    from contextual.core.providers.factory import make_provider as factory
    return factory(config)


def new_engine(settings: Settings, *, interactive: bool = True) -> Engine:
    """An engine on shared settings (the app's host opens every session's engine on its own)."""
    return Engine(settings.config, settings.provider, interactive=interactive, settings=settings)


def open_writer(config: Config, path: Path | None = None) -> tuple[SessionWriter, GhostSnapshots]:
    """A locked SessionWriter (new, or appending to ``path``) and its ghost snapshots.

    Raises SessionError with one line naming the path and the cause (SessionLocked when another process holds it);
    an unwritable home (read-only, full, no permission) is a SessionError too, never a traceback."""
    from contextual.core.session import SessionError, SessionWriter
    keys = list(secrets.known())
    try:
        writer = (SessionWriter.reopen(path, secrets=keys) if path is not None
                  else SessionWriter.create(config.home, config.project_root, secrets=keys))
    except OSError as exc:
        where = exc.filename or path or config.home
        raise SessionError(f"cannot write the session under {where}: {exc.strerror or exc}") from None
    return writer, _snapshots(config, writer)


def open_fork(config: Config, loaded: LoadedSession) -> tuple[SessionWriter, GhostSnapshots]:
    """A new session holding a copy of ``loaded`` as it was read (core/session/fork.py), and its ghost snapshots:
    for a session another process holds, so that what is said here keeps its past and never writes there.
    Raises SessionError (one line) as ``open_writer`` does."""
    from contextual.core.session import SessionError
    from contextual.core.session.fork import fork_session
    try:
        writer = fork_session(config.home, config.project_root, loaded.path, entries=loaded.entries)
    except OSError as exc:
        raise SessionError(f"cannot write the session under {exc.filename or config.home}: "
                           f"{exc.strerror or exc}") from None
    return writer, _snapshots(config, writer)


def _snapshots(config: Config, writer: SessionWriter) -> GhostSnapshots:
    from contextual.core.snapshot.ghost import GhostSnapshots
    return GhostSnapshots(config.project_root, writer.session_id, config.home, keep=config.snapshot_keep,
                          max_age_days=config.snapshot_max_age_days)


def attach(engine: Engine, writer: SessionSink | None, snapshots: SnapshotHook | None) -> None:
    """For the app, which opens a session only at the first input (so an idle launch leaves no file)."""
    engine.attach_session(writer, snapshots)


def restore_into(engine: Engine, loaded: LoadedSession) -> None:
    """Put a loaded session's history, usage, todos, compaction log, permission answers, why turns ended
    without an answer, how they were fitted to the window, the `!command` results owed to the next message and load
    warnings into a fresh engine."""
    usage = loaded.last_usage.total if loaded.last_usage is not None else None
    engine.restore(loaded.history, usage, loaded.todos, loaded.compactions, warnings=loaded.warnings,
                   calls=loaded.calls, stopped=loaded.stopped, failed=loaded.failed, cut=loaded.cut,
                   permissions=loaded.permissions, turn_ends=loaded.turn_ends, notes=loaded.notes,
                   fittings=loaded.fittings, shell=loaded.shell)
    engine.restore_pins(loaded.pins)


def window_problem(config: Config, text: str) -> str | None:
    """The window too small for L1 and ``text`` (PromptState.window_problem), asked before a session is opened:
    L1 without the MCP servers' tools, which the turn counts too."""
    return Engine(config, None, interactive=False).window_problem(text)


def engine_for_reading(config: Config, *, resume_id: str | None = None, continue_latest: bool = False) -> Engine:
    """A session's state as `open_engine` restores it, with no provider, no writer and no lock: for looking at
    the next prompt (`contextual context`) while the session may be open elsewhere."""
    from contextual.core.session import load_session
    path = session_path(config, resume_id, continue_latest)
    engine = Engine(config, None, interactive=False)
    if path is not None:
        restore_into(engine, load_session(path))
    return engine


async def open_engine(config: Config, *, resume_id: str | None = None, continue_latest: bool = False
                      ) -> tuple[Engine, Callable[[], Awaitable[None]]]:
    """Build a ready engine for `-p` (not interactive: MCP servers waited for); the returned closer flushes the
    session and closes the provider.

    A session held by another process is refused (ConfigError). A session that cannot be written (read-only or
    full home) is not: the engine runs without one and its first warning says the turn will not be saved."""
    from contextual.core.session import SessionError, SessionLocked, load_session
    provider = make_provider(config)
    path = session_path(config, resume_id, continue_latest)
    try:
        loaded = load_session(path) if path is not None else None
    except SessionError as exc:
        raise ConfigError(str(exc)) from None
    writer = snapshots = None
    unsaved: str | None = None
    try:
        writer, snapshots = open_writer(config, path)
    except SessionLocked as exc:
        raise ConfigError(str(exc)) from None
    except SessionError as exc:
        unsaved = f"this turn will not be saved: {exc}"
    engine = Engine(config, provider, session=writer, interactive=False, snapshots=snapshots)
    if loaded is not None:
        restore_into(engine, loaded)
    if unsaved:
        engine.warn(unsaved, first=True)
    if writer is not None:
        await writer.start()
    from contextual.core.mcp.manager import start_servers
    mcp = await start_servers(engine, config.project_root, config.home, wait=True)

    async def close() -> None:
        try:
            if mcp is not None:
                await mcp.close()
            if writer is not None:
                await writer.close()
        finally:
            if provider is not None:
                await provider.aclose()
    return engine, close
