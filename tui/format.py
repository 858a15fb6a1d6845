"""Small pure helpers shared by the widgets: token figures, one-line labels for messages."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from textual.content import Content

from contextual.core import input_cut, textsafe
from contextual.core.context import compaction_words
from contextual.core.messages import Message
from contextual.tui.screen_safe import screen_text

if TYPE_CHECKING:       # the session schema loads with the engine, after the first frame (test_launch_imports)
    from contextual.core.context.ledger import Ledger
    from contextual.core.session.schema import CompactionRecord, PermissionRecord


def tokens(n: int | None) -> str:
    """12 -> '12', 1234 -> '1.2k', 200000 -> '200k'."""
    if n is None:
        return "–"
    if n < 1000:
        return str(n)
    if n < 100_000:
        return f"{n / 1000:.1f}k"
    return f"{n // 1000}k"


_MARKS = ((re.compile(r"\*\*(.+?)\*\*"), r"\1"), (re.compile(r"(?<![\w*])\*(\S[^*\n]*?)\*(?![\w*])"), r"\1"),
          (re.compile(r"`([^`\n]+)`"), r"\1"), (re.compile(r"(?m)^#{1,6}\s+"), ""))


# where a window came from (Config.window_source's first word), as the chat says it
_WINDOW_FROM = {"server": "from the server", "table": "from the model table", "flag": "--context-window",
                "env": "CONTEXTUAL_CONTEXT_WINDOW", "config": "your config", "default": "the default"}


SHORT_ID = 8        # a session's id as the chat, the top bar, /resume and the resume hint say it


def short_id(session_id: str) -> str:
    """A session's short id (`1a2b3c4d`): the whole UUID filled a line, and `contextual -r` takes the prefix."""
    return session_id[:SHORT_ID]


def forked_line(parent: str, child: str, then: str) -> str:
    """The chat's line for a fork, /fork's and a held session's alike: `forked session 1a2b3c4d into 5e6f7a8b: …`."""
    return f"forked session {short_id(parent)} into {short_id(child)}: {then}"


def project_path(path: Path, root: Path) -> str:
    """A file of the project as the project names it (`.contextual/config.toml`), any other file whole."""
    root = root.resolve()
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def model_note(model: str, window: int, window_source: str) -> str:
    """The chat's line for a /model switch: `model: gpt-4o-mini (window 128k, from the server)`."""
    where = window_source.split(":", 1)[0]
    return f"model: {model} (window {tokens(window)}, {_WINDOW_FROM.get(where, where)})"


def without_markdown(text: str) -> str:
    """An answer's or summary's words on one row: **bold**, *italic*, `code` and heading marks left out."""
    for pattern, replacement in _MARKS:
        text = pattern.sub(replacement, text)
    return text


MODE_LINES = {"default": "asks before edits and commands", "accept-edits": "⏵⏵ accepts edits",
              "plan": "⏸ plan mode: reads and proposes, changes nothing",
              "bypass": "⏵⏵ bypass: runs every tool unasked"}


def mode_line(mode: str) -> str:
    """The permission mode as the input's border says it, with the key that changes it."""
    return f"{MODE_LINES.get(mode, mode)} · shift+tab"


def one_line(text: str, width: int = 80) -> str:
    # Rows (History, /rewind, /resume, tool arguments) show stored text as written: a pasted log's or a file
    # name's escape sequences reached the terminal, which acted on them
    return textsafe.one_line(screen_text(str(text)), width)


def args_label(args: Any, width: int = 60) -> str:
    """The most telling argument of a tool call, on one line; none for a call with none (`LS`, not `LS {}`)."""
    if isinstance(args, dict):
        if not args:
            return ""
        for key in ("command", "file_path", "pattern", "path"):
            if isinstance(args.get(key), str):
                return one_line(args[key], width)
        return one_line(json.dumps(args, ensure_ascii=False), width)
    return one_line(str(args), width)


CALL_LABEL = 100        # a call's label in the chat's tool trail; two calls with one tool and one label look the same


def call_label(args: Any) -> str:
    """A tool call's label as the chat's tool trail shows it (History groups consecutive calls on it)."""
    return args_label(args, CALL_LABEL)


def stored_status(message: Message) -> str:
    """'exit 1' (a command's non-zero exit), 'error …', or '' read from a stored tool result."""
    return status_of(message.content)


def status_of(stored: str) -> str:
    """stored_status of a stored form's text (a live ToolFinished's `stored`). The exit code is in `data`: the
    stored form drops `stats`, where this looked for it, so a failed command read as a success everywhere."""
    try:
        data = json.loads(stored)
    except (TypeError, ValueError):
        return ""
    if not isinstance(data, dict):
        return ""
    if data.get("status") == "error":
        err = data.get("error") or {}
        return f"error {err.get('code', '')}".strip()
    for part in (data.get("data"), data.get("stats")):
        if isinstance(part, dict) and part.get("exit_code") not in (None, 0):
            return f"exit {part['exit_code']}"
    return ""


def denied(stored: str) -> bool:
    """Whether a stored result is a call that was not allowed to run (core/permissions.DENIED_CODES), not one that
    ran and failed: a denied call was counted as failed."""
    from contextual.core.permissions import DENIED_CODES
    said = status_of(stored)
    return said.startswith("error ") and said.removeprefix("error ") in DENIED_CODES


def trail_status(stored: str, status: str = "success") -> str:
    """A call as the chat's trail marks it: 'denied' (not allowed to run), 'error' (the engine's status, an error in
    its stored form, or a command that exited non-zero, as Claude Code shows it) or 'success'; the same live and in
    a resumed chat."""
    if denied(stored):
        return "denied"
    return "error" if status != "success" or status_of(stored) else "success"


def final_answer(message: Message) -> str:
    """A recorded final answer's text: the engine's own field, else what the ReAct parser (the one place that
    reads `Finish[...]`) makes of the recorded reply."""
    answer = message.meta.get("answer")
    if isinstance(answer, str):
        return answer
    from contextual.core.react import FINISH, ReactFormatError, parse_reply
    try:
        parsed = parse_reply(message.content, frozenset())
    except ReactFormatError:
        return message.content
    return parsed.args if parsed.tool == FINISH else message.content


def compaction_note(record: CompactionRecord) -> str:
    """The chat's line for a compaction, live and in a resumed session alike (`-p "/compact"` prints the same words),
    what it lost one command away (issue 19.2). A manual one's is its card: its result no longer waits on a dialog
    for enter, so the lines under it say what that card said beside the line (how much smaller, the files the
    summary was given, what its input lost); an automatic one's card shows itself for a few seconds."""
    line = compaction_words.line(record, tokens, ledger_line(record.loss_ledger))
    if record.trigger != "manual":
        return line
    files = f"{SUMMARY_FILES}{files_named(record.files_included)}"
    details = [" · ".join(filter(None, (size_change(record.pre_tokens, record.post_tokens), files)))]
    if record.input_cut:
        details.append(f"{input_cut.LABEL}{record.input_cut.words()}")
    return "\n".join([line, *(f"  {detail}" for detail in details)])


def size_change(pre: int | None, post: int | None) -> str:
    """"92% smaller" (or larger) from the trigger estimate before to after; '' without a figure before."""
    if not pre:
        return ""
    change = 1 - (post or 0) / pre
    return f"{change:.0%} smaller" if change >= 0 else f"{-change:.0%} larger"


SUMMARY_FILES = "files the summary was given: "       # the card's words and the chat's, before the files


def files_named(files: tuple[str, ...]) -> str:
    return ", ".join(files) if files else "none"


def ledger_line(ledger: Ledger | None, where: str = "/ledger") -> str:
    """What a compaction lost, in the same words on the chat's line and its card; ``where`` lists them."""
    return "" if ledger is None else ledger.lost_line(where)


def compaction_level(record: CompactionRecord) -> str:
    """A warning when rounds left without a summary (a fallback, or the rounds a stopped summary did not reach)."""
    return "warning" if record.fallback or record.rounds_truncated else "info"


def permission_note(record: PermissionRecord) -> str:
    """The chat's line for an answer to the permission dialog, live and in a resumed session alike: the record's own
    words (core/session/schema.py), on one line."""
    return one_line(record.describe(), 300)


def permission_mark(record: PermissionRecord) -> str:
    """A plain answer the call's trail row carries ("allowed once", "denied") instead of a chat line of its own:
    one per call cluttered the chat. '' for one the user needs to read there: a rule written, a session-wide
    allowance, why "always" was not offered, a denial's note."""
    if record.decision == "allow_once" and not record.once_only:
        return "allowed once"
    if record.decision == "deny" and not record.note.strip():
        return "denied"
    return ""


def permission_level(record: PermissionRecord) -> str:
    """A denial is a warning in the chat, an allowance an information."""
    return "warning" if record.decision == "deny" else "info"


def unparsed(text: str) -> str:
    """Text for a place Textual reads as markup (a border's or a collapsible's title, a palette entry) that must be
    shown as written: outside text (a model's, a file's, a typed message) with `[/`, or a tag a cut left open, ended
    the app, and escape() mends only whole tags. Textual types those places str and takes Content as it is."""
    return cast(str, Content(text))
