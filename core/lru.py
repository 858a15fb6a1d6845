"""A bounded cache by key, least recently used out first (token counts, stored forms)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    def __init__(self, max_entries: int) -> None:
        self.max = max_entries
        self.data: OrderedDict[K, V] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: K, compute: Callable[[], V]) -> V:
        got = self.data.get(key)
        if got is not None:
            self.data.move_to_end(key)
            self.hits += 1
            return got
        self.misses += 1
        value = compute()
        self.data[key] = value
        if len(self.data) > self.max:
            self.data.popitem(last=False)
        return value
