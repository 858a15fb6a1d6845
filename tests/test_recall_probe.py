"""The recall probe (issue 30) through the real engine and CLI: an automatic compaction records how many of the
archived facts its summary keeps; the session keeps the score and `contextual context --json` shows it."""

from __future__ import annotations

import json

from contextual.core.agent import Engine
from contextual.core.providers.factory import make_provider
from contextual.core.session import SessionWriter, load_session
from tests.cli_helpers import cli_env, contextual
from tests.engine_helpers import finished, make_config, read_action, run
from tests.fakes.llm_server import FakeLLMServer, Reply
from tests.fakes.scripted_model import Model, answer


async def test_an_automatic_compaction_records_its_recall_and_the_cli_shows_it(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "billing.py").write_text("def invoice_total_q9(items):\n    return sum(i.cents for i in items)\n")
    (root / "shipping.py").write_text("def parcel_weight_k4(box):\n    return box.grams\n")
    home = tmp_path / "home"
    model = Model([read_action("billing.py"), answer("billing read"), read_action("shipping.py"),
                   Reply(answer("shipping read"), usage_input=17_500), answer("after")])
    writer = SessionWriter.create(home, root, session_id="s30")
    with FakeLLMServer(kind="openai", responder=model) as srv:
        config = make_config(root, srv.base_url, keep_rounds=1, context_window=20_000)
        provider = make_provider(config, base_delay=0.01, max_delay=0.05)
        engine = Engine(config, provider, session=writer)
        try:
            finished(await run(engine, "read billing.py; always keep totals in cents"))
            finished(await run(engine, "now shipping.py, next to invoice_total_q9"))
            finished(await run(engine, "go on"))
        finally:
            await provider.aclose()
            await writer.close()
        [record] = engine.compactions
        ledger = record.loss_ledger
        assert record.trigger == "auto" and ledger is not None
        lost = {f.text for f in ledger.facts}
        # The scripted summary names none of the first round's facts: the probe counts them as lost.
        assert "invoice_total_q9" in lost and any("cents" in t for t in lost)
        assert ledger.total >= ledger.lost() > 0
        assert load_session(writer.path).compactions[-1].loss_ledger == ledger
        shown = contextual(["context", "-r", "s30", "--json"], root, cli_env(home, srv.base_url))
        text = contextual(["context", "-r", "s30"], root, cli_env(home, srv.base_url))
    assert shown.returncode == 0, shown.stderr
    [entry] = json.loads(shown.stdout)["compactions"]
    assert entry["trigger"] == "auto"
    assert entry["recall"] == {"kept": ledger.total - ledger.lost(), "total": ledger.total, "lost": ledger.lost()}
    assert "compaction 1 (auto): " in text.stdout and f"; {ledger.score()}" in text.stdout, text.stdout
