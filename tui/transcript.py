"""/export: a session's whole record (archived rounds included) as Markdown a person can read or share."""

from __future__ import annotations

from contextual.core.messages import Message
from contextual.tui.format import args_label, final_answer, stored_status


def transcript_markdown(messages: list[Message], model: str = "") -> str:
    out = ["# Contextual session" + (f" ({model})" if model else ""), ""]
    for m in messages:
        if m.role == "user":
            label = "Undo" if m.meta.get("undo") else "You"
            out += [f"## {label}", "", m.meta.get("raw", m.content), ""]
        elif m.role == "assistant" and m.meta.get("final"):
            out += ["## Agent", "", final_answer(m), ""]
        elif m.role == "assistant" and m.meta.get("tool_name"):
            out.append(f"- `{m.meta['tool_name']}` {args_label(m.meta.get('args'), 100)}")
        elif m.role == "tool":
            status = stored_status(m)
            if status:
                out.append(f"  - {status}")
        elif m.role == "summary":
            out += ["## Summary of earlier work", "", m.content, ""]
    return "\n".join(out).rstrip() + "\n"
