"""Issue 19's commands in the app: /policies, /diff, /ledger, re-injecting a lost fact, pinning from History.

A mixin beside CommandsMixin (dispatch finds `command_<action>` on either). It talks to the engine only through
its public calls: `remind`, `toggle_pin`, `set_policy`, `sent` (the calls it made) and `compactions`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from textual.app import App

from contextual.tui.prompt_view import Shown


def pinned_ids(engine: Any) -> frozenset[str]:
    pins = getattr(engine, "pins", None)
    return frozenset(pins.ids) if pins is not None else frozenset()


def with_pins(shown: Shown, engine: Any) -> Shown:
    """The shown prompt with its pinned messages' tokens summed (the meter's own segment)."""
    ids = pinned_ids(engine)
    if not ids:
        return shown
    return replace(shown, pinned=sum(m.tokens for source, m in shown.by_source().items() if source in ids))


class ContextToolsMixin(App):
    # ----- /policies
    async def command_policies(self, _argument: str) -> None:
        if self.busy("replay the session under each policy"):
            return
        await self.started()
        from contextual.tui.screens.policies import PoliciesScreen      # the replay machinery: loaded when asked for
        record = await self.host.transcript(self.engine)
        self.push_screen(PoliciesScreen(record, self.config, self.engine.policy), self.policy_picked)

    def policy_picked(self, policy: str | None) -> None:
        if not policy or policy == self.engine.policy:
            return
        self.engine.set_policy(policy)
        self.show_prompt()
        self.notify(f"context policy: {policy} (from the next call of this session)", timeout=4)

    # ----- /diff
    async def command_diff(self, _argument: str) -> None:
        from contextual.tui.screens.prompt_diff import PromptDiffScreen
        self.push_screen(PromptDiffScreen(log=self.engine.sent))

    # ----- the loss ledger
    async def command_ledger(self, argument: str) -> None:
        logged = [(i, e) for i, e in enumerate(self.engine.compactions, 1) if e.get("lossLedger") is not None]
        if argument.strip().isdigit():
            logged = [(i, e) for i, e in logged if i == int(argument)]
        if not logged:
            self.notify("No loss ledger yet: it is made at each compaction (see /compactions).", timeout=4)
            return
        self.open_ledger(*logged[-1])

    def open_ledger(self, number: int, entry: dict) -> None:
        from contextual.core.context.ledger import Ledger
        from contextual.tui.screens.loss_ledger import LossLedgerScreen
        ledger = Ledger.from_dict(entry.get("lossLedger"))
        self.push_screen(LossLedgerScreen(ledger, f"Compaction #{number}: what it dropped"), self.reinject)

    def reinject(self, fact: Any) -> None:
        """A lost fact chosen in a ledger: it rides as a reminder on the next message the user sends."""
        if fact is None:
            return
        self.engine.remind(fact.reminder())
        self.show_prompt()
        self.notify(f"re-injected into your next message: {fact.kind} {fact.text[:60]}", timeout=4)

    # ----- pins
    def toggle_pin(self, message: Any) -> None:
        if message.role == "summary":
            self.notify("Summaries are never compressed or archived: nothing to pin.", timeout=3)
            return
        pinned = self.engine.toggle_pin(message.id)
        self.show_prompt()
        self.notify(("pinned: kept whole, never compressed or archived" if pinned else "unpinned"), timeout=3)
