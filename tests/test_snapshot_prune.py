"""Ghost snapshots are pruned by count and age (issue 16.5), through the real CLI, in git and copy mode."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from contextual.core.snapshot.prune import prune_copies
from tests.cli_helpers import cli_env, contextual
from tests.fakes.llm_server import FakeLLMServer
from tests.git_helpers import QUIET, run_git

PREFIX = "refs/contextual/snapshots/"


def _edit_turn(n: int) -> list[str]:
    args = {"file_path": "f.txt", "content": f"version {n}\n"}
    return [f"Thought: write\nAction: Write[{json.dumps(args)}]", f"Thought: done\nAction: Finish[turn {n}]"]


def _run_turns(project: Path, home: Path, turns: range) -> None:
    script = [line for n in turns for line in _edit_turn(n)]
    with FakeLLMServer(kind="openai", script=script) as srv:
        env = cli_env(home, srv.base_url, GIT_AUTHOR_NAME="u", GIT_AUTHOR_EMAIL="u@x",
                      GIT_COMMITTER_NAME="u", GIT_COMMITTER_EMAIL="u@x")
        for n in turns:
            result = contextual(["-p", f"turn {n}", "--permission-mode", "bypass"], project, env)
            assert result.returncode == 0 and result.stdout == f"turn {n}\n", result.stderr


def _config(project: Path, text: str) -> None:
    (project / ".contextual").mkdir(exist_ok=True)
    (project / ".contextual" / "config.toml").write_text(text)


def test_git_snapshot_refs_beyond_the_count_and_the_age_are_pruned(tmp_path: Path):
    project = tmp_path / "proj"
    project.mkdir()
    run_git(project, "init", "-q", "-b", "main")
    (project / ".gitignore").write_text(".contextual/\n")
    _config(project, "snapshot_keep = 5\nsnapshot_max_age_days = 30\n")
    # A snapshot left by a session two months ago.
    tree = run_git(project, "write-tree").strip()
    old_env = {**QUIET, "GIT_COMMITTER_DATE": f"{int(time.time()) - 60 * 86400} +0000"}
    old = subprocess.run(["git", "commit-tree", tree, "-m", "old"], cwd=project, env=old_env, check=True,
                         capture_output=True, text=True).stdout.strip()
    run_git(project, "update-ref", f"{PREFIX}old-session/1", old)

    def refs() -> list[str]:
        return run_git(project, "for-each-ref", "--format=%(refname)", PREFIX).split()

    _run_turns(project, tmp_path / "home", range(1, 3))
    assert f"{PREFIX}old-session/1" not in refs()                 # older than 30 days, though within the count
    assert len(refs()) == 4                                         # two turns, before and after each

    _config(project, "snapshot_keep = 1\n")
    _run_turns(project, tmp_path / "home", range(3, 4))
    assert len(refs()) == 2 and all(ref.removesuffix("-after").endswith("/1") for ref in refs())   # the newest turn
    assert run_git(project, "show", f"{refs()[0]}:f.txt") == "version 2\n"   # its before-state
    assert run_git(project, "for-each-ref", "refs/heads").strip() == ""   # nothing of the user's touched


def test_copy_mode_snapshot_folders_beyond_the_count_are_pruned(tmp_path: Path):
    project = tmp_path / "proj"
    project.mkdir()
    _config(project, "snapshot_keep = 1\n")
    home = tmp_path / "home"
    stale = home / "snapshots" / "old-session" / "old-turn"
    stale.mkdir(parents=True)
    month_ago = time.time() - 45 * 86400
    os.utime(stale, (month_ago, month_ago))

    _run_turns(project, home, range(1, 3))

    left = [p for p in (home / "snapshots").glob("*/*")]
    assert stale not in left and len(left) == 1
    assert (project / "f.txt").read_text() == "version 2\n"


def test_the_turn_just_taken_is_spared_when_its_time_ties_an_older_one(tmp_path: Path):
    """Git stamps are whole seconds and two quick sessions share one: the new turn must not lose the tie."""
    now = time.time()
    for spare_index in (0, 1):
        turns = [tmp_path / str(spare_index) / "snapshots" / session / "turn-1" for session in ("aaa", "zzz")]
        for turn in turns:
            turn.mkdir(parents=True)
            os.utime(turn, (now, now))
        deleted = prune_copies(tmp_path / str(spare_index), keep=1, max_age_days=30, now=now,
                               spare=turns[spare_index])
        assert deleted == [turns[1 - spare_index]] and turns[spare_index].is_dir()
