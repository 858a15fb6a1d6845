"""Sub-folders' AGENTS.md / CLAUDE.md (issue 30.5) in the real engine against the fake server: given in L3 with the
result of the first call that touches a file there, not again while it is in history, again after a compaction;
L2 (the cached prefix) never changes."""

from __future__ import annotations

from contextual.core.agent import Engine
from contextual.core.providers.factory import make_provider
from tests.engine_helpers import finished, make_config, read_action, run
from tests.fakes.llm_server import FakeLLMServer
from tests.fakes.scripted_model import Model, answer


def _system(body: dict) -> str:
    return "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")


async def test_a_sub_folders_instructions_ride_with_the_first_touch_and_again_after_a_compaction(tmp_path):
    root = tmp_path / "proj"
    (root / "billing" / "tax").mkdir(parents=True)
    (root / "billing" / "AGENTS.md").write_text("BILLING-RULE-b7: amounts are integer cents.\n")
    (root / "billing" / "tax" / "rates.py").write_text("VAT = 20\n")
    (root / "billing" / "total.py").write_text("def total(): return 0\n")
    (root / "top.py").write_text("x = 1\n")
    model = Model([read_action("top.py"), read_action("billing/tax/rates.py"), read_action("billing/total.py"),
                   answer("read"), read_action("billing/total.py"), answer("again")])
    with FakeLLMServer(kind="openai", responder=model) as srv:
        config = make_config(root, srv.base_url, keep_rounds=0)
        provider = make_provider(config, base_delay=0.01, max_delay=0.05)
        engine = Engine(config, provider)
        try:
            finished(await run(engine, "read the billing code"))
            sent = model.turn_requests
            assert "BILLING-RULE-b7" not in str(sent[1]["messages"])             # top.py: no sub-folder rules
            assert str(sent[2]["messages"]).count("BILLING-RULE-b7") == 1        # rates.py under billing/: given
            assert str(sent[3]["messages"]).count("BILLING-RULE-b7") == 1        # total.py: already given
            assert all("BILLING-RULE-b7" not in _system(r) for r in sent)         # never in L2
            [_ async for _ in engine.compact(keep_rounds=0)]
            finished(await run(engine, "once more"))
        finally:
            await provider.aclose()
    after = model.turn_requests[-1]
    assert "BILLING-RULE-b7" in str(after["messages"]) and "billing/AGENTS.md" in str(after["messages"])


async def test_a_sub_folders_rules_file_that_is_not_text_is_not_given(tmp_path):
    """A binary billing/AGENTS.md was given to the model as tens of thousands of NUL characters."""
    root = tmp_path / "proj"
    (root / "billing").mkdir(parents=True)
    (root / "billing" / "AGENTS.md").write_bytes(b"\x00" * 50_000 + b"BINARY-RULE")
    (root / "billing" / "CLAUDE.md").write_text("TEXT-RULE-c3: amounts are integer cents.\n")
    (root / "billing" / "total.py").write_text("def total(): return 0\n")
    model = Model([read_action("billing/total.py"), answer("read")])
    with FakeLLMServer(kind="openai", responder=model) as srv:
        config = make_config(root, srv.base_url)
        provider = make_provider(config, base_delay=0.01, max_delay=0.05)
        try:
            finished(await run(Engine(config, provider), "read the billing code"))
        finally:
            await provider.aclose()
    sent = str(model.turn_requests[-1]["messages"])
    assert "TEXT-RULE-c3" in sent and "BINARY-RULE" not in sent and "\\x00" not in sent
