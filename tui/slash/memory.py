"""`# text` typed in the input (Claude Code's memory shortcut): ask where, append it, say where it went
(core/memory.py)."""

from __future__ import annotations

from contextual.tui.slash.port import AppPort
from contextual.tui.widgets.prompt_input import PromptInput


def is_memory(text: str) -> bool:
    """One line starting with `# ` (a deeper Markdown heading, or a message of several lines, is a message)."""
    return text.startswith("# ") and "\n" not in text.strip() and len(text[2:].strip()) > 0


def ask_and_remember(app: AppPort, text: str) -> None:
    from contextual.core import memory                      # loaded when first used, not at launch
    from contextual.tui.screens.memory_choice import MemoryChoice
    line = text[2:].strip()
    project, user = memory.project_file(app.config.project_root), memory.user_file(app.config.home)

    async def chosen(where: str | None) -> None:
        if where is None:
            app.query_one(PromptInput).put(text)                            # cancelled: nothing lost
            return
        path = project if where == "project" else user
        try:
            memory.remember(line, path)
        except (OSError, memory.NotRemembered) as exc:
            await app.say(f"not remembered: {exc}", "error")
            return
        await app.say(f"remembered in {path}: - {line} (sent from the next call on)")
        app.readouts.show_prompt()

    app.push_screen(MemoryChoice(line, project, user), chosen)


MEMORY_SHOWN_CHARS = 4000      # of each file: the whole is in the file, and in /context


class Memory:
    """`/memory [text]` (Claude Code's name): with text, remember it as `# text` does; without, show the two files
    the remembered lines go to, which every prompt sends in L2, and how to add to them."""

    async def run(self, app: AppPort, argument: str) -> None:
        if argument.strip():
            ask_and_remember(app, "# " + argument.strip())
            return
        from rich.text import Text

        from contextual.core import memory
        from contextual.core.regular_file import read_regular
        from contextual.tui.screens.info import InfoScreen
        body = Text()
        for label, path in (("this project", memory.project_file(app.config.project_root)),
                            ("every project", memory.user_file(app.config.home))):
            body.append(f"{label}: {path}\n", style="bold")
            try:
                # its head only: a checkout's AGENTS.md of 5 GB was read whole to show 4,000 characters of it
                raw = read_regular(path, 4 * MEMORY_SHOWN_CHARS + 4) if path.is_file() else b""
                text = raw.decode("utf-8", errors="replace")
            except OSError as exc:
                text = f"(cannot be read: {exc})"
            body.append((text[:MEMORY_SHOWN_CHARS] + (" …" if len(text) > MEMORY_SHOWN_CHARS else "")
                         if text.strip() else "(nothing yet)") + "\n\n")
        body.append("`# text` in the input (or /memory text) adds a line to one of them; edit them as files.",
                    style="dim")
        app.push_screen(InfoScreen("Memory: the rules files every prompt sends", body))
