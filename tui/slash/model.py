"""/model [name]: pick a model the server lists, or switch to NAME; how to configure one when none is."""

from __future__ import annotations

from rich.text import Text

from contextual.core.config import Config
from contextual.tui.slash.port import AppPort


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


class Model:
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
        names: list[str] = []
        problem = ""
        try:
            names = await app.engine.settings.list_models()
        except ProviderError as exc:          # a server without /v1/models: one line, and /model NAME still works
            problem = f"no model list from the server ({one_line(str(exc), 160)}): type /model NAME"
        except Exception as exc:              # never a traceback or a library's text for a listing
            problem = f"no model list from the server ({type(exc).__name__}): type /model NAME"
        chosen = await app.push_screen_wait(ModelPicker(app.config, names, problem))
        if chosen and not app.busy("switch the model"):
            await self._switch(app, chosen)

    def switch(self, app: AppPort, name: str) -> None:
        if app.busy("switch the model"):
            return
        if app.engine.provider is None and no_endpoint(app.config):
            app.notify("No endpoint is configured: set CONTEXTUAL_BASE_URL first (see /model).", severity="warning")
            return
        app.run_worker(self._switch(app, name), group="models", exclusive=True, exit_on_error=False)

    async def _switch(self, app: AppPort, name: str) -> None:
        from contextual.tui.format import model_note
        await app.engine.set_model(name)       # its window too (the server asked, 2 s at most)
        app.show_prompt()
        config = app.engine.config
        # a line in the chat, not only a toast: scrolling back says which model answered what (live only: the
        # session records no switch, each call's usage entry names its model)
        await app.say(f"{model_note(name, config.context_window, config.window_source)} — for the next turns")
        if app.unsent and not app.pending_input().strip():      # typed before there was a model: ready to send
            app.load_input(app.unsent)
            app.unsent = ""
            await app.say("your message is back in the input: enter sends it")
