"""`contextual context` (issue 12.2, CONTRACT Additions): the next prompt without calling a model.

Text: the figures, the layers with their tokens, then every message with its role, layer, form and tokens.
JSON: {"provider", "request", "layers", "tokens", "window", "trigger"}, where `request` holds the body fields
that carry the prompt exactly as the provider module sends them.
"""

from __future__ import annotations

from typing import Any

from contextual.core.context.compaction_words import ESTIMATE
from contextual.core.prompt import PromptView, counts_apart
from contextual.core.providers.factory import prompt_fields


def as_json(view: PromptView) -> dict[str, Any]:
    return {
        "provider": view.provider,
        "request": prompt_fields(view.provider, list(view.messages)),
        "layers": [{"name": name, "tokens": tokens} for name, tokens in view.layers],
        "tokens": view.total,
        "window": view.window,
        "trigger": {"estimate": view.trigger.estimate, "threshold": view.trigger.threshold,
                    "due": view.trigger.due},
    }


def as_text(view: PromptView) -> str:
    t = view.trigger
    due = "compaction is due before this input" if t.due else "no compaction due"
    server = (f" ({view.window:,} by the server's count, ×{view.server_factor:.2f} ours)"
              if counts_apart(view.server_factor) else "")
    lines = [f"next prompt ({view.provider}, {view.model or 'no model'}): {view.total:,} tokens; window "
             f"{view.counted_window:,}{server}, at most {view.limit:,} per prompt",
             # the meter's name for its first figure, and whose count it is when the server's usage is larger
             f"{ESTIMATE} {t.estimate:,}{' (server usage)' if t.basis == 'usage' else ''} of the {t.threshold:,} "
             f"trigger line — {due}",
             f"calibration: ×{view.token_factor:.2f} server tokens per counted token (the limit above allows for it)",
             "", "layers:"]
    width = max(len(name) for name, _ in view.layers)
    lines += [f"  {name:<{width}}  {tokens:>9,}" for name, tokens in view.layers]
    for a in view.adjustments:
        lines.append(f"fitted: {a.detail} ({a.tokens_before:,} → {a.tokens_after:,} tokens)")
    for i, m in enumerate(view.messages, start=1):
        where = " · ".join(x for x in (m.source.tool, m.source.path) if x)
        lines += ["", f"── {i}. {m.role} · {m.layer} · {m.form} · {m.tokens:,} tokens" + (f" · {where}" if where
                                                                                               else ""),
                  m.content]
    return "\n".join(lines)
