"""The summary model's instructions (seed 002 A5, C2) and the text of its requests.

The archived span's times are put into the template by code, never left to the model, and
core/context/summary_repair.ensure_template repairs a reply that lost the header, so a stored summary always
starts with it. This package is text only: it imports nothing of the engine.
"""

from __future__ import annotations

from datetime import datetime

SUMMARY_HEADING = "## 📌 Archived Session Summary"
SPAN_LINE = "*(Contains context from {start_time} to {cutoff_time})*"

# The A5 template, headings and their order fixed; {start_time}/{cutoff_time} are filled in by code.
SUMMARY_TEMPLATE = f"""{SUMMARY_HEADING}
{SPAN_LINE}

### 🎯 Objectives & Status
* **Original Goal**: [what the user first set out to do]

### 🏗️ Technical Context (Static)
* **Stack**: [languages, frameworks, versions]
* **Environment**: [OS, shell, key environment variables]

### ✅ Completed Milestones (The "Done" Pile)
* [✓] [completed task 1] - [short result]
* [✓] [completed task 2] - [short result]

### 🧠 Key Insights & Decisions (Persistent Memory)
* **Decisions**: [key technical choices, and approaches that were abandoned]
* **Learnings**: [special configuration, API formats, pitfalls]
* **User Preferences**: [habits and wishes the user stressed]

### 📂 File System State (Snapshot)
*(Modified files in this archive segment)*
* `path/to/file.ext`: [what changed, and its current state]"""

SUMMARY_PROMPT = """You are archiving the OLD part of a coding-agent session so that the session can go on \
within its context window. Another model will read your summary in place of the archived messages, \
together with the most recent rounds, which are kept verbatim and are NOT shown to you.

Rules:
- Summarise only the archived history you are given. This is an archive of earlier work, not a status \
report: do not describe a task as in progress and do not plan next steps; the recent rounds carry the \
current task.
- Keep what the next model needs and cannot re-derive cheaply: the user's goals, decisions and why they \
were made, abandoned approaches, errors met and how they were solved, exact names (files, functions, \
commands, configuration keys, versions), and preferences the user stated.
- Build the "📂 File System State (Snapshot)" section from the CURRENT file contents provided with the \
history (read from disk just now; they are the truth when they disagree with older messages). List the \
files that were created, modified or deleted in the archived span first, one bullet each, saying what \
changed and what the file holds now. If no file contents are provided, use what the history says.
- Write "none" for a field with nothing to say; never invent facts.
- If user instructions are given, follow them as long as the template stays intact.
- Answer with the summary only, in Markdown, in exactly this template: the same headings with the same \
emoji in the same order, starting with the first line below and keeping the second line exactly as \
written (its times are already filled in). Replace each [bracketed] placeholder; repeat bullets as needed.

{template}"""

PART_NOTE = """This request holds part {index} of {total} of the archived history, oldest first. \
Summarise this part alone in the template; the parts will be merged afterwards."""

MERGE_NOTE = """The archived history was too long for one request, so it was summarised in {total} parts, \
given below oldest first. Merge them into ONE summary in the template: later parts win where they \
disagree, keep every completed milestone and decision, and do not repeat yourself."""

SUMMARIES_NOTE = """The session was compacted {total} times; its {total} summaries are given below oldest first. \
Merge them into ONE summary in the template: later parts win where they \
disagree, keep every completed milestone and decision, and do not repeat yourself."""


def format_time(value: datetime | str) -> str:
    """A readable, unambiguous time; strings are taken as already formatted."""
    if isinstance(value, datetime):
        return value.isoformat(sep=" ", timespec="seconds")
    return str(value).strip() or "unknown"


def filled_template(start: datetime | str, cutoff: datetime | str) -> str:
    return SUMMARY_TEMPLATE.format(start_time=format_time(start), cutoff_time=format_time(cutoff))


def span_line(start: datetime | str, cutoff: datetime | str) -> str:
    return SPAN_LINE.format(start_time=format_time(start), cutoff_time=format_time(cutoff))


def summary_system_prompt(start: datetime | str, cutoff: datetime | str) -> str:
    """SUMMARY_PROMPT with the template, the archived span's times already in it."""
    return SUMMARY_PROMPT.format(template=filled_template(start, cutoff))


def render_summary_request(history: str, files: str = "", instructions: str | None = None,
                           part: tuple[int, int] | None = None) -> str:
    """The user message of a summary call: archived history, current files, then user instructions."""
    sections = []
    if part is not None:
        sections.append(PART_NOTE.format(index=part[0], total=part[1]))
    sections.append("# Archived history (oldest first)\n\n" + (history.strip() or "(empty)"))
    if files.strip():
        sections.append(files.strip())
    sections.extend(_instruction_section(instructions))
    return "\n\n".join(sections)


def render_merge_request(partials: list[str], files: str = "", instructions: str | None = None,
                         summaries: bool = False) -> str:
    """The user message of the final call that merges partial summaries into one A5 summary (``summaries``: they
    are the session's earlier summaries, merged because together they outgrew a quarter of the window)."""
    sections = [(SUMMARIES_NOTE if summaries else MERGE_NOTE).format(total=len(partials))]
    for index, text in enumerate(partials, 1):
        sections.append(f"# Part {index} of {len(partials)}\n\n{text.strip()}")
    if files.strip():
        sections.append(files.strip())
    sections.extend(_instruction_section(instructions))
    return "\n\n".join(sections)


def _instruction_section(instructions: str | None) -> list[str]:
    if instructions and instructions.strip():
        return ["# User instructions for this summary (from /compact)\n\n" + instructions.strip()]
    return []
