"""How a window is shared between the prompt and the answer (issue 24): the answer's reserve and the
compaction trigger, so that at every window a compaction comes before any cut.

reserve   = the user's output_reserve when set, else min(the model's output limit where known, 8,000, 25 % of
            the window);
threshold = min(trigger_ratio × window, window − reserve − margin), where margin = max(64, 2 % of the window)
            absorbs the estimate's error. The trigger compares it with the next prompt's estimate *including*
            the input, so "window − reserve − the input's estimate − margin" of the issue is the same line.
At 200k this is seed A6's 0.8 × 200k; at 8,192 it is 5,981 (the issue asks ≤ 6,144).
"""

from __future__ import annotations

RESERVE_CAP = 8_000          # no answer in a turn needs more (the CLI's max_tokens is capped at 8,192)
RESERVE_SHARE = 0.25         # small windows: a quarter for the answer leaves three quarters for the prompt
MARGIN_SHARE = 0.02
MARGIN_MIN = 64
MIN_PROMPT = 512             # below this a prompt cannot hold the system prompt and a question


def auto_reserve(window: int, output_limit: int | None = None) -> int:
    """The answer's reserve when the user set none."""
    candidates = [RESERVE_CAP, max(1, int(RESERVE_SHARE * window))]
    if output_limit:
        candidates.append(output_limit)
    return min(candidates)


def answer_reserve(window: int, setting: int | None = None, output_limit: int | None = None) -> int:
    """The user's setting is honoured whenever it leaves a prompt room (reserve_problem says when not)."""
    if setting is not None and reserve_problem(window, setting) is None:
        return setting
    return auto_reserve(window, output_limit)


def reserve_problem(window: int, setting: int | None) -> str | None:
    """One line when the user's output_reserve leaves no room for a prompt in this window, else None."""
    if setting is None or window - setting >= MIN_PROMPT:
        return None
    return (f"output_reserve {setting:,} leaves no room for a prompt in a {window:,}-token window: "
            f"set it to at most {max(1, window - MIN_PROMPT):,} (or leave it unset: {auto_reserve(window):,} here)")


def margin(window: int) -> int:
    return max(MARGIN_MIN, int(MARGIN_SHARE * window))


def compaction_threshold(window: int, reserve: int, ratio: float = 0.8) -> int:
    """The estimate (input included) at which compaction fires: never past what a prompt may use."""
    return max(1, min(int(ratio * window), window - reserve - margin(window)))


def prompt_room(window: int, setting: int | None = None, output_limit: int | None = None) -> int:
    """What a prompt may use in this window, in the server's tokens: less the answer's reserve and the margin."""
    return max(1, window - answer_reserve(window, setting, output_limit) - margin(window))


def least_window(room: int, setting: int | None = None, output_limit: int | None = None) -> int:
    """The smallest window whose prompt room holds ``room`` tokens. Walked up from ``room`` (a window never gives
    a prompt more than itself): the user's reserve applies only from where it leaves a prompt MIN_PROMPT, so the
    room does not grow steadily with the window, and this runs only when a window is found too small."""
    window = max(1, room)
    while prompt_room(window, setting, output_limit) < room:
        window += 1
    return window
