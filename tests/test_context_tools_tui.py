"""Issue 19 in the real app (Pilot), real engine, fake server: preview a compaction, read its ledger and re-inject
an item, pin from History, the prompt diff and /policies."""

from __future__ import annotations

import pytest

from contextual.core.config import load_config
from tests.fakes.llm_server import FakeLLMServer
from tests.tui_helpers import SIZE, finish, run_turn, type_and_send, wait_for
from contextual.tui.app import ContextualApp
from contextual.tui.host import RealHost
from contextual.tui.screens.compaction_preview import CompactionPreviewScreen
from contextual.tui.screens.loss_ledger import LossLedgerScreen
from contextual.tui.screens.policies import PoliciesScreen
from contextual.tui.screens.prompt_diff import PromptDiffScreen
from contextual.tui.widgets.history_view import HistoryView
from contextual.tui.widgets.token_meter import TokenMeter
from contextual.tui.widgets.chat_log import ChatLog

FILES = {"alpha.py": "def alpha_handler_q1(x):\n    return x\n", "beta.py": "def beta_handler_q2(y):\n    return y\n",
         "gamma.py": "def gamma_handler_q3(z):\n    return z\n"}


def read(path: str) -> str:
    return f'Thought: look\nAction: Read[{{"file_path": "{path}"}}]'


def host_for(tmp_path, base_url: str) -> RealHost:
    root = tmp_path / "proj"
    root.mkdir()
    for name, text in FILES.items():
        (root / name).write_text(text)
    config = load_config(root, {"model": "fake-model", "base_url": base_url, "api_key": "sk-test", "keep_rounds": 1},
                         env={"CONTEXTUAL_HOME": str(tmp_path / "home")})
    return RealHost(config)


def three_rounds() -> list:
    return [read("alpha.py"), finish("a"), read("beta.py"), finish("b"), read("gamma.py"), finish("c")]


async def test_compact_previews_the_summary_the_edit_is_stored_and_a_lost_item_is_reinjected(tmp_path):
    summary = "## Summary\nThe user had files read."
    with FakeLLMServer(kind="openai", script=three_rounds() + [summary, finish("ok")]) as srv:
        app = ContextualApp(host_for(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            # each round names what the one before read: those names are the facts (core/context/facts.py)
            for text in ("read alpha", "read beta next to alpha_handler_q1", "read gamma after beta_handler_q2"):
                await run_turn(pilot, text)
            before = list(app.engine.history.messages)
            await type_and_send(pilot, "/compact")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionPreviewScreen))
            preview = app.screen
            assert app.engine.history.messages == before                      # nothing changes before accepting
            archived = " ".join(str(w.render()) for w in preview.query(".archived"))
            assert "read alpha" in archived and "read beta" in archived and "read gamma" not in archived
            # a tool result reads as the prompt sends it: its status line and lines, not its stored JSON (helper-65)
            assert "[ok]" in archived and '"status"' not in archived and "\\n" not in archived, archived
            assert "facts; missing:" in str(preview.query_one("#preview-loss").render())
            footer = {str(key.description) for key in preview.query("FooterKey")}
            assert {"what it loses", "add missing"} <= footer, footer         # facts missing: their keys
            # The preview's ledger: enter adds the chosen item to the summary under review (it said "re-injects"
            # and did nothing)
            await pilot.press("ctrl+l")
            await wait_for(pilot, lambda: isinstance(app.screen, LossLedgerScreen))
            assert "enter adds one to the summary" in str(app.screen.query_one("#ledger-count").render())
            chosen = app.screen.ledger.facts[0].text
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.screen is preview)
            assert chosen in preview.query_one("#preview-summary").text
            preview.query_one("#preview-summary").load_text("## Summary\nEDITED: beta_handler_q2 lives in beta.py.")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: app.engine.compactions and app.screen is app.screen_stack[0])  # no card
            assert app.engine.history.messages[0].content == "## Summary\nEDITED: beta_handler_q2 lives in beta.py."
            chat = " ".join(str(w.render()) for w in app.query_one(ChatLog).query("*") if hasattr(w, "render"))
            assert "(/ledger: the 2 facts lost, to re-inject)" in chat
            await type_and_send(pilot, "/ledger")
            await wait_for(pilot, lambda: isinstance(app.screen, LossLedgerScreen))
            facts = app.screen.ledger.facts
            texts = [f.text for f in facts]
            assert "alpha_handler_q1" in texts and "beta_handler_q2" not in texts
            app.screen.query_one("DataTable").move_cursor(row=texts.index("alpha_handler_q1"))
            await pilot.press("enter")
            await wait_for(pilot, lambda: not isinstance(app.screen, LossLedgerScreen))
            assert any("alpha_handler_q1" in r for r in app.engine.reminders)
            await run_turn(pilot, "continue")
        last_user = [m for m in srv.requests[-1]["messages"] if m["role"] == "user"][-1]["content"]
        assert last_user.startswith("continue") and "alpha_handler_q1" in last_user and "alpha.py:1" in last_user


@pytest.mark.parametrize("key", ["escape", "ctrl+c"])     # ctrl+c did nothing: the preview stayed
async def test_cancel_in_the_preview_changes_nothing(tmp_path, key):
    with FakeLLMServer(kind="openai", script=three_rounds() + ["## Summary\nshort"]) as srv:
        app = ContextualApp(host_for(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            for text in ("read alpha", "read beta"):
                await run_turn(pilot, text)
            before = list(app.engine.history.messages)
            await type_and_send(pilot, "/compact")
            await wait_for(pilot, lambda: isinstance(app.screen, CompactionPreviewScreen))
            await pilot.press(key)
            await wait_for(pilot, lambda: not isinstance(app.screen, CompactionPreviewScreen))
            await pilot.app.workers.wait_for_complete()
            assert app.engine.history.messages == before and app.engine.compactions == [] and app.is_running


async def test_pin_from_history_gets_its_meter_segment_and_unpins(tmp_path):
    with FakeLLMServer(kind="openai", script=three_rounds()) as srv:
        app = ContextualApp(host_for(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "read alpha")
            history = app.query_one(HistoryView)
            tool = next(i for i, m in enumerate(history.messages) if m.role == "tool")
            history.focus()
            history.highlighted = tool
            await pilot.press("p")
            message = history.messages[tool]
            await wait_for(pilot, lambda: message.id in app.engine.pins)
            meter = app.query_one(TokenMeter)
            assert meter.shown.pinned > 0 and "pinned" in str(meter.render())
            assert "⚲" in str(history.get_option_at_index(tool).prompt)
            await pilot.press("p")
            await wait_for(pilot, lambda: message.id not in app.engine.pins)
            assert app.query_one(TokenMeter).shown.pinned == 0


async def test_diff_and_title_after_a_resume_read_the_resumed_session(tmp_path):
    """Resumed, /diff said "Fewer than two model calls so far" in a session of dozens (this run had sent none), and
    a bare /title "no title yet" while /resume listed its first request as its title (user review)."""
    with FakeLLMServer(kind="openai", script=three_rounds()) as srv:
        host = host_for(tmp_path, srv.base_url)
        app = ContextualApp(host, animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "read alpha")
            await run_turn(pilot, "read beta")
            session_id = app.engine.session_id
            sent = [call.messages for call in app.engine.sent.calls]
            await pilot.press("ctrl+q")
        app = ContextualApp(host, host.resume(session_id), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await type_and_send(pilot, "/diff")
            await wait_for(pilot, lambda: isinstance(app.screen, PromptDiffScreen))
            screen = app.screen
            assert str(screen.query_one("#diff-box").border_title) == \
                "Prompt diff: call 3 → call 4 of 4 · rebuilt from the session"
            assert screen.sent is not None and len(screen.sent.calls) == 4
            # rebuilt as they were sent: the same messages, call by call
            assert [[m.content for m in c.messages] for c in screen.sent.calls] == \
                [[m.content for m in c] for c in sent]
            await pilot.press("left")
            assert "call 2 → call 3 of 4" in str(screen.query_one("#diff-box").border_title)
            await pilot.press("escape")
            await type_and_send(pilot, "/title")
            await wait_for(pilot, lambda: any("title: read alpha (its first request, as /resume lists it)"
                                              in str(n.message) for n in app._notifications))


async def test_diff_and_policies_from_the_command_line(tmp_path):
    with FakeLLMServer(kind="openai", script=three_rounds()) as srv:
        app = ContextualApp(host_for(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            await run_turn(pilot, "read alpha")
            await type_and_send(pilot, "/diff")
            await wait_for(pilot, lambda: isinstance(app.screen, PromptDiffScreen))
            assert str(app.screen.query_one("#diff-box").border_title).endswith("call 1 → call 2 of 2")   # as sent
            assert app.screen.priced is False          # fake-model has no prices: no "billed … at full price"
            await pilot.press("escape")
            await type_and_send(pilot, "/policies")
            await wait_for(pilot, lambda: isinstance(app.screen, PoliciesScreen))
            screen = app.screen
            await wait_for(pilot, lambda: len(screen.figures) == len(screen.policies), timeout=60)
            table = screen.query_one("DataTable")
            table.move_cursor(row=screen.policies.index("raw"))
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.engine.policy == "raw")
