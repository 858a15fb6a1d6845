"""What the model is told about each tool (part of L1: it must render byte-identically every time).

Each tool's text comes from the tool itself: its description, the Arguments line rendered from the same
ArgSpec the runner validates against (plus the spec's note), and an example call."""

from __future__ import annotations

from typing import Iterable, Protocol


class ArgsText(Protocol):
    @property
    def note(self) -> str: ...

    def render(self) -> str: ...


class DescribedTool(Protocol):
    """What L1 needs of a tool: core's tools satisfy it; this package imports nothing of the engine."""
    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def args(self) -> ArgsText: ...


def describe_tool(tool: DescribedTool) -> str:
    note = f" — {tool.args.note}" if tool.args.note else ""
    lines = [f"{tool.name} — {tool.description}", f"Arguments: {tool.args.render()}{note}"]
    example = getattr(tool, "example", "")
    if example:
        lines.append(f"Example: Action: {tool.name}[{example}]")
    return "\n".join(lines)


def render_tools_prompt(tools: Iterable[DescribedTool]) -> str:
    """The given tools' descriptions, in the given order (the registry's: built-ins first), blank-line apart."""
    return "\n\n".join(describe_tool(tool) for tool in tools)
