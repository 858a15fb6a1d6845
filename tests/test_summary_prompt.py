"""SUMMARY_PROMPT and the A5 template (seed 002 A5, C2)."""

from __future__ import annotations

from datetime import datetime, timezone

from contextual.core.context.summary_repair import ensure_template
from contextual.prompts.agents_prompts.summary_prompt import (SUMMARY_PROMPT, render_merge_request,
                                                   render_summary_request, summary_system_prompt)

START = datetime(2024, 1, 15, 10, 0, 0, tzinfo=timezone.utc)
CUTOFF = datetime(2024, 1, 15, 11, 30, 5, tzinfo=timezone.utc)

A5_HEADINGS = [
    "## 📌 Archived Session Summary",
    "*(Contains context from 2024-01-15 10:00:00+00:00 to 2024-01-15 11:30:05+00:00)*",
    "### 🎯 Objectives & Status",
    "### 🏗️ Technical Context (Static)",
    '### ✅ Completed Milestones (The "Done" Pile)',
    "### 🧠 Key Insights & Decisions (Persistent Memory)",
    "### 📂 File System State (Snapshot)",
]


def positions(text: str, needles: list[str]) -> list[int]:
    return [text.index(n) for n in needles]


def test_a5_system_prompt_carries_the_template_with_times_filled_in_order() -> None:
    prompt = summary_system_prompt(START, CUTOFF)
    found = positions(prompt, A5_HEADINGS)
    assert found == sorted(found)
    assert "[Start Time]" not in prompt and "{start_time}" not in prompt
    assert "(Modified files in this archive segment)" in prompt


def test_a5_prompt_archives_old_history_only_and_uses_current_files() -> None:
    assert "not a status" in SUMMARY_PROMPT and "do not describe a task as in progress" in SUMMARY_PROMPT
    assert "CURRENT file contents" in SUMMARY_PROMPT


def test_string_times_are_used_as_given() -> None:
    prompt = summary_system_prompt("the session start", "message 40")
    assert "*(Contains context from the session start to message 40)*" in prompt


def test_request_text_holds_history_files_and_instructions_in_that_order() -> None:
    text = render_summary_request("[user] hello", "# Current content of the files\nX", "keep the API notes")
    assert positions(text, ["[user] hello", "# Current content", "keep the API notes"]) == sorted(
        positions(text, ["[user] hello", "# Current content", "keep the API notes"]))
    assert "keep the API notes" not in render_summary_request("[user] hello", "", None)
    assert "part 2 of 3" in render_summary_request("h", part=(2, 3))
    merged = render_merge_request(["first", "second"], "", "be brief")
    assert merged.index("first") < merged.index("second") and "be brief" in merged


def test_ensure_template_adds_a_missing_header_and_keeps_the_content() -> None:
    body = "### 🎯 Objectives & Status\n* **Original Goal**: fix the parser\n"
    fixed = ensure_template(body, START, CUTOFF)
    assert fixed.startswith(A5_HEADINGS[0] + "\n" + A5_HEADINGS[1] + "\n\n### 🎯 Objectives")
    assert "fix the parser" in fixed


def test_ensure_template_replaces_times_the_model_changed_and_drops_preamble() -> None:
    reply = ("<think>let me see</think>Here is the summary:\n```markdown\n## 📌 Archived Session Summary\n"
             "*(Contains context from yesterday to today)*\n\n### 🎯 Objectives & Status\n* goal\n```")
    fixed = ensure_template(reply, START, CUTOFF)
    assert fixed.splitlines()[:2] == A5_HEADINGS[:2]
    assert "yesterday" not in fixed and "let me see" not in fixed and "Here is" not in fixed
    assert fixed.count("## 📌 Archived Session Summary") == 1 and "* goal" in fixed
    assert "```" not in fixed


def test_ensure_template_is_stable_on_a_good_reply() -> None:
    good = "\n\n".join(A5_HEADINGS) + "\n"
    once = ensure_template(good, START, CUTOFF)
    assert ensure_template(once, START, CUTOFF) == once
    assert positions(once, A5_HEADINGS) == sorted(positions(once, A5_HEADINGS))


def test_merging_the_sessions_summaries_says_what_they_are():
    text = render_merge_request(["s1", "s2"], summaries=True)
    assert "compacted 2 times" in text and "Merge them into ONE summary" in text and "too long" not in text
