"""The app as a session grows (not a test): an instant model answers 100 turns, each reading a file and answering in
Markdown; how long a turn takes and how long a key takes to be handled, early and late.

    python benchmarks/bench_tui_long_session.py [TURNS] [WIDTHxHEIGHT]

What a turn costs grows while the chat fills and stops growing once it holds its MAX_SHOWN_TURNS turns (the oldest
leave as new ones come). Targets: the last ten turns within 1.2x of the ten up to MAX_SHOWN_TURNS; a key in the input
(Pilot's press, which waits for the app to be idle) under 100 ms at any length, ↑ ↓ across the chat's rows too (tab
into the chat and a letter out of it change the footer's keys: a layout of the whole screen, more).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from contextual.tui.app import ContextualApp  # noqa: E402
from contextual.tui.widgets.chat_log import MAX_SHOWN_TURNS, ChatLog  # noqa: E402
from tests.fakes.llm_server import FakeLLMServer  # noqa: E402
from tests.tui_helpers import finish, make_host, make_project, type_and_send, wait_for  # noqa: E402

ANSWER = ("The **parser** reads it in two passes:\n\n| step | what |\n|---|---|\n| 1 | tokens |\n| 2 | tree |\n\n"
          "```python\ndef parse(text):\n    return tree(tokens(text))\n```\n\nNothing else changes.")


def reply(body: dict) -> str:
    """A Read first, then the answer: every turn leaves a user line, a tool trail and a Markdown answer."""
    last = json.dumps(body.get("messages", [])[-1:])
    if "question" not in last:          # the Read's result came back
        return finish(ANSWER)
    return 'Thought: look\nAction: Read[{"file_path": "src/module.py"}]'


async def keys(pilot, app: ContextualApp, pressed: list[str]) -> list[float]:
    taken = []
    for key in pressed:
        started = time.perf_counter()
        await pilot.press(key)
        taken.append(time.perf_counter() - started)
    return taken


TYPED = ["a", "b", "c", "backspace", "backspace", "backspace"]       # in the input
WALK = ["up", "up", "down", "down"]        # across the chat's rows, from the newest (tab from the input)


async def main(turns: int, size: tuple[int, int]) -> None:
    root = Path(tempfile.mkdtemp())
    make_project(root)
    marks = sorted({1, 10, MAX_SHOWN_TURNS, turns // 2, turns})
    with FakeLLMServer(kind="openai", responder=reply) as server:
        app = ContextualApp(make_host(root, server.base_url, context_window=1_000_000), animate=False)
        async with app.run_test(size=size) as pilot:
            await app.startup.started()
            took: list[float] = []
            for turn in range(1, turns + 1):
                started = time.perf_counter()
                await type_and_send(pilot, f"question {turn}: how does the parser work?")
                await wait_for(pilot, lambda: not app.turns.running, 120)
                took.append(time.perf_counter() - started)
                if turn in marks:
                    window = took[max(0, turn - 5):turn]
                    app.query_one("#prompt").focus()
                    pressed = await keys(pilot, app, TYPED)
                    into = await keys(pilot, app, ["tab"])
                    walk = await keys(pilot, app, WALK)
                    into += await keys(pilot, app, ["tab", "x", "backspace"])     # to the chat, back to the input
                    print(f"turn {turn:4}: turn median {statistics.median(window) * 1000:7.0f} ms · key median "
                          f"{statistics.median(pressed) * 1000:5.0f} ms, worst {max(pressed) * 1000:5.0f} ms · "
                          f"↑↓ rows median {statistics.median(walk) * 1000:4.0f} ms · tab, tab, x median "
                          f"{statistics.median(into[:3]) * 1000:4.0f} ms · "
                          f"{len(app.query_one(ChatLog).children)} chat widgets",
                          flush=True)
            first, full = statistics.median(took[:10]), statistics.median(took[MAX_SHOWN_TURNS - 10:MAX_SHOWN_TURNS])
            late = statistics.median(took[-10:])
            print(f"last ten turns / ten turns up to {MAX_SHOWN_TURNS}: {late / full:.2f}x (target <= 1.2x); "
                  f"/ the first ten: {late / first:.2f}x")


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    width, height = (int(v) for v in (sys.argv[2] if len(sys.argv) > 2 else "200x50").split("x"))
    asyncio.run(main(count, (width, height)))
