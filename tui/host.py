"""What the app asks of the outside world: engines, sessions on disk, undo.

The app only talks to a host, so tests can hand it a scripted one; ``RealHost`` wires the real engine,
provider, session writer and ghost snapshots. A session file is created at the first input, not at launch,
so opening and closing the app leaves no empty sessions behind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol

from contextual.core.config import Config
from contextual.core.messages import Message
from contextual.core.plural import plural
from contextual.tui.format import forked_line, short_id

if TYPE_CHECKING:       # the engine is imported where one is made: the app's first frame does not wait for it
    from contextual.core.agent import Engine
    from contextual.core.session import LoadedSession, SessionInfo, Tail
    from contextual.core.snapshot.turn_diff import TurnDiff
    from contextual.core.trust import Item

Confirm = Callable[[list[str]], Awaitable[bool]]     # asked before undo overwrites files edited by hand


@dataclass
class Opened:
    """An engine ready to use, with what the user should read about how it was opened: notices, the session's
    whole record (archived rounds included: the chat shows what was said, not the compacted history) and how many
    turns it already had (the scratchpad numbers on from there)."""
    engine: Engine
    notices: list[str] = field(default_factory=list)
    transcript: list[Message] = field(default_factory=list)
    turns_before: int = 0
    undoable: set[str] | None = None         # the turns /undo can take back, when the opening read them


class Host(Protocol):
    @property
    def config(self) -> Config: ...

    def new_engine(self) -> Opened: ...
    async def connect(self) -> None: ...                                 # the window and the provider, once
    def resume(self, session_id: str | None = None, path: Path | None = None) -> Opened: ...   # None: the latest
    def preview(self, path: Path, turns: int) -> Tail: ...             # a resumed session's first frame
    def list_sessions(self) -> list[SessionInfo]: ...
    def ensure_session(self, engine: Engine) -> str | None: ...       # what the user should read, if anything
    async def transcript(self, engine: Engine) -> list[Message]: ...
    async def undo(self, engine: Engine, confirm_overwrite: Confirm | None = None,
                   record: list[Message] | None = None) -> str: ...
    async def restore_turns(self, engine: Engine, turns: set[str], confirm_overwrite: Confirm | None = None,
                            record: list[Message] | None = None) -> list[str]: ...
    async def close(self, engine: Engine) -> None: ...
    # Project trust (core/trust.py): what the checkout's config asks for, the user's yes, and its lines said.
    def pending_trust(self) -> list[Item]: ...
    def approve_trust(self, engine: Engine, items: list[Item]) -> str | None: ...
    def forget_skipped(self, engine: Engine, items: list[Item]) -> None: ...


class RealHost:
    def __init__(self, config: Config) -> None:
        from contextual.core.engine.settings import Settings
        # The one config and provider of this app run, shared by every engine it opens; the provider comes with
        # connect(): the app's first frame does not wait for the server.
        self.settings = Settings(config, None)
        from contextual.core.mcp.config import config_files
        self.mcp = None        # one set per app run; without a config file the manager (and SDK) never loads
        if any(path.exists() for path in config_files(config.project_root, config.home)):   # a FIFO one is said
            from contextual.core.mcp.manager import MCPManager
            self.mcp = MCPManager.from_config(config.project_root, config.home) or None
        # Engines resumed from a session another process holds: their first input forks it (ensure_session)
        self._held: dict[Engine, LoadedSession] = {}

    @property
    def config(self) -> Config:
        return self.settings.config

    async def connect(self) -> None:
        """The server's window (asked once, 2 s at most) and the provider. httpx and the providers are imported in
        a thread (the app's event loop never waits for an import); the probes themselves are awaited here."""
        import asyncio

        from contextual.core.model_facts import resolve_window
        from contextual.core.runtime import make_provider
        await asyncio.to_thread(_import_network)
        config = await resolve_window(self.settings.config)
        self.settings.connect(config, await asyncio.to_thread(make_provider, config))

    def _engine(self) -> Engine:
        from contextual.core.runtime import new_engine
        engine = new_engine(self.settings)
        if self.mcp is not None:
            engine.attach_mcp(self.mcp)
        return engine

    def start_mcp(self, on_change: Any) -> None:
        """Start the MCP servers in the background (the app's loop); ``on_change`` hears every status change."""
        if self.mcp is not None:
            self.mcp.listeners.append(on_change)
            self.mcp.start()

    def pending_trust(self) -> list[Item]:
        """What the project's committed files would run or allow and the user has not approved (core/trust.py)."""
        return [*self.config.unapproved, *(self.mcp.unapproved if self.mcp is not None else [])]

    def approve_trust(self, engine: Engine, items: list[Item]) -> str | None:
        """The user approved `items` as shown: remember it, apply the rules, and take the project's servers (before
        start_mcp: none of this run's servers has started yet). Returns why the approval could not be remembered
        (it still holds for this run), or None."""
        from contextual.core import trust
        from contextual.core.mcp.manager import MCPManager
        problem = None
        try:
            trust.approve_items(self.config.home, self.config.project_root, items)
        except Exception as exc:       # an unwritable or locked home: used now, asked again next time
            problem = f"the approval holds for this run only: cannot write {self.config.home / 'trust.json'} ({exc})"
        self.forget_skipped(engine, items)
        self.settings.approve_project()
        if any(item.kind == "mcp_servers" for item in items):
            self.mcp = MCPManager.from_config(self.config.project_root, self.config.home, trusted=True) or None
            if self.mcp is not None:
                engine.attach_mcp(self.mcp)
        return problem

    def forget_skipped(self, engine: Engine, items: list[Item]) -> None:
        """The engine's own "not approved" warnings: the app says them itself once answered (or they no longer hold)."""
        engine.drop_warnings({item.skipped(self.config.project_root) for item in items})

    async def stop_mcp(self) -> None:
        if self.mcp is not None:
            self.mcp.listeners.clear()        # quitting: nobody needs to hear the servers stop
            await self.mcp.close()

    def stop_mcp_now(self) -> None:
        """stop_mcp from any thread, beside a loop that is stuck (tui/hangup.py)."""
        if self.mcp is not None:
            self.mcp.stop_now()

    def new_engine(self) -> Opened:
        return Opened(self._engine())

    def list_sessions(self) -> list[SessionInfo]:
        from contextual.core.session import list_sessions
        return list_sessions(self.config.home, self.config.project_root)

    def session_path(self, session_id: str | None = None) -> Path:
        """The session file `-r ID` (None: `-c`, this project's latest) names; LookupError when there is none."""
        from contextual.core.session import find_session, latest_session
        home, root = self.config.home, self.config.project_root
        path = find_session(home, root, session_id) if session_id else latest_session(home, root)
        if path is None:
            which = f"session {session_id}" if session_id else "previous session"
            raise LookupError(f"no {which} found for {root}")
        return path

    def preview(self, path: Path, turns: int) -> Tail:
        """The end of a session's record (its last ``turns`` turns), for the first frame of a resumed session."""
        from contextual.core.session import read_tail
        return read_tail(path, turns)

    def resume(self, session_id: str | None = None, path: Path | None = None) -> Opened:
        from contextual.core.runtime import attach, open_writer, restore_into
        from contextual.core.session import SessionError, SessionLocked, load_session
        loaded = load_session(path or self.session_path(session_id))
        engine = self._engine()
        restore_into(engine, loaded)
        notices = [f"resumed session {short_id(loaded.session_id)}: {plural(len(loaded.history), 'message')}, "
                   f"{plural(len(loaded.compactions), 'compaction')}"] + list(loaded.warnings)
        try:
            attach(engine, *open_writer(self.config, loaded.path))
        except SessionLocked as exc:
            # Two writers would interleave one file, and a new empty session would drop the past the model is
            # shown: what is sent here goes to a copy of it, made at the first input
            self._held[engine] = loaded
            notices.append(f"session {short_id(loaded.session_id)} is open in {exc.who}: what you send here goes to a "
                           "new session holding a copy of it (a fork); the original stays as it is there")
        except SessionError as exc:
            notices.append(f"read-only: {exc}")
        turns = sum(1 for m in loaded.full_record if m.starts_turn)
        from contextual.core.snapshot.plan import undoable_turns
        return Opened(engine, notices, list(loaded.full_record), turns, set(undoable_turns(loaded.entries)))

    def ensure_session(self, engine: Engine) -> str | None:
        """A session file for the engine's turns (raises SessionError when none can be written); returns what the
        user should read about it (a fork of a session held elsewhere), else None."""
        if engine.session is not None:
            return None
        from contextual.core.runtime import attach, open_fork, open_writer
        held = self._held.get(engine)
        if held is None:
            attach(engine, *open_writer(self.config))
            return None
        attach(engine, *open_fork(self.config, held))
        del self._held[engine]
        assert engine.session_id is not None
        return forked_line(held.session_id, engine.session_id, "this conversation goes on there")

    async def undo(self, engine: Engine, confirm_overwrite: Confirm | None = None,
                   record: list[Message] | None = None) -> str:
        """Undo the latest turn that changed files; returns what the user reads (its turn named from ``record``,
        the session's messages, when given). ``confirm_overwrite`` is asked (with the paths) before files edited by
        hand after that turn are overwritten."""
        from contextual.core.snapshot.git import GitError
        from contextual.core.snapshot.undo import UndoError, render_result, undo_in_open_session
        if engine.session is None:
            return "Nothing to undo: no turn has run in this session."
        try:
            result = await undo_in_open_session(self.config.project_root, engine.session,
                                                 confirm_overwrite=confirm_overwrite)
        except (UndoError, GitError, OSError) as exc:
            return f"undo failed: {exc}"
        if result.message is not None:      # the next prompt tells the model its changes are gone
            engine.add_message(result.message)
        return render_result(result, record or ())

    async def restore_turns(self, engine: Engine, turns: set[str], confirm_overwrite: Confirm | None = None,
                            record: list[Message] | None = None) -> list[str]:
        """Rewind's files: undo, newest first, every turn whose file changes can still be undone from the oldest of
        ``turns`` on, those an earlier conversation-only rewind took out of the conversation included (their
        changes are still on disk, and came after it); returns what the user reads, one block per turn."""
        from contextual.core.snapshot.git import GitError
        from contextual.core.snapshot.undo import UndoError, render_result, undo_in_open_session
        if engine.session is None:
            return []
        shown: list[str] = []
        undoable = await undoable_turns_ordered(engine)
        first = next((i for i, turn in enumerate(undoable) if turn in turns), None)
        for _ in range(0 if first is None else len(undoable) - first):
            try:
                result = await undo_in_open_session(self.config.project_root, engine.session,
                                                     confirm_overwrite=confirm_overwrite)
            except (UndoError, GitError, OSError) as exc:
                shown.append(f"undo failed: {exc}")
                break
            shown.append(render_result(result, record or ()))
            if result.turn_id is None:
                break
        return shown

    async def transcript(self, engine: Engine) -> list[Message]:
        """The session's whole record as written so far (archived rounds included), else the live history."""
        if engine.session is None:
            return list(engine.history.messages)
        import asyncio
        from contextual.core.session import load_session
        await engine.session.flush(fsync=False)
        path = engine.session.path
        return list(await asyncio.to_thread(lambda: load_session(path).full_record))

    async def close(self, engine: Engine) -> None:
        if engine is not None and engine.session is not None:
            await engine.session.close()
            engine.attach_session(None, None)

    async def aclose(self) -> None:
        if self.settings.provider is not None:
            await self.settings.provider.aclose()


def _import_network() -> None:
    import contextual.core.providers.factory  # noqa: F401  (httpx and both providers)
    import contextual.core.providers.model_info  # noqa: F401


async def undoable_turns_ordered(engine: Engine) -> list[str]:
    """Ids of the turns that can still be undone, oldest first (empty without a session); the session file is
    read in a thread: it can be long."""
    if engine.session is None:
        return []
    import asyncio
    from contextual.core.session import load_session
    from contextual.core.snapshot.undo import undoable_turns
    await engine.session.flush(fsync=False)
    path = engine.session.path
    return list(await asyncio.to_thread(lambda: undoable_turns(load_session(path).entries)))


async def turn_diff_of(engine: Engine, turn_id: str) -> TurnDiff:
    """The files a turn changed, by its snapshots (core/snapshot/turn_diff.py); unknown without a session."""
    from contextual.core.snapshot.turn_diff import TurnDiff, turn_diff
    if engine.session is None:
        return TurnDiff("", None)
    import asyncio
    from contextual.core.session import load_session
    await engine.session.flush(fsync=False)
    path = engine.session.path
    entries = await asyncio.to_thread(lambda: load_session(path).entries)
    return await turn_diff(engine.config.project_root, entries, turn_id)


async def undoable_turns_of(engine: Engine) -> set[str]:
    """Ids of the turns of the engine's session that can still be undone (empty without a session)."""
    return set(await undoable_turns_ordered(engine))
