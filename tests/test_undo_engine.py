"""A real engine turn through the fake server: snapshots are taken and never sent; after /undo the model is told."""

from __future__ import annotations

import json

from contextual.core.session import SessionWriter, load_session
from contextual.core.snapshot import GhostSnapshots
from contextual.core.snapshot.undo import undo_in_open_session
from tests.engine_helpers import engine_with, finish, finished, run
from tests.git_helpers import make_repo, tree_files


def write_action(path: str, content: str) -> str:
    return f"Thought: write it\nAction: Write[{json.dumps({'file_path': path, 'content': content})}]"


async def test_engine_turn_snapshot_stays_out_of_prompts_and_undo_note_reaches_the_model(tmp_path):
    repo = make_repo(tmp_path)
    before = tree_files(repo)
    home = tmp_path / "home"
    writer = SessionWriter.create(home, repo, session_id="sess-e")
    script = [write_action("a.py", "rewritten by the agent\n"), finish("wrote a.py"), finish("ok")]
    snapshots = GhostSnapshots(repo, "sess-e", home)
    async with engine_with(repo, script, session=writer, home=home, snapshots=snapshots) as (engine, srv):
        finished(await run(engine, "rewrite a.py"))
        assert (repo / "a.py").read_text() == "rewritten by the agent\n"
        result = await undo_in_open_session(repo, writer)
        assert result.restored == ["a.py"] and tree_files(repo) == before
        engine.add_message(result.message)
        finished(await run(engine, "thanks"))
        await writer.close()
    entries = load_session(writer.path).entries
    snapshots = [e for e in entries if str(e.get("subtype", "")).startswith("ghost_snapshot")]
    assert [e["subtype"] for e in snapshots] == ["ghost_snapshot", "ghost_snapshot_after"]
    sent = [json.dumps(r) for r in srv.requests]
    assert not any(snapshots[0]["commit"] in body or "ghost_snapshot" in body for body in sent)
    assert "[undo]" not in sent[1] and "[undo] The user undid" in sent[2]
