"""Issue 19's commands: /compactions, /ledger, /diff, /policies, re-injecting a lost fact, pinning from History.
They use the engine's public calls only: `remind`, `toggle_pin`, `set_policy`, `sent` and `compactions`."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from contextual.core.messages import Message
from contextual.tui.prompt_view import Shown
from contextual.tui.slash.port import AppPort

if TYPE_CHECKING:      # annotations only: the app's first frame does not wait for the engine's imports
    from contextual.core.agent import Engine
    from contextual.core.context.sent_log import SentLog
    from contextual.core.context.ledger import LostFact


def pinned_ids(engine: Engine) -> frozenset[str]:
    return frozenset(engine.pins.ids)


def with_pins(shown: Shown, engine: Engine) -> Shown:
    """The shown prompt with its pinned messages' tokens summed (the meter's own segment)."""
    ids = pinned_ids(engine)
    if not ids:
        return shown
    return replace(shown, pinned=sum(m.tokens for source, m in shown.by_source().items() if source in ids))


def reinject(app: AppPort, fact: LostFact | None) -> None:
    """A lost fact chosen in a ledger: it rides as a reminder on the next message the user sends."""
    if fact is None:
        return
    app.engine.remind(fact.reminder())
    app.readouts.show_prompt()
    app.notify(f"re-injected into your next message: {fact.kind} {fact.text[:60]}", timeout=4)


def toggle_pin(app: AppPort, message: Message, of: int = 1) -> None:
    """p on a History row; on a run of the same call (``of`` > 1) its newest, which leaves the run for a row of its own."""
    if message.role == "summary":
        app.notify("Summaries are never compressed or archived: nothing to pin.", timeout=3)
        return
    from contextual.core.context.pins import PinRefused
    try:
        pinned = app.engine.toggle_pin(message.id)
    except PinRefused as exc:
        app.notify(str(exc), severity="warning", timeout=6)
        return
    app.readouts.show_prompt()
    newest = f" the newest of {of}" if of > 1 else ""
    app.notify((f"pinned{newest}: kept whole, never compressed or archived" if pinned else "unpinned"), timeout=3)


class Compactions:
    async def run(self, app: AppPort, argument: str) -> None:
        from contextual.tui.screens.compaction_history import CompactionHistoryScreen
        app.push_screen(CompactionHistoryScreen(list(app.engine.compactions)), lambda fact: reinject(app, fact))


class Ledger:
    async def run(self, app: AppPort, argument: str) -> None:
        logged = [(i, r) for i, r in enumerate(app.engine.compactions, 1) if r.loss_ledger is not None]
        if argument.strip().isdigit():
            logged = [(i, e) for i, e in logged if i == int(argument)]
        if not logged:
            app.notify("No loss ledger yet: it is made at each compaction (see /compactions).", timeout=4)
            return
        from contextual.tui.screens.loss_ledger import LossLedgerScreen
        number, record = logged[-1]
        assert record.loss_ledger is not None
        app.push_screen(LossLedgerScreen(record.loss_ledger, f"Compaction #{number}: what it dropped"),
                        lambda fact: reinject(app, fact))


class Diff:
    async def run(self, app: AppPort, argument: str) -> None:
        from contextual.core.model_facts import lookup
        from contextual.core.package_data import InstallDamaged
        from contextual.tui.screens.prompt_diff import PromptDiffScreen
        log, rebuilt = await sent_or_rebuilt(app)
        try:
            facts = lookup(app.config.model, app.config.models)
        except InstallDamaged:        # no price table: no prices known
            facts = None
        priced = facts is not None and facts.input is not None
        app.push_screen(PromptDiffScreen(log=log, rebuilt=rebuilt, priced=priced))


async def sent_or_rebuilt(app: AppPort) -> tuple[SentLog, bool]:
    """The prompts this run sent; where the session's record holds more calls (it was resumed: an earlier run sent
    them, and /diff said "fewer than two model calls so far" in a session of dozens), every call
    rebuilt from the record as `export --as-sent` rebuilds them. True: rebuilt."""
    import asyncio

    from contextual.core import export
    from contextual.core.session import SessionError, load_session
    engine = app.engine
    sent, session = engine.sent, engine.session
    if session is None:
        return sent, False
    try:
        await session.flush(fsync=False)
        loaded = await asyncio.to_thread(load_session, session.path)
        if sum(1 for m in loaded.full_record if m.role == "assistant") <= sent.count:
            return sent, False
        return await asyncio.to_thread(export.rebuilt_log, loaded, app.config), True
    except (OSError, SessionError) as exc:
        await app.say(f"/diff shows this run's calls only: the session's record could not be read ({exc})",
                      "warning")
        return sent, False


class Policies:
    async def run(self, app: AppPort, argument: str) -> None:
        if app.turns.busy("replay the session under each policy"):
            return
        await app.startup.started()
        from contextual.tui.screens.policies import PoliciesScreen      # the replay machinery: loaded when asked for
        record = await app.host.transcript(app.engine)
        app.push_screen(PoliciesScreen(record, app.config, app.engine.policy), lambda p: self.picked(app, p))

    def picked(self, app: AppPort, policy: str | None) -> None:
        if not policy or policy == app.engine.policy:
            return
        app.engine.set_policy(policy)
        app.readouts.show_prompt()
        app.notify(f"context policy: {policy} (from the next call of this session)", timeout=4)
