"""`contextual context [-c | -r ID] [--input TEXT] [--json]`: print the next prompt; no model is called and the
session is only read (no lock, nothing written)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contextual.core import secrets
from contextual.core.config import ConfigError, load_config
from contextual.core.textsafe import strip_control
from contextual.settings_flags import add_settings, settings_of
from contextual.core.context import compaction_words

if TYPE_CHECKING:
    from contextual.core.agent import Engine
    from contextual.core.config import Config
    from contextual.core.mcp.manager import Listing
    from contextual.core.prompt import PromptView
    from contextual.core.session.schema import CompactionRecord


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="contextual context",
                                description="print the prompt the next model call would send, layer by layer")
    p.add_argument("-c", "--continue", dest="continue_latest", action="store_true",
                   help="the most recent session of this project")
    p.add_argument("-r", "--resume", metavar="ID", help="session ID")
    p.add_argument("--input", default="", metavar="TEXT", help="the user input of the next turn (default empty)")
    p.add_argument("--json", action="store_true", help="one JSON object: provider, request, layers, tokens, "
                                                       "window, trigger")
    p.add_argument("--trust-project", action="store_true",
                   help="use this project's .mcp.json servers and widening rules without approval")
    add_settings(p)
    return p


async def _next_prompt(engine: Engine, config: Config, text: str) -> tuple[PromptView, Listing | None]:
    """With the project's MCP servers started as `-p` starts them, so L1 lists the same tools (issue 17)."""
    from contextual.core.mcp.manager import start_servers
    manager = await start_servers(engine, config.project_root, config.home, wait=True)
    try:
        return engine.next_prompt(text), engine.mcp_listing
    finally:
        if manager is not None:
            await manager.close()


def compaction_json(record: "CompactionRecord") -> dict[str, Any]:
    """One compaction of the session, with the recall probe's score (issue 30): facts kept of those archived."""
    ledger = record.loss_ledger
    return {"trigger": record.trigger, "timestamp": record.timestamp, "preTokens": record.pre_tokens,
            "postTokens": record.post_tokens, "roundsArchived": record.rounds_archived,
            "recall": ledger.recall() if ledger is not None else None}


def _unrun_hooks(config: Any) -> list[str]:
    """Hooks whose output joins the next message run only when it is sent: this prompt cannot hold it, so say so."""
    events = [e for e in ("SessionStart", "UserPromptSubmit")
              if any(h.approved and h.event == e for h in config.hooks.hooks)]
    return [f"{' and '.join(events)} hooks are not run here: what they print is added to the next message "
            "when it is sent, and is not in this prompt"] if events else []


def context_main(argv: list[str]) -> int:
    from contextual.core.context.report import as_json, as_text
    from contextual.core.model_facts import resolve_window
    from contextual.core.runtime import engine_for_reading
    from contextual.core.session import SessionError
    args = build_parser().parse_args(argv)
    flags = settings_of(args)
    if args.trust_project:
        from contextual.core import trust
        trust.trust_this_run()
    try:
        # The same settings as `-p` resolves them (the server's window unless the user set one).
        config = asyncio.run(resolve_window(load_config(Path.cwd(), flags)))
        engine = engine_for_reading(config, resume_id=args.resume, continue_latest=args.continue_latest)
    except (ConfigError, SessionError) as exc:
        print(f"contextual: {exc}", file=sys.stderr)
        return 1
    view, listing = asyncio.run(_next_prompt(engine, config, args.input))
    for warning in [*engine.warnings, *engine.builder.rules_notices(), *_unrun_hooks(config)]:
        print(secrets.redact_shown(f"warning: {warning}"), file=sys.stderr)
    # Like every output path, keys are redacted: an --input or a file holding one prints [redacted].
    if args.json:
        out = as_json(view)
        out["compactions"] = [compaction_json(r) for r in engine.compactions]
        if listing is not None:     # MCP tool descriptions against their L1 budget (issue 26)
            out["mcp"] = {"descriptionTokens": listing.cost, "budget": listing.budget,
                          "toolSearch": listing.search is not None, "tools": listing.tools,
                          "summary": listing.summary()}
        print(json.dumps(secrets.redact_value(out), ensure_ascii=False))
    else:
        # a tool description or result (an MCP server's text) may hold terminal escapes: not for the terminal
        print(secrets.redact_shown(as_text(view)))
        for n, record in enumerate(engine.compactions, start=1):      # each with the recall probe's score
            score = record.loss_ledger.score() if record.loss_ledger is not None else "no facts recorded"
            cut = f"cut without a summary ({record.fallback})" if record.fallback else score
            cut = f"{record.stopped()}; {cut}" if record.stopped() else cut
            figures = (compaction_words.before_after(record.pre_tokens, record.post_tokens, lambda n: f"{n:,}")
                       if record.pre_tokens is not None and record.post_tokens is not None else "")
            print(f"compaction {n} ({record.trigger}): {figures + ', ' if figures else ''}"
                  f"{compaction_words.outcome(record.rounds_archived)}; {cut}")
        if listing is not None:
            print(strip_control(listing.summary()))
    return 0
