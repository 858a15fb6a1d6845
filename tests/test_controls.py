"""The engine's issue-19 calls (core/engine/controls.py) on real history, builder and session writer."""

from __future__ import annotations

import pytest

from contextual.core.config import Config
from contextual.core.context.history import HistoryManager
from contextual.core.engine.controls import ContextControls
from contextual.core.engine.prompt_state import PromptState
from contextual.core.engine.settings import Settings
from contextual.core.session import SessionWriter, load_session
from tests.history_helpers import rounds_of_reads as _history


class Holder(ContextControls):
    """The controls beside the history they act on and the session they record in (as the Engine wires them)."""

    def __init__(self, root, session=None) -> None:
        super().__init__()
        self.history = HistoryManager(_history(2))
        self.session = session

    def toggle_pin(self, message_id: str) -> bool:          # type: ignore[override]
        return super().toggle_pin(self.history.messages, message_id, self.session)

    def restore_pins(self, ids: list[str]) -> None:         # type: ignore[override]
        super().restore_pins(self.history.messages, ids)


def test_reminders_ride_on_the_next_input_once(tmp_path):
    h = Holder(tmp_path)
    assert h.with_reminders("fix it") == "fix it"
    h.remind("<system-reminder>a</system-reminder>")
    h.remind("<system-reminder>a</system-reminder>")          # the same item twice is one reminder
    h.remind("<system-reminder>b</system-reminder>")
    preview = h.with_reminders("fix it")
    assert preview == "fix it\n\n<system-reminder>a</system-reminder>\n\n<system-reminder>b</system-reminder>"
    assert h.with_reminders("fix it", consume=True) == preview
    assert h.with_reminders("next") == "next" and h.reminders == []


async def test_pins_are_recorded_in_the_session_and_restored(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    writer = SessionWriter.create(tmp_path / "home", root, session_id="ctl")
    h = Holder(root, writer)
    for m in h.history.messages:
        writer.append_message(m)
    obs = h.history.messages[2]
    assert h.toggle_pin(obs.id) is True
    assert h.toggle_pin(h.history.messages[0].id) is True
    assert h.toggle_pin(h.history.messages[0].id) is False
    await writer.close()
    loaded = load_session(writer.path)
    again = Holder(root)
    again.history.messages = loaded.history
    again.restore_pins(loaded.pins + ["gone-id"])
    assert again.pins.ids == {h.history.messages[1].id, obs.id}


def test_the_live_policy_switches_by_name_only(tmp_path):
    config = Config(project_root=tmp_path, home=tmp_path / "home")
    prompt = PromptState(Settings(config, None), "system", "ours", ContextControls().pins, list, str)
    assert prompt.builder.policy == "ours"
    prompt.set_policy("raw")
    assert prompt.builder.policy == "raw"
    with pytest.raises(ValueError, match="unknown context policy 'nope'"):
        prompt.set_policy("nope")
