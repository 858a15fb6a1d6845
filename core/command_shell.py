"""A custom command's shell lines (issue 30.3, Claude Code's form): each `` !`cmd` `` in the command's prompt runs
before the prompt is sent, and its output takes the line's place, so the model starts from it.

They obey the permission rules as a Bash call of the model would, with the command's own `allowed-tools` added
for its turn: a deny rule refuses the line (in every mode); a line no rule, grant or mode allows is not run
either (Claude Code too wants the command's `allowed-tools` to cover its lines) — the prompt says why in the
line's place. A line runs like a hook (core/hooks.run_bounded): its time and output bounded, the agent's own keys
out of its environment. Whether the command may have shell lines at all is core/custom_commands.py's question
(a project's is inert until approved)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable

from contextual.core import permissions
from contextual.core.config import Config
from contextual.core.custom_commands import SHELL_LINE
from contextual.core.hooks import OUTPUT_CAP, run_bounded
from contextual.core.tools.bash import SECRET_ENV

LINE_TIMEOUT = 60.0


@dataclass
class _Bash:
    """What the permission policy reads of the Bash tool (core/permissions.Judged)."""
    name: str = "Bash"
    needs_permission: bool = True
    edits_files: bool = False


@dataclass(frozen=True)
class Ran:
    command: str
    said: str            # what took the line's place in the prompt
    note: str            # one line for the user


def _refused(command: str, config: Config, granted: Iterable[str]) -> str | None:
    """Why the rules do not let `command` run, or None when they do."""
    args, root = {"command": command}, config.project_root
    verdict = permissions.decide(_Bash(), args, config.permission_mode, config.permissions, root, set(granted))
    if verdict == "deny":
        rule = config.permissions.denies("Bash", args, str(root))
        named = rule.text if rule else "Bash"
        if permissions.opaque(args):
            return f"{permissions.denied_by(named)}: part of it is only known when it runs, so the rule cannot be " \
                "checked"
        return permissions.denied_by(named)
    if verdict == "ask":
        return "no permission rule or the command's allowed-tools allows it"
    return None


async def run_line(command: str, config: Config, granted: Iterable[str]) -> Ran:
    refused = _refused(command, config, granted)
    if refused is not None:
        return Ran(command, f"[`{command}` was not run: {refused}]", f"!`{command}` not run: {refused}")
    env = {name: value for name, value in os.environ.items() if name not in SECRET_ENV}
    try:
        code, out, err = await run_bounded(command, b"", str(config.project_root), LINE_TIMEOUT, env=env)
    except OSError as exc:
        return Ran(command, f"[`{command}` could not start: {exc}]", f"!`{command}` could not start: {exc}")
    if code is None:
        said = f"[`{command}` ran past {LINE_TIMEOUT:g} s and was stopped]"
        return Ran(command, said, said.strip("[]"))
    text = (out + (f"\n{err}" if err.strip() else "")).strip("\n")
    cut = len(out.encode()) >= OUTPUT_CAP or len(err.encode()) >= OUTPUT_CAP
    text += f"\n[output cut at {OUTPUT_CAP // 1024} KB]" if cut else ""
    text += f"\n[exit status {code}]" if code else ""
    lines = text.count("\n") + 1 if text else 0
    return Ran(command, text, f"ran !`{command}`: {lines} line{'s' * (lines != 1)} put into the prompt"
               + (f" (exit status {code})" if code else ""))


async def inline_shell(text: str, config: Config, granted: Iterable[str]) -> tuple[str, list[Ran]]:
    """`text` with each shell line replaced by what it printed (or why it did not run), one after another."""
    granted = tuple(granted)
    out: list[str] = []
    ran: list[Ran] = []
    end = 0
    for found in SHELL_LINE.finditer(text):
        one = await run_line(found.group(1).strip(), config, granted)
        out += [text[end:found.start()], one.said]
        ran.append(one)
        end = found.end()
    return "".join(out) + text[end:], ran
