"""`contextual export` through the real CLI on a session the real CLI wrote (issue 30.6): the transcript with tool
calls and results, --as-sent's rebuilt requests with their cache boundaries, keys redacted, files under
$CONTEXTUAL_HOME and never in the project, a clear error for no session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import cli_env, contextual, home_of, no_traceback, session_files
from tests.fakes.llm_server import FakeLLMServer

KEY = "sk-test-export-0123456789abcdef"
READ = 'Thought: read it\nAction: Read[{"file_path": "notes.txt"}]'


def _session(project: Path, env: dict[str, str]) -> list[dict]:
    (project / "notes.txt").write_text(f"alpha_beta_gamma\nsecret {KEY}\n")
    with FakeLLMServer(kind="openai", script=[READ, "Thought: done\nAction: Finish[notes read]",
                                              "Thought: ok\nAction: Finish[second]"]) as srv:
        env = {**env, **cli_env(home_of(project), srv.base_url)}
        assert contextual(["-p", "read notes.txt"], project, env).returncode == 0
        assert contextual(["-p", "and again", "-c"], project, env).returncode == 0
        return list(srv.requests)


def test_export_writes_the_transcript_under_home_with_calls_and_results(project: Path):
    home = home_of(project)
    env = cli_env(home, "http://127.0.0.1:9/v1", CONTEXTUAL_API_KEY=KEY)
    _session(project, env)
    done = contextual(["export"], project, env)
    assert done.returncode == 0, done.stderr
    path = Path(done.stdout.strip())
    assert path.is_relative_to(home / "exports") and path.suffix == ".md"
    text = path.read_text()
    assert "## User" in text and "read notes.txt" in text and "and again" in text
    assert "Tool call `Read`" in text and '"file_path": "notes.txt"' in text       # the call, with its arguments
    assert "Result of `Read`" in text and "alpha_beta_gamma" in text               # and what it returned
    assert "notes read" in text and "second" in text
    assert KEY not in text and "[redacted]" in text                                  # keys never written
    assert not any(p.name.endswith(".md") for p in project.iterdir())              # nothing in the project


def test_export_as_sent_rebuilds_each_request_with_its_cache_boundary(project: Path, tmp_path: Path):
    env = cli_env(home_of(project), "http://127.0.0.1:9/v1")
    sent = _session(project, env)
    out = tmp_path / "sent.jsonl"
    done = contextual(["export", "-c", "--as-sent", "-o", str(out)], project, env)
    assert done.returncode == 0, done.stderr
    header, *calls = [json.loads(line) for line in out.read_text().splitlines()]
    assert "rebuilt deterministically" in header["rebuilt"]
    assert len(calls) == len(sent) == 3
    for call, real in zip(calls, sent):           # the rebuilt request is the one that went on the wire
        assert call["body"] == real
    assert calls[0]["cacheBoundary"]["sharedPrefixMessages"] == 0
    assert 0 < calls[1]["cacheBoundary"]["sharedPrefixMessages"] < calls[1]["cacheBoundary"]["messages"]
    # A session run on another provider and model is rebuilt for them when they are given, as `context` takes them
    claude = tmp_path / "claude.jsonl"
    done = contextual(["export", "-c", "--as-sent", "-o", str(claude), "--provider", "anthropic", "--model", "m-1"],
                      project, env)
    assert done.returncode == 0, done.stderr
    _, *calls = [json.loads(line) for line in claude.read_text().splitlines()]
    assert len(calls) == 3 and all(c["body"]["model"] == "m-1" and "system" in c["body"] for c in calls)


def test_as_sent_rebuilds_a_format_errors_step_with_the_thinking_that_was_sent(project: Path, tmp_path: Path):
    """A reply that is no Thought/Action is a step like any other: the next call sends it with its reasoning as a
    <think> block. The record kept no reasoning for it, so the rebuilt call lacked the block the server received."""
    from tests.fakes.llm_server import Reply
    script = [Reply("I will just answer.", reasoning="weighing the options"), "Thought: ok\nAction: Finish[done]"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        env = cli_env(home_of(project), srv.base_url)
        assert contextual(["-p", "answer"], project, env).returncode == 0
        sent = list(srv.requests)
    assert "weighing the options" in json.dumps(sent[1]["messages"])
    out = tmp_path / "sent.jsonl"
    assert contextual(["export", "-c", "--as-sent", "-o", str(out)], project, env).returncode == 0
    calls = [json.loads(line)["body"] for line in out.read_text().splitlines()[1:]]
    assert calls == sent


def test_as_sent_rebuilds_the_todo_recap_that_closed_each_call_after_a_todowrite(project: Path, tmp_path: Path):
    """A1's last layer, the todo recap, closes every call once the model wrote a list, the next turn's too: the
    rebuild never set the list, so every call after a TodoWrite lacked the recap the server received."""
    todos = [{"content": "read notes", "status": "completed"}, {"content": "answer", "status": "in_progress"}]
    script = [f"Thought: plan\nAction: TodoWrite[{json.dumps({'todos': todos})}]", READ,
              "Thought: done\nAction: Finish[read]", "Thought: ok\nAction: Finish[again]"]
    (project / "notes.txt").write_text("alpha\n")
    with FakeLLMServer(kind="openai", script=script) as srv:
        env = cli_env(home_of(project), srv.base_url)
        assert contextual(["-p", "read notes.txt"], project, env).returncode == 0
        assert contextual(["-p", "and again", "-c"], project, env).returncode == 0
        sent = list(srv.requests)
    assert "in progress: answer" in sent[-1]["messages"][-1]["content"]        # the recap was sent last
    out = tmp_path / "sent.jsonl"
    assert contextual(["export", "-c", "--as-sent", "-o", str(out)], project, env).returncode == 0
    calls = [json.loads(line)["body"] for line in out.read_text().splitlines()[1:]]
    assert len(calls) == len(sent) == 4
    for call, real in zip(calls, sent):
        assert call == real


def test_export_without_a_session_is_one_line_error(project: Path):
    done = contextual(["export", "-r", "nope"], project, cli_env(home_of(project), "http://127.0.0.1:9/v1"))
    assert done.returncode == 1 and "no session nope" in done.stderr
    no_traceback(done)


def test_export_places_a_compaction_cut_without_a_summary_and_pairs_each_summary_with_its_own(project: Path,
                                                                                            tmp_path: Path):
    """A summary that failed leaves a compaction without a summary message: the transcript shows it where it
    happened, the next summary keeps its own figures, and --as-sent rebuilds the requests actually sent. Each was
    made once the next input was sent, and the chat shows it under that message: the transcript put it above the
    message's heading, as if the turn before had ended with it."""
    from tests.fakes.llm_server import Fault, Reply
    from contextual.core.session.loader import load_session
    from contextual.tui.widgets.resumed_turns import resumed_turns
    from tests.fakes.scripted_model import SUMMARY_TEXT, Model, answer
    model = Model([Reply(answer("one"), usage_input=300, usage_output=10),
                   Reply(answer("two"), usage_input=19_000, usage_output=10),
                   Reply(answer("three"), usage_input=19_000, usage_output=10), answer("four")],
                  summary=[Fault("400"), SUMMARY_TEXT])        # a refused summary: cut without one
    with FakeLLMServer(kind="openai", responder=model) as srv:
        env = cli_env(home_of(project), srv.base_url, CONTEXTUAL_CONTEXT_WINDOW="20000")
        for index, prompt in enumerate(["ALPHA-e1", "BETA-e2", "GAMMA-e3", "DELTA-e4"]):
            flags = ["--keep-rounds", "1"] + (["--continue"] if index else [])
            assert contextual(["-p", prompt, *flags], project, env, timeout=30).returncode == 0
    done = contextual(["export", "-c"], project, env)
    text = Path(done.stdout.strip()).read_text()
    cut, summary = text.index("## Compaction, cut without a summary"), text.index("## Compaction summary")
    gamma, delta = text.index("GAMMA-e3"), text.index("DELTA-e4")
    assert gamma < cut < text.index("\nthree\n") < delta < summary < text.index("\nfour\n")
    loaded = load_session(session_files(home_of(project))[0])
    under = {turn.text: [shown.line.split(":")[0] for shown in turn.shown] for turn in
             resumed_turns(loaded.full_record, loaded.compactions)}            # as a resumed chat shows them
    assert under["GAMMA-e3"] == under["DELTA-e4"] == ["compacted (auto)"]
    out = tmp_path / "sent.jsonl"
    assert contextual(["export", "-c", "--as-sent", "-o", str(out)], project, env).returncode == 0
    calls = [json.loads(line) for line in out.read_text().splitlines()][1:]
    assert [c["body"]["messages"] for c in calls] == [r["messages"] for r in model.turn_requests]


def test_a_tool_output_holding_an_indented_fence_stays_inside_its_block():
    """`   ```` (a fence inside a list item) or ``` with spaces after it closes a Markdown fence too: the block
    around a tool output is longer than any run of backticks in it, so the export's headings stay headings."""
    from markdown_it import MarkdownIt
    from contextual.core.export import _fence
    output = "1. Install:\n   ```bash\n   pip install x\n   ```   \n# Not a heading\ninline ````` run"
    tokens = MarkdownIt().parse(_fence(output) + "\n\n## Answer\n\ndone\n")
    blocks = [t for t in tokens if t.type == "fence"]
    assert len(blocks) == 1 and blocks[0].content.rstrip("\n") == output
    assert [t.tag for t in tokens if t.type == "heading_open"] == ["h2"]


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_as_sent_fits_each_call_through_the_calibration_it_had_then(project: Path, tmp_path: Path, kind: str):
    """At 4k long results are cut to a budget that goes through the calibration of our count against the
    server's, which moves as calls report their usage: the rebuild used the home's calibration as it is at export
    time, and its cuts differed from what was sent (small-window red team, Anthropic wire)."""
    from tests.fakes.llm_server import Reply
    (project / "big.py").write_text("".join(f"def function_number_{i}(value):\n    return value * {i}\n"
                                            for i in range(1500)))
    reads = [Reply(f'Thought: part {i}\nAction: Read[{{"file_path": "big.py", "offset": {1 + 400 * i}}}]',
                   usage_input=usage) for i, usage in enumerate((2400, 3900, 2600, 3100))]
    with FakeLLMServer(kind=kind, script=[*reads, "Thought: done\nAction: Finish[read it]"]) as srv:
        env = cli_env(home_of(project), srv.base_url, kind, CONTEXTUAL_CONTEXT_WINDOW="4096",
                      CONTEXTUAL_PERMISSION_MODE="bypass")
        assert contextual(["-p", "read big.py"], project, env, timeout=60).returncode == 0
        sent = list(srv.requests)
    out = tmp_path / "sent.jsonl"
    assert contextual(["export", "-c", "--as-sent", "-o", str(out)], project, env).returncode == 0
    calls = [json.loads(line) for line in out.read_text().splitlines()][1:]
    assert len(calls) == len(sent) == 5
    for call, real in zip(calls, sent):           # max_tokens too: the reserve of a 4k window, not 8,192
        assert call["body"] == real


def test_export_writes_each_permission_answer_after_the_call_it_answered(project: Path):
    from contextual.core.messages import Message
    from contextual.core.session.schema import PermissionRecord
    from contextual.core.session.writer import SessionWriter
    home = home_of(project)
    writer = SessionWriter.create(home, project, session_id="answers")
    writer.append_message(Message("user", "clean up", meta={"raw": "clean up"}))
    for n, (command, answer) in enumerate([("rm -rf build", PermissionRecord("Bash", "deny", note="use make clean")),
                                           ("make clean", PermissionRecord("Bash", "allow_once"))]):
        writer.append_message(Message("assistant", f'Thought: t\nAction: Bash[{{"command": "{command}"}}]',
                                      meta={"tool_name": "Bash", "args": {"command": command}, "call_id": f"c{n}"}))
        writer.append_permission(answer)
        writer.append_message(Message("tool", f'{{"status": "success", "data": {{"stdout": "ran {n}"}}}}',
                                      meta={"tool_name": "Bash", "call_id": f"c{n}"}))
    writer.close_sync()
    done = contextual(["export", "-r", "answers", "-o", "-"], project, cli_env(home, "http://127.0.0.1:9/v1"))
    assert done.returncode == 0, done.stderr
    text = done.stdout
    denied = text.index("Permission — Bash: denied · told the agent: use make clean")
    allowed = text.index("Permission — Bash: allowed once")
    assert text.index('"command": "rm -rf build"') < denied < text.index("ran 0") < text.index('"command": "make clean"')
    assert text.index('"command": "make clean"') < allowed < text.index("ran 1")


def test_export_says_a_turn_had_no_answer_where_the_chat_says_it(project: Path):
    """A turn that failed before its answer read in the export as a bare '## User' (QA); the chat says why, and so
    does the export now (the reason is recorded: tests/test_turn_end_record.py)."""
    from contextual.core.messages import NO_ANSWER
    from tests.fakes.llm_server import Fault
    env = cli_env(home_of(project), "http://127.0.0.1:9/v1")
    with FakeLLMServer(kind="openai", script=[Fault("401"), "Thought: ok\nAction: Finish[answered]",
                                              Fault("401")]) as srv:
        env = {**env, **cli_env(home_of(project), srv.base_url)}
        assert contextual(["-p", "first, it fails"], project, env).returncode != 0
        failed_first = session_files(home_of(project))[0].stem      # -c offers no session with no reply yet
        assert contextual(["-p", "second, answered", "-r", failed_first], project, env).returncode == 0
        assert contextual(["-p", "third, it fails", "-c"], project, env).returncode != 0
    done = contextual(["export", "-c"], project, env)
    assert done.returncode == 0, done.stderr
    text = Path(done.stdout.strip()).read_text()
    first, second, third = (text.index(t) for t in ("first, it fails", "second, answered", "third, it fails"))
    notes = [i for i in range(len(text)) if text.startswith("_turn failed: openai: HTTP 401", i)]
    assert NO_ANSWER not in text and len(notes) == 2 and first < notes[0] < second < third < notes[1], (notes, text)
    assert text.index("answered", second + 10) < third


def test_a_tools_terminal_escapes_reach_neither_the_transcript_nor_contextual_context(project: Path):
    """A Bash result holding an OSC 52 clipboard write, a title and a screen clear was written raw into the
    Markdown (`export -o -` printed it to the terminal) and printed by `contextual context -c` (helper57)."""
    (project / "evil.txt").write_text("a\x1b]52;c;ZXZpbA==\x07b\x1b]0;TITLE\x07c\x1b[2Jd\n")
    script = ['Thought: look\nAction: Bash[{"command": "cat evil.txt"}]', "Thought: done\nAction: Finish[seen]"]
    with FakeLLMServer(kind="openai", script=script) as srv:
        env = cli_env(home_of(project), srv.base_url)
        assert contextual(["-p", "look", "--permission-mode", "bypass"], project, env).returncode == 0
    printed = contextual(["export", "-o", "-"], project, env)
    written = contextual(["export"], project, env)
    shown = contextual(["context", "-c"], project, env)
    for result in (printed, written, shown):
        assert result.returncode == 0, result.stderr
    for text in (printed.stdout, Path(written.stdout.strip()).read_text(), shown.stdout):
        assert "abcd" in text and not any(c in text for c in "\x1b\x07\x9b"), text


async def test_the_export_says_a_turns_context_adjusted_line_and_a_compactions_lines_where_the_chat_does(
        tmp_path: Path):
    """At 8k a turn of five Reads shows "▶ context adjusted: steps 1–… to fit the 8,192-token window" before its
    answer, and the next message's compaction "compaction: no round kept whole: …" above "compacted (auto): …";
    /export and `contextual export` wrote neither (a long-session review, helper-139). They are in the transcript
    where the chat shows them, in its words, the compaction's figures written out (14,600, not 14.6k)."""
    import re

    from contextual.tui.app import ContextualApp
    from contextual.tui.format import tokens
    from contextual.tui.screens.compaction import CompactionModal
    from contextual.tui.widgets.scratchpad import ScratchpadView
    from tests.fakes.llm_server import Reply
    from tests.fakes.scripted_model import Model
    from tests.test_resumed_chat import _chat_items, _five_reads
    from tests.tui_helpers import finish, make_host, run_turn, type_and_send, wait_for
    model = Model([*_five_reads(tmp_path), Reply(finish("read them"), usage_input=7000),   # past the trigger
                   finish("second answer")], summary="## Summary\nThe five modules were read.")
    out = tmp_path / "chat.md"
    with FakeLLMServer(kind="openai", responder=model) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=8192, permission_mode="bypass"),
                            animate=False)
        async with app.run_test(size=(100, 40)) as pilot:
            await run_turn(pilot, "read the five modules")
            pad = app.query_one(ScratchpadView)
            await type_and_send(pilot, "and now?")
            await wait_for(pilot, lambda: len(pad.turns) == 2 and pad.turns[-1].outcome == "finished"
                           or isinstance(app.screen, CompactionModal) and app.screen.result is not None)
            if isinstance(app.screen, CompactionModal):     # the card of a compaction at a new message waits
                await pilot.press("enter")
            await wait_for(pilot, lambda: len(pad.turns) == 2 and pad.turns[-1].outcome == "finished")
            await app.workers.wait_for_complete()
            live = _chat_items(app)
            await type_and_send(pilot, f"/export {out}")
            await wait_for(pilot, out.exists)
            await app.host.close(app.engine)
    assert not model.answers and live[-1] == "second answer"
    [title] = [item.removeprefix("adjusted: ") for item in live if item.startswith("adjusted: ")]
    kept = live.index("you  and now?") + 1
    said, compacted = live[kept], live[kept + 1]
    assert said.startswith("compaction: no round kept whole: ") and compacted.startswith("compacted (auto): ")
    text = out.read_text()
    assert text.count("context adjusted") == 1 and f"\n_{title}_\n" in text
    assert text.rindex("Result of `Read`") < text.index(f"_{title}_") < text.index("## Answer")
    written = re.search(r"\n_(compacted \(auto\): .*)_\n", text)
    assert written and f"\n_{said}_\n" in text and text.index(f"_{said}_") < written.start()
    # the chat's line, each figure as the chat shows it
    assert re.sub(r"\d[\d,]*", lambda n: tokens(int(n.group().replace(",", ""))), written.group(1)) == compacted
    assert "," in written.group(1) and "k tokens" not in written.group(1)
    # `contextual export` writes the same transcript (its header line has its own time)
    cli = contextual(["export", "-c", "-o", "-"], tmp_path / "proj",
                     cli_env(tmp_path / "home", "http://127.0.0.1:9/v1"))
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout.splitlines()[3:] == text.splitlines()[3:]
