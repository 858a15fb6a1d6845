"""Token counts of earlier runs, on disk: a launch can show the counts of texts it has counted before (the system
prompt, the tools, a resumed history) while the tokenizer is still loading (issue 29).

A count is keyed by a 128-bit BLAKE2b hash of the text, so the file holds no text; the file names the tokenizer it
was counted with (a different one starts empty). Bounded: the newest ``MAX_ENTRIES`` counts are kept. A cache
only: an unreadable or unwritable file costs the next launch its head start, nothing else.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from contextual.core.atomic import atomic_write

MAX_ENTRIES = 50_000


def text_key(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


class CountStore:
    def __init__(self, path: Path, tokenizer: str) -> None:
        self.path = path
        self.tokenizer = tokenizer
        self._counts: dict[str, int] | None = None     # read on first use (after the app's first frame)
        self._added = 0
        self._lock = threading.Lock()                   # counted on the UI thread and in workers

    def _loaded(self) -> dict[str, int]:
        if self._counts is None:
            counts: dict[str, int] = {}
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                if isinstance(data, dict) and data.get("tokenizer") == self.tokenizer:
                    raw = data.get("counts")
                    counts = {k: v for k, v in raw.items() if isinstance(k, str) and type(v) is int and v >= 0} \
                        if isinstance(raw, dict) else {}
            except (OSError, ValueError):
                pass
            self._counts = counts
        return self._counts

    def get(self, text: str) -> int | None:
        with self._lock:
            return self._loaded().get(text_key(text))

    def put(self, text: str, count: int) -> None:
        key = text_key(text)
        with self._lock:
            counts = self._loaded()
            if counts.get(key) != count:
                counts.pop(key, None)           # re-inserted last: the newest survive the bound
                counts[key] = count
                self._added += 1
                if len(counts) > 2 * MAX_ENTRIES:        # a long run between saves stays bounded too
                    self._counts = dict(list(counts.items())[-MAX_ENTRIES:])

    def save(self) -> None:
        """Write the counts when some are new (the newest MAX_ENTRIES)."""
        with self._lock:
            if not self._added or self._counts is None:
                return
            kept = dict(list(self._counts.items())[-MAX_ENTRIES:])
            self._counts, self._added = kept, 0
            body = json.dumps({"tokenizer": self.tokenizer, "counts": kept}, separators=(",", ":"))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, body.encode("utf-8"))
        except OSError:
            pass
