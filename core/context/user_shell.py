"""The user's own `!command` (typed in the app's input, not called by the model): its result joins the user's
next message, as a Bash call's result would join the history — in its stored form (seed 002 A3: a bounded
summary of long output) when that is smaller, the whole text kept beside it (``Message.full``).

The message records each command and how many lines its block takes at the head of ``full`` (meta ``shell``), so a
resumed chat shows the results again as the live chat did (``shell_results``)."""

from __future__ import annotations

from typing import Any

from contextual.core.messages import Message, ShellRun


def _head(command: str) -> str:
    return f"[the user ran `{command}` in the project; its result:]"


def shell_block(command: str, result: dict[str, Any]) -> tuple[str, str]:
    """(as sent, whole): a line saying who ran what, then the result as a Bash observation."""
    # here, not at the top: a resumed chat reads the records at launch (shell_results) and needs none of these
    from contextual.core.context import compressor
    from contextual.core.context.forms import not_larger
    from contextual.core.context.stored_render import sent_text
    full = compressor.full_text(result)
    sent = not_larger(sent_text(compressor.stored_text("Bash", {"command": command}, result)), full)
    return f"{_head(command)}\n{sent}", f"{_head(command)}\n{full}"


def shell_run(command: str, whole: str) -> ShellRun:
    """What the message records of one command: line counts, which a key's redaction in the file never changes."""
    return ShellRun(command=command, lines=whole.count("\n") + 1)


def waiting_result(command: str, whole: str) -> str:
    """A result waiting for the next message, as the model will read it whole (its block less the line saying who
    ran what): what a resumed chat shows of it, as the live one did."""
    head = _head(command) + "\n"
    return whole[len(head):] if whole.startswith(head) else whole


def shell_results(message: Message) -> list[tuple[str, str]]:
    """(command, its whole result as the model read it) for each `!command` the message carries, read back from
    its ``full`` (the blocks come first, a blank line after each); none when the record names none."""
    runs, lines = message.meta.get("shell"), (message.full or "").split("\n")
    out: list[tuple[str, str]] = []
    at = 0
    for run in runs if isinstance(runs, list) else []:
        command, count = (run.get("command"), run.get("lines")) if isinstance(run, dict) else (None, None)
        if not isinstance(command, str) or not isinstance(count, int) or at + count > len(lines):
            break           # a record this reader cannot trust: show nothing more of it
        head = _head(command).count("\n") + 1
        block, at = lines[at:at + count], at + count + 1
        if not block[0].startswith("[the user ran `") or count <= head:
            break
        out.append((command, "\n".join(block[head:])))
    return out
