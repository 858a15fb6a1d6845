"""History (f4) during a long turn at 4k: each message of the turn carries the form the prompt sends it in, in the
prompt's own words: `[stub]` (its output as one line), `[action-only]` (its action line without the thought),
`[folded]` (a line of the note of folded steps), as it marks `[cut]`, `[hard]` and `[superseded]`. Folded steps had
no mark: they read as sent whole (helper-135)."""

from __future__ import annotations

from typing import Any

from contextual.tui.app import ContextualApp
from contextual.tui.widgets.history_view import HistoryView
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.test_long_turn_4k import MODULES, LongTurn, steps_shown
from tests.tui_helpers import make_host, type_and_send, wait_for

STEPS = 30


class HeldTurn(LongTurn):
    """The long turn's calls, then a reply that streams slowly: the turn is still running while History is read."""

    def __call__(self, body: dict[str, Any]) -> Any:       # type: ignore[override]
        if len(steps_shown(body["messages"])) >= STEPS:
            return Reply("Thought: " + "thinking very slowly " * 300 + "\nAction: Finish[done]", chunk_size=20,
                         chunk_delay=0.2)
        return super().__call__(body)


async def test_history_marks_each_step_of_the_turn_as_the_prompt_sends_it_stub_action_only_or_folded(tmp_path):
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    for i, path in enumerate(MODULES):
        (root / path).write_text("".join(f"def f{i}_{k}(x):\n    return x * {k} + {i}\n" for k in range(100)))
    model = HeldTurn()
    with FakeLLMServer(kind="openai", responder=model) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, context_window=4096, permission_mode="bypass"),
                            animate=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await type_and_send(pilot, "read the modules")
            await wait_for(pilot, lambda: len(srv.requests) > STEPS, timeout=120)
            history = app.query_one(HistoryView)
            if not history.display:
                await pilot.press("f4")
            await wait_for(pilot, lambda: any("[folded]" in str(history.get_option_at_index(i).prompt)
                                              for i in range(history.option_count)), timeout=30)
            rows = [str(history.get_option_at_index(i).prompt) for i in range(history.option_count)]
            marks = {mark: sum(mark in row for row in rows) for mark in ("[folded]", "[stub]", "[action-only]")}
            sent = srv.requests[-1]["messages"]
            note = next(m["content"] for m in sent if "folded to one line each" in m["content"])
            folded = int(note.rsplit("(", 1)[1].split()[0])
            # the folded steps' calls and results each say so; the others as sent: a stub, an action line alone
            assert marks["[folded]"] >= folded and folded >= 5, (marks, folded)
            assert sum(m["content"].endswith("left out to fit the window]") for m in sent) <= marks["[stub]"] + 1
            assert "[cut]" not in "".join(rows)              # nothing of this turn was cut head+tail
            await pilot.press("ctrl+c")
