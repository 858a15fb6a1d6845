"""The ReAct text protocol (seed 002 E1, CONTRACT): parse one model reply into Thought + Action.

The only place that reads `Finish[...]` or an `Action:` line: the engine turns what this module finds into
AnswerDelta/FinalAnswer events, and a step's stored text (`Thought: …` / `Action: Tool[{…}]`, written by `step_text`)
is read back through `stored_action`, so a thought quoting "Action:" reads the same everywhere.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, NoReturn

from contextual.core import bounded_json
from contextual.core.textsafe import valid_json_value

FINISH = "Finish"
THOUGHT_LABEL, ACTION_LABEL = "Thought: ", "Action: "      # as a step's stored text writes them (step_text)
_THINK = re.compile(r"<think>.*?(</think>|$)", re.S | re.I)
_FENCE_LINE = re.compile(r"^\s*```[\w-]*\s*$", re.M)
_ACTION = re.compile(r"^\s*\**Action\**\s*:\s*\**\s*([A-Za-z_][A-Za-z0-9_]*)\s*\[", re.M)
_THOUGHT = re.compile(r"^\s*\**Thought\**\s*:\s*", re.M)
# Hermes-style calls (Qwen, Hermes, their fine-tunes) written as text: a format error that names the Action line
_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)


@dataclass(frozen=True)
class Parsed:
    thought: str
    tool: str
    args: Any          # dict for tools, str for Finish
    text: str          # the reply as kept in history: Thought + the first Action, nothing after
    more_actions: int = 0   # `Action:` lines after the first, which do not run (one action a step)


class ReactFormatError(ValueError):
    """The reply is not `Thought: …` + `Action: Tool[{json}]`; the message goes back to the model."""


def strip_thinking(reply: str) -> tuple[str, str]:
    """Split `<think>…</think>` blocks off a reply: (visible text, thinking)."""
    thinking = "\n".join(m.group(0)[7:].removesuffix("</think>").strip() for m in _THINK.finditer(reply))
    return _THINK.sub("", reply), thinking


def visible_reply(reply: str) -> str:
    """The reply as said: without its thinking, and without an observation the model made up."""
    visible, _ = strip_thinking(reply)
    # A model that ignores the stop sequence may invent an observation: nothing after it counts.
    return visible.split("\nObservation:", 1)[0]


def _finish_body(visible: str, body_start: int) -> tuple[str, bool]:
    """The text of `Finish[` up to its closing `]`, and whether that `]` was seen.

    The answer ends at the last `]` before a following `Action:` line outside a code fence (a Finish followed
    by another Action answers with the Finish text only) or before the end. Fences inside the answer are kept.
    """
    end = len(visible)
    in_fence = False
    offset = body_start
    for line in visible[body_start:].splitlines(keepends=True):
        if _FENCE_LINE.match(line):
            in_fence = not in_fence
        elif not in_fence and offset > body_start and _ACTION.match(line):
            end = offset
            break
        offset += len(line)
    close = visible.rfind("]", body_start, end)
    if close < 0:
        return visible[body_start:end], False
    return visible[body_start:close], True


def has_action_line(reply: str) -> bool:
    """Whether the reply as said (no thinking, nothing after a made-up observation) holds an `Action:` line at all."""
    return _ACTION.search(visible_reply(reply)) is not None


def has_tool_call_block(reply: str) -> bool:
    """Whether the reply writes a Hermes-style `<tool_call>` block (a model trained on native tool calls)."""
    return _TOOL_CALL.search(visible_reply(reply)) is not None


def finish_so_far(partial_reply: str) -> str | None:
    """While a reply streams: the final answer's text so far when its first Action is Finish, else None.
    A trailing run of `]` and spaces is held back (one of them closes the call); every value returned is a
    prefix of what parse_reply gives for the whole reply."""
    visible = visible_reply(partial_reply)
    first = _ACTION.search(visible)
    if first is None or first.group(1) != FINISH:
        return None
    body, _ = _finish_body(visible, first.end())
    return body.lstrip().rstrip("] \t\r\n")


class AnswerStream:
    """Feeds a streaming reply and returns the final answer's new text each time (AnswerDelta).

    Cheap on long replies: nothing is parsed before an `Action` appears, and nothing more once the first Action
    turns out to be a tool call (a Write of a whole file streams without being re-read at every chunk)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._parts: list[str] = []
        self._action_seen = False
        self._tool_step = False
        self._sent = 0
        self._tail = ""

    def feed(self, text: str) -> str:
        self._parts.append(text)
        if self._tool_step:
            return ""
        if not self._action_seen:
            self._tail = (self._tail + text)[-(len(text) + 8):]      # "Action" may straddle chunks
            if "action" not in self._tail.lower():
                return ""
            self._action_seen = True
        reply = "".join(self._parts)
        first = _ACTION.search(visible_reply(reply))
        if first is not None and first.group(1) != FINISH:
            self._tool_step = True
            return ""
        answer = finish_so_far(reply) or ""
        delta = answer[self._sent:]
        self._sent = max(self._sent, len(answer))
        return delta


NAMED_TOOLS = 40      # an unknown-tool error names this many: a server may offer ten thousand


def _named(tools: set[str] | frozenset[str]) -> str:
    """The tools an error names: built-in ones first, bounded (the rest are found with ToolSearch)."""
    ordered = sorted(tools, key=lambda name: (name.startswith("mcp__"), name))
    shown = ", ".join(ordered[:NAMED_TOOLS])
    return shown if len(ordered) <= NAMED_TOOLS else f"{shown} and {len(ordered) - NAMED_TOOLS} more MCP tools"


def parse_reply(reply: str, known_tools: set[str] | frozenset[str]) -> Parsed:
    visible = visible_reply(reply)
    match = _ACTION.search(visible)
    if not match:
        _no_action_line(visible, known_tools)
    tool = match.group(1)
    thought = _thought_of(visible[:match.start()])
    body_start = match.end()
    if tool == FINISH:
        body, closed = _finish_body(visible, body_start)
        if not closed:
            raise ReactFormatError("`Action: Finish[` was not closed with `]`.")
        answer = body.strip()
        return Parsed(thought, FINISH, answer, step_text(thought, f"Finish[{answer}]"))
    _check_known(tool, known_tools)
    stripped = visible[body_start:].lstrip()
    try:
        args, used = bounded_json.raw_decode(stripped)   # a 3,000-deep Action must not raise RecursionError
    except json.JSONDecodeError as exc:
        raise ReactFormatError(
            f"The argument of {tool} is not valid JSON ({exc.msg} at char {exc.pos}). "
            f"Write `Action: {tool}[{{...}}]` with one JSON object.") from None
    if not isinstance(args, dict):
        raise ReactFormatError(f"The argument of {tool} must be one JSON object, got {type(args).__name__}.")
    args = valid_json_value(args)       # "\ud800" decodes to a lone surrogate: no path, request or file can hold it
    if not stripped[used:].lstrip().startswith("]"):
        raise ReactFormatError(f"`Action: {tool}[` must close with `]` right after the JSON object.")
    action = f"{tool}[{json.dumps(args, ensure_ascii=False)}]"
    rest = stripped[used:].lstrip()[1:]       # after the first Action's closing `]`
    return Parsed(thought, tool, args, step_text(thought, action), len(_ACTION.findall(rest)))


def _check_known(tool: str, known_tools: set[str] | frozenset[str]) -> None:
    if tool not in known_tools:
        raise ReactFormatError(f"Unknown tool {tool!r}. Available tools: {_named(known_tools)}, or Finish.")


def _no_action_line(visible: str, known_tools: set[str] | frozenset[str]) -> NoReturn:
    """A reply with no `Action:` line. The contract makes it a format error (CONTRACT.md, E1); when it holds a
    Hermes-style `<tool_call>{"name": …, "arguments": {…}}</tool_call>` block (Qwen, Hermes and their fine-tunes
    write one when the server does not parse it), the error gives the `Action:` line that block means, so the
    model's next step can be right."""
    block = _TOOL_CALL.search(visible)
    if block is None:
        raise ReactFormatError(
            "Your reply had no `Action:` line. Answer with `Thought: <reasoning>` then either "
            "`Action: <Tool>[<one JSON object>]` or `Action: Finish[<final answer>]`.")
    try:
        call, _ = bounded_json.raw_decode(block.group(1))
    except json.JSONDecodeError:
        call = None
    name = call.get("name") if isinstance(call, dict) else None
    args = call.get("arguments", call.get("parameters", {})) if isinstance(call, dict) else None
    if isinstance(args, str):      # the arguments as JSON text, as the OpenAI wire carries them
        try:
            args = bounded_json.loads(args or "{}")
        except json.JSONDecodeError:
            args = None
    if not isinstance(name, str) or not isinstance(args, dict) or (name != FINISH and name not in known_tools):
        raise ReactFormatError(
            "Your reply had a `<tool_call>` block and no `Action:` line. Tools are called with "
            f"`Action: <Tool>[<one JSON object>]` ({_named(known_tools)}), or end with `Action: Finish[<final answer>]`.")
    if name == FINISH:
        raise ReactFormatError("Your reply had a `<tool_call>` block and no `Action:` line: end with "
                               "`Action: Finish[<final answer>]`.")
    action = f"Action: {name}[{json.dumps(valid_json_value(args), ensure_ascii=False)}]"
    raise ReactFormatError(f"Your reply had a `<tool_call>` block and no `Action:` line. Write that call as:\n{action}")


def native_action(name: str, arguments: str) -> str:
    """A tool call the server sent in its own field, as the `Action:` line parse_reply reads: arguments as sent, so
    a call cut short stays cut and the parser says what is wrong; none at all is an empty object."""
    return f"\n{ACTION_LABEL}{name}[{arguments.strip() or '{}'}]"


def _thought_of(text: str) -> str:
    """The Thought's text. Fence lines around it (a reply wrapped in ``` as a whole, or an Action fenced on its own)
    are not part of it; a code block inside it keeps its fences, so the history shows the code as the model wrote it."""
    marker = _THOUGHT.search(text)
    head, body = (text[:marker.start()], text[marker.end():]) if marker else ("", text)
    fences = list(_FENCE_LINE.finditer(body))
    if len(fences) % 2:                     # the last one opens nothing: it fences the Action that follows
        body = body[:fences[-1].start()] + body[fences[-1].end():]
    return (_FENCE_LINE.sub("", head) + body).strip()


def step_text(thought: str, action: str) -> str:
    """A step as history keeps it: `Thought: …` (none when empty), then `Action: Tool[…]`."""
    return f"{THOUGHT_LABEL}{thought}\n{ACTION_LABEL}{action}" if thought else f"{ACTION_LABEL}{action}"


# The Action line of a stored step: the first line that starts as step_text writes it. Its thought holds no line
# parse_reply would have read as an Action (it took the first), and the thought's first line carries its label.
_STORED_ACTION = re.compile("^" + re.escape(ACTION_LABEL) + r"([A-Za-z_][A-Za-z0-9_]*)\[", re.M)


@dataclass(frozen=True)
class StoredAction:
    """A step's stored text (step_text's, or a shortened form of it) read back."""
    head: str                       # the text before the Action line, without its newline: `Thought: …`, or ""
    tool: str
    call: str                       # the Action line after its label, to the end of the text: `Tool[…]`
    args: dict[str, Any] | None     # the JSON object in the brackets; None where there is none (Finish, a cut call)

    @property
    def thought(self) -> str:
        return self.head.removeprefix(THOUGHT_LABEL)

    @property
    def line(self) -> str:
        return ACTION_LABEL + self.call

    def rewritten(self, thought: str, call: str) -> str:
        """The same step with another thought and call (a shorter form), labelled as this one is (a step without a
        thought stays without one)."""
        head = f"{THOUGHT_LABEL}{thought}" if self.head.startswith(THOUGHT_LABEL) else thought
        return f"{head}\n{ACTION_LABEL}{call}" if self.head else ACTION_LABEL + call


def stored_action(text: str) -> StoredAction | None:
    """The Action of a step's stored text (a format error's reply may hold one that did not run); None if none."""
    found = _STORED_ACTION.search(text)
    if found is None:
        return None
    body = text[found.end():].rstrip()
    try:
        args = bounded_json.loads(body[:-1]) if body.endswith("]") else None
    except ValueError:
        args = None
    return StoredAction(text[:found.start()].removesuffix("\n"), found.group(1), text[found.start(1):],
                        args if isinstance(args, dict) else None)


# Lines of a recorded thought the parser would take for its own markers (an Action line, or the Observation
# visible_reply cuts at).
_MARKER_LINE = re.compile(r"^(\s*\**)(Action|Observation)(\**\s*):", re.M)


def inert_thought(thought: str) -> str:
    """A thought written into a reply (a replayed recording's) that parse_reply reads as a thought, whole."""
    return _MARKER_LINE.sub(r"\1\2\3 -", thought)


def render_action(tool: str, args: Any) -> str:
    return f"{tool}[{args if tool == FINISH else json.dumps(args, ensure_ascii=False)}]"
