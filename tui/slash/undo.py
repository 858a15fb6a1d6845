"""/rewind and /undo: take the conversation (and, when asked, the files) back."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from contextual.core.messages import Message
from contextual.core.plural import plural
from contextual.core.snapshot.undo import turn_label
from contextual.core.tools.base import EDITING_TOOLS, path_of
from contextual.tui.format import one_line
from contextual.tui.slash.port import AppPort
from contextual.tui.widgets.prompt_input import PromptInput
from contextual.tui.workers import worker_running

if TYPE_CHECKING:
    from contextual.core.snapshot.turn_diff import TurnDiff


def overwrite_question(paths: list[str]) -> Text:
    """The files the user edited by hand after the turn, and what overwriting them costs."""
    count = len(paths)
    question = Text(f"{plural(count, 'file')} changed by hand after the turn:\n")
    for path in paths:
        question.append("  ✎ ", style="bold #d7af5f")
        question.append(f"{path}\n")
    question.append("\nOverwrite them with their state from before the turn? Your edits to them are lost.",
                    style="bold")
    return question


async def confirm_overwrite(app: AppPort, paths: list[str]) -> bool:
    """Asked by undo before it overwrites files the user edited by hand after the turn."""
    from contextual.tui.screens.confirm import ConfirmModal
    modal = ConfirmModal("Undo", overwrite_question(paths), yes="Overwrite", no="Keep my edits")
    return bool(await app.push_screen_wait(modal))


class Rewind:
    async def run(self, app: AppPort, argument: str) -> None:
        if app.turns.busy("rewind"):
            return
        app.run_worker(self._rewind(app), group="undo", exclusive=True, exit_on_error=False)

    async def _rewind(self, app: AppPort) -> None:
        from contextual.tui.host import undoable_turns_of
        from contextual.tui.screens.rewind_picker import RewindPicker
        engine = app.engine
        # The whole record (messages a compaction summarised included), not only the history.
        record = await app.host.transcript(engine)
        mine = [m for m in record if m.starts_turn]
        if not mine:
            app.notify("Nothing to rewind to: no message of yours in this session yet.", timeout=4)
            return
        try:
            changed = await undoable_turns_of(engine)
        except Exception:                  # an unreadable session: rewinding the conversation still works
            changed = set()
        in_history = {m.id for m in engine.history.messages}
        picker = RewindPicker(mine, changed, summarised={m.id for m in mine} - in_history)
        chosen = await app.push_screen_wait(picker)
        if not chosen:
            return
        message_id, with_files = chosen
        picked = next(m for m in mine if m.id == message_id)
        if picker.fork:
            from contextual.tui.slash.sessions import fork
            await fork(app, message_id, str(picked.meta.get("raw", picked.content)))
            return
        index = next(i for i, m in enumerate(record) if m.id == message_id)
        later_turns = {turn for m in record[index:] if m.role == "user" and (turn := m.meta.get("turn"))}
        restored = (await app.host.restore_turns(engine, later_turns, lambda p: confirm_overwrite(app, p), record)
                    if with_files else [])
        if message_id in in_history:
            engine.rewind_to(message_id)
            await app.shown_engine.show_transcript(await app.host.transcript(engine))
        else:               # summarised: the session is read again, the history from before that message
            engine.record_rewind(message_id)
            session_id = engine.session_id
            await app.host.close(engine)
            opened = app.host.resume(session_id)
            # nothing was resumed ("resumed session 69c887c3: 1 message, 1 compaction" said so): the line below says
            # what happened
            opened.notices[:1] = []
            await app.shown_engine.show(opened)
        raw = str(picked.meta.get("raw", picked.content))
        files = (" (files unchanged)" if not with_files else " (files restored)" if restored
                 else " (no file changes to restore)")
        # one line: a multi-line message ("queued one\n\nqueued two") split the notice over rows
        await app.say(f"rewound to before: {one_line(raw)}" + files
                      + ("; the compactions after it are undone" if message_id not in in_history else ""))
        for line in restored:         # after the transcript is redrawn, which would wipe them
            await app.say(line, "error" if line.startswith("undo failed") else "info")
        app.query_one(PromptInput).put(raw)
        app.readouts.show_prompt()
        app.shown_engine.refresh_undoable()


class Undo:
    async def run(self, app: AppPort, argument: str) -> None:
        if app.turns.busy("undo") or worker_running(app, "undo"):
            return
        # A worker: the confirmation modal is awaited there, and the app keeps handling keys meanwhile.
        app.run_worker(self._undo(app), group="undo", exclusive=True, exit_on_error=False)

    async def _undo(self, app: AppPort) -> None:
        from contextual.tui.host import turn_diff_of, undoable_turns_ordered
        from contextual.tui.screens.confirm import ConfirmModal
        try:
            turns = await undoable_turns_ordered(app.engine)
        except Exception:                  # an unreadable session: host.undo says why below
            turns = []
        record: list[Message] = []
        if turns:
            # Named as the user knows it (what they typed, and when), asked before any file changes.
            record = await app.host.transcript(app.engine)
            label = turn_label(turns[-1], record)
            try:
                diff = await turn_diff_of(app.engine, turns[-1])
            except Exception:              # an unreadable session: the question says less, host.undo says why
                diff = None
            changed = what_it_changed(turns[-1], record, diff, app.config.project_root)
            question = (f"Undo the file changes of the turn {label}?\n{changed}"
                        "The files go back to how they were before it.")
            if not await app.push_screen_wait(ConfirmModal("Undo", question, yes="Undo")):
                await app.say("undo cancelled: no file was changed")
                return
        try:
            shown = await app.host.undo(app.engine, lambda p: confirm_overwrite(app, p), record)
        except Exception as exc:      # never lose the app over an undo
            shown = f"undo failed: {type(exc).__name__}: {exc}"
        await app.say(shown, "error" if shown.startswith("undo failed") else "info")
        app.readouts.show_prompt()
        app.shown_engine.refresh_undoable()


def what_it_changed(turn: str, record: list[Message], diff: TurnDiff | None = None, root: Path | None = None) -> str:
    """The files the turn's edits named, how many commands it ran, and what those changed besides, read from the
    snapshot's difference (``diff``): "whose changes go back too" was said of a turn whose only command was `ls`."""
    calls = [m.meta for m in record if m.role == "assistant" and m.meta.get("turn") == turn]
    paths = list(dict.fromkeys(path for c in calls if c.get("tool_name") in EDITING_TOOLS
                               and (path := path_of(c.get("args")))))
    commands = sum(1 for c in calls if c.get("tool_name") == "Bash")
    said = []
    if paths:
        said.append(f"It edited {_listed(paths)}")
    if commands:
        said.append(f"{'and ran' if paths else 'It ran'} {plural(commands, 'command')}"
                    + _commands_changed(paths, diff, root))
    return " ".join(said) + ".\n" if said else ""


def _listed(paths: list[str]) -> str:
    return ", ".join(paths[:6]) + (f" and {len(paths) - 6} more" if len(paths) > 6 else "")


def _commands_changed(edited: list[str], diff: TurnDiff | None, root: Path | None) -> str:
    """What the commands changed that goes back, as far as the snapshots say: files the edits did not name (only a
    git snapshot records a command's changes; none known: said so it holds either way)."""
    if diff is not None and diff.mode == "copy":
        return "; what commands change outside git is not recorded, so it stays"
    if diff is None or diff.paths is None:
        return ", whose changes, if any, go back too"
    named = {_in_project(p, root) for p in edited}
    others = [p for p in diff.paths if p not in named]
    if not others:
        return ""
    return f", which changed {_listed(others)}: {'it goes' if len(others) == 1 else 'they go'} back too"


def _in_project(path: str, root: Path | None) -> str:
    """An edit's path as the snapshot's difference names it: relative to the project."""
    if root is None:
        return path
    real = os.path.realpath(root)
    return os.path.relpath(os.path.realpath(os.path.join(real, path)), real)
