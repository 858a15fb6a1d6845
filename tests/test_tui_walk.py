"""Every binding on every screen, on a resumed, compacted session (issue 29): nothing may crash the app.

A session of three turns (each reads a file) is compacted through the real engine and the fake server, closed,
and resumed in a new app. Then every History row is opened, every key of the app and of the main screen's own
widgets is pressed (with the widget focused and its region shown; of a widget shown many times, at its first and
last), every slash command is run, and every screen any of these opens has each of its keys pressed
(the keys are read from the classes' BINDINGS, so a new key or screen is walked without touching this test); a
screen a key opens from another screen is walked the same way, from where it was opened. At the end every screen
class under contextual.tui.screens must have been walked."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import contextual.tui.screens as screens_package
from contextual.core.trust import Item
from contextual.tui.app import ContextualApp
from contextual.tui.screens.compaction import CompactionModal
from contextual.tui.screens.permission import PermissionModal
from contextual.tui.screens.trust import TrustModal
from contextual.tui.widgets.history_view import HistoryView
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget

from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.scripted_model import is_summary_request
from tests.tui_helpers import (
    READ_CART,
    SIZE,
    compact_through_preview,
    finish,
    make_host,
    run_turn,
    type_and_send,
    wait_for, shown_screen)

SUMMARY = "## Summary\nThe user asked about **the cart**; `cart.py` defines 300 totals."
WRITE = 'Thought: write it\nAction: Write[{"file_path": "notes.txt", "content": "from the agent\\n"}]'
WALK_SIZE = (80, 24)       # the smallest screen users have: every key walked where space is tightest
LEAVE = {"ctrl+q", "ctrl+c"}           # they leave the app (tests/test_tui_keys.py presses them)
LAST_ACTIONS = ("accept", "decide('allow_always')")   # would stop the screen from coming back: pressed last
# Actions that end the screen they are pressed on go after its other keys, so one opening serves those (each such
# key pressed first cost a reopening: about 4 s of the two tests)
ENDING = ("dismiss", "app.pop_screen", "close", "cancel", "stop", "answer", "decide", "pick", "switch", "choose")
# Slash commands that leave or switch the session run last; /quit leaves (covered by the quit tests).
LAST_COMMANDS = ("/compact", "/init", "/undo", "/rewind", "/fork", "/clear")
SKIP_COMMANDS = {"/quit"}
Opener = Callable[[], Awaitable[None]]


def model(body: dict[str, Any]) -> str:
    """Summary requests get a summary; 'please write' a Write (asks permission), 'please read' a Read."""
    if is_summary_request(body):
        return SUMMARY
    last = body["messages"][-1]
    content = last.get("content")
    text = content if isinstance(content, str) else " ".join(p.get("text", "") for p in content or [])
    if last.get("role") == "user" and "please write" in text and "Observation" not in text:
        return WRITE
    if last.get("role") == "user" and "please read" in text and "Observation" not in text:
        return READ_CART
    return finish("answer **done**")


def own_bindings(cls: type) -> list[Binding]:
    """The bindings our class and our bases declare, most derived first (Textual's own generic ones, focus
    moves and copy, are left to Textual's tests)."""
    found: list[Binding] = []
    for klass in cls.__mro__:
        if not klass.__module__.startswith("contextual."):
            continue
        for binding in klass.__dict__.get("BINDINGS", []):
            found.append(binding if isinstance(binding, Binding) else Binding(*binding))
    return found


def keys_of(cls: type) -> list[str]:
    """One key per binding (the first: the others of 'escape,q' run the same action), the ending ones after the
    others, state-using ones last."""
    keys: list[str] = []
    for binding in sorted(own_bindings(cls), key=lambda b: (b.action in LAST_ACTIONS,
                                                            b.action.split("(")[0] in ENDING)):
        key = next((k.strip() for k in binding.key.split(",") if k.strip() not in LEAVE), None)
        if key is not None and key not in keys:
            keys.append(key)
    return keys


def all_screen_classes() -> set[str]:
    names: set[str] = set()
    for info in pkgutil.iter_modules(screens_package.__path__):
        module = importlib.import_module(f"{screens_package.__name__}.{info.name}")
        names |= {name for name, obj in inspect.getmembers(module, inspect.isclass)
                  if issubclass(obj, Screen) and obj.__module__ == module.__name__}
    return names


def waiting_on_user(app) -> bool:
    """The top screen's result is awaited (a worker waits for the user's answer there), and it is not busy."""
    screen = app.screen
    callbacks = getattr(screen, "_result_callbacks", [])
    awaited = any(c.callback is not None or (c.future is not None and not c.future.done()) for c in callbacks)
    busy = isinstance(screen, CompactionModal) and screen.result is None
    return awaited and not busy


class Walker:
    def __init__(self, pilot) -> None:
        self.pilot = pilot
        self.app = pilot.app
        self.walked: set[str] = set()         # screens (or screen + what it shows) whose keys were all pressed
        self.screens: set[str] = set()        # their class names
        self.keys = 0
        self.prompt = self.app.query_one("#prompt")

    async def send(self, text: str) -> None:
        self.prompt.focus()
        await type_and_send(self.pilot, text)

    async def settle(self) -> None:
        """Until no worker runs, or the ones running wait for the user on the screen on top. A pause lets what the
        key or command started run; a second follows only a wait on a worker (where none ran, it found the app as
        the first left it: an idle wait of its own, about a hundred times a test)."""
        app = self.app

        def settled() -> bool:
            return waiting_on_user(app) or not any(w.state.name in ("PENDING", "RUNNING") for w in app.workers)

        await self.pilot.pause()
        if not settled():
            await wait_for(self.pilot, settled)
            await self.pilot.pause()

    def alive(self, where: str) -> None:
        assert self.app.is_running and self.app._exception is None, where

    async def back_to(self, depth: int) -> None:
        """Close what keys opened (esc, as a user would), until the stack is `depth` screens deep."""
        for _ in range(6):
            if len(self.app.screen_stack) <= depth:
                return
            await self.pilot.press("escape")
            await self.settle()
        while len(self.app.screen_stack) > depth:
            self.app.pop_screen()
            await self.pilot.pause()

    async def press(self, key: str, where: str) -> None:
        await self.pilot.press(key)
        await self.settle()
        self.alive(f"{where}: {key}")
        self.keys += 1

    async def walk(self, open_screen: Opener, label: str = "", level: int = 0, is_open: bool = False) -> None:
        """Open a screen (unless `is_open`: it is on top already), press each of its keys (reopening it when a
        key closed it), walk any new screen a key opened from it, and close it."""
        app = self.app
        depth = len(app.screen_stack) - (1 if is_open else 0)
        if not is_open:
            await open_screen()
            await self.settle()
            self.alive(f"opening {label}")
        if len(app.screen_stack) == depth:
            return                           # it said something instead (nothing to show): fine
        screen = app.screen
        name = type(screen).__name__
        if name + label in self.walked:
            await self.back_to(depth)
            return
        self.walked.add(name + label)
        self.screens.add(name)
        for key in keys_of(type(screen)):
            if app.screen is not screen:
                await self.back_to(depth)
                await open_screen()
                await self.settle()
                if len(app.screen_stack) == depth:
                    break                    # it cannot come back (its last key used what it offered)
                screen = app.screen
            await self.press(key, name)
            top = app.screen
            if top is not screen and len(app.screen_stack) > depth and type(top).__name__ not in self.screens \
                    and level < 3:
                parent = type(screen)

                async def nested(key: str = key, screen_class: type = parent) -> None:
                    await open_screen()
                    await self.settle()
                    if isinstance(app.screen, screen_class):
                        await self.pilot.press(key)
                await self.walk(nested, level=level + 1, is_open=True)
        await self.back_to(depth)


def own_widgets_with_keys(app) -> list[Widget]:
    """The main screen's widgets of ours that declare keys (History, the scratchpad, a tool trail's title...). A
    class shown many times (a trail a turn: nine here) is walked at its first and its last: the same code answers
    each, those two are where its keys meet an end (up at the oldest, down at the newest), and the first is a
    resumed turn's, the last this run's. Walking all nine took about 10 of the test's 38 s."""
    by_class: dict[type, list[Widget]] = {}
    for widget in app.screen.query("*"):
        if type(widget).__module__.startswith("contextual.") and type(widget).__dict__.get("BINDINGS"):
            by_class.setdefault(type(widget), []).append(widget)
    return [w for shown in by_class.values() for w in dict.fromkeys((shown[0], shown[-1]))]


async def region_shown(pilot, widget: Widget) -> None:
    """The region holding ``widget`` shown, as f2–f4 show it: at 80x24 its tab, wide every region a key hid. Each
    region had been shown again by its display after each key: at 80x24, where one shows, that chose the
    Scratchpad's tab, then History's, after every key (0.3 s of underline animation each), and the tab's
    activation took the focus, so most keys meant for a trail's title or the prompt reached History (a crash
    planted in a title's up/down went unseen)."""
    app = pilot.app
    panes = app.panes
    if not panes.narrow:
        for region in sorted(panes.regions.hidden):
            app.action_toggle_region(region)
        return
    region = next((r for r in ("scratchpad", "history") if app.query_one(f"#{r}") in (widget, *widget.ancestors)),
                  "chat")
    if panes.regions.tab != region:
        app.action_toggle_region(region)
        await wait_for(pilot, lambda: panes.regions.tab == region)


BY_ROWS_AND_KEYS = {"InfoScreen", "StoredFullScreen", "PermissionModal", "TrustModal",   # the first test walks these
                    "MemoryChoice"}
# Opened only by a turn's end, not by a command, a row or a key of a resumed session; walked where it opens
BY_A_TURN = {"PlanReady"}           # tests/test_tui_plan_ready.py: a plan-mode answer, each of its keys


@asynccontextmanager
async def resumed_compacted(tmp_path: Path) -> AsyncIterator[tuple[Any, Walker]]:
    """A session of three Read turns compacted through the preview, closed, resumed in a new app, one more Read
    turn and a Write turn (allowed, so /undo has work); yields the pilot and a walker."""
    with FakeLLMServer(kind="openai", responder=model) as srv:
        host = make_host(tmp_path, srv.base_url, keep_rounds=1)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=WALK_SIZE) as pilot:
            for i in range(3):
                await run_turn(pilot, f"please read the cart, {i}")
            await compact_through_preview(pilot)
            session_id = app.engine.session_id
        assert app.return_code in (None, 0) and app._exception is None

        # keep_rounds 20: /compact offers a choice (CompactChoice); '/compact 1' previews at once
        host = make_host(tmp_path, srv.base_url, keep_rounds=20)
        app = ContextualApp(host, host.resume(session_id), animate=False)
        async with app.run_test(size=WALK_SIZE) as pilot:
            walker = Walker(pilot)
            await run_turn(pilot, "please read the cart once more")
            await walker.send("please write the notes")
            await wait_for(pilot, lambda: shown_screen(app, PermissionModal))
            await pilot.press("y")
            await walker.settle()
            (host.config.project_root / "notes.txt").write_text("edited by hand\n")   # /undo asks before
            yield pilot, walker
            walker.alive("the end")


async def test_every_history_row_and_key_of_a_resumed_compacted_session(tmp_path):
    async with resumed_compacted(tmp_path) as (pilot, walker):
        app = pilot.app
        history = app.query_one(HistoryView)
        assert {"summary", "user", "assistant", "tool"} <= {m.role for m in history.messages}
        # Enter on every History row (an agent's or a summary's row opened a Static with a Markdown in it).
        for index, message in enumerate(list(history.messages)):
            async def open_row(index: int = index) -> None:
                history.focus()
                history.highlighted = index
                await pilot.press("enter")
            await walker.walk(open_row, label=message.role)
        # Each answer of the permission modal.
        await walker.walk(lambda: walker.send("please write the notes"))
        # The project-trust question (asked at launch when a checkout's config wants something; core/trust.py).
        item = Item("permissions", "{}", 'allow = ["Bash"] in .contextual/config.toml', ("allow Bash without asking",))

        async def ask_trust() -> None:
            app.push_screen(TrustModal([item], app.config.project_root), lambda _: None)
        await walker.walk(ask_trust)
        # `# text`: where to remember it (each answer writes a line to a rules file; esc gives it back).
        await walker.walk(lambda: walker.send("# keep answers short"))
        # Every key of the app (the prompt focused), then each of our widgets' keys with it focused.
        targets = [(walker.prompt, keys_of(type(app)) + [app.COMMAND_PALETTE_BINDING])]
        targets += [(w, keys_of(type(w))) for w in own_widgets_with_keys(app)]
        for widget, keys in targets:
            for key in keys:
                async def press(key: str = key, widget: Widget = widget) -> None:
                    await region_shown(pilot, widget)
                    widget.focus()
                    await pilot.press(key)
                await walker.walk(press)
        assert BY_ROWS_AND_KEYS <= walker.screens, BY_ROWS_AND_KEYS - walker.screens


async def test_every_slash_command_and_what_it_opens_on_a_resumed_compacted_session(tmp_path):
    async with resumed_compacted(tmp_path) as (pilot, walker):
        # Every command without an argument, the ones that change the session last; '/compact 1' previews.
        commands = [c.name for c in pilot.app.command_table.all() if c.name not in SKIP_COMMANDS]
        commands.sort(key=lambda name: LAST_COMMANDS.index(name) if name in LAST_COMMANDS else -1)
        commands.insert(commands.index("/compact") + 1, "/compact 1")
        for command in commands:
            await walker.walk(lambda command=command: walker.send(command), label=command)
        # A screen class no command reaches must be reached by the other test (add it to BY_ROWS_AND_KEYS there).
        missing = all_screen_classes() - BY_ROWS_AND_KEYS - BY_A_TURN - walker.screens
        assert not missing, missing
