"""Repair of a summary reply: the template's header and the code's span line always lead, whatever the model wrote."""

from __future__ import annotations

import re
from datetime import datetime

from contextual.core.react import strip_thinking
from contextual.prompts.agents_prompts.summary_prompt import SUMMARY_HEADING, span_line

_CODE_FENCE = re.compile(r"^```[\w-]*\n(.*)\n```\s*$", re.DOTALL)


def ensure_template(summary_text: str, start: datetime | str, cutoff: datetime | str) -> str:
    """Make a reply start with the template's header and the code's span line; keep the model's content.

    Strips <think> blocks and a fence around the whole reply; replaces a span line the model rewrote;
    puts the header in front of a reply that lacks it (anything before the header is dropped only when
    the header is there, since then it is preamble such as "Here is the summary:").
    """
    return f"{SUMMARY_HEADING}\n{span_line(start, cutoff)}\n\n{_body(summary_text)}".rstrip() + "\n"


def joined_parts(partials: list[str], start: datetime | str, cutoff: datetime | str) -> str:
    """Partial summaries as one, without the merge call: the compaction was stopped before it (each part keeps
    its sections under a line naming it, oldest first)."""
    if len(partials) == 1:
        return ensure_template(partials[0], start, cutoff)
    sections = [f"**Part {i} of {len(partials)} of the archived history (not merged)**\n\n{_body(text).strip()}"
                for i, text in enumerate(partials, 1)]
    return ensure_template("\n\n".join(sections), start, cutoff)


def _body(summary_text: str) -> str:
    """A reply without its fence, preamble, header and span line."""
    text = strip_thinking(summary_text)[0].strip()
    fenced = _CODE_FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    header_at = text.find(SUMMARY_HEADING)
    if header_at >= 0:
        body = text[header_at + len(SUMMARY_HEADING):].lstrip("\n")
    else:
        body = text
    if body.rstrip().endswith("```") and body.count("```") % 2 == 1:
        body = body.rstrip()[:-3]     # the closing fence of a block whose opening was cut with the preamble
    first_line, _, rest = body.partition("\n")
    if first_line.strip().startswith("*(Contains context from"):
        body = rest.lstrip("\n")
    return body
