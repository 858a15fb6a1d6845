"""Launch to first painted frame as a person sees it (not a test): `contextual` started in a real terminal (tmux),
timed from starting the process to the first capture of the pane that shows the app's screen (its top bar and
meter, the meter still counting), then to the capture where the meter shows the counted figures (the tokenizer loads
after the first frame). Polls the pane every 5 ms; the fake LLM server answers on 127.0.0.1 (the app asks it for
the window).

    python benchmarks/bench_tui_terminal.py [runs]          # needs tmux
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_launch import PAINTED, TMUX, one_launch as launch_once  # noqa: E402
from tests.fakes.llm_server import FakeLLMServer  # noqa: E402


COUNTED = "k window"        # the meter's counted line ('… of 200k window'), at 80 columns too ('trigger line' is wide only)


def one_launch(size: tuple[int, int], env: dict[str, str], root: Path) -> tuple[float, float]:
    """(first frame, counts shown) in seconds from starting the process (bench_launch's timing loop)."""
    return launch_once(f"cd {root} && exec {sys.executable} -m contextual", env, PAINTED, COUNTED, size=size)


def main() -> None:
    if shutil.which("tmux") is None:
        sys.exit("tmux is needed")
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer(kind="openai", script=[]) as srv:
        root = Path(tmp) / "proj"
        root.mkdir()
        (root / "app.py").write_text("print('hi')\n")
        env = dict(os.environ, PYTHONPATH=str(REPO), CONTEXTUAL_HOME=str(Path(tmp) / "home"),
                   CONTEXTUAL_MODEL="fake-model", CONTEXTUAL_BASE_URL=srv.base_url, CONTEXTUAL_API_KEY="sk-bench")
        # One idle session keeps the tmux server up between launches (a server exiting races the next start).
        keep = f"bench-keep-{os.getpid()}"
        subprocess.run([*TMUX, "new-session", "-d", "-s", keep, "sleep 3600"], env=env, check=True)
        try:
            one_launch((80, 24), env, root)                      # warm the file cache once
            for size in ((80, 24), (200, 50)):
                times = [one_launch(size, env, root) for _ in range(runs)]
                firsts, counted = [t[0] for t in times], [t[1] for t in times]
                print(f"{size[0]}x{size[1]}: launch to first painted frame in tmux: median "
                      f"{statistics.median(firsts):.3f} s (min {min(firsts):.3f}, max {max(firsts):.3f}, {runs} runs); "
                      f"counts shown {statistics.median(counted):.3f} s")
        finally:
            subprocess.run([*TMUX, "kill-server"], capture_output=True)


if __name__ == "__main__":
    main()
