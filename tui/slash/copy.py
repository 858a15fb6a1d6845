"""/copy [N]: the latest answer (or the Nth from the newest) to the clipboard as the model wrote it, Markdown and
all: Claude Code's and Codex's /copy. In a full-screen app a drag copies what one pane shows, and the terminal's
own selection (shift+drag) takes the borders, the side pane and the wrapping with it."""

from __future__ import annotations

from contextual.core.plural import plural
from contextual.tui.format import final_answer
from contextual.tui.slash.port import AppPort

USAGE = "/copy N copies the Nth answer from the newest (/copy: the latest)"


class Copy:
    async def run(self, app: AppPort, argument: str) -> None:
        wanted = argument.strip() or "1"
        if not wanted.isdigit() or int(wanted) < 1:
            await app.say(USAGE, "error")
            return
        answers = [final_answer(m) for m in app.engine.history.messages
                   if m.role == "assistant" and m.meta.get("final")]
        n = int(wanted)
        if n > len(answers):
            held = f"only {plural(len(answers), 'answer')} to copy" if answers else "no answer to copy yet"
            # a compaction keeps a summary of the rounds it archives, not their answers
            older = " (older ones were compacted: /export writes them all)" if app.engine.compactions else ""
            await app.say(held + older, "warning")
            return
        text = answers[-n]
        app.copy_to_clipboard(text)
        which = "the latest answer" if n == 1 else f"answer {n} from the newest"
        # said: the copy goes through the terminal (OSC 52) and nothing on screen changes
        app.notify(f"Copied {which}: {plural(len(text), 'character', grouped=True)}.", timeout=3)
