"""Token counting with cl100k from an installed package (never a download), cached by content.

The encoding is the one slow thing here (~0.15 s to load): this module is its only owner. ``encoding()`` loads it
once under a lock (a second caller waits for the first load instead of loading it again; the app starts that load
in a thread so a screen can paint first), and ``ready()`` says whether counting would wait.
With ``remember_counts(home)`` (the app) the counts of earlier runs are kept on disk (core/count_store.py): until the
encoding is loaded they answer, and under ``known_counts_only()`` a text they do not know raises ``NotCounted``
instead of waiting for the load.
"""

from __future__ import annotations

import binascii
import contextvars
import hashlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from contextual.core import package_data
from contextual.core.atomic import atomic_write
from contextual.core.count_store import CountStore
from contextual.core.lru import LRU

if TYPE_CHECKING:
    import tiktoken

# cl100k's rank file ships in this package (core/data/, read through importlib.resources): OpenAI publishes it for
# tiktoken (MIT) at openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken; the sha256 is the one
# tiktoken itself checks. Counting never downloads.
RANKS_FILE = "core/data/cl100k_base.tiktoken"
RANKS_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
# The encoding's split pattern and special tokens, as the encoding is defined (tiktoken_ext.openai_public).
CL100K_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
                  r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
CL100K_SPECIAL = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                  "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}
PER_MESSAGE_OVERHEAD = 4                # role and separators, as the trajectories README counts


_encoding: "tiktoken.Encoding | None" = None
_load_lock = threading.Lock()


def encoding() -> "tiktoken.Encoding":
    global _encoding
    if _encoding is None:
        with _load_lock:
            if _encoding is None:
                _encoding = _load_cl100k()
    return _encoding


def _load_cl100k() -> "tiktoken.Encoding":
    import tiktoken       # here, not at import time: tiktoken pulls in regex and the Rust BPE
    data = package_data.read_bytes(RANKS_FILE)
    if hashlib.sha256(data).hexdigest() != RANKS_SHA256:
        raise package_data.InstallDamaged(RANKS_FILE, "sha256 mismatch")
    # One split and a map over the whole file: a third of the time of a decode per line (the load is on the
    # critical path of the meter's first counts).
    fields = data.split()
    if len(fields) % 2:
        raise package_data.InstallDamaged(RANKS_FILE, "not token/rank pairs")
    ranks = dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2])))
    return tiktoken.Encoding(name="cl100k_base", pat_str=CL100K_PATTERN, mergeable_ranks=ranks,
                             special_tokens=CL100K_SPECIAL)


def ready() -> bool:
    """True once the encoding is loaded: counting no longer waits for it."""
    return _encoding is not None


_store: CountStore | None = None
_known_only = contextvars.ContextVar("known_counts_only", default=False)


class NotCounted(Exception):
    """Under known_counts_only(): a count only the encoding, not loaded yet, can give."""


def remember_counts(home: Path | None) -> None:
    """Keep counts on disk under ``home`` (None: stop): a later run answers them before its encoding loads."""
    global _store
    _store = CountStore(Path(home) / "token-counts.json", f"cl100k:{RANKS_SHA256[:16]}") if home is not None else None


def save_counts() -> None:
    if _store is not None:
        _store.save()


@contextmanager
def known_counts_only() -> Iterator[None]:
    """Within: a count the encoding would have to load for raises NotCounted (a screen shows placeholders)."""
    token = _known_only.set(True)
    try:
        yield
    finally:
        _known_only.reset(token)


def count(text: str) -> int:
    if not text:
        return 0
    store = _store
    if _encoding is None:
        known = store.get(text) if store is not None else None
        if known is not None:
            return known
        if _known_only.get():
            raise NotCounted
    counted = len(encoding().encode(text, disallowed_special=()))
    if store is not None:
        store.put(text, counted)
    return counted


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
        got = self.hit(text)                # no closure made per call: a build asks this for every message
        return got if got is not None else self.put(text, count(text))

    def message(self, content: str) -> int:
        return self.count(content) + PER_MESSAGE_OVERHEAD


shared_cache = TokenCache()


class Calibration:
    """How the server's token count compares with ours, per model (issue 18.1).

    We count with cl100k; a server counts with its model's own tokenizer and chat template, often more. After
    each call the ratio reported prompt_tokens / our count of the same prompt is kept (the last few, per
    model), and ``factor`` is the largest of them: budgets are fitted to ``limit / factor`` of our tokens, so
    a prompt that fits by our count fits by the server's. Before any usage arrives the factor is a safety
    margin. Ratios persist in ``path`` (JSON) so the next run, and `contextual context`, start calibrated.
    """

    SAFETY_MARGIN = 1.15     # before the first usage: a 15 % cushion for an unknown tokenizer
    MIN_SAMPLE = 300         # smaller prompts are mostly template overhead: their ratio says little
    KEEP = 5
    BOUNDS = (0.75, 4.0)     # a ratio outside is a server reporting nonsense, not a tokenizer
    TEMPLATE_MARGIN = 0.05   # a tokenizer endpoint counts the text, not the chat template around it

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._ratios: dict[str, list[float]] | None = None
        self._measured: dict[str, float] = {}   # from the server's tokenizer endpoint, until a usage arrives

    def _load(self) -> dict[str, list[float]]:
        if self._ratios is None:
            self._ratios = {}
            try:
                data = json.loads(self.path.read_text(encoding="utf-8")) if self.path else {}
            except (OSError, ValueError):
                data = {}
            for model, ratios in (data.items() if isinstance(data, dict) else ()):
                if isinstance(ratios, list):
                    kept = [float(r) for r in ratios if isinstance(r, (int, float)) and not isinstance(r, bool)
                            and self.BOUNDS[0] <= r <= self.BOUNDS[1]]
                    if kept:
                        self._ratios[str(model)] = kept[-self.KEEP:]
        return self._ratios

    def calibrated(self, model: str | None) -> bool:
        return bool(self._load().get(model or ""))

    def factor(self, model: str | None) -> float:
        ratios = self._load().get(model or "")
        if ratios:
            return max(ratios)
        return self._measured.get(model or "", self.SAFETY_MARGIN)

    def measured(self, model: str | None) -> float:
        """The server's tokens per ours as measured (usages, else its tokenizer endpoint); 1.0 until then. The unit
        the window and the trigger line are shown and compared in our tokens with: the safety margin before any
        measurement fits prompts, it is no unit (a window shown as 15 % smaller until the first call, then not)."""
        ratios = self._load().get(model or "")
        return max(ratios) if ratios else self._measured.get(model or "", 1.0)

    def measure(self, model: str | None, counted: int, server_count: int) -> None:
        """The server's tokenizer endpoint counted a sample text (llama.cpp /tokenize): a first estimate,
        plus a small margin for the chat template, used until a real usage arrives."""
        if counted >= self.MIN_SAMPLE and server_count > 0:
            ratio = server_count / counted
            if self.BOUNDS[0] <= ratio <= self.BOUNDS[1]:
                self._measured[model or ""] = round(ratio + self.TEMPLATE_MARGIN, 4)

    def observe(self, model: str | None, counted: int, reported: int) -> None:
        """One call: our count of the prompt sent and the server's prompt_tokens for it."""
        if counted < self.MIN_SAMPLE or reported <= 0:
            return
        ratio = round(reported / counted, 4)
        if not self.BOUNDS[0] <= ratio <= self.BOUNDS[1]:
            return
        ratios = self._load().setdefault(model or "", [])
        ratios.append(ratio)
        del ratios[:-self.KEEP]
        self._save()

    def fit(self, limit: int, model: str | None) -> int:
        """The budget in our tokens for a limit in the server's tokens."""
        return max(1, int(limit / self.factor(model)))

    def _save(self) -> None:
        if self.path is None:
            return
        try:   # a cache: a read-only home or a full disk only costs the next run its head start
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.path, json.dumps(self._ratios).encode("utf-8"))
        except OSError:
            pass


_calibrations: dict[Path | None, Calibration] = {}


def calibration_for(home: Path | None) -> Calibration:
    """One Calibration per home (the engine, the meter and `contextual context` share it)."""
    path = Path(home) / "calibration.json" if home is not None else None
    if path not in _calibrations:
        _calibrations[path] = Calibration(path)
    return _calibrations[path]
