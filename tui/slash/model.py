"""/model [name]: pick a model the server lists, or switch to NAME; how to configure one when none is."""

from __future__ import annotations

import difflib
import re
import weakref
from typing import TYPE_CHECKING

from rich.text import Text

from contextual.core.config import Config
from contextual.tui.slash.port import AppPort
from contextual.tui.widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from contextual.core.providers.base import ListedModel

SHOWN_NAMES = 8        # the listed names a refusal names (OpenRouter lists hundreds): the closest first


def how_to_configure(config: Config) -> str:
    if config.base_url or config.provider == "anthropic":      # only the model is missing: pick one now
        return ("no model chosen yet: /model lists the server's models (or /model NAME). To keep one for next "
                f"time, set CONTEXTUAL_MODEL or model = \"...\" in {config.home / 'config.toml'}.")
    return (f"{config.missing_model_message()}\n\n"
            "Set a model and an endpoint, then restart:\n"
            "  • environment: CONTEXTUAL_MODEL, CONTEXTUAL_BASE_URL, CONTEXTUAL_API_KEY (CONTEXTUAL_PROVIDER=anthropic "
            "for Anthropic's API)\n"
            f"  • or the config file {config.home / 'config.toml'} (or .contextual/config.toml in the project):\n"
            '      model = "qwen2.5-coder:7b"\n      base_url = "http://localhost:11434/v1"\n'
            "  • local servers: Ollama at http://localhost:11434/v1, llama.cpp (llama-server) at "
            "http://localhost:8080/v1, vLLM at http://localhost:8000/v1\n\n"
            "Meanwhile you can browse past sessions with /resume (ctrl+r).")


def no_endpoint(config: Config) -> bool:
    return not config.base_url and config.provider != "anthropic"


def listed_as(name: str, listed: list[str]) -> bool:
    """NAME is one the server serves: listed as written, or as the names servers accept for a listed one (Ollama's
    NAME for NAME:latest, Anthropic's alias NAME for NAME-20250929)."""
    return any(name == entry or entry == f"{name}:latest" or re.fullmatch(re.escape(name) + r"-\d{6,}", entry)
               for entry in listed)


def unlisted_line(name: str, listed: list[str]) -> str:
    """The chat's line for `/model NAME` the server does not list: what it lists (the closest first), and how to
    use NAME anyway."""
    close = difflib.get_close_matches(name, listed, n=3, cutoff=0.8)     # a typo, not a shared "-model"
    names = close + [entry for entry in listed if entry not in close]
    shown = ", ".join(names[:SHOWN_NAMES]) + (f" and {len(names) - SHOWN_NAMES} more" if len(names) > SHOWN_NAMES
                                               else "")
    guess = f" — did you mean {close[0]}?" if close else "."
    return (f"the server does not list {name}{guess} It lists {shown}. /model picks one; /model {name} again uses "
            "it anyway (a server may serve names it does not list)")


class Model:
    def __init__(self) -> None:
        # per app: the name last refused as unlisted; the same /model NAME again switches to it
        self._refused: weakref.WeakKeyDictionary[AppPort, str] = weakref.WeakKeyDictionary()

    async def run(self, app: AppPort, argument: str) -> None:
        from contextual.tui.screens.info import InfoScreen
        if argument:
            self.switch(app, argument)
            return
        if no_endpoint(app.config):          # nothing to ask: how to set one
            app.push_screen(InfoScreen("Model", Text(how_to_configure(app.config))))
            return
        app.run_worker(self._pick(app), group="models", exclusive=True, exit_on_error=False)

    async def _pick(self, app: AppPort) -> None:
        from contextual.tui.screens.model_picker import ModelPicker
        from contextual.core.providers.base import ProviderError
        from contextual.tui.format import one_line
        names: list[ListedModel] = []
        problem = ""
        try:
            names = await app.engine.settings.list_models()
        except ProviderError as exc:          # a server without /v1/models: one line, and /model NAME still works
            problem = f"no model list from the server ({one_line(str(exc), 160)}): type /model NAME"
        except Exception as exc:              # never a traceback or a library's text for a listing
            problem = f"no model list from the server ({type(exc).__name__}): type /model NAME"
        chosen = await app.push_screen_wait(ModelPicker(app.config, names, problem))
        if chosen and not app.turns.busy("switch the model"):
            await self._switch(app, chosen)

    def switch(self, app: AppPort, name: str) -> None:
        if app.turns.busy("switch the model"):
            return
        if app.engine.provider is None and no_endpoint(app.config):
            app.notify("No endpoint is configured: set CONTEXTUAL_BASE_URL first (see /model).", severity="warning")
            return
        app.run_worker(self._checked(app, name), group="models", exclusive=True, exit_on_error=False)

    async def _checked(self, app: AppPort, name: str) -> None:
        """A name the server's listing lacks is refused once, with what it lists (a typo switched and every later
        call failed); typed again, it is used. A server without a listing switches as before."""
        try:
            listed = [entry.id for entry in await app.engine.settings.list_models()]
        except Exception:       # no listing, or no server now (never a traceback): nothing to check the name against
            listed = []
        insisted = self._refused.pop(app, None) == name
        if listed and not listed_as(name, listed) and not insisted:
            self._refused[app] = name
            await app.say(unlisted_line(name, listed), "warning")
            return
        await self._switch(app, name)

    async def _switch(self, app: AppPort, name: str) -> None:
        from contextual.tui.format import model_note
        await app.engine.set_model(name)       # its window too (the server asked, 2 s at most)
        app.readouts.show_prompt()
        config = app.engine.config
        # a line in the chat, not only a toast: scrolling back says which model answered what (live only: the
        # session records no switch, each call's usage entry names its model)
        await app.say(f"{model_note(name, config.context_window, config.window_source)} — for the next turns")
        # typed before there was a model: ready to send
        if app.unsent and not app.query_one(PromptInput).pending().strip():
            app.query_one(PromptInput).put(app.unsent)
            app.unsent = ""
            await app.say("your message is back in the input: enter sends it")
