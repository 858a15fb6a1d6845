"""A summary made from a cut input says so (core/input_cut.py): at a 4,096-token window a long Read goes to the
summary model as its head and tail and the file it read as its first lines. The compaction's event, its record, the
session file (read back on resume), its card and /compactions carry it; the card's line fits 80 columns."""

from __future__ import annotations

from pathlib import Path

from contextual.core.agent import Engine
from contextual.core.events import CompactionFinished
from contextual.core.input_cut import LABEL, InputCut
from contextual.core.providers.factory import make_provider
from contextual.core.session import SessionWriter, load_session
from contextual.core.session.schema import CompactionRecord
from contextual.tui.app import ContextualApp
from contextual.tui.screens.compaction import CompactionModal, result_card
from contextual.tui.screens.compaction_history import CompactionHistoryScreen
from tests.engine_helpers import finish, make_config, read_action, run
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.tui_helpers import make_host, run_turn, type_and_send, wait_for

WINDOW = 4096
FILES = [f"mod{i}.py" for i in range(4)]


def write_files(root: Path) -> None:
    for name in FILES:
        (root / name).write_text("".join(f"def {name[:-3]}_step_{i}(value):\n    return value * {i} + {i % 7}\n"
                                         for i in range(150)))


class Reader:
    """Each turn reads the next file, then finishes; a summary request gets a short summary."""

    def __init__(self) -> None:
        self.turns = 0

    def __call__(self, body: dict) -> Reply:
        if "Archived Session Summary" in str(body["messages"][0]["content"]):
            return Reply("## 📌 Archived Session Summary\n\n### 🎯 Objectives & Status\n* the modules were read\n")
        if str(body["messages"][-1]["content"]).startswith("Observation"):
            return Reply(finish("read it"))
        self.turns += 1
        return Reply(read_action(FILES[(self.turns - 1) % len(FILES)]))


async def test_a_summary_made_from_a_cut_input_is_recorded_so_and_read_back_on_resume(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    write_files(root)
    session = SessionWriter.create(tmp_path / "home", root)
    with FakeLLMServer("openai", responder=Reader(), max_context_tokens=WINDOW) as srv:
        config = make_config(root, srv.base_url, context_window=WINDOW, auto_compact=False, keep_rounds=1)
        provider = make_provider(config, base_delay=0.01, max_delay=0.05)
        try:
            engine = Engine(config, provider, session=session)
            for turn in range(3):
                await run(engine, f"read module {turn}")
            events = [ev async for ev in engine.compact()]
        finally:
            await provider.aclose()
    finished = [ev for ev in events if isinstance(ev, CompactionFinished)][-1]
    cut = finished.input_cut
    assert cut.messages >= 1 and cut.files_cut + cut.files_left_out >= 1, cut     # both kinds of cut, at 4k
    assert engine.compactions[-1].input_cut == cut
    assert load_session(session.path).compactions[-1].input_cut == cut
    # a session written before the cut was recorded (or with a damaged value) reads as no cut
    entry = engine.compactions[-1].to_entry()
    entry["compactMetadata"].pop("inputCut")
    assert not CompactionRecord.from_entry(entry).input_cut
    entry["compactMetadata"]["inputCut"] = {"messages": "two", "filesCut": -1}
    assert CompactionRecord.from_entry(entry).input_cut == InputCut()


def test_a_summary_made_from_the_whole_input_says_nothing_of_a_cut():
    card = result_card(CompactionFinished("manual", 3000, 900, 2, ("a.py",), "summary")).plain
    assert LABEL.strip() not in card and "files the summary was given: a.py" in card


async def test_the_card_and_compactions_say_the_cut_in_one_line_at_80_columns(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    write_files(root)
    with FakeLLMServer("openai", responder=Reader(), max_context_tokens=WINDOW) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=WINDOW, keep_rounds=1), animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            for turn in range(3):          # the automatic compactions fire along the way
                await run_turn(pilot, f"read module {turn}")
                if isinstance(app.screen, CompactionModal):      # its card, up for a few seconds: closed
                    await pilot.press("enter")
                    await wait_for(pilot, lambda: not isinstance(app.screen, CompactionModal))
            record = app.engine.compactions[-1]
            assert record.input_cut, record
            line = f"{LABEL}{record.input_cut.words()}"
            await type_and_send(pilot, "/compactions")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionHistoryScreen))
            app.screen.query_one("DataTable").move_cursor(row=len(app.engine.compactions) - 1)
            await wait_for(pilot, lambda: line in str(app.screen.query_one("#history-line").render()))
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionModal))
            stage = app.screen.query_one("#compaction-stage")
            await wait_for(pilot, lambda: line in str(stage.render()))
            assert line in str(stage.render()).splitlines() and len(line) <= stage.content_region.width
