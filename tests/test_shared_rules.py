"""Rules that several modules need, each written once: whole-file writes (core/atomic.py), the path a tool call
names (core/tools/base.py) and a count with its noun (core/plural.py)."""

from __future__ import annotations

import os
import re
import stat
import threading
from pathlib import Path

import pytest

from contextual.core.atomic import atomic_write
from contextual.core.plural import plural
from contextual.core.textsafe import one_line
from contextual.core.tools.base import path_of, subject_of


def test_atomic_write_keeps_the_mode_and_leaves_no_temp_file(tmp_path: Path):
    target = tmp_path / "rules.toml"
    target.write_text("old\n")
    os.chmod(target, 0o600)
    atomic_write(target, b"new\n")
    assert target.read_text() == "new\n" and stat.S_IMODE(target.stat().st_mode) == 0o600
    atomic_write(tmp_path / "fresh.json", b"{}", 0o640)
    assert stat.S_IMODE((tmp_path / "fresh.json").stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.json", "rules.toml"]


def test_a_failed_write_leaves_the_old_file_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    target = tmp_path / "calibration.json"
    target.write_text('{"m": 1.1}')

    def refuse(*_: object) -> None:
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError):
        atomic_write(target, b'{"m": 1.2}')
    assert target.read_text() == '{"m": 1.1}' and [p.name for p in tmp_path.iterdir()] == ["calibration.json"]


def test_writers_at_the_same_time_never_share_a_temp_file(tmp_path: Path):
    """Two processes (here threads) saving the same file: each renames its own whole temp file, so the result is
    one of the versions written, never a mix (a fixed `.tmp` name let one writer rename the other's half file)."""
    target = tmp_path / "index.json"
    versions = [bytes([65 + n]) * 200_000 for n in range(8)]
    start = threading.Barrier(len(versions))

    def write(data: bytes) -> None:
        start.wait()
        atomic_write(target, data, durable=False)
    threads = [threading.Thread(target=write, args=(v,)) for v in versions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert target.read_bytes() in versions
    assert [p.name for p in tmp_path.iterdir()] == ["index.json"]


@pytest.mark.parametrize("args, path, subject", [
    ({"file_path": "a.py"}, "a.py", "a.py"),
    ({"path": "src/"}, "src/", "src/"),
    ({"file_path": "", "path": "b.py"}, "b.py", "b.py"),
    ({"command": "pytest -q"}, None, "pytest -q"),
    ({"pattern": "def main"}, None, "def main"),
    ({"file_path": 3}, None, None),
    ("not a dict", None, None),
])
def test_the_path_a_call_names_is_read_one_way(args: object, path: str | None, subject: str | None):
    assert path_of(args) == path and subject_of(args) == subject


def test_a_count_and_its_noun_are_written_one_way():
    assert [plural(n, "round") for n in (0, 1, 2)] == ["0 rounds", "1 round", "2 rounds"]
    assert plural(1, "match", "matches") == "1 match" and plural(3, "entry", "entries") == "3 entries"
    assert plural(1234, "character", grouped=True) == "1,234 characters"
    # core wrote `{n} round{'s' if n != 1 else ''}` inline while the app had its own helper
    inline = re.compile(r"""\{\s*(['"])e?s\1 if |(['"])(\w+)\2 if [^{}]*?== 1 else (['"])\3e?s\4""")
    repo = Path(__file__).resolve().parents[1]
    found = [f"{path.relative_to(repo)}:{n}" for folder in ("core", "tui", "contextual")
             for path in sorted((repo / folder).rglob("*.py"))
             for n, line in enumerate(path.read_text().splitlines(), 1) if inline.search(line)]
    assert found == []


def test_a_line_is_cut_with_an_ellipsis_one_way():
    """Six modules cut a text to N characters with "…" each its own way (a 57-character cut under a 60 bound, one
    keeping blanks); core/textsafe.py: one_line is the one."""
    assert one_line("a  b\n c", 300) == "a b c" and one_line("x" * 10, 5) == "xxxx…"
    cut = re.compile(r"""\[\s*:\s*[\w.]+(?:\s*-\s*\d+)?\s*\]\s*(?:\.rstrip\(\)\s*)?\+\s*(['"])…\1""")
    repo = Path(__file__).resolve().parents[1]
    # permission.py cuts to the dialog's cells, its own measure; grep.py keeps a match's blanks (its indentation)
    found = [f"{path.relative_to(repo)}:{n}" for folder in ("core", "tui", "contextual")
             for path in sorted((repo / folder).rglob("*.py"))
             if path.name not in ("textsafe.py", "permission.py", "grep.py")
             for n, line in enumerate(path.read_text().splitlines(), 1) if cut.search(line)]
    assert found == []
