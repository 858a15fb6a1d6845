"""/clear, /resume (ctrl+r), /title, /fork: which session the app shows."""

from __future__ import annotations

from contextual.tui.format import forked_line, one_line
from contextual.tui.slash.port import AppPort
from contextual.tui.widgets.prompt_input import PromptInput


class Clear:
    async def run(self, app: AppPort, argument: str) -> None:
        if app.turns.busy("start a new session"):
            return
        await app.host.close(app.engine)
        opened = app.host.new_engine()
        opened.engine.starts_as("clear")          # its SessionStart hooks hear "clear", as Claude Code's do
        await app.shown_engine.show(opened)
        await app.say("New session. The previous one is saved: /resume reopens it.")


class Resume:
    async def run(self, app: AppPort, argument: str) -> None:
        from contextual.tui.screens.session_picker import SessionPicker
        if app.turns.busy("resume"):
            return
        try:
            sessions = app.host.list_sessions()
        except Exception as exc:
            app.notify(f"cannot list sessions: {exc}", severity="error")
            return
        app.push_screen(SessionPicker(sessions, app.remembered, app.engine.session_id),
                        lambda session_id: self.picked(app, session_id))

    async def picked(self, app: AppPort, session_id: str | None) -> None:
        if not session_id:
            return
        if session_id == app.engine.session_id:
            app.notify("That is the session you are in.", timeout=3)
            return
        await resume(app, session_id)


async def resume(app: AppPort, session_id: str | None, opening: str | None = None) -> None:
    """Switch to a saved session; `opening` says how it came (a fork) instead of 'resumed session …'."""
    try:
        opened = app.host.resume(session_id)
    except Exception as exc:
        await app.say(f"cannot resume: {exc}", "error")
        return
    if opening is not None:
        opened.notices[:1] = [opening]
    await app.host.close(app.engine)
    await app.shown_engine.show(opened)


class Title:
    async def run(self, app: AppPort, argument: str) -> None:
        if app.engine.session_id is None:
            app.notify("The session gets its file at the first message: title it after that.", timeout=4)
            return
        text = argument.strip()
        if not text:            # a bare /title (or the palette's) wiped the title: it says it instead
            current = app.remembered.titles().get(app.engine.session_id)
            if current:
                app.notify(f"title: {current} · /title TEXT renames it, /title - clears it", timeout=5)
                return
            first = await first_request(app)
            app.notify(f"title: {one_line(first, 60)} (its first request, as /resume lists it) · /title TEXT names "
                       "it" if first else "no title yet · /title TEXT names this session", timeout=5)
            return
        app.remembered.set_title(app.engine.session_id, "" if text == "-" else text)
        app.notify(f"title: {text}" if text != "-" else "title cleared", timeout=3)


async def first_request(app: AppPort) -> str | None:
    """The session's first request, read from its file as /resume reads it: the title /resume lists until one is
    given (a bare /title said "no title yet" beside it)."""
    import asyncio

    from contextual.core.session.index import current_state
    session = app.engine.session
    if session is None:
        return None
    try:
        await session.flush(fsync=False)
        state = await asyncio.to_thread(current_state, session.path)
    except OSError:
        return None
    return state.first_prompt


class Fork:
    """`/fork`: continue in a new session holding a copy of this one (which stays as it is); /rewind's k forks
    before an earlier message instead."""

    async def run(self, app: AppPort, argument: str) -> None:
        if not app.turns.busy("fork"):
            await fork(app, None, "")


async def fork(app: AppPort, before_id: str | None, text: str) -> None:
    """core/session/fork.py's copy of this session (before `before_id`), then the app switches to it; `text`
    (the message forked before) goes back into the input."""
    import asyncio

    from contextual.core.session.fork import fork_session
    session = app.engine.session
    if session is None:
        await app.say("nothing to fork yet: this session has no file until its first turn", "warning")
        return
    parent = app.engine.session_id
    try:
        await session.flush(fsync=False)
        writer = await asyncio.to_thread(fork_session, app.config.home, app.config.project_root, session.path,
                                         before_id)
        writer.close_sync()
    except Exception as exc:       # never lose the app over a fork: the session in use is untouched
        await app.say(f"cannot fork: {exc}", "error")
        return
    title = app.remembered.titles().get(parent or "")
    if title:                          # /resume lists the fork under the title, not its first message
        app.remembered.set_title(writer.session_id, f"{title} (fork)")
    before = app.engine
    await resume(app, writer.session_id, forked_line(parent or "", writer.session_id,
                                                     "the original is unchanged (/resume goes back to it)"))
    if app.engine is not before:      # what was to ride on the next message (a re-injected fact) rides on the fork's
        await app.shown_engine.show_waiting(app.engine.carry_pending(before))
        app.readouts.show_prompt()
    if text:
        app.query_one(PromptInput).put(text)
