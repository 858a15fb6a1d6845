"""`# text` typed in the input (Claude Code's memory shortcut): ask where, append it, say where it went
(core/memory.py)."""

from __future__ import annotations

from contextual.tui.slash.port import AppPort


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
            app.load_input(text)                            # cancelled: nothing lost
            return
        path = project if where == "project" else user
        try:
            memory.remember(line, path)
        except (OSError, memory.NotRemembered) as exc:
            await app.say(f"not remembered: {exc}", "error")
            return
        await app.say(f"remembered in {path}: - {line} (sent from the next call on)")
        app.show_prompt()

    app.push_screen(MemoryChoice(line, project, user), chosen)
