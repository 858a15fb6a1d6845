"""Issue 13 on the screen: keys and terminal escapes in what the engine emits never reach a widget."""

from __future__ import annotations

import json

from contextual.core import events as ev
from contextual.core import secrets
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.tui_helpers import make_host, run_turn
from contextual.tui.app import ContextualApp
from contextual.tui.screen_safe import screen_safe, screen_text, stream_guard
from contextual.tui.widgets.chat_log import ChatLog
from contextual.tui.widgets.scratchpad import ScratchpadView

KEY = "sk-screen-secret-4242"


def test_a_key_and_escape_sequences_in_an_event_are_gone_before_the_screen():
    secrets.remember(KEY)
    delta = ev.TextDelta(text=f"use {KEY} \x1b]0;pwned\x07then \x1b[31mred\x1b[0m", step=1)
    shown = screen_safe(delta)
    assert KEY not in shown.text and "\x1b" not in shown.text and "\x07" not in shown.text
    assert shown.text.startswith("use [redacted] ") and "red" in shown.text and shown.step == 1


def test_a_key_split_by_an_escape_sequence_is_redacted_once_the_escape_goes():
    """Redacted before the escape was stripped, `sk-…\x1b[m…` became the whole key on the screen (helper57)."""
    secrets.remember(KEY)
    shown = screen_text(f"a {KEY[:6]}\x1b[m{KEY[6:]} b")
    assert KEY not in shown and shown == "a [redacted] b"


def test_nested_values_are_cleaned_and_clean_events_come_back_unchanged():
    secrets.remember(KEY)
    event = ev.ActionEvent(tool="Bash", args={"command": f"echo {KEY}", "n": [KEY, 3]}, raw="x", step=2)
    shown = screen_safe(event)
    assert shown.args == {"command": "echo [redacted]", "n": ["[redacted]", 3]}
    plain = ev.TextDelta(text="nothing to hide\n\tindented", step=3)
    assert screen_safe(plain) is plain
    assert screen_text("a\tb\nc") == "a\tb\nc"


def test_the_stream_guard_holds_a_possible_key_start_until_the_stream_decides():
    secrets.remember(KEY)
    guard = stream_guard()

    def texts(event):
        return [(type(e).__name__, getattr(e, "text", None)) for e in guard.safe(event)]

    assert texts(ev.AnswerDelta("the key sk-scr", 1)) == [("AnswerDelta", "the key ")]
    assert texts(ev.AnswerDelta("een-secret-4242 is set, sk", 1)) == [("AnswerDelta", "[redacted] is set, ")]
    assert texts(ev.TextDelta("plain", 1)) == [("TextDelta", "plain")]          # each stream holds its own tail
    assert texts(ev.FinalAnswer("done", 1)) == [("AnswerDelta", "sk"), ("FinalAnswer", "done")]   # not a key
    assert texts(ev.TextDelta("retry sk-scre", 2)) == [("TextDelta", "retry ")]
    assert texts(ev.StreamRestarted(2)) == [("StreamRestarted", None)]         # a restart drops the held tail
    assert [type(e).__name__ for e in guard.safe(ev.TurnFinished("ok", 2))] == ["TurnFinished"]    # nothing held


async def test_a_key_streamed_across_fragments_never_shows_in_part(tmp_path, monkeypatch):
    """The fake server streams the reply 6 characters at a time, so the configured key arrives cut across several
    fragments. Every fragment handed to the chat and the scratchpad is recorded: joined, they are the reply with
    the key redacted whole, and nothing else lost."""
    key = "sk-streamed-secret-0123456789"
    reply = f"Thought: the key is {key} now\nAction: Finish[done: {key} is set]"
    answer_parts: list[str] = []
    step_parts: list[str] = []
    stream_answer, update_step = ChatLog.stream_answer, ScratchpadView.update_step

    async def record_answer(self, fragment: str) -> None:
        answer_parts.append(fragment)
        await stream_answer(self, fragment)

    def record_step(self, step: int, **changes) -> None:
        step_parts.append(changes.get("streamed", ""))
        update_step(self, step, **changes)

    monkeypatch.setattr(ChatLog, "stream_answer", record_answer)
    monkeypatch.setattr(ScratchpadView, "update_step", record_step)
    with FakeLLMServer(kind="openai", script=[Reply(reply, chunk_size=6)]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, api_key=key), animate=False)
        async with app.run_test(size=(120, 30)) as pilot:
            await run_turn(pilot, "what is the key?")
            assert "".join(answer_parts) == "done: [redacted] is set"
            assert "".join(step_parts) == reply.replace(key, "[redacted]")
            assert len(answer_parts) > 2 and len(step_parts) > 5          # it did stream in pieces
            screen = app.export_screenshot().replace("&#160;", " ")
            assert "done: [redacted] is set" in screen and key[:8] not in screen


async def test_a_key_typed_into_the_prompt_is_neither_sent_nor_kept_in_the_input_history(tmp_path):
    """The session file already said [redacted]; the request and .inputs.json held the key as typed."""
    key = "sk-typed-secret-0123456789"
    with FakeLLMServer(kind="openai", script=[Reply("Thought: ok\nAction: Finish[noted]")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url, api_key=key), animate=False)
        async with app.run_test(size=(120, 30)) as pilot:
            await run_turn(pilot, f"my key is {key} ok")
            sent = json.dumps(srv.requests)
            assert "my key is [redacted] ok" in sent and key not in sent
            assert key not in app.remembered.inputs_path.read_text()
            assert "my key is [redacted] ok" in app.remembered.inputs()
            assert key[:10] not in app.export_screenshot()
