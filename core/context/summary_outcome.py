"""What a summary job ends with (seed 002 A5, E2): its result, the parts finished so far, or an error, and the
user's words for an error (the caller falls back to hard truncation with `fallback_message(exc)`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from contextual.core.context import compaction_words
from contextual.core.input_cut import InputCut

FALLBACK_TIMEOUT_MESSAGE = "Summary generation timed out, keeping recent history only."


class SummaryError(Exception):
    """The summary could not be made; the caller falls back to hard truncation."""


class SummaryTimeout(SummaryError):
    pass


class SummaryFailed(SummaryError):
    pass


def fallback_message(exc: BaseException) -> str:
    """What the user reads when the summary is replaced by hard truncation (E2, seed 001 8.8)."""
    if isinstance(exc, SummaryTimeout):
        return FALLBACK_TIMEOUT_MESSAGE
    return f"Summary generation failed ({_reason(exc)}), keeping recent history only."


def ended_by(exc: BaseException) -> str:
    """How a summary made in parts ended when a later request raised ``exc``: its finished parts are kept
    (compaction.stopped), and the card, chat and export say this."""
    return compaction_words.TIMED_OUT if isinstance(exc, SummaryTimeout) else compaction_words.failed(_reason(exc))


def _reason(exc: BaseException) -> str:
    return str(exc).strip() or type(exc).__name__


@dataclass(frozen=True)
class SummaryResult:
    text: str
    files_included: tuple[str, ...]
    chunks: int                          # 1 for a single call; otherwise the number of history parts
    input_cut: InputCut = InputCut()   # what the input lost to fit the window


@dataclass
class PartsDone:
    """The summary work finished so far, noted as it finishes: what a compaction the user stops still keeps
    (the parts of a chunked summary, in order; the whole summary once it is made)."""
    total: int = 0                                          # the parts the archived history was split into
    texts: list[str] = field(default_factory=list)          # their partial summaries finished so far, oldest first
    covered: int = 0                                        # the archived messages (summaries aside) those hold
    result: SummaryResult | None = None

    def begin(self, total: int) -> None:
        self.total, self.texts, self.covered = total, [], 0

    def add(self, text: str, messages: int) -> None:
        self.texts.append(text)
        self.covered += messages
