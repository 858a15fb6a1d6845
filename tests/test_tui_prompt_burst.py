"""The input's editing keys in a burst: each where it was typed among the characters (textual#6605: a binding ran
once its key came back up to the app, a character at once)."""

from __future__ import annotations

import pytest
from textual import events

from tests.fakes.llm_server import FakeLLMServer
from tests.tui_helpers import SIZE, make_host, wait_for
from contextual.tui.app import ContextualApp
from contextual.tui.widgets.prompt_input import PromptInput


def _key(name: str) -> events.Key:
    return events.Key(name, name if len(name) == 1 else None)


@pytest.mark.parametrize("keys, text", [
    (["b", "a", "backspace", "c"], "bc"),
    (["a", "b", "left", "c", "end", "d"], "acbd"),
    (["x", "y", "z", "ctrl+w", "o", "k"], "ok"),
    (["a", "b", "home", "c"], "cab"),
])
async def test_editing_keys_sent_with_characters_apply_in_the_order_typed(tmp_path, keys, text):
    with FakeLLMServer(kind="openai", script=[]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        async with app.run_test(size=SIZE) as pilot:
            prompt = app.query_one(PromptInput)
            await wait_for(pilot, lambda: app.focused is prompt)
            for key in keys:                        # all before the app reads the first
                app.post_message(_key(key))
            await wait_for(pilot, lambda: len(prompt.text) >= len(text) and prompt.text.endswith(text[-1]))
            await pilot.pause()
            assert prompt.text == text
