"""Ghost snapshots leave the user's repository exactly as it was: index, HEAD, branches, stash, working files."""

from __future__ import annotations

from pathlib import Path

from contextual.core.snapshot import GhostSnapshots

from contextual.core.snapshot.undo import undo_last
from tests.git_helpers import make_repo, repo_state, run_git, tree_files
from tests.test_undo import run_turn


async def test_git_snapshot_changes_nothing_of_the_user(tmp_path):
    repo = make_repo(tmp_path)
    state, files = repo_state(repo), tree_files(repo)
    snaps = GhostSnapshots(repo, "sess-1", tmp_path / "home")
    record = await snaps.take("turn-1", [repo / "a.py"])
    assert record.entry["mode"] == "git" and record.entry["subtype"] == "ghost_snapshot"
    assert record.entry["ref"] == "refs/contextual/snapshots/sess-1/1"
    assert repo_state(repo) == state and tree_files(repo) == files
    # The commit holds the working tree as it was: the user's unstaged edit and untracked file, not ignored files.
    listed = run_git(repo, "ls-tree", "-r", "--name-only", record.entry["commit"]).split()
    assert "notes.txt" in listed and "debug.log" not in listed
    assert run_git(repo, "show", f"{record.entry['commit']}:d.py") == files["d.py"].decode()
    assert run_git(repo, "rev-parse", record.entry["ref"]).strip() == record.entry["commit"]
    # Parent is HEAD, and a second take in the same turn does nothing.
    assert run_git(repo, "rev-parse", f"{record.entry['commit']}^").strip() == run_git(repo, "rev-parse", "HEAD").strip()
    assert await snaps.take("turn-1", [repo / "b.py"]) is None


async def test_hook_snapshots_once_per_turn_and_after_state_is_recorded(tmp_path):
    repo = make_repo(tmp_path)
    entries: list[dict] = []
    snaps = GhostSnapshots(repo, "s", tmp_path / "home")
    hook = snaps.before_change_hook("t1", entries.append)
    await hook([repo / "a.py"])
    await hook(None)
    assert [e["subtype"] for e in entries] == ["ghost_snapshot"]
    (repo / "a.py").write_text("changed\n")
    after = await snaps.finish_turn("t1")
    assert after["subtype"] == "ghost_snapshot_after" and after["changed"] is True
    assert after["ref"] == "refs/contextual/snapshots/s/1-after"
    assert await snaps.finish_turn("t1") is None
    # The next turn numbers its ref after the existing ones, even from a new object (a resumed session).
    again = await GhostSnapshots(repo, "s", tmp_path / "home").take("t2", None)
    assert again.entry["ref"] == "refs/contextual/snapshots/s/2"


async def test_turn_that_changed_nothing_is_marked_unchanged(tmp_path):
    repo = make_repo(tmp_path)
    snaps = GhostSnapshots(repo, "s", tmp_path / "home")
    await snaps.take("t1", None)
    assert (await snaps.finish_turn("t1"))["changed"] is False
    assert await snaps.finish_turn("never-started") is None


async def test_a_head_made_a_fifo_mid_session_turns_snapshots_into_copies_said_once(tmp_path):
    """A command of the session can put a FIFO where git reads HEAD: each later snapshot's git call waited its 60 s
    timeout. It is refused before git runs, the session goes on with copies, and the reason is said once."""
    import os
    repo = make_repo(tmp_path)
    snaps = GhostSnapshots(repo, "s", tmp_path / "home")
    entries: list[dict] = []
    warnings: list[str] = []
    assert (await snaps.take("t1", None)).entry["mode"] == "git"
    await snaps.finish_turn("t1")
    (repo / ".git" / "HEAD").unlink()
    os.mkfifo(repo / ".git" / "HEAD")
    hook = snaps.before_change_hook("t2", entries.append, on_warning=warnings.append)
    await hook([repo / "a.py"])
    await hook([repo / "b.py"])
    await hook(None)
    assert [(e["mode"], [f["path"] for f in e["files"]]) for e in entries] == [
        ("copy", ["a.py"]), ("copy", ["b.py"]), ("copy", [])]
    assert warnings == [f"ghost snapshots: git cannot read this repository: {repo / '.git' / 'HEAD'} is a named "
                        "pipe (FIFO); this session's edits are saved as copies of the files they change instead (a "
                        "Bash command's changes cannot be undone)"]
    (repo / "a.py").write_text("changed\n")
    assert (await snaps.finish_turn("t2"))["changed"] is True


async def test_slow_snapshot_warns_naming_the_largest_paths(tmp_path):
    repo = make_repo(tmp_path)
    (repo / "big.bin").write_bytes(b"x" * 300_000)
    snaps = GhostSnapshots(repo, "s", tmp_path / "home", warn_after=0.0)
    warnings: list[str] = []
    hook = snaps.before_change_hook("t1", lambda e: None, on_warning=warnings.append)
    await hook([repo / "a.py"])
    assert len(warnings) == 1 and "big.bin (293.0 KB)" in warnings[0] and ".gitignore" in warnings[0]
    assert warnings[0].index("big.bin") < warnings[0].index("a.py")
    quick = GhostSnapshots(repo, "s2", tmp_path / "home", warn_after=60.0)
    assert (await quick.take("t1", None)).warning is None


async def test_copy_mode_outside_git(tmp_path):
    root = tmp_path / "plain"
    root.mkdir()
    (root / "a.txt").write_text("before\n")
    home = tmp_path / "home"
    snaps = GhostSnapshots(root, "sess", home)
    entries: list[dict] = []
    hook = snaps.before_change_hook("t1", entries.append)
    await hook([root / "a.txt", "new.txt"])
    await hook([root / "a.txt"])               # already saved this turn: no new entry
    await hook(None, label="Bash: rm -rf build")
    assert len(entries) == 2
    first = entries[0]
    assert first["mode"] == "copy"
    assert [(f["path"], f["existed"]) for f in first["files"]] == [("a.txt", True), ("new.txt", False)]
    assert (Path(first["store"]) / first["files"][0]["copy"]).read_text() == "before\n"
    assert Path(first["store"]).is_relative_to(home / "snapshots" / "sess")
    assert entries[1]["notUndoable"] == ["Bash: rm -rf build"]
    (root / "a.txt").write_text("after\n")
    after = await snaps.finish_turn("t1")
    assert after["changed"] is True and {f["path"] for f in after["files"]} == {"a.txt", "new.txt"}


async def test_copy_mode_refuses_paths_outside_the_project(tmp_path):
    root = tmp_path / "plain"
    root.mkdir()
    (tmp_path / "elsewhere.txt").write_text("x")
    record = await GhostSnapshots(root, "s", tmp_path / "home").take("t", [tmp_path / "elsewhere.txt"])
    assert record.entry["files"] == [] and "outside the project" in record.entry["notUndoable"][0]


async def test_hook_never_raises_when_the_snapshot_fails(tmp_path, monkeypatch):
    repo = make_repo(tmp_path)
    snaps = GhostSnapshots(repo, "s", tmp_path / "home")
    from contextual.core.snapshot import git as gitops

    async def broken(top, scope="."):
        raise gitops.GitError("git write-tree failed: disk full")
    monkeypatch.setattr(gitops, "write_worktree_tree", broken)
    warnings: list[str] = []
    entries: list[dict] = []
    await snaps.before_change_hook("t", entries.append, warnings.append)([repo / "a.py"])
    assert entries == [] and "disk full" in warnings[0]


async def test_copy_mode_treats_an_empty_path_list_as_a_bash_command(tmp_path):
    root = tmp_path / "plain"
    root.mkdir()
    entries: list[dict] = []
    await GhostSnapshots(root, "s", tmp_path / "home").before_change_hook("t", entries.append)([])
    assert len(entries) == 1 and entries[0]["files"] == [] and "Bash" in entries[0]["notUndoable"][0]


async def test_snapshot_works_when_the_user_signs_commits_and_has_no_identity(tmp_path, monkeypatch):
    repo = make_repo(tmp_path)
    run_git(repo, "config", "commit.gpgsign", "true")
    run_git(repo, "config", "gpg.program", "false")          # any signing attempt would fail
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(name, raising=False)
    record = await GhostSnapshots(repo, "s", tmp_path / "home").take("t", None)
    assert len(record.entry["commit"]) == 40


async def test_a_repositorys_own_config_runs_nothing_through_a_snapshot_or_an_undo(tmp_path):
    """core.fsmonitor (run by every `git add`), a filter driver's clean/smudge (run per attributed file) and a
    post-checkout hook are a checkout's commands: snapshots and /undo run none of them."""
    repo = make_repo(tmp_path)
    ran = tmp_path / "ran"
    ran.mkdir()
    run_git(repo, "config", "core.fsmonitor", f"touch {ran / 'fsmonitor'}; false")
    run_git(repo, "config", "filter.odd=x.y.clean", f"touch {ran / 'clean'}; cat")     # any driver name
    run_git(repo, "config", "filter.odd=x.y.smudge", f"touch {ran / 'smudge'}; cat")
    run_git(repo, "config", "filter.odd=x.y.required", "true")
    (repo / ".gitattributes").write_text("*.py filter=odd=x.y\n")
    hook = repo / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {ran / 'hook'}\n")
    hook.chmod(0o755)
    entries: list[dict] = []
    await run_turn(GhostSnapshots(repo, "sess-1", tmp_path / "home"), entries, "t1", repo, {"a.py": "changed\n"})
    result = await undo_last(repo, entries)
    assert result.restored == ["a.py"] and (repo / "a.py").read_text() == "# a.py\nvalue = 1\n"
    assert sorted(p.name for p in ran.iterdir()) == []


async def test_a_git_call_that_blocks_is_given_up_and_ended(tmp_path, monkeypatch):
    """A FIFO where git reads (a checkout's .gitignore) would block `git add` for good: the call is given up after
    its timeout, the process ended, and the snapshot fails with one line instead of hanging the turn."""
    import os
    from contextual.core.snapshot import git as gitops
    repo = make_repo(tmp_path)
    (repo / ".gitignore").unlink()
    os.mkfifo(repo / ".gitignore")
    monkeypatch.setattr(gitops, "TIMEOUT_S", 1)
    try:
        await gitops.write_worktree_tree(repo)
    except gitops.GitError as exc:
        assert "took longer than 1 s" in str(exc)
    else:
        raise AssertionError("git add did not block on the FIFO")
