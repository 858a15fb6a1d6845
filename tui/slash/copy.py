"""/copy [N]: the latest answer (or the Nth from the newest) to the clipboard as the model wrote it, Markdown and
all: Claude Code's and Codex's /copy. In a full-screen app a drag copies what one pane shows, and the terminal's
own selection (shift+drag) takes the borders, the side pane and the wrapping with it."""

from __future__ import annotations

from collections.abc import Sequence

from contextual.core.messages import Message
from contextual.core.plural import plural
from contextual.core.react import finish_so_far
from contextual.tui.format import final_answer
from contextual.tui.slash.port import AppPort

USAGE = "/copy N copies the Nth answer from the newest (/copy: the latest)"


class Copy:
    async def run(self, app: AppPort, argument: str) -> None:
        wanted = argument.strip() or "1"
        if not wanted.isdigit() or int(wanted) < 1:
            await app.say(USAGE, "error")
            return
        answers = copyable(app.engine.history.messages)
        n = int(wanted)
        if n > len(answers):
            held = f"only {plural(len(answers), 'answer')} to copy" if answers else "no answer to copy yet"
            # a compaction keeps a summary of the rounds it archives, not their answers
            older = " (older ones were compacted: /export writes them all)" if app.engine.compactions else ""
            await app.say(held + older, "warning")
            return
        text, cut_off = answers[-n]
        app.copy_to_clipboard(text)
        which = "the latest answer" if n == 1 else f"answer {n} from the newest"
        cut = ", cut off where the turn was interrupted" if cut_off else ""
        # said: the copy goes through the terminal (OSC 52) and nothing on screen changes
        app.notify(f"Copied {which}{cut}: {plural(len(text), 'character', grouped=True)}.", timeout=3)


def copyable(messages: Sequence[Message]) -> list[tuple[str, bool]]:
    """The answers the chat shows, oldest first, each with whether it was cut off: the final ones, and one an
    interrupt stopped mid-stream as far as it went (the chat shows it, live and resumed: /copy had said "no answer
    to copy yet" beside it)."""
    out: list[tuple[str, bool]] = []
    for m in messages:
        if m.role != "assistant":
            continue
        if m.meta.get("final"):
            out.append((final_answer(m), False))
        elif m.meta.get("interrupted") and (so_far := finish_so_far(m.content)):
            out.append((so_far, True))
    return out
