"""Undo restores a turn's files exactly, keeps the user's own edits, and walks back turn by turn."""

from __future__ import annotations

import os
from pathlib import Path

from contextual.core.snapshot import GhostSnapshots
from contextual.core.snapshot.undo import undo_last, undoable_turns
from tests.git_helpers import make_repo, repo_state, run_git, tree_files


async def run_turn(snaps: GhostSnapshots, entries: list[dict], turn_id: str, root: Path, changes: dict) -> None:
    """A turn as the engine runs it: the hook before each change, then the after-state. None deletes."""
    hook = snaps.before_change_hook(turn_id, entries.append)
    for rel, content in changes.items():
        await hook([root / rel])
        target = root / rel
        if content is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content)
    after = await snaps.finish_turn(turn_id)
    if after is not None:
        entries.append(after)


TURN = {"a.py": "a changed\n", "b.py": "b changed\n", "pkg/new.py": "created\n", "c.py": None}


async def test_git_undo_restores_all_four_and_keeps_the_users_state(tmp_path):
    repo = make_repo(tmp_path)
    (repo / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(repo / "run.sh", 0o755)
    state, files = repo_state(repo), tree_files(repo)
    entries: list[dict] = []
    snaps = GhostSnapshots(repo, "s", tmp_path / "home")
    await run_turn(snaps, entries, "t1", repo, {**TURN, "run.sh": "#!/bin/sh\necho hi\n"})
    assert tree_files(repo) != files

    result = await undo_last(repo, entries)
    assert result.turn_id == "t1"
    assert sorted(result.restored) == ["a.py", "b.py", "run.sh"]
    assert result.deleted == ["pkg/new.py"] and result.recreated == ["c.py"]
    assert result.skipped_user_modified == []
    assert tree_files(repo) == files                    # byte for byte, the user's d.py edit included
    assert not (repo / "pkg").exists()                  # the directory made only for the new file is gone
    assert os.stat(repo / "run.sh").st_mode & 0o111      # executable bit restored
    assert repo_state(repo) == state
    assert result.entry["subtype"] == "undo" and result.entry["turnId"] == "t1"
    assert "restored" in result.note and "pkg/new.py" in result.note and "recreated c.py" in result.note


async def test_hand_edit_after_the_turn_is_not_overwritten_without_consent(tmp_path):
    repo = make_repo(tmp_path)
    files = tree_files(repo)
    entries: list[dict] = []
    snaps = GhostSnapshots(repo, "s", tmp_path / "home")
    await run_turn(snaps, entries, "t1", repo, TURN)
    (repo / "a.py").write_text("the user fixed it by hand\n")
    asked: list[list[str]] = []

    async def refuse(paths: list[str]) -> bool:
        asked.append(paths)
        return False

    result = await undo_last(repo, entries, confirm_overwrite=refuse)
    assert asked == [["a.py"]]
    assert result.skipped_user_modified == ["a.py"] and "a.py" not in result.restored
    assert (repo / "a.py").read_text() == "the user fixed it by hand\n"
    assert (repo / "b.py").read_bytes() == files["b.py"]
    assert "edited by hand" in result.note and "a.py" in result.note

    # The undo is recorded: the turn is done with, the next undo finds nothing.
    entries.append(result.entry)
    assert (await undo_last(repo, entries)).turn_id is None


async def test_with_no_one_to_ask_hand_edits_are_left_alone(tmp_path):
    root = plain_project(tmp_path)
    entries: list[dict] = []
    snaps = GhostSnapshots(root, "s", tmp_path / "home")
    await run_turn(snaps, entries, "t1", root, {"src/a.py": "agent\n", "src/b.py": "agent\n"})
    (root / "src" / "a.py").write_text("by hand\n")
    result = await undo_last(root, entries)
    assert result.skipped_user_modified == ["src/a.py"] and result.restored == ["src/b.py"]
    assert (root / "src" / "a.py").read_text() == "by hand\n"


async def test_confirmed_overwrite_restores_the_hand_edited_file(tmp_path):
    repo = make_repo(tmp_path)
    files = tree_files(repo)
    entries: list[dict] = []
    snaps = GhostSnapshots(repo, "s", tmp_path / "home")
    await run_turn(snaps, entries, "t1", repo, TURN)
    (repo / "pkg" / "new.py").write_text("user kept working on it\n")

    async def yes(paths: list[str]) -> bool:
        return True

    result = await undo_last(repo, entries, confirm_overwrite=yes)
    assert result.deleted == ["pkg/new.py"] and tree_files(repo) == files


async def test_repeated_undo_walks_back_and_skips_turns_that_changed_nothing(tmp_path):
    repo = make_repo(tmp_path)
    original = tree_files(repo)
    entries: list[dict] = []
    snaps = GhostSnapshots(repo, "s", tmp_path / "home")
    await run_turn(snaps, entries, "t1", repo, {"a.py": "one\n"})
    after_one = tree_files(repo)
    await run_turn(snaps, entries, "t2", repo, {"a.py": "two\n", "b.py": "two\n"})
    await run_turn(snaps, entries, "t3", repo, {})            # took no snapshot: no entries
    hook = snaps.before_change_hook("t4", entries.append)      # ran Bash that changed nothing
    await hook(None)
    entries.append(await snaps.finish_turn("t4"))
    assert undoable_turns(entries) == ["t1", "t2"]

    first = await undo_last(repo, entries)
    assert first.turn_id == "t2" and tree_files(repo) == after_one
    entries.append(first.entry)
    assert undoable_turns(entries) == ["t1"]
    second = await undo_last(repo, entries)
    assert second.turn_id == "t1" and tree_files(repo) == original
    entries.append(second.entry)
    third = await undo_last(repo, entries)
    assert third.turn_id is None and third.entry is None and "Nothing to undo" in third.note


async def test_interrupted_turn_without_after_state_asks_before_overwriting(tmp_path):
    repo = make_repo(tmp_path)
    entries: list[dict] = []
    snaps = GhostSnapshots(repo, "s", tmp_path / "home")
    await snaps.before_change_hook("t1", entries.append)([repo / "a.py"])
    (repo / "a.py").write_text("half-done\n")                  # then the process died: no finish_turn
    result = await undo_last(repo, entries)
    assert result.skipped_user_modified == ["a.py"] and result.entry is None

    async def yes(paths):
        return True
    result = await undo_last(repo, entries, confirm_overwrite=yes)
    assert result.restored == ["a.py"]


async def test_undo_in_a_subdirectory_project_shows_paths_relative_to_it(tmp_path):
    repo = make_repo(tmp_path)
    (repo / "sub").mkdir()
    (repo / "sub" / "x.py").write_text("x\n")
    project = repo / "sub"
    entries: list[dict] = []
    snaps = GhostSnapshots(project, "s", tmp_path / "home")
    hook = snaps.before_change_hook("t1", entries.append)
    await hook([project / "x.py"])
    (project / "x.py").write_text("changed\n")
    (repo / "a.py").write_text("outside the project, changed meanwhile\n")
    run_git(repo, "add", "a.py")                         # the user stages it during the turn
    entries.append(await snaps.finish_turn("t1"))
    result = await undo_last(project, entries)
    assert result.restored == ["x.py"] and (project / "x.py").read_text() == "x\n"
    assert (repo / "a.py").read_text() == "outside the project, changed meanwhile\n"
    listed = run_git(repo, "ls-tree", "-r", "--name-only", entries[0]["commit"]).split()
    assert "sub/x.py" in listed and "notes.txt" not in listed      # outside the project: the user's index only


def plain_project(tmp_path: Path) -> Path:
    root = tmp_path / "plain"
    (root / "src").mkdir(parents=True)
    for name in ("a.py", "b.py", "c.py"):
        (root / "src" / name).write_text(f"{name} original\n")
    return root


async def test_copy_mode_undo_restores_write_and_edit_changes(tmp_path):
    root = plain_project(tmp_path)
    files = tree_files(root)
    entries: list[dict] = []
    snaps = GhostSnapshots(root, "s", tmp_path / "home")
    await run_turn(snaps, entries, "t1", root, {"src/a.py": "edited\n", "src/b.py": "rewritten\n",
                                               "src/deep/new.py": "new\n", "src/c.py": None})
    result = await undo_last(root, entries)
    assert sorted(result.restored) == ["src/a.py", "src/b.py"]
    assert result.deleted == ["src/deep/new.py"] and result.recreated == ["src/c.py"]
    assert tree_files(root) == files and not (root / "src" / "deep").exists()
    entries.append(result.entry)
    assert (await undo_last(root, entries)).turn_id is None


async def test_copy_mode_keeps_hand_edits_and_reports_bash_as_not_undoable(tmp_path):
    root = plain_project(tmp_path)
    entries: list[dict] = []
    snaps = GhostSnapshots(root, "s", tmp_path / "home")
    hook = snaps.before_change_hook("t1", entries.append)
    await hook([root / "src" / "a.py"])
    (root / "src" / "a.py").write_text("agent\n")
    await hook(None, label="Bash: make clean")
    await hook([root / "src" / "b.py"])
    (root / "src" / "b.py").write_text("agent\n")
    entries.append(await snaps.finish_turn("t1"))
    (root / "src" / "b.py").write_text("the user's fix\n")
    result = await undo_last(root, entries)
    assert result.restored == ["src/a.py"] and result.skipped_user_modified == ["src/b.py"]
    assert result.not_undoable == ["Bash: make clean"] and "Bash: make clean" in result.note
    assert (root / "src" / "b.py").read_text() == "the user's fix\n"
    assert (root / "src" / "a.py").read_text() == "a.py original\n"


async def test_snapshot_commit_survives_gc(tmp_path):
    repo = make_repo(tmp_path)
    entries: list[dict] = []
    snaps = GhostSnapshots(repo, "s", tmp_path / "home")
    await run_turn(snaps, entries, "t1", repo, {"a.py": "x\n"})
    run_git(repo, "gc", "-q", "--prune=now")
    result = await undo_last(repo, entries)
    assert result.restored == ["a.py"]
