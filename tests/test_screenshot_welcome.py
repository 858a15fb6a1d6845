"""scripts/make_screenshots.py --only welcome: the empty session's welcome at every size, from the real app."""

from __future__ import annotations

import html
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_welcome_screenshots_show_model_window_and_keys(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "make_screenshots.py"), "--only", "welcome",
                           "--out", str(tmp_path)], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in tmp_path.glob("*.svg"))
    assert names == ["welcome_100x30.svg", "welcome_200x50.svg", "welcome_250x70.svg", "welcome_80x24.svg"]
    for name in names:
        text = html.unescape((tmp_path / name).read_text()).replace("\xa0", " ")
        assert "qwen2.5-coder" in text and "200k window" in text, name
        # The welcome's own segments: one line of keys, or one key per line where the chat is narrow.
        for part in (">enter<", "> send", "> interrupt", ">ctrl+p or /<", "> commands", ">tab<", "> to tool calls"):
            assert part in text, (name, part)
