"""Launch against Textual's own (issue 29), as a person sees it (not a test). In one run, alternating, in a real
terminal (tmux, a server of its own) at 100×30:

  minimal   a minimal Textual app (a header line and a footer), `python minimal.py`
  new       `contextual` in a small project (new session)
  small     `contextual -c` on a 20-message session
  big       `contextual -c` on a ~2,000-message session (tool results 2-40 KB: several MB on disk)

Each is timed from starting the process to the first capture of the pane that shows its screen (polled every
5 ms), and Contextual's also to the capture where the meter shows the counted figures (the tokenizer loads after
the first frame). Medians, and the ratios the issue sets (first frame ≤ 1.5× minimal; counts ≤ 2× minimal;
big's first frame ≤ 1.2× small's). Then where the time goes: the phases of each launch (the app's own marks:
imports, app built, mounted, first frame, tokenizer, counts), `python -X importtime` (the slowest imports of the
launch path) and cProfile of a headless start (`App.run_test`) on the big session up to its first frame.
Every launch runs with bytecode cached (in a folder of the run), as an installed package has it, and each one's
process is gone (killed with its tmux session, the terminal closing under it) before the next starts: how long it
lived on after the kill is reported too.

    python benchmarks/bench_launch.py [runs]          # needs tmux; default 7 runs each
"""

from __future__ import annotations

import asyncio
import cProfile
import io
import json
import os
import pstats
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_sessions import write_big_session

from tests.fakes.llm_server import FakeLLMServer
from tests.waits import alive

SIZE = (100, 30)
TMUX = ["tmux", "-L", f"bench-launch-{os.getpid()}"]
PAINTED = ("Contextual ·", "estimate")      # Contextual's top bar and meter (counting or counted): its first frame
COUNTED = "trigger line"                    # the meter's counted figures
MINIMAL_MARK = ("Minimal app ·", "quit")    # the minimal app's line and footer
MINIMAL_APP = '''
from textual.app import App
from textual.widgets import Footer, Static

class Minimal(App):
    BINDINGS = [("ctrl+q", "quit", "quit")]
    def compose(self):
        yield Static("Minimal app · the same terminal, the same Python")
        yield Footer()

Minimal().run()
'''

# The launch path with marks: `python -m contextual`'s own code, its app's methods wrapped to note the time from
# the process's start (the benchmark's clock, passed in) at each phase; it quits once the counts are shown.
PHASES_RUNNER = '''
import json, os, sys, time
launched = float(os.environ["BENCH_LAUNCHED"])
marks = {"python started": time.time() - launched}
def mark(what):
    marks.setdefault(what, time.time() - launched)
import contextual.cli
import contextual.tui.launch
from contextual.tui.app import ContextualApp
from contextual.tui.readouts import Readouts
from contextual.tui.startup import Startup
mark("imports done")
def wrap(name, before=None, after=None, quit=False, owner=ContextualApp):
    original = getattr(owner, name)
    async def wrapped(self):       # these methods take no event (Textual would pass one to *args)
        if before: mark(before)
        result = original(self)
        if hasattr(result, "__await__"): result = await result
        if after: mark(after)
        if quit: getattr(self, "app", self).exit()
        return result
    setattr(owner, name, wrapped)
original_init = ContextualApp.__init__
def init(self, *args, **kwargs):
    mark("app built: start")
    original_init(self, *args, **kwargs)
    mark("app built")
ContextualApp.__init__ = init
wrap("on_mount", after="mounted")
wrap("on_ready", before="first frame")
wrap("COUNTED_HOOK", before="tokenizer loaded", quit=True, owner=Startup)
original_show = Readouts.show_prompt
def show_prompt(self, *args, **kwargs):
    original_show(self, *args, **kwargs)
    if self.shown is not None:        # the meter shows counts (of earlier runs, or the tokenizer's)
        mark("counts shown")
Readouts.show_prompt = show_prompt
try:
    contextual.cli.main(sys.argv[1:])
finally:
    with open(os.environ["BENCH_MARKS"], "w") as out:
        json.dump(marks, out)
'''
COUNTED_HOOK = "counts_ready"        # Startup's method (tui/startup.py) that shows the counts once the tokenizer is loaded


def keep_server(name: str, env: dict[str, str]) -> None:
    """One idle session keeps the tmux server up (a server exiting races the next start); a server still going
    away from the last kill-server refuses it for a moment."""
    for _ in range(50):
        if subprocess.run([*TMUX, "new-session", "-d", "-s", name, "sleep 3600"], env=env,
                          capture_output=True, check=False).returncode == 0:
            return
        time.sleep(0.1)
    raise RuntimeError("tmux would not start a server")


def end(session: str) -> float:
    """Kill the launch's session and wait until its process is gone: the seconds it lived on after the kill. A
    process that lived on ran beside the next launch on this machine's two cores (a hang-up at launch once
    finished the launch's work first: ~1 s at full CPU after a 2,000-entry session, and the next launch paid)."""
    found = subprocess.run([*TMUX, "list-panes", "-t", session, "-F", "#{pane_pid}"], capture_output=True,
                           text=True, check=False).stdout.split()
    killed = time.perf_counter()
    subprocess.run([*TMUX, "kill-session", "-t", session], capture_output=True, check=False)
    while found and alive(int(found[0])) and time.perf_counter() - killed < 30:
        time.sleep(0.002)
    return time.perf_counter() - killed


def pane(session: str) -> str:
    return subprocess.run([*TMUX, "capture-pane", "-t", session, "-p"], capture_output=True, text=True, check=False).stdout


def one_launch(command: str, env: dict[str, str], painted: tuple[str, ...], counted: str | None,
               size: tuple[int, int] = SIZE) -> tuple[float, float, float]:
    """(first frame, counts shown, lived on after the kill) in seconds; the first two from starting the process
    (counts = first frame without a mark)."""
    session = f"launch-{time.monotonic_ns()}"
    started = time.perf_counter()
    # -e: a running tmux server gives new sessions its own environment, not this process's
    own = [f"-e{key}={value}" for key, value in env.items() if key.startswith(("CONTEXTUAL_", "PYTHON"))]
    subprocess.run([*TMUX, "new-session", "-d", "-s", session, "-x", str(size[0]), "-y", str(size[1]), *own,
                    command], env=env, check=True, capture_output=True)
    first: float | None = None
    try:
        while True:
            screen = pane(session)
            if first is None and all(mark in screen for mark in painted):
                first = time.perf_counter() - started
            if first is not None and (counted is None or counted in screen):
                shown = (first, time.perf_counter() - started)
                break
            if time.perf_counter() - started > 60:
                raise TimeoutError(f"no frame after 60 s:\n{screen}")
            time.sleep(0.005)
    finally:
        lived_on = end(session)
    return (*shown, lived_on)


def phases(runner: Path, root: Path, env: dict[str, str], args: str, runs: int,
           fresh_homes: Path | None = None) -> dict[str, float]:
    """Median seconds from starting the process to each phase of the launch (PHASES_RUNNER's marks); with
    ``fresh_homes``, each launch in a home of its own (no counts from earlier runs)."""
    found: dict[str, list[float]] = {}
    for run in range(runs):
        marks_file = runner.with_name(f"marks-{run}.json")
        marks_file.unlink(missing_ok=True)
        session = f"phases-{time.monotonic_ns()}"
        home = {"CONTEXTUAL_HOME": str(fresh_homes / f"run-{run}")} if fresh_homes is not None else {}
        own = dict(env, **home, BENCH_MARKS=str(marks_file), BENCH_LAUNCHED=repr(time.time()))
        flags = [f"-e{key}={value}" for key, value in own.items() if key.startswith(("CONTEXTUAL_", "PYTHON", "BENCH_"))]
        subprocess.run([*TMUX, "new-session", "-d", "-s", session, "-x", str(SIZE[0]), "-y", str(SIZE[1]), *flags,
                        f"cd {root} && exec {sys.executable} {runner} {args}"], env=own, check=True,
                       capture_output=True)
        deadline = time.perf_counter() + 60
        while not marks_file.exists() and time.perf_counter() < deadline:
            time.sleep(0.02)
        end(session)           # gone: the runner's json.dump has finished
        for name, at in json.loads(marks_file.read_text()).items():
            found.setdefault(name, []).append(at)
    return {name: statistics.median(ats) for name, ats in found.items()}


def import_times(env: dict[str, str], root: Path, top: int = 12) -> str:
    """The launch path's slowest imports (cumulative), from python -X importtime."""
    code = "import contextual.cli, contextual.tui.launch"
    result = subprocess.run([sys.executable, "-X", "importtime", "-c", code], cwd=root, env=env,
                            capture_output=True, text=True, check=False)
    rows = []                                   # (cumulative us, nesting depth, module)
    for line in result.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            name = parts[2].rstrip()
            rows.append((int(parts[1]), len(name) - len(name.lstrip()), name.strip()))
    outer = min((depth for _, depth, _ in rows), default=0)
    total = sum(us for us, depth, _ in rows if depth == outer)
    ours = sum(us for us, depth, name in rows if depth == outer and name.startswith("contextual"))
    lines = [(f"  all imports {total / 1e6:.3f} s (top-level contextual.* {ours / 1e6:.3f} s; the rest is Python's "
              "and the libraries' own, Textual's included); the slowest, cumulative:")]
    lines += [f"  {us / 1e6:7.3f} s  {name}" for us, _, name in sorted(rows, reverse=True)[:top]]
    return "\n".join(lines)


def profile_headless(home: Path, root: Path, base_url: str, top: int = 15) -> str:
    """cProfile of building the app on the big session and running it headless to its first refresh."""
    os.environ["CONTEXTUAL_HOME"] = str(home)
    from contextual.core.config import load_config
    from contextual.tui.app import ContextualApp
    from contextual.tui.host import RealHost
    config = load_config(root, {"model": "fake-model", "base_url": base_url, "api_key": "sk-bench"},
                         env={"CONTEXTUAL_HOME": str(home)})

    async def start() -> None:
        host = RealHost(config)
        app = ContextualApp(host, host.resume(None), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
        await host.aclose()

    profiler = cProfile.Profile()
    profiler.enable()
    asyncio.run(start())
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(str(REPO), top)     # our functions only
    body = [line.replace(str(REPO) + "/", "") for line in out.getvalue().splitlines() if line.strip()]
    return "\n".join("  " + line[:150] for line in body[-(top + 1):])


def main() -> None:
    if shutil.which("tmux") is None:
        sys.exit("tmux is needed")
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer(kind="openai", script=[]) as srv:
        tmp_path = Path(tmp)
        root = tmp_path / "proj"
        root.mkdir()
        (root / "app.py").write_text("print('hi')\n")
        (tmp_path / "minimal.py").write_text(MINIMAL_APP)
        # Bytecode cached, as an installed package has it (pip compiles at install): a checkout run with
        # PYTHONDONTWRITEBYTECODE=1 would compile every module of ours at every start (~0.15 s here) while
        # Textual's come compiled from site-packages. The cache goes to a folder of this run, not the tree.
        base = dict(os.environ, PYTHONPATH=str(REPO), CONTEXTUAL_MODEL="fake-model",
                    CONTEXTUAL_BASE_URL=srv.base_url, CONTEXTUAL_API_KEY="sk-bench",
                    PYTHONDONTWRITEBYTECODE="", PYTHONPYCACHEPREFIX=str(tmp_path / "pycache"))
        homes = {name: tmp_path / f"home-{name}" for name in ("new", "small", "big")}
        _, small = asyncio.run(write_big_session(homes["small"], root, 20, rng))
        big_path, big = asyncio.run(write_big_session(homes["big"], root, 2_000, rng))
        size_mb = big_path.stat().st_size / 1e6
        python = sys.executable
        variants = {
            "minimal": (f"cd {tmp} && exec {python} minimal.py", base, MINIMAL_MARK, None),
            "new": (f"cd {root} && exec {python} -m contextual", dict(base, CONTEXTUAL_HOME=str(homes["new"])),
                    PAINTED, COUNTED),
            "small": (f"cd {root} && exec {python} -m contextual -c",
                      dict(base, CONTEXTUAL_HOME=str(homes["small"])), PAINTED, COUNTED),
            "big": (f"cd {root} && exec {python} -m contextual -c",
                    dict(base, CONTEXTUAL_HOME=str(homes["big"])), PAINTED, COUNTED),
        }
        keep = "launch-keep"
        keep_server(keep, base)
        times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in variants}
        try:
            for name, (command, env, painted, counted) in variants.items():   # warm the file cache once
                one_launch(command, env, painted, counted)
            for _ in range(runs):
                for name, (command, env, painted, counted) in variants.items():
                    times[name].append(one_launch(command, env, painted, counted))
        finally:
            subprocess.run([*TMUX, "kill-server"], capture_output=True, check=False)
        first = {name: statistics.median(t[0] for t in ts) for name, ts in times.items()}
        counts = {name: statistics.median(t[1] for t in ts) for name, ts in times.items()}
        print(f"Launch in tmux at {SIZE[0]}x{SIZE[1]}, {runs} runs each, alternating; median (min-max) seconds; "
              f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        for name, ts in times.items():
            firsts = [t[0] for t in ts]
            line = f"  {name:8} first frame {first[name]:.3f} ({min(firsts):.3f}-{max(firsts):.3f})"
            if name != "minimal":
                line += f"   counts shown {counts[name]:.3f}"
            line += f"   lived on after the kill {statistics.median(t[2] for t in ts):.3f}"
            print(line)
        print(f"  sessions: small {small} entries, big {big} entries ({size_mb:.1f} MB)")
        print("Ratios (target):")
        print(f"  first frame, new / minimal     {first['new'] / first['minimal']:.2f}x  (<= 1.5x)")
        print(f"  counts shown, new / minimal    {counts['new'] / first['minimal']:.2f}x  (<= 2x)")
        print(f"  first frame, big / small       {first['big'] / first['small']:.2f}x  (<= 1.2x)")
        print(f"  counts shown, big / small      {counts['big'] / counts['small']:.2f}x")
        runner = tmp_path / "phases.py"
        runner.write_text(PHASES_RUNNER.replace("COUNTED_HOOK", COUNTED_HOOK))
        keep_server(keep, base)
        try:
            marks = {name: phases(runner, root, variants[name][1], "-c" if name != "new" else "", runs)
                     for name in ("new", "small", "big")}
            marks["new,cold"] = phases(runner, root, variants["new"][1], "", runs, tmp_path / "cold-homes")
        finally:
            subprocess.run([*TMUX, "kill-server"], capture_output=True, check=False)
        print("Phases (median seconds from starting the process; the app's own marks, one more launch each; "
              "new,cold: a home without the counts of earlier runs, as at the very first launch):")
        names = list(dict.fromkeys(name for found in marks.values() for name in found))
        print("  " + " " * 18 + "".join(f"{variant:>10}" for variant in marks))
        for name in names:
            print(f"  {name:18}" + "".join(f"{marks[v][name]:10.3f}" if name in marks[v] else f"{'-':>10}"
                                          for v in marks))
        print("Where the time goes: python -X importtime -c 'import contextual.cli, contextual.tui.launch'")
        print(import_times(dict(base, CONTEXTUAL_HOME=str(homes["new"])), root))
        print("cProfile: the app built on the big session and run headless to its first refresh (cumulative)")
        print(profile_headless(homes["big"], root, srv.base_url))


if __name__ == "__main__":
    main()
