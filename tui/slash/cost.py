"""/cost: what this session has used so far, and what it cost where the model has prices (Claude Code's /cost; -p
gives the same per run in its json result)."""

from __future__ import annotations

from contextual.core.prompt import said_cost
from contextual.tui.slash.port import AppPort


class Cost:
    async def run(self, app: AppPort, argument: str) -> None:
        used = app.engine.session_usage       # every call of the session, summaries included
        if not used.input_tokens and not used.output_tokens:
            await app.say("nothing used yet: no model call in this session")
            return
        cache = ([f"{used.cached_tokens:,} read from the cache"] if used.cached_tokens else []) + \
                ([f"{used.cache_write_tokens:,} written to it"] if used.cache_write_tokens else [])
        said = (f"this session: {used.input_tokens:,} input tokens"
                + (f" ({', '.join(cache)})" if cache else "") + f", {used.output_tokens:,} output tokens")
        model = app.config.model or "NAME"
        dollars = said_cost(used.cost, used.unpriced_calls)      # a call whose model has no prices: the priced sum, said as partial
        price = (f"; cost {dollars}" if dollars is not None else
                 f'; cost unknown: no prices for {model} (config: [models."{model}"] input = …, output = …, US$ '
                 "per million tokens)")
        await app.say(said + price)
