"""Issue 7 end to end: a compaction's summary request carries the files the session worked on, ranked."""

from __future__ import annotations

import json
from pathlib import Path

from contextual.core.events import CompactionFinished
from contextual.core.session import SessionWriter, load_session
from tests.engine_helpers import engine_with, finish, read_action, run

A5 = "## 📌 Archived Session Summary\n### 📂 File System State (Snapshot)\n* `a.py`: edited"


def _edit(path: str, old: str, new: str) -> str:
    return f'Thought: edit {path}\nAction: Edit[{json.dumps({"file_path": path, "old_string": old, "new_string": new})}]'


def _write(path: str, content: str) -> str:
    return f'Thought: create {path}\nAction: Write[{json.dumps({"file_path": path, "content": content})}]'


async def test_summary_request_carries_edited_and_created_files_ahead_of_read_ones(tmp_path: Path):
    root = tmp_path / "proj"
    root.mkdir()
    outside = tmp_path / "outside.py"
    outside.write_text("OUTSIDE_SECRET = 1\n")
    for name in ("a.py", "b.py", "c.py", "gone.py"):
        (root / name).write_text(f"# {name}\nvalue = '{name}-original'\n")
    script = [
        read_action("a.py"), read_action("b.py"), read_action("c.py"), read_action("gone.py"),
        read_action("c.py"), read_action("../outside.py"), finish("read them"),
        _edit("a.py", "a.py-original", "a.py-EDITED"), _edit("b.py", "b.py-original", "b.py-EDITED"),
        _write("new.py", "NEW_FILE_CONTENT = True\n"), finish("edited"),
        finish("third round"),
        A5,                               # the summary call
    ]
    writer = SessionWriter.create(tmp_path / "home", root)
    async with engine_with(root, script, session=writer, keep_rounds=1) as (engine, srv):
        await run(engine, "read a, b, c and gone")
        await run(engine, "edit a and b, create new.py")
        (root / "gone.py").unlink()
        (root / "b.py").write_text("# b.py\nvalue = 'b.py-EDITED-then-by-hand'\n")
        await run(engine, "third")
        events = [ev async for ev in engine.compact()]
    await writer.close()
    done = events[-1]
    assert isinstance(done, CompactionFinished) and done.fallback is None
    files = list(done.files_included)
    # Modified files first (a, b edited; new.py created), then merely read ones; the deleted one is skipped.
    assert set(files[:3]) == {"a.py", "b.py", "new.py"} and files[3:] == ["c.py"]
    summary_request = json.dumps(srv.requests[-1]["messages"])
    assert "a.py-EDITED" in summary_request and "NEW_FILE_CONTENT" in summary_request
    assert "b.py-EDITED-then-by-hand" in summary_request        # the current content, not the edit's
    sections = [summary_request.index(f"## {name} (") for name in files]
    assert sections == sorted(sections)                            # the files section follows the ranking
    assert "gone.py" in summary_request and "OUTSIDE_SECRET" not in summary_request
    loaded = load_session(writer.path)
    boundary = [e for e in loaded.entries if e.get("subtype") == "compact_boundary"][-1]
    assert boundary["compactMetadata"]["filesIncluded"] == files
    assert loaded.history[0].role == "summary" and loaded.history[0].content.startswith("## 📌 Archived Session Summary")
    assert [m.content for m in loaded.history if m.role == "user"] == ["third"]
