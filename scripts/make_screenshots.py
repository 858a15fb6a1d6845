"""Make screenshots/*.svg from the real app, the real engine and the scripted fake LLM server.

    python scripts/make_screenshots.py            # writes screenshots/{main_mid_turn,stored_vs_full,permission,
                                                  #   compaction_modal,compaction_result,context}_WxH.svg
                                                  #   main_idle, completion, help, compactions, ledger,
                                                  #   policies, diff, custom_command, rewind_fork,
                                                  #   compaction_preview, queued, memory, welcome) at 80x24, 100x30, 200x50, 250x70
    python scripts/make_screenshots.py --only welcome [--out DIR]   # just the empty session's welcome
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from contextual.core.config import load_config  # noqa: E402
from tests.fakes.llm_server import FakeLLMServer, Reply  # noqa: E402
from tests.tui_helpers import wait_for  # noqa: E402
from contextual.tui.app import ContextualApp  # noqa: E402
from contextual.tui.host import RealHost  # noqa: E402
from contextual.tui.screens.compaction import CompactionModal
from contextual.tui.screens.compaction_preview import CompactionPreviewScreen  # noqa: E402
from contextual.tui.screens.memory_choice import MemoryChoice  # noqa: E402
from contextual.tui.screens.permission import PermissionModal  # noqa: E402
from contextual.tui.screens.rewind_picker import RewindPicker  # noqa: E402
from contextual.tui.widgets.chat_log import ChatLog  # noqa: E402
from contextual.tui.widgets.history_view import HistoryView  # noqa: E402
from contextual.tui.widgets.scratchpad import ScratchpadView  # noqa: E402
from contextual.tui.widgets.welcome import Welcome  # noqa: E402

OUT = REPO / "screenshots"
SIZES = ((80, 24), (100, 30), (200, 50), (250, 70))

CART = "".join(f"def total_{n}(items):\n    return sum(i.price for i in items) * {n}\n\n" for n in range(300))


def script() -> list:
    read = 'Thought: The test compares cents with euros; read the cart first.\nAction: Read[{"file_path": "src/cart.py"}]'
    grep = 'Thought: Which tests call total()?\nAction: Grep[{"pattern": "total_1\\\\b", "path": "."}]'
    done = ("Thought: found it\nAction: Finish[`total()` returns **euros** while the test expects *cents*.\n\n"
            "- `src/cart.py`: multiply by 100\n- `tests/test_cart.py`: unchanged]")
    turns = [read, grep, done]
    for n in range(2):
        turns += [read, f"Thought: ok\nAction: Finish[Round {n} checked.]"]
    summary = Reply("## Primary request\nFix the checkout test.\n## Files\n- src/cart.py\n" + "detail " * 300,
                    chunk_delay=0.01, chunk_size=12)
    bash = 'Thought: Run the tests.\nAction: Bash[{"command": "python -m pytest -q tests/test_cart.py"}]'
    passed = "Thought: done\nAction: Finish[The tests pass:\n\n```text\n1 passed in 0.01s\n```]"
    slow = Reply('Thought: Now the tests.\nAction: Read[{"file_path": "tests/test_cart.py"}]', chunk_delay=0.4)
    return turns + [summary, bash, passed, read, slow]


def send(app: ContextualApp, text: str) -> None:
    """Put text in the input and focus it; the caller presses enter."""
    prompt = app.query_one("#prompt")
    prompt.load_text(text)
    prompt.focus()


async def run_turn(pilot, text: str) -> None:
    pad = pilot.app.query_one(ScratchpadView)
    started = len(pad.turns)
    send(pilot.app, text)
    await pilot.press("enter")
    await wait_for(pilot, lambda: len(pad.turns) > started and pad.turns[-1].outcome != "running")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def shot_of(pilot, command: str, name: str) -> None:
    """Run a slash command, save what it opened, close it."""
    app = pilot.app
    depth = len(app.screen_stack)
    send(app, command)
    await pilot.press("enter")
    await wait_for(pilot, lambda: len(app.screen_stack) > depth)
    await app.workers.wait_for_complete()
    await pilot.pause()
    app.save_screenshot(str(OUT / f"{name}.svg"))
    await pilot.press("escape")
    await wait_for(pilot, lambda: len(app.screen_stack) == depth)


async def main(argv: list[str] | None = None) -> None:
    global OUT
    parser = argparse.ArgumentParser(description="Make screenshots/*.svg from the real app and the fake server.")
    parser.add_argument("--only", choices=["welcome"], help="write only this screen (the others need the long run)")
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the SVGs (default: screenshots/)")
    args = parser.parse_args(argv)
    OUT = args.out
    OUT.mkdir(parents=True, exist_ok=True)
    for size in SIZES:
        suffix = f"_{size[0]}x{size[1]}"
        await welcome(size, suffix)
        if args.only is None:
            await scenario(size, suffix)
    for name in sorted(p.name for p in OUT.glob("*.svg")):
        print(OUT / name)


async def welcome(size: tuple[int, int], suffix: str) -> None:
    """An empty new session: the welcome with the model, its window and the keys that matter."""
    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer(kind="openai", script=[]) as srv:
        root = Path(tmp) / "shop"
        root.mkdir()
        config = load_config(root, {"model": "qwen2.5-coder", "base_url": srv.base_url, "api_key": "sk-demo",
                                    "context_window": 200_000}, env={"CONTEXTUAL_HOME": str(Path(tmp) / "home")})
        app = ContextualApp(RealHost(config), animate=False)
        async with app.run_test(size=size) as pilot:
            await wait_for(pilot, lambda: bool(app.query_one(ChatLog).query(Welcome)) and app.shown_engine.opened is not None)
            await app.workers.wait_for_complete()
            await pilot.pause()
            app.save_screenshot(str(OUT / f"welcome{suffix}.svg"))
            await pilot.press("ctrl+q")


async def scenario(size: tuple[int, int], suffix: str) -> None:
    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer(kind="openai", script=script()) as srv:
        root = Path(tmp) / "shop"
        (root / "src").mkdir(parents=True)
        (root / "tests").mkdir()
        (root / "src" / "cart.py").write_text(CART)
        (root / ".contextual" / "commands").mkdir(parents=True)
        (root / ".contextual" / "commands" / "review.md").write_text(
            "---\ndescription: review a file for bugs, tersely\nargument-hint: FILE\n---\nReview $ARGUMENTS for bugs.\n")
        (root / "tests" / "test_cart.py").write_text("from src.cart import total_1\n\ndef test_total():\n"
                                                      "    assert total_1([]) == 0\n")
        (Path(tmp) / "home").mkdir()          # the user's own rules, for /permissions (a project's would ask trust first)
        (Path(tmp) / "home" / "config.toml").write_text(
            '[permissions]\nallow = ["Bash(git status:*)", "Bash(ruff check:*)", "Edit(docs/**)"]\n'
            'deny = ["Bash(rm:*)", "Read(.env)"]\n')
        config = load_config(root, {"model": "qwen2.5-coder", "base_url": srv.base_url, "api_key": "sk-demo",
                                    "keep_rounds": 1, "context_window": 200_000}, env={"CONTEXTUAL_HOME": str(Path(tmp) / "home")})
        # A window the scripted turns fit: no automatic compaction takes a scripted reply; /compact shows one.
        app = ContextualApp(RealHost(config), animate=False)
        async with app.run_test(size=size) as pilot:
            await run_turn(pilot, "fix the failing checkout test")
            # The later rounds name what the first one read: the recall probe's facts (core/context/facts.py).
            for n in range(2):
                await run_turn(pilot, f"check round {n}: total_{n + 1} must stay in cents")
            app.save_screenshot(str(OUT / f"main_idle{suffix}.svg"))
            app.query_one("#prompt").focus()
            await pilot.press("/")
            await pilot.pause()
            app.save_screenshot(str(OUT / f"completion{suffix}.svg"))
            await pilot.press("escape")
            app.query_one("#prompt").clear()
            # A custom command (issue 30.3: .contextual/commands/review.md) in the / completion.
            app.query_one("#prompt").focus()
            for key in "/rev":
                await pilot.press(key)
            await pilot.pause()
            app.save_screenshot(str(OUT / f"custom_command{suffix}.svg"))
            await pilot.press("escape")
            app.query_one("#prompt").clear()
            # /rewind with k: fork a new session before the message instead of rewriting this one (issue 30.2).
            send(app, "/rewind")
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker))
            await pilot.press("k")
            await pilot.pause()
            app.save_screenshot(str(OUT / f"rewind_fork{suffix}.svg"))
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, RewindPicker))
            await shot_of(pilot, "/help", f"help{suffix}")
            if app.panes.narrow:
                app.action_toggle_region("history")      # below 100 columns: the History tab
            history = app.query_one(HistoryView)
            history.focus()
            history.highlighted = 2
            await pilot.press("enter")
            await pilot.pause()
            await pilot.press("n")
            await pilot.pause()
            app.save_screenshot(str(OUT / f"stored_vs_full{suffix}.svg"))
            await pilot.press("escape")

            send(app, "/compact keep the file list")
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal))
            modal = app.screen
            await wait_for(pilot, lambda: modal.tokens_received > 200 or modal.result is not None)
            app.save_screenshot(str(OUT / f"compaction_modal{suffix}.svg"))
            # A manual /compact shows the summary beside the rounds it replaces before anything changes (issue 19).
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionPreviewScreen))
            await pilot.pause()
            app.save_screenshot(str(OUT / f"compaction_preview{suffix}.svg"))
            await pilot.press("ctrl+s")
            # A manual compaction's result is the chat's line as it ends; its card is one key away in /compactions.
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0] and bool(app.engine.compactions))
            send(app, "/compactions")
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(app.screen_stack) > 1)
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal) and app.screen.result is not None)
            await pilot.pause()
            app.save_screenshot(str(OUT / f"compaction_result{suffix}.svg"))
            await pilot.press("escape")
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.screen_stack[0])

            await pilot.press("ctrl+l")
            await pilot.pause()
            await pilot.press("e")
            await pilot.pause()
            app.save_screenshot(str(OUT / f"context{suffix}.svg"))
            await pilot.press("escape")

            await shot_of(pilot, "/compactions", f"compactions{suffix}")
            await shot_of(pilot, "/ledger", f"ledger{suffix}")
            await shot_of(pilot, "/policies", f"policies{suffix}")
            await shot_of(pilot, "/diff", f"diff{suffix}")
            await shot_of(pilot, "/permissions", f"permissions{suffix}")

            send(app, "run the tests")
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, PermissionModal))
            await pilot.pause()
            app.save_screenshot(str(OUT / f"permission{suffix}.svg"))
            modal = app.screen
            await wait_for(pilot, lambda: not modal.too_soon())     # keys in its first moment are ignored
            await pilot.press("y")
            await wait_for(pilot, lambda: not app.turns.running)
            if app.panes.narrow:
                app.action_toggle_region("scratchpad")    # below 100 columns: the Scratchpad tab shows the live turn
            await pilot.pause()

            send(app, "now make the test pass")
            await pilot.press("enter")
            pad = app.query_one(ScratchpadView)
            await wait_for(pilot, lambda: pad.current is not None and len(pad.current.steps) >= 2
                           and pad.current.steps[-1].streamed)
            await pilot.pause(0.3)
            app.save_screenshot(str(OUT / f"main_mid_turn{suffix}.svg"))
            # Enter during a turn queues the message: it is sent when the turn ends; up takes it back.
            send(app, "then run the whole suite")
            await pilot.press("enter")
            await wait_for(pilot, lambda: bool(app.turns.queued.texts))
            await pilot.pause()
            app.save_screenshot(str(OUT / f"queued{suffix}.svg"))
            await pilot.press("escape")
            await app.workers.wait_for_complete()
            await wait_for(pilot, lambda: not app.turns.running)
            app.query_one("#prompt").clear()
            # `# text` remembers a line: the project's AGENTS.md or yours, the user chooses.
            send(app, "# prices are integer cents, never floats")
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, MemoryChoice))
            await pilot.pause()
            app.save_screenshot(str(OUT / f"memory{suffix}.svg"))
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, MemoryChoice))
            await pilot.press("ctrl+q")


if __name__ == "__main__":
    asyncio.run(main())
