"""Stored forms of the current turn's older Bash observations (and of Read, Grep, LS and Glob, read as the shell
line that shows the same), aware of what the turn already shows.

A per-result stored form (core/context/compressor.py, for history) cannot know that a name it keeps a line
for was already shown two steps earlier; inside a turn we do know. So, oldest first, each older Bash output
keeps (core/context/digest.py) its definitions, matches, failures, head and tail, and the first line of
every name the turn has not shown yet — in an earlier action, or in an earlier output's stored form.
Every name the model met keeps one whole line of context, once, and the same file read three times is not
kept three times. Two exceptions look at what a line is, not at its names: after a command edits a file, a view of
that file keeps a line again for the names an older view of it showed (the newest version and numbering of a
line is the one the next edit needs), and a line an earlier form already shows, exactly as it would be shown, is
not repeated (a re-run's same error, the agent's "output too long" banner).

A step's form depends only on the steps up to it, so it never changes once made: the provider's cached
prefix stays valid (each form is computed once per turn prefix and remembered).
The form is plain text under the step's one-line status header, like the full observation it replaces.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any, Iterable, NamedTuple, Protocol, Sequence

from contextual.core.context import digest as dg
from contextual.core.context.command_kind import file_origin, kind_of
from contextual.core.context.names import code_names, first_to_name, name_set
from contextual.core.context.acted_on import acted_on
from contextual.core.context.forms import not_larger
from contextual.core.context.observation import split_header
from contextual.core.lru import LRU
from contextual.core.react import THOUGHT_LABEL, stored_action
from contextual.core.tools.base import EDITING_TOOLS



class _Step(Protocol):
    @property
    def action_full(self) -> str: ...
    @property
    def action_stored(self) -> str: ...
    @property
    def observation_full(self) -> str: ...
    @property
    def observation_stored(self) -> str: ...


Call = tuple[str, dict[str, Any]]


def tool_call(action: str) -> Call | None:
    """The tool and the arguments of a step's `Action: Name[{…}]` (core/react.py reads it)."""
    found = stored_action(action)
    return (found.tool, found.args) if found is not None and found.args is not None else None


def _command_of(call: Call | None) -> str | None:
    command = call[1].get("command") if call and call[0] == "Bash" else None
    return command if isinstance(command, str) else None


def bash_command(action: str) -> str | None:
    """The command of a `Thought: …\\nAction: Bash[{"command": …}]` step, or None for any other tool."""
    return _command_of(tool_call(action))


def _equivalent(call: Call | None) -> str | None:
    command = _command_of(call)
    if command is not None or call is None:
        return command
    tool, args = call
    path = args.get("file_path") if tool == "Read" else args.get("path")
    where = shlex.quote(path) if isinstance(path, str) and path else "."
    offset, limit = args.get("offset"), args.get("limit")
    if tool == "Read" and isinstance(offset, int) and offset > 1:
        end = offset + limit - 1 if isinstance(limit, int) and limit > 0 else "$"
        return f"sed -n '{offset},{end}p' {where}"
    if tool == "Read":
        return f"cat -n {where}"
    if tool == "Grep" and isinstance(args.get("pattern"), str):
        return f"grep -rn -e {shlex.quote(args['pattern'])} {where}"
    return f"ls {where}" if tool in ("LS", "Glob") else None


def shell_equivalent(action: str) -> str | None:
    """A step's Bash command or, for our own viewing tools, the shell line that shows the same, so that their
    outputs get a Bash view's or search's digest, numbering and view tracking: Read is `cat -n` of its file (`sed -n`
    of its range), Grep `grep -rn -e`, LS and Glob a listing. None for any other tool (its A3 form is kept)."""
    return _equivalent(tool_call(action))


def _edited_by_tool(call: Call | None, paths: Iterable[str]) -> set[str]:
    target = call[1].get("file_path") if call and call[0] in EDITING_TOOLS else None
    return {path for path in paths if path in target} if isinstance(target, str) else set()


# Inside a turn the names already shown need no line, so an older output can go further than its history
# form (dg.NORMAL): chosen on the tune/ trajectories only (README, "Context engineering, measured").
TURN = dg.Limits(head=1, tail=1, keep=8, cover=160, whole_lines=4, whole_chars=300, line_chars=300, chosen_lines=160,
                 chosen_chars=8_000, matches=30, focus=6)
LONG_ACTION = 300           # shorter actions are sent as written
COMMAND_HEAD, COMMAND_TAIL = 8, 4


# A name may be a plain English word (core/context/names.py; not a function word): a later step's thought reuses
# them (action recall), and keeping only code-like names cut action recall to 0.83 on tune/.
# A sentence ends at . ! or ? before a capital or a backtick (prose; code lines rarely have that shape).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`])")


def _short_thought(thought: str, seen: set[str]) -> str:
    """The sentences that name something new, `…` where a line lost sentences; a paragraph is one line, so whole
    lines would keep nearly all of it. A sentence that names nothing the prompt lacks goes, the opening one too
    (it was kept, about 60 characters, until round 11: on tune/ that cost 0.010x tokens and kept no recall)."""
    out, dropped = [], 0
    for line in thought.splitlines():
        if not line.strip():
            continue
        sentences = _SENTENCE_END.split(line)
        kept = [sentences[i] for i in first_to_name(sentences, seen)]
        dropped += len(sentences) - len(kept)
        if kept:
            out.append(line if len(kept) == len(sentences) else " … ".join(kept))
    if not dropped:
        return thought
    return "\n".join(out + [f"[{dropped} more sentences omitted]"])


# `cat <<'EOF' > path` / `cat > path <<EOF`: the file a heredoc writes, where the omitted lines can be read again
_HEREDOC_FILE = re.compile(r"""\bcat\s+(?:<<-?\s*['"]?\w+['"]?\s*>\s*([^\s;&|]+)|>\s*([^\s;&|]+)\s+<<)""")


def _short_command(command: str, seen: set[str]) -> str:
    lines = command.splitlines()
    if len(lines) <= COMMAND_HEAD + COMMAND_TAIL + 2:
        return command
    head, middle, tail = lines[:COMMAND_HEAD], lines[COMMAND_HEAD:-COMMAND_TAIL], lines[-COMMAND_TAIL:]
    seen |= name_set("\n".join(head + tail))
    kept = first_to_name(middle, seen)
    if len(kept) >= len(middle) - 2:
        return command
    body = [f"{COMMAND_HEAD + i + 1}: {middle[i]}" for i in kept]
    paths = list(dict.fromkeys(a or b for a, b in _HEREDOC_FILE.findall(command)))
    again = f"; `cat {' '.join(paths)}` shows {'the file' if len(paths) == 1 else 'the files'}" if paths else ""
    note = (f"[lines {COMMAND_HEAD + 1}-{len(lines) - COMMAND_TAIL} of this command: {len(kept)} kept (numbered), "
            f"{len(middle) - len(kept)} omitted{again}]")
    return "\n".join(head + [note] + body + tail)


class ActionForms(NamedTuple):
    stored: str      # an older step: thought and long command shortened
    fresh: str       # the newest steps: the thought shortened, the command as written


def action_forms(action: str, seen: set[str]) -> ActionForms:
    """A long step shortened against what the turn already shows: its thought keeps the sentences that name
    something new (its own command counts as shown); a long Bash command (a file written through a heredoc) its
    head, tail and the lines that name something new. Anything else, and anything short, is kept as written.
    The model wrote the thought and acted on it, so the next call already gets it shortened (`fresh`; providers
    likewise drop a model's earlier reasoning): no later switch rewrites it, while the command, which the newest
    observation answers, stays whole until the step switches. Both begin alike, so a switch keeps the prefix."""
    if len(action) <= LONG_ACTION:
        return ActionForms(action, action)
    found = stored_action(action)
    if found is None:     # a reply that was no action (a format error's): its words
        short = _short_thought(action.removeprefix(THOUGHT_LABEL), seen)
        said = _worth(action, f"{THOUGHT_LABEL}{short}" if action.startswith(THOUGHT_LABEL) else short)
        return ActionForms(said, said)
    command = bash_command(action)
    stored_call, shown = found.call, found.call
    if command is not None:
        shown = _short_command(command, set(seen))
        stored_call = "Bash[" + json.dumps({"command": shown}, ensure_ascii=False) + "]"
    # the command goes first: a sentence of the thought whose only new names its own command shows says nothing new
    seen |= name_set(shown)
    thought = found.thought
    short = _short_thought(thought, seen) if thought else thought
    return ActionForms(_worth(action, found.rewritten(short, stored_call)),
                       _worth(action, found.rewritten(short, found.call)))


def _worth(action: str, form: str) -> str:
    """A form only where it is shorter than the action as written."""
    return form if len(form) < len(action) else action


CHANGED_LINES = 12        # at most this many lines kept because a re-read shows them changed


def _changed(lines: list[str], read: frozenset[str]) -> list[int]:
    """A re-read (most of its lines were read before in this turn): the lines it shows for the first time, which
    are what an edit changed; the newest version of a line is the one a model needs next."""
    stripped = [line.strip() for line in lines]
    nonblank = [line for line in stripped if line]
    if not read or not nonblank or sum(line in read for line in nonblank) * 2 < len(nonblank):
        return []
    # a changed line that names nothing (a closing bracket, a blank docstring line) tells the next step nothing
    return [i for i, line in enumerate(stripped) if line and line not in read and name_set(line)][:CHANGED_LINES]


# A command that changes files: `sed -i`, a redirect or `tee` into a file, a patch, `ed`, `mv`/`cp` onto it, a
# script that writes one (`.write(`, `.writelines(`, `open(…, "w")`).
_EDITS = re.compile(r"\bsed\s+(?:-\w+\s+)*-[a-zA-Z]*i|(?<![0-9&<>])>>?\s*[^\s&>]|\btee\b|\bpatch\b|"
                    r"\bgit\s+(?:apply|checkout|restore|stash|am)\b|\.write(?:_text|lines)?\(|\bperl\s+-\w*i|"
                    r"(?:^|[;&|(]\s*)(?:ed|ex|mv|cp)\s|\bawk\s+-i\s*inplace\b|\bopen\([^)]*,\s*['\"][wa]")
_PATHISH = re.compile(r"(?:^|(?<=[\s'\"=(]))((?:[\w.-]+/)*[\w-]+\.[A-Za-z]\w*)(?=$|[\s'\";|&)])")


def viewed_path(command: str) -> str | None:
    """The file a view command shows (`nl -ba a/b.py | sed -n '1,9p'`, `cat a/b.py`): its first path."""
    if kind_of(command) != "view":
        return None
    found = _PATHISH.findall(command)
    return found[0] if found else None


def edited_paths(command: str, paths: Iterable[str]) -> set[str]:
    """Which of `paths` (files the turn has viewed) the command may have changed."""
    if not _EDITS.search(command):
        return set()
    return {path for path in paths if path in command}


def _form(step: _Step, command: str | None, seen: set[str], limits: dg.Limits, next_action: str,
          read: frozenset[str], shown_lines: frozenset[str] = frozenset(), focus: frozenset[str] = frozenset()
          ) -> str:
    """`command`: the step's shell line (`shell_equivalent`); None for a tool whose A3 form is kept."""
    full = step.observation_full
    if command is None:
        form = step.observation_stored          # another tool's C1 stored form, as the prompt reads it
    else:
        header, output = split_header(full)       # no header: a replayed log that recorded no exit code
        origin = file_origin(command)
        lines = output.splitlines()
        acted = acted_on(lines, next_action, origin[1] if origin else None) + _changed(lines, read)
        digest = (dg.digest(command, output, limits, seen=seen, also=acted, shown_lines=shown_lines, focus=focus)
                  if output else "")
        form = "\n".join(part for part in (header, digest) if part)
    # Whether a form saves enough to be sent is the cache rule's to decide (core/context/cache_rule.py).
    if len(form) >= len(full):
        return full
    return not_larger(form, full)       # fewer characters can still be more tokens (JSON escapes)


class StepForms(NamedTuple):
    action: str          # stored forms, for steps older than the newest
    observation: str
    fresh_action: str    # the action as the newest steps send it (ActionForms.fresh)


class _Shown(NamedTuple):
    """What the turn showed before a step: names (in the task, actions and stored forms) and the lines (stripped)
    of every full output, which tell a re-read's changed lines."""
    names: frozenset[str]
    read: frozenset[str]
    said: frozenset[str] = frozenset()                  # names in the task and the actions: never stale
    viewed: frozenset[tuple[str, str]] = frozenset()    # (path, name): names a view of the file showed
    stale: frozenset[tuple[str, str]] = frozenset()     # the same, shown before the file was last edited
    lines: frozenset[str] = frozenset()                 # lines (stripped) the stored forms show
    elsewhere: frozenset[str] = frozenset()             # names the forms of outputs that are no file views show


class _Forms(LRU[int, tuple[StepForms, _Shown]]):
    def __init__(self) -> None:
        super().__init__(8_192)


_memo = _Forms()


def _plan_text(call: Call | None) -> str | None:
    """A TodoWrite's task list as text, None for any other call."""
    todos = call[1].get("todos") if call is not None and call[0] == "TodoWrite" else None
    return plan_text(todos) if isinstance(todos, list) else None


def plan_text(todos: list[Any]) -> str:
    """A task list's items as text: what its names are read from."""
    return "\n".join(str(todo.get("content", "")) for todo in todos if isinstance(todo, dict))


def turn_stored(steps: Sequence[_Step], upto: int, limits: dg.Limits | None = None, shown: str = ""
                ) -> list[StepForms]:
    """The forms of steps[:upto], each aware of the ones before it and of `shown` (the turn's input, which the
    prompt carries whole)."""
    limits = limits or TURN
    out: list[StepForms] = []
    state = _Shown(frozenset(name_set(shown)), frozenset(), frozenset(name_set(shown)))
    task = code_names(shown)
    plan: frozenset[str] = frozenset()          # the names of the turn's latest task list (TodoWrite)
    key = hash((limits, shown))
    for index, step in enumerate(steps[:upto]):
        # The step after is taken before this form is first sent (its observation goes full until then): its
        # action tells which lines were acted on (acted_on.py), so it is part of the form's key.
        next_action = steps[index + 1].action_full if index + 1 < len(steps) else ""
        key = hash((key, step.action_full, step.observation_full))
        form_key = hash((key, next_action))
        before = state

        def make() -> tuple[StepForms, _Shown]:
            names = set(before.names)
            action = action_forms(step.action_full, set(names))
            names |= name_set(action.stored)
            said = before.said | name_set(action.stored)
            viewed, stale = set(before.viewed), set(before.stale)
            call = tool_call(step.action_full)
            equivalent = _equivalent(call)
            command = equivalent or ""
            path = viewed_path(command)
            if command or viewed:
                seen_paths = {p for p, _ in viewed}
                edited = edited_paths(command, seen_paths) | _edited_by_tool(call, seen_paths)
                moved = {pair for pair in viewed if pair[0] in edited}
                viewed, stale = viewed - moved, stale | moved
            cover_seen = set(names)
            if path:
                # after an edit, a view of the file shows the newest version of its lines: the names an older
                # view of it showed need a line again (unless an action or the task says them)
                # and a file's view keeps a line for the names it uses that only views of other files showed:
                # `cursor` in query.py is not the `cursor` of subqueries.py
                cover_seen -= {name for p, name in stale if p == path} - said
                own = {name for p, name in viewed if p == path}
                cover_seen -= {name for p, name in viewed if p != path} - own - said - before.elsewhere
            form = _form(step, equivalent, cover_seen, limits, next_action, before.read, before.lines, task | plan)
            form_names = name_set(form)
            if path:
                viewed |= {(path, name) for name in form_names}
                stale -= {(path, name) for name in form_names}
            read = before.read | {line.strip() for line in step.observation_full.splitlines()[1:] if line.strip()}
            return StepForms(action.stored, form, action.fresh), _Shown(
                frozenset(names | form_names), read, frozenset(said), frozenset(viewed), frozenset(stale),
                before.lines | {line.strip() for line in form.splitlines()[1:] if line.strip()},
                before.elsewhere if path else before.elsewhere | form_names)
        forms, state = _memo.get(form_key, make)
        out.append(forms)
        todos = _plan_text(tool_call(step.action_full))
        if todos is not None:
            plan = code_names(todos)
    return out
