"""/policies core: the session replayed under each context policy (issue 19.5).

A real session is run against the fake server; replaying its record under the live policy sends the requests
the server received (stored observation forms aside: they are recomputed from the recorded text), and the other
policies are measured on the same replies and results.
"""

from __future__ import annotations

from contextual.core.replay.session_policies import ENDED, compare_policies, recorded_turns, replay_session
from contextual.core.session import SessionWriter, load_session
from tests.engine_helpers import engine_with, finish, finished, read_action, run


def _project(tmp_path):
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    for i in range(4):
        body = "\n".join(f"def handler_{i}_{n}(request):\n    return {n} * {i}" for n in range(60))
        (root / "src" / f"mod{i}.py").write_text(body + "\n")
    return root


async def test_replaying_the_session_under_its_own_policy_sends_what_the_server_got(tmp_path):
    root = _project(tmp_path)
    script = [read_action("src/mod0.py"), read_action("src/mod1.py"), read_action("src/mod2.py"), finish("read three"),
              read_action("src/mod3.py"), 'Thought: hm\nAction: Nope[{}]', finish("and a fourth")]
    writer = SessionWriter.create(tmp_path / "home", root, session_id="pol1")
    async with engine_with(root, script, session=writer) as (engine, srv):
        finished(await run(engine, "read the modules in @src/mod0.py"))
        finished(await run(engine, "one more"))
        live = [[{"role": m["role"], "content": m["content"]} for m in r["messages"]] for r in srv.requests]
        await writer.close()
        record = load_session(writer.path).full_record
        turns = recorded_turns(record)
        assert [t.text for t in turns] == ["read the modules in @src/mod0.py", "one more"]
        assert [len(t.steps) for t in turns] == [4, 3]
        assert turns[0].steps[0].tool == "Read" and turns[0].steps[0].result["status"] == "success"
        assert turns[1].steps[1].tool == "FormatError"

        heard: list[str] = []
        figures = await compare_policies(record, engine.config, ("ours", "raw", "mask"),
                                         on_result=lambda policy, f: heard.append(policy))
    assert heard == ["ours", "raw", "mask"]
    assert all(f.calls == len(live) for f in figures.values())
    # Every policy is scored on the same pairs.
    assert figures["raw"].recall_total == figures["ours"].recall_total == figures["mask"].recall_total
    assert all(f.prompt_tokens > 0 and f.billed_tokens > 0 for f in figures.values())


async def test_the_live_policy_replay_matches_the_wire_exactly(tmp_path):
    root = _project(tmp_path)
    script = [read_action("src/mod0.py"), read_action("src/mod1.py"), finish("ok"), read_action("src/mod2.py"),
              finish("done")]
    writer = SessionWriter.create(tmp_path / "home", root, session_id="pol2")
    async with engine_with(root, script, session=writer) as (engine, srv):
        finished(await run(engine, "look"))
        finished(await run(engine, "again"))
        live = [[{"role": m["role"], "content": m["content"]} for m in r["messages"]] for r in srv.requests]
        await writer.close()
    turns = recorded_turns(load_session(writer.path).full_record)
    replayed = await replay_session(turns, "ours", engine.config)
    assert len(replayed.calls) == len(live) == 5 and replayed.calls[0] == live[0]
    # The record keeps observations as text, not the tools' data: full observations replay exactly (stored
    # forms are recomputed from the text, so whether a step's stored form or its full one is the smaller — the
    # one sent, issue 24 — may differ); everything else (L1, inputs, the model's replies) is the same.
    for sent, again in zip(live, replayed.calls):
        assert len(sent) == len(again)
        for a, b in zip(sent, again):
            if a != b and a["content"].startswith("Observation: ") and b["content"].startswith("Observation: "):
                # a stored form (recomputed from the text): the same status line, then its own fields
                assert a["content"].partition("\n")[0] == b["content"].partition("\n")[0]
                continue
            assert a == b
    assert replayed.figures.calls == 5 and replayed.figures.prompt_tokens > 0


def test_a_turn_the_recording_left_unfinished_ends_with_a_finish():
    from contextual.core.messages import Message
    turns = recorded_turns([Message("user", "go", meta={"raw": "go"}),
                            Message("assistant", 'Thought: x\nAction: Read[{"file_path": "a"}]',
                                    meta={"call_id": "c1", "tool_name": "Read"})])
    assert turns[0].steps[-1].reply == ENDED and turns[0].steps[0].result is None


async def test_line_recall_counts_observation_lines_the_prompt_still_holds(tmp_path):
    """Issue 29.3: /policies showed line recall 0.000 for every policy, raw included, because the recall pairs
    were built on the result's JSON (one line) instead of the observation's lines. Raw keeps every observation
    whole, so each name the model reuses from one is found on a line still in the prompt."""
    root = _project(tmp_path)
    script = [read_action("src/mod0.py"),
              'Thought: handler_0_7 looks wrong\nAction: Read[{"file_path": "src/mod1.py"}]',
              finish("handler_0_7 and handler_1_3 are the ones")]
    writer = SessionWriter.create(tmp_path / "home", root, session_id="pol3")
    async with engine_with(root, script, session=writer) as (engine, srv):
        finished(await run(engine, "look at the handlers"))
        await writer.close()
        figures = await compare_policies(load_session(writer.path).full_record, engine.config, ("raw", "ours"))
    raw = figures["raw"]
    assert raw.recall_total >= 2 and raw.recall == 1.0
    assert raw.line_recall == 1.0
    assert figures["ours"].line_recall is not None and figures["ours"].line_recall > 0
