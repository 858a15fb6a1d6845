"""The replay figures, as ../shared/trajectories/README.md defines them. Pure functions.

Conventions (checked against the README's reference figures by rebuilding raw / masking / seed004 contexts
straight from the 21 recorded trajectories: they come out 0.726-0.736 / 2.31-2.32 / 0.826 / 1.000 for masking,
depending on the placeholder's wording, and 0.725 / 1.168 / 0.767 / 1.000 for seed004):

- A *call* is one model request. Prompt tokens of a call = sum over its messages of cl100k(content) + 4.
- Billed with cache: the prompt text is the concatenation of role + content of every message, in order. The
  share of it (in characters) that equals the previous call's prompt text from the start is billed at 0.1x,
  the rest at 1x: billed = tokens * (1 - 0.9 * common_prefix_chars / len(text)). The first call has no
  previous prompt. (Pricing the token count of the common-prefix string instead gives 2.23 for masking, not
  the README's 2.32: the README prices the character share.)
- Peak prompt: the largest call.
- Recall pairs come from the *recording*, so every policy is scored on the same pairs. For step k, the
  identifiers of its recorded assistant turn (thought and command: what the agent wrote) that are not in the
  preamble (system prompt, demonstrations) or the task are classified by where they first appeared among
  steps 0..k-1: in an action -> an action-recall pair; only in observations (in no earlier action) -> a recall
  pair. An identifier first seen in an observation and later repeated in an action is in neither.
- A pair is recalled when the identifier is present in the prompt of the call that produced step k. Each
  message is read on its own (nothing is glued across a message boundary), both as written and with JSON
  string escapes decoded, so a path at the start of a line inside a JSON-encoded observation still counts.
- Line recall (round 2): for each recall pair, is at least one whole line of an earlier observation that
  contained the identifier (stripped of surrounding whitespace) still in the prompt, verbatim? A line counts
  when it is a substring of one message (as written or with JSON escapes decoded), so a stored form may put a
  line number or a path before it. Recall counts names; line recall counts usable information.
- Across trajectories every figure is pooled (micro-averaged): summed tokens over summed raw tokens, recalled
  pairs over all pairs of all trajectories. That is what reproduces the README; per-trajectory figures are
  reported alongside.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterable

from contextual.core.tokens import TokenCache, shared_cache

CACHED_PRICE = 0.1
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]{3,}")
_JSON_ESCAPE = re.compile(r'\\(u[0-9a-fA-F]{4}|["\\/bfnrt])')
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def identifiers(text: str) -> set[str]:
    """Matches of the README's regex with trailing `./-` stripped."""
    out = set()
    for match in IDENTIFIER.findall(text):
        name = match.rstrip("./-")
        if name:
            out.add(name)
    return out


def decode_json_escapes(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        return chr(int(code[1:], 16)) if code[0] == "u" else _SIMPLE_ESCAPES[code]
    return _JSON_ESCAPE.sub(one, text)


@lru_cache(maxsize=20_000)
def message_identifiers(content: str) -> frozenset[str]:
    """Identifiers a reader finds in one prompt message; cached by content since prompts repeat messages."""
    found = identifiers(content)
    if "\\" in content:
        found |= identifiers(decode_json_escapes(content))
    return frozenset(found)


# --- tokens and caching ---------------------------------------------------------------------------------------

def prompt_tokens(messages: list[dict[str, Any]], cache: TokenCache = shared_cache) -> int:
    return sum(cache.message(m["content"]) for m in messages)


def _pieces(messages: list[dict[str, Any]]) -> list[str]:
    return [m["role"] + m["content"] for m in messages]


def common_prefix_length(a: str, b: str) -> int:
    """Length of the longest common prefix, by binary search over slice comparisons (fast C memcmp)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def prompt_common_prefix(current: list[dict[str, Any]], previous: list[dict[str, Any]]) -> int:
    """Characters of the prompt text (the messages' pieces joined) of `current` equal to that of `previous` from the start.
    Whole equal messages are skipped without building the texts."""
    cur, prev = _pieces(current), _pieces(previous)
    skipped = 0
    index = 0
    while index < len(cur) and index < len(prev) and cur[index] == prev[index]:
        skipped += len(cur[index])
        index += 1
    if index == len(cur) or index == len(prev):
        return skipped
    return skipped + common_prefix_length("".join(cur[index:]), "".join(prev[index:]))


def billed_tokens(tokens: int, text_length: int, common_prefix: int) -> float:
    """The call's tokens with the cached share (by characters) priced at 0.1x."""
    if text_length <= 0:
        return float(tokens)
    share = min(1.0, common_prefix / text_length)
    return tokens * (1.0 - (1.0 - CACHED_PRICE) * share)


# --- recall ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RecallPair:
    step: int            # the step whose action uses the identifier
    identifier: str
    kind: str            # "observation" | "action"
    lines: tuple[str, ...] = ()    # observation pairs: the stripped earlier observation lines holding it
    scorer: str = ""     # "" = the published definition; else an alternative one (core/replay/scorers.py)


def _lines_by_name(output: str, static: set[str], names: Callable[[str], set[str]] = identifiers
                   ) -> dict[str, list[str]]:
    """Each identifier of one observation -> the stripped lines it occurs on, in order."""
    out: dict[str, list[str]] = {}
    for line in output.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        for name in names(stripped) - static:
            out.setdefault(name, []).append(stripped)
    return out


def recall_pairs(preamble: Iterable[str], task: str, responses: list[str], outputs: list[str],
                 names: Callable[[str], set[str]] = identifiers, newest_only: bool = False, scorer: str = ""
                 ) -> list[RecallPair]:
    """The (step, identifier) pairs recall and action recall are scored on. responses[k] is the recorded
    assistant turn of step k, outputs[k] the observation it got. `names` finds the identifiers (the published
    regex by default); `newest_only`: a pair's lines are those of the newest observation that showed the name
    (an older version of a line no longer counts once a later output showed the name again)."""
    static: set[str] = names(task)
    for text in preamble:
        static |= names(text)
    first_in_action: set[str] = set()      # first appeared in an action
    in_any_action: set[str] = set()
    in_observation: dict[str, list[str]] = {}     # identifier -> the observation lines it occurs on
    pairs: list[RecallPair] = []
    for step, response in enumerate(responses):
        used = names(response) - static
        for name in sorted(used):
            if name in first_in_action:
                pairs.append(RecallPair(step, name, "action", scorer=scorer))
            elif name in in_observation and name not in in_any_action:
                pairs.append(RecallPair(step, name, "observation", tuple(dict.fromkeys(in_observation[name])),
                                        scorer))
        first_in_action |= used - in_observation.keys()
        in_any_action |= used
        if step < len(outputs):
            for name, lines in _lines_by_name(outputs[step], static, names).items():
                if newest_only:
                    in_observation[name] = list(lines)
                else:
                    in_observation.setdefault(name, []).extend(lines)
    return pairs


def recalled(pairs: list[RecallPair], prompts: dict[int, list[dict[str, Any]]]) -> list[bool]:
    """For each pair, whether its identifier is in the prompt of the call that produced its step.
    A step with no call (the replay stopped early) recalls nothing."""
    out = []
    present_by_step: dict[int, frozenset[str] | set[str]] = {}
    for pair in pairs:
        if pair.step not in present_by_step:
            messages = prompts.get(pair.step)
            present: set[str] = set()
            for message in messages or ():
                present |= message_identifiers(message["content"])
            present_by_step[pair.step] = present
        out.append(pair.identifier in present_by_step[pair.step])
    return out


def _readable(content: str) -> str:
    return content + ("\n" + decode_json_escapes(content) if "\\" in content else "")


def lines_recalled(pairs: list[RecallPair], prompts: dict[int, list[dict[str, Any]]]) -> list[bool]:
    """For each observation pair, whether one of its lines is verbatim inside one message of its call."""
    out = []
    texts_by_step: dict[int, list[str]] = {}
    for pair in pairs:
        if pair.step not in texts_by_step:
            texts_by_step[pair.step] = [_readable(m["content"]) for m in prompts.get(pair.step) or ()]
        texts = texts_by_step[pair.step]
        out.append(any(line in text for line in pair.lines for text in texts))
    return out


# --- figures --------------------------------------------------------------------------------------------------

@dataclass
class Figures:
    """Sums, so that figures pool by addition; ratios are computed at the end."""
    calls: int = 0
    prompt_tokens: int = 0
    billed_tokens: float = 0.0
    peak_prompt: int = 0
    recall_hits: int = 0
    recall_total: int = 0
    action_hits: int = 0
    action_total: int = 0
    line_hits: int = 0               # over recall_total
    # line recall under the alternative definitions (core/replay/scorers.py): name -> [hits, pairs]
    alt_lines: dict[str, list[int]] = field(default_factory=dict)

    @property
    def recall(self) -> float | None:
        return self.recall_hits / self.recall_total if self.recall_total else None

    @property
    def line_recall(self) -> float | None:
        return self.line_hits / self.recall_total if self.recall_total else None

    @property
    def action_recall(self) -> float | None:
        return self.action_hits / self.action_total if self.action_total else None

    def alt_line_recall(self, scorer: str) -> float | None:
        hits, total = self.alt_lines.get(scorer, (0, 0))
        return hits / total if total else None

    def __add__(self, other: "Figures") -> "Figures":
        alt = {name: [a + b for a, b in zip(self.alt_lines.get(name, (0, 0)), other.alt_lines.get(name, (0, 0)))]
               for name in self.alt_lines.keys() | other.alt_lines.keys()}
        return Figures(self.calls + other.calls, self.prompt_tokens + other.prompt_tokens,
                       self.billed_tokens + other.billed_tokens, max(self.peak_prompt, other.peak_prompt),
                       self.recall_hits + other.recall_hits, self.recall_total + other.recall_total,
                       self.action_hits + other.action_hits, self.action_total + other.action_total,
                       self.line_hits + other.line_hits, alt)

    def as_dict(self) -> dict[str, Any]:
        out = {**asdict(self), "billed_tokens": round(self.billed_tokens, 1),
               "recall": _round(self.recall), "line_recall": _round(self.line_recall),
               "action_recall": _round(self.action_recall)}
        out.pop("alt_lines")
        for name in sorted(self.alt_lines):
            out[f"line_recall_{name}"] = _round(self.alt_line_recall(name))
        return out


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def call_figures(calls: list[list[dict[str, Any]]], cache: TokenCache = shared_cache) -> Figures:
    """Tokens, billed tokens and peak over a sequence of prompts (one per call, in order)."""
    figures = Figures()
    previous: list[dict[str, Any]] | None = None
    for messages in calls:
        tokens = prompt_tokens(messages, cache)
        length = sum(len(piece) for piece in _pieces(messages))
        common = prompt_common_prefix(messages, previous) if previous is not None else 0
        figures.calls += 1
        figures.prompt_tokens += tokens
        figures.billed_tokens += billed_tokens(tokens, length, common)
        figures.peak_prompt = max(figures.peak_prompt, tokens)
        previous = messages
    return figures


def measure(calls: list[list[dict[str, Any]]], call_steps: list[int], pairs: list[RecallPair],
            cache: TokenCache = shared_cache) -> Figures:
    """All figures of one replayed trajectory. calls[i] is the i-th prompt sent, call_steps[i] the index of
    the recorded step its answer replayed."""
    figures = call_figures(calls, cache)
    prompts: dict[Any, Any] = {}
    for messages, step in zip(calls, call_steps):
        prompts.setdefault(step, messages)
    alternative = [p for p in pairs if p.scorer and p.kind == "observation"]
    pairs = [p for p in pairs if not p.scorer]
    hits = recalled(pairs, prompts)
    observed = [p for p in pairs if p.kind == "observation"]
    figures.line_hits = sum(lines_recalled(observed, prompts))
    for pair, hit in zip(alternative, lines_recalled(alternative, prompts)):
        counts = figures.alt_lines.setdefault(pair.scorer, [0, 0])
        counts[0] += hit
        counts[1] += 1
    for pair, hit in zip(pairs, hits):
        if pair.kind == "action":
            figures.action_total += 1
            figures.action_hits += hit
        else:
            figures.recall_total += 1
            figures.recall_hits += hit
    return figures


def ratio(value: float, reference: float) -> float | None:
    return value / reference if reference else None
