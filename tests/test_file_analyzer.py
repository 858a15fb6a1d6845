"""FileAnalyzer (seed 001 8.7, 8.11; issue 7): ranked files, current content, confined to the project."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from contextual.core.context.file_analyzer import MAX_CHARS_PER_FILE, analyze_files
from contextual.core.messages import Message


from tests.history_helpers import Session, write


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    for name in ("src/a.py", "src/b.py", "src/c.py", "src/d.py", "README.md"):
        write(root, name, f"# {name}\nvalue = 1\n")
    (tmp_path / "outside.txt").write_text("secret outside\n")
    return root


def test_modified_and_created_files_rank_ahead_of_read_ones(project: Path) -> None:
    s = Session().user("refactor the helpers")
    for name in ("src/a.py", "src/b.py", "src/c.py"):
        s.call("Read", {"file_path": name})
    s.call("Read", {"file_path": "src/c.py"}).call("Read", {"file_path": "src/c.py"})   # c: 3 reads
    s.call("Edit", {"file_path": "src/a.py", "old_string": "1", "new_string": "2"})
    s.call("Edit", {"file_path": "src/a.py", "old_string": "2", "new_string": "3"})
    s.call("Edit", {"file_path": "src/b.py", "old_string": "1", "new_string": "2"})
    write(project, "src/new.py", "created = True\n")
    s.call("Write", {"file_path": "src/new.py", "content": "created = True\n"})
    report = analyze_files(s.messages, project)
    # a: 3 mentions, b: 2, new: 1 (all modified), then c (3 reads, not modified)
    assert report.paths == ("src/a.py", "src/b.py", "src/new.py", "src/c.py")
    assert [f.modified for f in report.files] == [True, True, True, False]
    assert [f.mentions for f in report.files] == [3, 2, 1, 3]
    assert report.files[2].content == "created = True\n"
    assert report.notes == []


def test_content_is_read_from_disk_now(project: Path) -> None:
    s = Session().call("Read", {"file_path": "src/a.py"})
    write(project, "src/a.py", "changed later\n")
    report = analyze_files(s.messages, project)
    assert report.files[0].content == "changed later\n"


def test_recency_breaks_ties(project: Path) -> None:
    s = Session().call("Read", {"file_path": "src/a.py"}).call("Read", {"file_path": "src/b.py"})
    assert analyze_files(s.messages, project).paths == ("src/b.py", "src/a.py")


def test_keeps_top_five(project: Path) -> None:
    s = Session()
    for i in range(8):
        write(project, f"pkg/m{i}.py")
        for _ in range(i + 1):
            s.call("Read", {"file_path": f"pkg/m{i}.py"})
    report = analyze_files(s.messages, project)
    assert report.paths == tuple(f"pkg/m{i}.py" for i in (7, 6, 5, 4, 3))
    assert analyze_files(s.messages, project, limit=2).paths == ("pkg/m7.py", "pkg/m6.py")


def test_deleted_file_is_skipped_with_a_note(project: Path) -> None:
    s = Session().call("Edit", {"file_path": "src/d.py", "old_string": "1", "new_string": "2"})
    s.call("Read", {"file_path": "src/a.py"})
    (project / "src/d.py").unlink()
    report = analyze_files(s.messages, project)
    assert report.paths == ("src/a.py",)
    assert report.notes == ["src/d.py was deleted since; skipped"]


def test_files_outside_the_project_never_appear(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    os.symlink(outside, project / "link.txt")
    os.symlink(tmp_path, project / "linkdir")
    s = Session().user(f"compare with {outside} and ../outside.txt and linkdir/outside.txt")
    s.call("Read", {"file_path": str(outside)})
    s.call("Read", {"file_path": "../outside.txt"})
    s.call("Read", {"file_path": "link.txt"})
    s.call("Edit", {"file_path": "linkdir/outside.txt", "old_string": "a", "new_string": "b"})
    s.call("Grep", {"pattern": "secret", "path": "."}, data={"matches": [{"file": str(outside), "line": 1}]})
    s.call("Read", {"file_path": "src/a.py"})
    report = analyze_files(s.messages, project)
    assert report.paths == ("src/a.py",)
    everything = repr(report)
    assert "outside" not in everything and "secret" not in everything and "link" not in everything


def test_binary_files_are_skipped_with_a_note(project: Path) -> None:
    (project / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200))
    s = Session().call("Read", {"file_path": "logo.png"}).call("Read", {"file_path": "src/a.py"})
    report = analyze_files(s.messages, project)
    assert report.paths == ("src/a.py",)
    assert report.notes == ["logo.png is a binary file; skipped"]


def test_line_cap(project: Path) -> None:
    write(project, "big.py", "".join(f"line {i}\n" for i in range(1500)))
    s = Session().call("Read", {"file_path": "big.py"})
    big = analyze_files(s.messages, project).files[0]
    assert (big.lines, big.total_lines, big.truncated) == (1000, 1500, True)
    assert big.content.endswith("line 999\n") and "line 1000" not in big.content
    small = analyze_files(s.messages, project, max_lines=10).files[0]
    assert small.lines == 10 and small.content.count("\n") == 10
    whole = analyze_files(Session().call("Read", {"file_path": "src/a.py"}).messages, project).files[0]
    assert not whole.truncated and whole.lines == whole.total_lines == 2


def test_failed_edit_is_not_a_modification(project: Path) -> None:
    s = Session().call("Edit", {"file_path": "src/a.py", "old_string": "zz", "new_string": "y"}, status="error")
    s.call("Read", {"file_path": "src/b.py"}).call("Read", {"file_path": "src/b.py"})
    report = analyze_files(s.messages, project)
    assert report.paths == ("src/b.py", "src/a.py")
    assert not report.files[1].modified


def test_failed_read_of_a_missing_file_is_not_reported_as_deleted(project: Path) -> None:
    s = Session().call("Read", {"file_path": "src/nope.py"}, status="error")
    report = analyze_files(s.messages, project)
    assert report.files == [] and report.notes == []


def test_aborted_write_counts_as_a_mention_not_a_modification(project: Path) -> None:
    s = Session().call("Write", {"file_path": "src/c.py", "content": "x"}, result=False)
    s.call("Read", {"file_path": "src/a.py"})
    report = analyze_files(s.messages, project)
    assert report.paths == ("src/a.py", "src/c.py")
    assert not any(f.modified for f in report.files)


def test_paths_in_message_text_count_only_when_they_exist(project: Path) -> None:
    s = Session().user("Look at src/a.py, README.md and src/ghost.py (see https://example.com/src/a.py).")
    s.messages.append(Message("assistant", "src/b.py is next.", meta={"final": True}))
    report = analyze_files(s.messages, project)
    assert set(report.paths) == {"src/a.py", "README.md", "src/b.py"}
    assert next(f for f in report.files if f.path == "src/a.py").mentions == 1   # the URL is not a mention


def test_action_arguments_are_not_counted_twice(project: Path) -> None:
    s = Session().call("Read", {"file_path": "src/a.py"}, thought="Read src/a.py first.")
    report = analyze_files(s.messages, project)
    # the thought mentions it once, the call once; the Action text and the tool result add nothing
    assert report.files[0].mentions == 2


def test_a_thought_quoting_action_is_read_to_its_action_line(project: Path) -> None:
    """The thought ends at the step's Action line (core/react.py reads it), not at the first "Action:" it
    quotes: the files it named after the quote went uncounted."""
    s = Session().call("Read", {"file_path": "src/a.py"},
                       thought="That Action: failed, so src/b.py is read before src/a.py.")
    report = analyze_files(s.messages, project)
    assert set(report.paths) == {"src/a.py", "src/b.py"}
    assert next(f for f in report.files if f.path == "src/a.py").mentions == 2    # the thought's, the call's


def test_grep_and_glob_results_list_paths(project: Path) -> None:
    s = Session()
    s.call("Grep", {"pattern": "value", "path": "."},
           data={"matches": ["src/c.py:2:value = 1", {"file": "src/d.py", "line": 2, "text": "value = 1"}],
                 "count": 2})
    s.call("Glob", {"pattern": "*.py", "path": "src"}, data={"files": ["a.py", "b.py"], "count": 2})
    report = analyze_files(s.messages, project)
    assert set(report.paths) == {"src/a.py", "src/b.py", "src/c.py", "src/d.py"}
    assert not any(f.modified for f in report.files)


def test_summaries_are_ignored(project: Path) -> None:
    messages = [Message("summary", "## 📌 Archived Session Summary\n* `src/a.py`: done")]
    assert analyze_files(messages, project).files == []


def test_a_line_past_the_cap_ends_what_is_kept_and_the_lines_after_it_are_still_counted(project: Path) -> None:
    """A file of one 200 MB line was held whole to be skipped, and the lines after a skipped one were kept, so
    the summary saw the file with a hole in it that nothing marked."""
    write(project, "min.js", "first\n" + "x" * (MAX_CHARS_PER_FILE + 1) + "\nafter\nlast")
    got = analyze_files(Session().call("Read", {"file_path": "min.js"}).messages, project).files[0]
    assert (got.content, got.lines, got.total_lines, got.truncated) == ("first\n", 1, 4, True)
