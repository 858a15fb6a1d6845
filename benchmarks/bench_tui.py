"""TUI timings (not a test): launch to first frame, opening a 2,000-message session, streamed token to paint.

    python benchmarks/bench_tui.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import tiktoken

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from contextual.core import tokens  # noqa: E402
from contextual.core.agent import Engine  # noqa: E402
from contextual.core.config import load_config  # noqa: E402
from contextual.core.messages import Message  # noqa: E402
from contextual.tui.app import ContextualApp  # noqa: E402
from contextual.tui.host import Opened  # noqa: E402
from contextual.tui.widgets.chat_log import ChatLog  # noqa: E402
from contextual.tui.widgets.token_meter import TokenMeter  # noqa: E402


class BenchHost:
    def __init__(self, root: Path, messages: list[Message]) -> None:
        self.config = load_config(root, {"model": "bench", "base_url": "http://127.0.0.1:9/v1"},
                                  env={"CONTEXTUAL_HOME": str(root / ".home")})
        self.messages = messages

    def new_engine(self) -> Opened:
        engine = Engine(self.config, None)
        engine.restore(self.messages, None, [], [])
        return Opened(engine)

    def resume(self, session_id=None):
        raise LookupError("none")

    def list_sessions(self):
        return []

    def ensure_session(self, engine) -> None:
        pass

    async def undo(self, engine) -> str:
        return ""

    async def close(self, engine) -> None:
        pass


def session_messages(n: int) -> list[Message]:
    out: list[Message] = []
    for i in range(n // 4):
        args = {"file_path": f"src/mod_{i}.py"}
        body = "\n".join(f"line {j} of module {i}" for j in range(40))
        out += [Message("user", f"question {i}: look at module {i}"),
                Message("assistant", f'Thought: read it\nAction: Read[{{"file_path": "src/mod_{i}.py"}}]',
                        meta={"step": 1, "call_id": f"c{i}", "tool_name": "Read", "args": args}),
                Message("tool", '{"status": "success", "text": ' + repr(body[:200]).replace("'", '"') + "}",
                        full='{"status": "success", "text": ' + repr(body).replace("'", '"') + "}",
                        meta={"tool_name": "Read", "call_id": f"c{i}", "args": args, "step": 1}),
                Message("assistant", f"Thought: ok\nAction: Finish[module {i} is fine]",
                        meta={"step": 2, "final": True})]
    return out


async def first_frame(root: Path, messages: list[Message]) -> tuple[float, float]:
    """(first frame written, counts shown): the first compositor update handed to the terminal driver, and the
    moment the meter shows token counts (the tokenizer loads after the first frame)."""
    started = time.perf_counter()
    app = ContextualApp(BenchHost(root, messages), animate=False)
    painted: list[float] = []
    display = app._display            # Textual's one door from the compositor to the terminal

    def spy(screen, renderable) -> None:
        if not painted and renderable is not None:
            painted.append(time.perf_counter() - started)
        display(screen, renderable)

    app._display = spy
    async with app.run_test(size=(160, 48)) as pilot:
        while app.query_one(TokenMeter).shown is None:
            await pilot.pause(0.005)
        return painted[0], time.perf_counter() - started


async def token_to_paint(root: Path, tokens: int = 200) -> list[float]:
    """Time from a fragment handed to the chat to the next compositor update that contains it."""
    app = ContextualApp(BenchHost(root, []), animate=False)
    delays: list[float] = []
    async with app.run_test(size=(160, 48)) as pilot:
        chat = app.query_one(ChatLog)
        for i in range(tokens):
            t0 = time.perf_counter()
            await chat.stream_answer(f"word{i} ")
            while True:      # wait until the markdown widget shows the new word on screen
                await asyncio.sleep(0.001)
                if f"word{i}" in app.export_screenshot():
                    break
            delays.append(time.perf_counter() - t0)
    return delays


async def cold(root: Path, messages: list[Message]) -> tuple[float, float]:
    tokens._encoding = None           # as in a fresh process: the tokenizer is not loaded yet (nor cached by tiktoken)
    tiktoken.registry.ENCODINGS.clear()
    return await first_frame(root, messages)


def figures(runs: list[tuple[float, float]]) -> str:
    return (f"first frame median {statistics.median(r[0] for r in runs) * 1000:6.1f} ms, counts shown "
            f"{statistics.median(r[1] for r in runs) * 1000:6.1f} ms")


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        launch = [await cold(root, []) for _ in range(3)]
        big = session_messages(2000)
        opening = [await cold(root, big) for _ in range(3)]
        paint = await token_to_paint(root, 60)
    print(f"launch (target ≤ 600 ms):                   {figures(launch)}")
    print(f"open a 2,000-message session (≤ 1000 ms):   {figures(opening)}")
    print(f"streamed token to paint:        median {statistics.median(paint) * 1000:7.1f} ms, "
          f"p95 {sorted(paint)[int(len(paint) * 0.95)] * 1000:.1f} ms  (target ≤ 50 ms)")


if __name__ == "__main__":
    asyncio.run(main())
