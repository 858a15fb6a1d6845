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
        got = self.hit(key)
        return got if got is not None else self.put(key, compute())

    def hit(self, key: K) -> V | None:
        """The value kept for `key`, now the most recently used; None when none is kept."""
        got = self.data.get(key)
        if got is not None:
            self.data.move_to_end(key)
            self.hits += 1
        return got

    def put(self, key: K, value: V) -> V:
        """Keep a value just computed (a miss), dropping the least recently used past the bound."""
        self.misses += 1
        self.data[key] = value
        if len(self.data) > self.max:
            self.data.popitem(last=False)
        return value
