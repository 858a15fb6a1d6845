"""A model for the fake LLM server that tells summary requests from turn requests (compaction tests)."""

from __future__ import annotations

from typing import Any

from contextual.prompts.agents_prompts.summary_prompt import filled_template
from tests.fakes.llm_server import Fault, Reply

SUMMARY_TEXT = filled_template("the start", "the cutoff").replace("[what the user first set out to do]",
                                                                  "SUMMARY-MARKER-z9: the user asked a question")
TIMEOUT_FALLBACK = "Summary generation timed out, keeping recent history only."


def answer(text: str) -> str:
    return f"Thought: answering\nAction: Finish[{text}]"


def system_text(body: dict[str, Any]) -> str:
    """The system prompt of a request, on either wire format."""
    system = body.get("system")
    if isinstance(system, list):
        return "\n".join(block.get("text", "") for block in system)
    if isinstance(system, str):
        return system
    first = (body.get("messages") or [{}])[0]
    return first.get("content", "") if first.get("role") == "system" else ""


def is_summary_request(body: dict[str, Any]) -> bool:
    return system_text(body).startswith("You are archiving the OLD part")


class Model:
    """Answers summary requests with `summary`, every other request with the next of `answers`."""

    def __init__(self, answers: list[str | Reply | Fault],
                 summary: str | Reply | Fault | list[str | Reply | Fault] = SUMMARY_TEXT) -> None:
        self.answers = list(answers)
        self.summary = summary
        self.summary_requests: list[dict[str, Any]] = []
        self.turn_requests: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> str | Reply | Fault:
        if is_summary_request(body):
            self.summary_requests.append(body)
            return self.summary.pop(0) if isinstance(self.summary, list) else self.summary
        self.turn_requests.append(body)
        return self.answers.pop(0) if self.answers else answer("script exhausted")
