"""What the user hears while a turn goes on when fitting cut words that are theirs to know of: their own message,
or a rules file (kept like the user's words), each said once a turn. A tool's output cut is not said here: the
turn's fittings are summed up at its end (``fitted.Fitted``)."""

from __future__ import annotations

from dataclasses import dataclass

from contextual.core.context.builder import Built
from contextual.core.events import Notice


@dataclass
class CutNotices:
    told_input: bool = False        # the user's message was said cut this turn
    told_rules: bool = False        # a rules file was said cut this turn

    def of(self, built: Built, window: int) -> list[Notice]:
        """This prompt's cuts not yet said this turn (`window`: the context window, in tokens)."""
        out = []
        if not self.told_input and any(m.layer == "input" and m.form == "cut" for m in built.messages):
            self.told_input = True      # the user's own words, not a tool's output: said plainly
            out.append(Notice(f"your message is larger than this window allows ({window:,} tokens): the model gets "
                              "its head and tail, with a note of what was cut", "warning"))
        rules_cut = [a.detail for a in built.adjustments if a.action == "cut_rules"]
        if rules_cut and not self.told_rules:
            self.told_rules = True      # the rules, kept like the user's words, cut anyway: said by name
            folded = any(a.action == "fold_steps" for a in built.adjustments)
            out.append(Notice(f"{'; '.join(rules_cut)} to fit the {window:,}-token "
                              f"window{', after the earlier steps of this turn were folded' if folded else ''}: the "
                              "model gets its head and tail", "warning"))
        return out
