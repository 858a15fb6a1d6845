"""Shared helpers for tests that drive the real app with Pilot against the fake LLM server."""

from __future__ import annotations

import asyncio
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from contextual.core.config import load_config
from contextual.tui.host import RealHost
from contextual.tui.screens.compaction_preview import CompactionPreviewScreen
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.scratchpad import ScratchpadView
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.waits import HANG_GUARD

if TYPE_CHECKING:
    from contextual.tui.app import ContextualApp

SIZE = (120, 40)
READ_CART = 'Thought: the cart first\nAction: Read[{"file_path": "cart.py"}]'


def finish(text: str) -> str:
    return f"Thought: done\nAction: Finish[{text}]"


def slow_answer(answer: str = "never") -> Reply:
    """A reply that streams for a while (840 characters, a pause between chunks): a turn still running."""
    return Reply("Thought: " + "thinking very slowly " * 40 + f"\nAction: Finish[{answer}]", chunk_delay=0.02)


def held(gate: threading.Event, answer: str):
    """A script item answering ``finish(answer)`` once ``gate`` is set: the turn runs until the test has done what
    it does meanwhile, however loaded the machine (a stream slow enough for that cost seconds of waiting it out).
    Set the gate in a ``finally`` too: a failed test must not leave the server's thread waiting."""
    return lambda body: finish(answer) if gate.wait(HANG_GUARD) else "never released"


def make_project(tmp: Path, lines: int = 300) -> Path:
    root = tmp / "proj"
    root.mkdir()
    (root / "cart.py").write_text("".join(f"def total_{i}(): return {i}\n" for i in range(lines)))
    return root


def make_host(tmp: Path, base_url: str, **flags) -> RealHost:
    root = tmp / "proj" if (tmp / "proj").exists() else make_project(tmp)
    config = load_config(root, {"model": "fake-model", "base_url": base_url, "api_key": "sk-test", **flags},
                         env={"CONTEXTUAL_HOME": str(tmp / "home")})
    return RealHost(config)


def resumed_app(tmp: Path, base_url: str, session_id: str | None, **flags) -> "ContextualApp":
    """A new app resuming ``session_id`` as `contextual -r ID` does: its chat from the file's end at the first
    frame, the engine after (``until_shown``)."""
    from contextual.tui.app import ContextualApp
    host = make_host(tmp, base_url, **flags)
    return ContextualApp(host, animate=False, resume=host.session_path(session_id))


def app_with_history(tmp: Path, base_url: str, messages: list) -> "ContextualApp":
    """An app whose engine starts with ``messages`` as its history (no session file: the chat is made from them)."""
    from contextual.tui.app import ContextualApp
    host = make_host(tmp, base_url)
    opened = host.new_engine()
    opened.engine.restore(messages, None, [], [])
    return ContextualApp(host, opened, animate=False)


def long_session(turns: int) -> list:
    """``turns`` turns of a question, a Read and its answer ("answer N")."""
    from contextual.core.messages import Message
    out: list[Message] = []
    for i in range(turns):
        args = {"file_path": f"mod_{i}.py"}
        out += [Message("user", f"question {i}"),
                Message("assistant", f'Thought: read it\nAction: Read[{{"file_path": "mod_{i}.py"}}]',
                        meta={"step": 1, "call_id": f"c{i}", "tool_name": "Read", "args": args}),
                Message("tool", '{"status": "success", "text": "ok"}',
                        meta={"tool_name": "Read", "call_id": f"c{i}", "args": args, "step": 1}),
                Message("assistant", f"Thought: ok\nAction: Finish[answer {i}]",
                        meta={"step": 2, "final": True, "answer": f"answer {i}"})]
    return out


async def until_shown(pilot, app: "ContextualApp") -> None:
    """The resumed engine is shown everywhere (chat, Scratchpad, History)."""
    await app.startup.started()
    await wait_for(pilot, lambda: app.shown_engine.engine_shown)


@contextmanager
def server(script: list) -> Iterator[FakeLLMServer]:
    with FakeLLMServer(kind="openai", script=script) as srv:
        yield srv


async def type_and_send(pilot, text: str) -> None:
    pilot.app.query_one("#prompt").load_text(text)
    await pilot.press("enter")


async def wait_for(pilot, predicate, timeout: float = 30.0) -> None:
    """The one wait in app tests: until ``predicate()`` holds (a failure, not a hang, when it never does)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.01)


async def open_adjusted_row(pilot, app):
    """tab from the input to the turn's tool-call row, down to its "context adjusted" row (closed), enter: the row,
    open."""
    from textual.widgets import Collapsible
    from contextual.tui.widgets.tool_trail import AdjustedTitle, TrailTitle
    await pilot.press("tab")
    await wait_for(pilot, lambda: isinstance(app.focused, TrailTitle))
    await pilot.press("down")
    await wait_for(pilot, lambda: isinstance(app.focused, AdjustedTitle))
    adjusted = app.query_one("Collapsible.adjusted", Collapsible)
    assert adjusted.collapsed
    await pilot.press("enter")
    await wait_for(pilot, lambda: not adjusted.collapsed)
    return adjusted


def shown_screen(app, kind: type) -> bool:
    """The app shows a screen of this kind, composed: `app.screen` is the new one before its widgets are there."""
    return isinstance(app.screen, kind) and app.screen.is_mounted


async def run_turn(pilot, text: str) -> None:
    pad = pilot.app.query_one(ScratchpadView)
    started = len(pad.turns)
    await type_and_send(pilot, text)
    await wait_for(pilot, lambda: len(pad.turns) > started and pad.turns[-1].outcome != "running")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def compact_through_preview(pilot, command: str = "/compact"):
    """A manual compaction accepted as previewed, ended: no dialog left (its result is the chat's line); returns
    what it did, as its card (/compactions, enter) says it."""
    from contextual.tui.screens.compaction import finished_of
    app = pilot.app
    logged = len(list(app.engine.compactions))
    await type_and_send(pilot, command)
    await wait_for(pilot, lambda: isinstance(app.screen, CompactionPreviewScreen))
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: len(list(app.engine.compactions)) > logged and not app.turns.running
                   and app.screen is app.screen_stack[0])
    return finished_of(list(app.engine.compactions)[-1])


def chat_text(app) -> str:
    """All the chat says: its lines (Static) and the answers' Markdown source."""
    chat = app.query_one(ChatLog)
    return "\n".join([str(w.render()) for w in chat.query("Static")] + [m.source for m in chat.query("Markdown")])


async def open_history_row(pilot, index: int):
    """Enter on History's row `index` (a tool result opens stored vs full); the screen it opened."""
    from contextual.tui.widgets.history_view import HistoryView
    history = pilot.app.query_one(HistoryView)
    history.focus()
    history.highlighted = index
    await pilot.press("enter")
    await pilot.pause()
    return pilot.app.screen
