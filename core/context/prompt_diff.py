"""Prompt diff (issue 19.4): what changed between two consecutive calls' prompts, and where the cache broke.

Input is two prompts as the builder reports them (PromptView.messages, or lists of PromptMessage): each
message has `role`, `content`, `layer` and, when the builder says so, `tokens`, `form` and `source` (the
history message id or tool/path it renders). Messages are matched across the two calls by `source` (by
role, layer and text when there is none), so the same observation going from full to stored form is
"compressed", not "cut" plus "added".

A provider's prompt cache reuses the longest prefix identical to the previous call's; the first message
that differs is where the cache broke. Its reason is read from what changed there: a model switch, the
system prompt (L1), the rules file (L2), a compaction (a new summary), a batch cut (an observation made
harder or cut), or an ordinary edit. Its cost: the previous prompt's tokens after that point, which a
provider would have served from cache and now bills in full.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Sequence

from contextual.core.tokens import PER_MESSAGE_OVERHEAD, count

# Cached input is billed at a tenth of the price (the shared trajectories README's convention, as replay uses).
# Not imported from core.replay: context sits below replay, and an import back would be a cycle.
CACHED_PRICE = 0.1
ChangeKind = Literal["added", "compressed", "expanded", "cut", "archived", "moved", "edited"]
# How far each form is from the whole text; a move to a higher rank is a compression.
FORM_RANK = {"full": 0, "input": 0, "system": 0, "todo": 0, "summary": 0, "stored": 1, "superseded": 2, "hard": 2, "cut": 3,
             "stub": 3, "action-only": 3, "folded": 4}
BreakReason = Literal["model switch", "system prompt", "rules file edit", "compaction", "batch cut", "todo recap",
                      "new input", "history edit"]


@dataclass(frozen=True)
class Item:
    """One prompt message as the diff sees it."""
    key: tuple[Any, ...]
    role: str
    layer: str
    form: str
    tokens: int
    source: str
    content: str


@dataclass(frozen=True)
class Change:
    kind: ChangeKind
    role: str
    layer: str
    source: str
    before_form: str | None
    after_form: str | None
    before_tokens: int
    after_tokens: int

    @property
    def delta(self) -> int:
        return self.after_tokens - self.before_tokens


@dataclass(frozen=True)
class CacheBreak:
    index: int              # first message of the new prompt that differs from the old one
    reason: BreakReason
    detail: str
    reused_tokens: int      # the identical prefix: what a cache serves
    lost_tokens: int        # the old prompt's tokens after the break: cached before, billed in full now

    @property
    def cost(self) -> float:
        """Extra billed input tokens (full price) against a cache that had held: lost * (1 - cached price)."""
        return self.lost_tokens * (1 - CACHED_PRICE)


@dataclass(frozen=True)
class PromptDiff:
    changes: tuple[Change, ...]
    cache_break: CacheBreak | None       # None: the new prompt starts with the whole old one
    before_tokens: int
    after_tokens: int
    unchanged: int                       # messages identical in both


def _source(m: Any) -> tuple[str, str]:
    """(identity, label) of a message's source: a plain string, or the builder's Source(message_id, tool, path)."""
    src = getattr(m, "source", None)
    if not src:
        return "", ""
    if isinstance(src, str):
        return src, src
    mid, tool, path = (getattr(src, k, None) for k in ("message_id", "tool", "path"))
    label = " ".join(str(x) for x in (tool, path) if x)     # no tool or path: the change shows the text
    return str(mid or label), label


def _items(messages: Sequence[Any]) -> list[Item]:
    out: list[Item] = []
    seen: dict[tuple[Any, ...], int] = {}
    for m in messages:
        content = m.content
        source, label = _source(m)
        layer = str(getattr(m, "layer", "") or "")
        form = str(getattr(m, "form", "") or ("summary" if m.role == "summary" else "full"))
        tokens = getattr(m, "tokens", None)
        tokens = tokens if isinstance(tokens, int) and tokens > 0 else count(content) + PER_MESSAGE_OVERHEAD
        base = ("source", source) if source else ("text", m.role, layer, content)
        nth = seen.get(base, 0)          # a source shared by several messages (a tool name) is told apart by order
        seen[base] = nth + 1
        out.append(Item((*base, nth), m.role, layer, form, tokens, label, content))
    return out


def _lcs_keys(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]]) -> set[tuple[Any, ...]]:
    """Keys in a longest common subsequence of a and b: the matched messages that kept their order."""
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:      # the usual case: a long shared prefix
        start += 1
    prefix, a, b = set(a[:start]), a[start:], b[start:]
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            table[i][j] = table[i + 1][j + 1] + 1 if a[i] == b[j] else max(table[i + 1][j], table[i][j + 1])
    keys, i, j = set(), 0, 0
    while i < n and j < m:
        if a[i] == b[j]:
            keys.add(a[i])
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return keys | prefix


def _change(kind: ChangeKind, old: Item | None, new: Item | None) -> Change:
    ref = new or old
    assert ref is not None, "a change has an old or a new side"
    return Change(kind, ref.role, ref.layer, ref.source or ref.content[:60].replace("\n", " "),
                  old.form if old else None, new.form if new else None,
                  old.tokens if old else 0, new.tokens if new else 0)


def _kind_of_change(old: Item, new: Item) -> ChangeKind | None:
    rank_old, rank_new = FORM_RANK.get(old.form, 0), FORM_RANK.get(new.form, 0)
    if rank_new > rank_old and new.form == "cut":
        return "cut"
    if rank_new != rank_old:
        # by size when the sizes say so: a head-and-tail cut of 2.1k going stored at 798 was called "expanded"
        smaller = new.tokens < old.tokens if new.tokens != old.tokens else rank_new > rank_old
        return "compressed" if smaller else "expanded"
    if old.content != new.content:
        return "edited"
    return None


def _break_reason(old: list[Item], new: list[Item], index: int, model_changed: bool,
                  new_summary: bool) -> tuple[BreakReason, str]:
    if model_changed:
        return "model switch", "a different model has its own cache"
    at = new[index] if index < len(new) else old[index]
    if at.layer == "L1":
        return "system prompt", "the system prompt or the tool list changed"
    if at.layer == "L2":
        return "rules file edit", "the rules file (CODE_LAW.md / AGENTS.md / CLAUDE.md) changed"
    if new_summary:
        return "compaction", "older rounds were replaced by a summary"
    before = {i.key: i for i in old}
    for item in new[index:]:
        prev = before.get(item.key)
        if prev is not None and FORM_RANK.get(item.form, 0) > FORM_RANK.get(prev.form, 0):
            return "batch cut", f"{item.source or item.role} went from {prev.form} to {item.form}"
    was = old[index] if index < len(old) else at
    if was.layer == "todo":
        return "todo recap", "the todo recap is sent last, so it moves behind every new step"
    if "input" in (at.layer, was.layer):
        return "new input", "the user input at this place changed"
    if index < len(old) and old[index].key not in {i.key for i in new}:
        gone = old[index]
        return "batch cut", f"{gone.source or gone.role} left the prompt"
    return "history edit", f"message {index + 1} ({at.role}, {at.layer}) differs from the previous call's"


def diff_prompts(before: Sequence[Any], after: Sequence[Any], *, model_before: str | None = None,
                 model_after: str | None = None) -> PromptDiff:
    old, new = _items(before), _items(after)
    old_by_key = {i.key: i for i in old}
    new_keys = {i.key for i in new}
    in_order = _lcs_keys([i.key for i in old], [i.key for i in new])
    new_summary = any(i.role == "summary" and i.key not in old_by_key for i in new)
    changes: list[Change] = []
    unchanged = 0
    for item in new:
        prev = old_by_key.get(item.key)
        if prev is None:
            changes.append(_change("added", None, item))
            continue
        kind = _kind_of_change(prev, item)
        if kind is not None:
            changes.append(_change(kind, prev, item))
        elif item.key not in in_order or prev.layer != item.layer:
            changes.append(_change("moved", prev, item))
        else:
            unchanged += 1
    for item in old:
        if item.key not in new_keys:
            archived = new_summary and item.layer == "L3"
            changes.append(_change("archived" if archived else "cut", item, None))

    model_changed = bool(model_before and model_after and model_before != model_after)
    index = 0
    if not model_changed:
        while index < min(len(old), len(new)) and (old[index].role, old[index].content) == (
                new[index].role, new[index].content):
            index += 1
    cache_break = None
    if model_changed or index < len(old):
        reason, detail = _break_reason(old, new, index, model_changed, new_summary)
        cache_break = CacheBreak(index, reason, detail, sum(i.tokens for i in new[:index]),
                                 sum(i.tokens for i in old[index:]))
    return PromptDiff(tuple(changes), cache_break, sum(i.tokens for i in old), sum(i.tokens for i in new),
                      unchanged)
