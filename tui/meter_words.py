"""What the meter's figures mean, in the user's words: the meter's tooltip and /context's "figures" row.

At 8k a user saw "trigger estimate 8.6k of 6.0k (143%)" beside "next prompt 5.8k of 8.2k window" and nothing said
that the first is the prompt counted before anything is fitted to the window."""

from __future__ import annotations

from contextual.core.context.compaction_words import ESTIMATE
from contextual.tui.format import tokens
from contextual.tui.prompt_view import Shown


def figures_explained(shown: Shown) -> list[str]:
    """One line per figure: the estimate against the trigger line, the next prompt, the window."""
    line = f"automatic compaction runs when it reaches the trigger line, {tokens(shown.threshold)}"
    ours = " in our tokens" if shown.server_counts_apart else ""
    if shown.basis == "usage":
        first = (f"{ESTIMATE} {tokens(shown.estimate)}, the server's usage: the server's own count of the last "
                 f"call{ours}, with what has changed since; it stands for our count while it is larger. "
                 f"{line[0].upper()}{line[1:]}.")
    else:
        first = (f"{ESTIMATE} {tokens(shown.estimate)}: the next prompt counted whole, before anything is "
                 f"fitted to the window, with what you are typing; {line}.")
    if shown.fitted:
        second = (f"next prompt {tokens(shown.total)}: what will be sent, {tokens(shown.fitted)} smaller than "
                  "counted because it was fitted to the window (older tool results shortened or cut); a compaction "
                  "brings the estimate back under the line.")
    else:
        second = (f"next prompt {tokens(shown.total)}: what will be sent"
                  + ("; the estimate until something must be fitted to the window." if shown.basis != "usage" else
                     ", by our count (the server's tokenizer counts differently)."))
    # every figure here is our count; a server whose tokenizer counts otherwise has its window said in its own
    server = (f" ({tokens(shown.window)} by the server's count, ×{shown.server_factor:.2f} ours: every figure here is "
              "ours)" if shown.server_counts_apart else "")
    return [first, second, f"window {tokens(shown.counted_window)}: the model's whole context{server}{_room(shown)}."]


def _room(shown: Shown) -> str:
    """How the window is shared, in the server's tokens, the same before the first reply and after: before, "a
    prompt is at most 2.6k, the rest is kept for the answer" gave our count's limit against a 3.0k trigger, as if
    1.5k were the answer's 1,024; then our count's limit, where the calibration moves it."""
    if not shown.room:
        return ""
    of = f" of the server's {tokens(shown.window)}" if shown.server_counts_apart else " of it"
    said = (f": a prompt may use {tokens(shown.room)}{of}, {shown.reserve:,} is kept for the answer and "
            f"{max(0, shown.window - shown.reserve - shown.room):,} as a margin for counting errors")
    if abs(shown.limit - shown.room) > 0.02 * shown.room:      # the server's tokenizer is taken to count otherwise
        said += (f" (by our count {tokens(shown.limit)}: the server's tokenizer is taken to count "
                 f"{shown.room / max(1, shown.limit):.2f}× ours)")
    return said
