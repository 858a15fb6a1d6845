"""/init, /export, and `!command`: commands that write or run something."""

from __future__ import annotations

import asyncio

from contextual.tui.slash.port import AppPort
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.status_line import StatusLine


class Init:
    """`/init [AGENTS.md|CODE_LAW.md]`: a turn in which the agent reads the project and writes or updates that file
    (keeping what is in it). Default: the one of them the project has (AGENTS.md first), else AGENTS.md — the
    name other agents read too."""

    async def run(self, app: AppPort, argument: str) -> None:
        from contextual.prompts.agents_prompts.init_prompt import INIT_FILES, init_prompt
        from contextual.tui.starter import starter_code_law
        root = app.config.project_root
        name = argument.strip() or next((n for n in INIT_FILES if (root / n).exists()), "AGENTS.md")
        if name not in INIT_FILES:
            await app.say(f"/init writes one of {' or '.join(INIT_FILES)}, not {name}", "error")
            return
        if app.turns.busy("/init"):
            return
        draft = await asyncio.to_thread(starter_code_law, root, name)
        app.turns.start(init_prompt(name, (root / name).exists(), draft), typed=f"/init {name}")


class Export:
    """`/export [--as-sent] [file]`: core/export.py, the implementation `contextual export` uses; the file goes
    under $CONTEXTUAL_HOME/exports/ unless a path is given (relative to the project)."""

    async def run(self, app: AppPort, argument: str) -> None:
        from pathlib import Path

        from contextual.core import export
        from contextual.core.session import SessionError, load_session
        words = argument.split()
        as_sent = "--as-sent" in words
        name = " ".join(w for w in words if w != "--as-sent")
        session = app.engine.session
        if session is None:
            await app.say("nothing to export yet: this session has no file until its first turn", "warning")
            return
        await session.flush(fsync=False)
        try:
            loaded = await asyncio.to_thread(load_session, session.path)
            text = await export.as_sent(loaded, app.config) if as_sent else export.transcript(loaded)
            target = (app.config.project_root / Path(name).expanduser() if name else
                      export.default_path(app.config.home, loaded.session_id, as_sent))
            written = await asyncio.to_thread(export.write, text, target)
        except (OSError, SessionError) as exc:
            await app.say(f"export failed: {exc}", "error")
            return
        what = "every request as sent (rebuilt from the session)" if as_sent else "transcript"
        await app.say(f"{what} written to {written}")


def run_shell(app: AppPort, command: str) -> None:
    """`!command`: the user's own command, run in the project by the engine's Bash tool (esc stops it, like a
    turn); its output is shown here and joins the user's next message (Engine.run_user_shell)."""
    if command and not app.turns.busy("a ! command"):
        app.shown_engine.ensure_session()       # its output is kept there until a message takes it (a quit, `-c`)
        app.run_worker(_shell(app, command), name="shell", group="turn", exit_on_error=False)


async def _shell(app: AppPort, command: str) -> None:
    from contextual.core.context.observation import render_full
    from contextual.tui.shell_output import JOINS, ran_line, shell_shown
    await app.say(ran_line(command), "info")
    app.query_one(StatusLine).running_tool("!", command)
    try:
        result = await app.engine.run_user_shell(command)
    except asyncio.CancelledError:         # esc: the Bash tool stopped its process group; nothing joins the message
        await app.say(f"{ran_line(command)}: stopped; nothing of it joins your next message", "warning")
        raise
    finally:
        app.query_one(StatusLine).idle()
    await app.query_one(ChatLog).add_shell_output(shell_shown(command, render_full(result)))
    await app.say(JOINS, "info")
    app.readouts.show_prompt()          # the meter and History count it in the next prompt now
