"""What the control-character guard (tui/terminal_guard.py) costs a frame (not a test).

    python benchmarks/bench_line_guard.py [ROUNDS]

A resumed session's chat at 200×50 (30 turns, each a long Markdown answer: 1,770 lines, the most turns the
chat shows), scrolled through page by page. Per page, frames as Textual builds them for the terminal (compositor
update → the string the driver writes): "cold", every widget's line cache cleared first, so every line is drawn
again (a frame after a resize or a theme change); "warm", as drawn already (a frame where nothing moved). Three
ways, in turn on each page, three times: no guard; the guard as installed (a step in Strip.render); the same check
as a line filter (the other place it could go, appended to the app's filters). Frame medians on a shared machine
move by more than the guard costs, so it also counts what the guard does in one cold and one warm frame of each
page (strips rendered, strips checked) and prices that with timings of the guard's own steps on those strips.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import sys
import tempfile
import time
import timeit
from pathlib import Path

from rich.console import Console
from rich.segment import Segment
from textual.app import App
from textual.color import Color
from textual.filter import LineFilter
from textual.strip import Strip

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_tui import BenchHost  # noqa: E402
from contextual.core.messages import Message  # noqa: E402
from contextual.tui import terminal_guard  # noqa: E402
from contextual.tui.app import ContextualApp  # noqa: E402
from contextual.tui.widgets.chat_log import ChatLog  # noqa: E402
from contextual.tui.widgets.token_meter import TokenMeter  # noqa: E402

TURNS = 30
WAYS = ("none", "strip step", "line filter")


def answer(i: int) -> str:
    """A long answer as models write them: a heading, prose, a list, a code block."""
    prose = " ".join(f"word{j} of answer {i}, with `code_{j}` and **bold {j}**." for j in range(12))
    items = "\n".join(f"- item {j}: `src/mod_{i}_{j}.py` changed, see line {j * 7}" for j in range(15))
    code = "\n".join(f"    value_{j} = compute({j}, {i})  # step {j}" for j in range(20))
    return f"## Answer {i}\n\n{prose}\n\n{items}\n\n```python\ndef f_{i}():\n{code}\n```\n\n{prose}"


def session() -> list[Message]:
    return [message for i in range(TURNS) for message in (
        Message("user", f"question {i}: explain module {i}"),
        Message("assistant", f"Thought: done\nAction: Finish[{answer(i)}]", meta={"step": 1, "final": True}))]


class AsFilter(LineFilter):
    """The same check and cleaning, run as a line filter on every widget's lines."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not terminal_guard._unsafe(segments):       # type: ignore[arg-type]
            return segments
        return list(terminal_guard.without_controls(Strip(segments)))


class Count:
    """What the guard sees in a frame: strips rendered, strips checked (not rendered before), and the lines."""

    def __init__(self) -> None:
        self.rendered, self.checked, self.lines = 0, 0, []

    @property
    def render(self):
        return lambda strip, console: self.seen(strip, console)     # a function: Strip binds it as a method

    def seen(self, strip: Strip, console: Console) -> str:
        self.rendered += 1
        if strip._render_cache is None:
            self.checked += 1
            self.lines.append(strip)
        return terminal_guard._textual_render(strip, console)


def best_us(statement, number: int) -> float:
    return min(timeit.repeat(statement, number=number, repeat=5)) / number * 1e6


def frame(app: ContextualApp, console: Console, cold: bool) -> float:
    if cold:
        for widget in app.screen.walk_children(with_self=True):
            widget._styles_cache.clear()
        gc.collect()
    started = time.perf_counter()
    app.screen._compositor.render_update(full=True).render_segments(console)
    return time.perf_counter() - started


async def measure(rounds: int) -> dict[tuple[str, bool], list[float]]:
    times: dict[tuple[str, bool], list[float]] = {(way, cold): [] for way in WAYS for cold in (True, False)}
    with tempfile.TemporaryDirectory() as tmp:
        app = ContextualApp(BenchHost(Path(tmp), session()), animate=False)
        as_filter = AsFilter()
        filters = app.get_line_filters
        console = Console(color_system="truecolor", force_terminal=True, width=200, height=50)

        def use(way: str) -> None:
            Strip.render = (terminal_guard.render if way == "strip step"          # type: ignore[method-assign]
                            else terminal_guard._textual_render)
            app.get_line_filters = ((lambda: [*filters(), as_filter]) if way == "line filter"  # type: ignore
                                    else filters)

        async with app.run_test(size=(200, 50)) as pilot:
            chat = app.query_one(ChatLog)
            while app.query_one(TokenMeter).shown is None or len(chat.children) < 2 * TURNS:
                await pilot.pause(0.05)      # counts shown: the chat's older turns follow them
            await pilot.pause(0.5)
            pages = range(0, int(chat.max_scroll_y), chat.size.height)
            for _ in range(rounds):
                for index, page in enumerate(pages):
                    chat.scroll_to(y=page, animate=False, immediate=True)
                    for way in WAYS:                     # lay the page out and draw it once each way, untimed
                        use(way)
                        frame(app, console, cold=True)
                    order = WAYS[index % 3:] + WAYS[:index % 3]
                    for _ in range(3):
                        for way in order:
                            use(way)
                            times[(way, True)].append(frame(app, console, cold=True))
                            times[(way, False)].append(frame(app, console, cold=False))
            counts = {True: Count(), False: Count()}
            use("none")
            for page in pages:
                chat.scroll_to(y=page, animate=False, immediate=True)
                for cold in (True, False):
                    Strip.render = counts[cold].render          # type: ignore[method-assign]
                    frame(app, console, cold=cold)
            use("strip step")
            price(counts, console, len(pages))
            print(f"{len(pages)} pages × {rounds} rounds × 3, {int(chat.virtual_size.height)} lines in the chat")
    return times


def price(counts: dict[bool, Count], console: Console, frames: int) -> None:
    """The guard's time per frame: its call on every render, its check on every strip not rendered before."""
    lines = counts[True].lines
    check = best_us(lambda: [terminal_guard.without_controls(strip) for strip in lines], 1) / len(lines)
    cached = lines[0]
    terminal_guard.render(cached, console)
    call = best_us(lambda: terminal_guard.render(cached, console), 20000) - \
        best_us(lambda: terminal_guard._textual_render(cached, console), 20000)
    for cold in (True, False):
        count = counts[cold]
        cost = (count.rendered * call + count.checked * check) / frames
        print(f"{'cold' if cold else 'warm'}: {count.rendered / frames:.0f} strips rendered a frame, "
              f"{count.checked / frames:.0f} checked: the guard ≈ {cost:.1f} µs a frame "
              f"(a check {check:.2f} µs, a call {call:.2f} µs)")


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 1       # 0: only the counts and their price
    times = asyncio.run(measure(rounds))
    for cold in (True, False) if rounds else ():
        base = statistics.median(times[("none", cold)])
        print(f"{'cold' if cold else 'warm'} frame, median: " + ", ".join(
            f"{way} {statistics.median(times[(way, cold)]) * 1000:.2f} ms "
            f"({statistics.median(times[(way, cold)]) / base:.3f}×)" for way in WAYS))


if __name__ == "__main__":
    main()
