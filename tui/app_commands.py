"""The app's slash commands and keys that open something: one method each, dispatched from tui.commands' table."""

from __future__ import annotations

import asyncio
from typing import Any

from rich.text import Text
from textual import work
from textual.app import App
from textual.worker import WorkerState

from contextual.core.config import Config
from contextual.tui import commands
from contextual.tui.format import final_answer, plural

# Screens are imported where they open: none is needed for the first frame (launch time, README "Benchmarks").


def how_to_configure(config: Config) -> str:
    return (f"{config.missing_model_message()}\n\n"
            "Set a model and an endpoint, then restart:\n"
            "  • environment: CONTEXTUAL_MODEL, CONTEXTUAL_BASE_URL, CONTEXTUAL_API_KEY (CONTEXTUAL_PROVIDER=anthropic "
            "for Anthropic's API)\n"
            f"  • or the config file {config.home / 'config.toml'} (or .contextual/config.toml in the project):\n"
            '      model = "qwen2.5-coder:7b"\n      base_url = "http://localhost:11434/v1"\n'
            "  • local servers: Ollama at http://localhost:11434/v1, llama.cpp (llama-server) at "
            "http://localhost:8080/v1, vLLM at http://localhost:8000/v1\n\n"
            "Meanwhile you can browse past sessions with /resume (ctrl+r).")


KEYS = (("enter", "send · ctrl+j (shift+enter) new line · up/down past inputs (kept per project)"),
        ("!command", "run a shell command in the project and show its output"),
        ("@path /cmd", "tab completes, up/down choose, esc closes"),
        ("esc", "interrupt the running turn (recorded as interrupted) or the compaction"),
        ("ctrl+c", "interrupt a running turn; when idle, twice quits"),
        ("enter in History", "open the row: stored vs full for tool results, the text for others"),
        ("[ ]", "browse past turns in the Scratchpad"),
        ("f2 f3 f4 · f6", "show/hide chat, scratchpad, history (tabs below 100 columns) · resize the side"),
        ("ctrl+p", "command palette"), ("ctrl+q", "quit"))


class CommandsMixin(App):
    # ----- dispatch
    async def run_command(self, command: commands.Command, argument: str) -> None:
        handler = getattr(self, f"command_{command.action}", None)
        if handler is not None:
            await handler(argument)
        else:
            await self.run_action(command.action)

    # ----- compaction
    async def command_compact(self, argument: str) -> None:
        first, _, rest = argument.partition(" ")
        keep = int(first) if first.isdigit() else None
        self.action_compact(rest.strip() if keep is not None else argument or None, keep)

    def action_compact(self, instructions: str | None = None, keep: int | None = None) -> None:
        from contextual.tui.screens.compact_choice import CompactChoice
        if self.busy("compact"):
            return
        from contextual.core.context.history import rounds
        closed = len(rounds(self.engine.history.messages))
        configured = self.config.keep_rounds
        if keep is None and closed <= configured:
            if closed < 2:
                self.notify(f"Nothing to compact yet: {plural(closed, 'round')} in history.", timeout=4)
                return
            self.push_screen(CompactChoice(closed, configured),
                             lambda n: self._compact(instructions, n) if n else None)
            return
        self._compact(instructions, keep)

    async def action_mcp(self) -> None:
        from contextual.tui.screens.mcp import MCPScreen
        await self.mcp_changed()
        manager = getattr(self.engine, "mcp", None)
        self.push_screen(MCPScreen(manager.rows() if manager is not None else [], self.shown.layers.get("L1", 0)
                                   if self.shown is not None else 0))

    def action_compactions(self) -> None:
        from contextual.tui.screens.compaction_history import CompactionHistoryScreen
        self.push_screen(CompactionHistoryScreen(list(self.engine.compactions)), self.reinject)

    # ----- reading
    async def action_context(self) -> None:
        from contextual.tui.screens.context_view import ContextScreen
        from contextual.tui.prompt_view import next_prompt
        await self.started()
        pending = self.query_one("#prompt").text
        shown = next_prompt(self.engine, pending if not pending.startswith(("/", "!")) else "")
        self.push_screen(ContextScreen(shown, getattr(self, "last_sent", None)))

    def open_text(self, message: Any) -> None:
        from textual.widgets import Markdown
        from contextual.tui.screens.info import InfoScreen
        title = {"summary": f"Summary #{message.meta.get('number', '')}".strip(), "user": "You",
                 "assistant": "Agent"}.get(message.role, message.role)
        body = final_answer(message) if message.meta.get("final") else message.content
        self.push_screen(InfoScreen(title, Markdown(body) if message.role != "user" else Text(body)))

    async def command_help(self, _argument: str) -> None:
        from rich.table import Table
        from contextual.tui.screens.info import InfoScreen
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for c in commands.COMMANDS:
            table.add_row(f"{c.name} {c.usage}".strip(), c.help)
        table.add_row("", "")
        for keys, what in KEYS:
            table.add_row(keys, what)
        self.push_screen(InfoScreen("Help", table))

    # ----- model
    async def command_model(self, argument: str) -> None:
        from contextual.tui.screens.info import InfoScreen
        if argument:
            self.switch_model(argument)
            return
        if self.config.missing_model_message():
            self.push_screen(InfoScreen("Model", Text(how_to_configure(self.config))))
            return
        self._pick_model()

    @work(exclusive=True, group="models", exit_on_error=False)
    async def _pick_model(self) -> None:
        from contextual.tui.screens.model_picker import ModelPicker
        provider = getattr(self.engine, "provider", None)
        names: list[str] = []
        problem = ""
        lister = getattr(provider, "list_models", None)
        if lister is None:
            problem = "this provider cannot list its models: type /model NAME"
        else:
            try:
                names = list(await lister())
            except Exception as exc:          # a server without /v1/models: say so, keep /model NAME
                problem = f"the server did not list its models ({type(exc).__name__}: {exc}); type /model NAME"
        chosen = await self.push_screen_wait(ModelPicker(self.config, names, problem))
        if chosen:
            self.switch_model(chosen)

    def switch_model(self, name: str) -> None:
        if self.busy("switch the model"):
            return
        if self.engine is None or self.engine.provider is None:
            self.notify("No endpoint is configured: set CONTEXTUAL_BASE_URL first (see /model).", severity="warning")
            return
        self.engine.set_model(name)
        self.config = self.host.config = self.engine.config
        self.show_prompt()
        self.notify(f"model: {name} (for the next turns of this session)")

    # ----- sessions
    async def command_clear(self, _argument: str) -> None:
        if self.busy("start a new session"):
            return
        await self.host.close(self.engine)
        await self.show_engine(self.host.new_engine())
        await self.chat.add_notice("New session. The previous one is saved: /resume reopens it.")

    def action_resume(self) -> None:
        from contextual.tui.screens.session_picker import SessionPicker
        if self.busy("resume"):
            return
        try:
            sessions = self.host.list_sessions()
        except Exception as exc:
            self.notify(f"cannot list sessions: {exc}", severity="error")
            return
        self.push_screen(SessionPicker(sessions, self.remembered, self.engine.session_id), self._resume_picked)

    async def _resume_picked(self, session_id: str | None) -> None:
        if not session_id:
            return
        if session_id == self.engine.session_id:
            self.notify("That is the session you are in.", timeout=3)
            return
        await self.resume(session_id)

    async def resume(self, session_id: str | None) -> None:
        try:
            opened = self.host.resume(session_id)
        except Exception as exc:
            await self.chat.add_notice(f"cannot resume: {exc}", "error")
            return
        await self.host.close(self.engine)
        await self.show_engine(opened)

    async def command_title(self, argument: str) -> None:
        if self.engine.session_id is None:
            self.notify("The session gets its file at the first message: title it after that.", timeout=4)
            return
        self.remembered.set_title(self.engine.session_id, argument)
        self.notify(f"title: {argument}" if argument.strip() else "title cleared", timeout=3)

    # ----- files
    async def command_init(self, _argument: str) -> None:
        from contextual.tui.starter import starter_code_law
        path = self.config.project_root / "CODE_LAW.md"
        if path.exists():
            await self.chat.add_notice(f"{path.name} exists already: edit it, /init never overwrites it", "warning")
            return
        text = await asyncio.to_thread(starter_code_law, self.config.project_root)
        path.write_text(text, encoding="utf-8")
        await self.chat.add_notice(f"wrote {path.name} ({len(text.splitlines())} lines): every prompt now starts "
                                   "with it (L2); edit it to your rules")
        self.show_prompt()

    async def command_export(self, argument: str) -> None:
        from contextual.tui.transcript import transcript_markdown
        name = argument.strip() or f"contextual-{(self.engine.session_id or 'session')[:8]}.md"
        path = self.config.project_root / name
        messages = await self.host.transcript(self.engine)
        try:
            path.write_text(transcript_markdown(messages, self.config.model or ""), encoding="utf-8")
        except OSError as exc:
            await self.chat.add_notice(f"export failed: {exc}", "error")
            return
        await self.chat.add_notice(f"transcript written to {path}")

    @work(group="shell", exit_on_error=False)
    async def run_shell(self, command: str) -> None:
        """`!command`: run it in the project (not through the agent) and show what it printed."""
        if not command:
            return
        await self.chat.add_notice(f"$ {command}", "info")
        try:
            proc = await asyncio.create_subprocess_shell(command, cwd=self.config.project_root,
                                                         stdout=asyncio.subprocess.PIPE,
                                                         stderr=asyncio.subprocess.STDOUT,
                                                         stdin=asyncio.subprocess.DEVNULL)
            out, _ = await proc.communicate()
        except OSError as exc:
            await self.chat.add_notice(f"could not run it: {exc}", "error")
            return
        text = out.decode("utf-8", "replace").rstrip()
        lines = text.splitlines()
        if len(lines) > 200:
            text = "\n".join(["…"] + lines[-200:])
        await self.chat.add_shell_output(text, proc.returncode or 0)

    # ----- rewind and undo
    async def command_rewind(self, _argument: str) -> None:
        if self.busy("rewind"):
            return
        mine = [m for m in self.engine.history.messages if m.role == "user" and not m.meta.get("undo")]
        if not mine:
            self.notify("Nothing to rewind to: no message of yours in the history (older ones were compacted).",
                        timeout=4)
            return
        self._rewind(mine)

    @work(exclusive=True, group="undo", exit_on_error=False)
    async def _rewind(self, mine: list) -> None:
        from contextual.tui.screens.rewind_picker import RewindPicker
        from contextual.tui.host import undoable_turns_of
        try:
            changed = await undoable_turns_of(self.engine)
        except Exception:                  # an unreadable session: rewinding the conversation still works
            changed = set()
        chosen = await self.push_screen_wait(RewindPicker(mine, changed))
        if not chosen:
            return
        message_id, with_files = chosen
        history = self.engine.history.messages
        index = next(i for i, m in enumerate(history) if m.id == message_id)
        later_turns = {m.meta.get("turn") for m in history[index:] if m.role == "user"}
        if with_files:
            for line in await self.host.restore_turns(self.engine, later_turns, self.confirm_overwrite):
                await self.chat.add_notice(line, "error" if line.startswith("undo failed") else "info")
        message = self.engine.rewind_to(message_id)
        await self.chat.show_transcript(await self.host.transcript(self.engine))
        await self.chat.mount_earlier()          # counts are ready by now: all the restored turns at once
        await self.chat.add_notice(f"rewound to before: {message.meta.get('raw', message.content)[:80]}"
                                   + (" (files restored)" if with_files else " (files unchanged)"))
        self.query_one("#prompt").load_text(message.meta.get("raw", message.content))
        self.show_prompt()
        self.refresh_undoable()

    async def command_undo(self, _argument: str) -> None:
        if self.busy("undo") or self._undo_running:
            return
        self._undo()

    @property
    def _undo_running(self) -> bool:
        return any(w.group == "undo" and w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in self.workers)

    @work(exclusive=True, group="undo", exit_on_error=False)
    async def _undo(self) -> None:
        # A worker: the confirmation modal is awaited here, and the app keeps handling keys meanwhile.
        try:
            shown = await self.host.undo(self.engine, self.confirm_overwrite)
        except Exception as exc:      # never lose the app over an undo
            shown = f"undo failed: {type(exc).__name__}: {exc}"
        await self.chat.add_notice(shown, "error" if shown.startswith("undo failed") else "info")
        self.show_prompt()
        self.refresh_undoable()

    async def confirm_overwrite(self, paths: list[str]) -> bool:
        """Asked by undo before it overwrites files the user edited by hand after the turn."""
        from contextual.tui.screens.undo_confirm import UndoConfirmModal
        return bool(await self.push_screen_wait(UndoConfirmModal(paths)))
