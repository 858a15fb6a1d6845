"""The agent's answers as Markdown, with fenced diffs in colour: Textual's highlight themes give pygments'
inserted and deleted lines no style, so a ```diff block read as plain `-`/`+` lines. Imported with the first
answer, not at launch (markdown-it and pygments)."""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token as MarkdownToken
from markdown_it.utils import EnvType
from textual.await_complete import AwaitComplete
from textual.content import Content
# Token: pygments' token types, as Textual's highlighter names them (no direct pygments dependency of ours)
from textual.highlight import ANSIDarkHighlightTheme, ANSILightHighlightTheme, HighlightTheme, Token, highlight
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownFence

_DIFF = {Token.Generic.Inserted: "$text-success", Token.Generic.Deleted: "$text-error",
         Token.Generic.Subheading: "$text-primary bold"}
_DIFF_ANSI = {Token.Generic.Inserted: "ansi_green", Token.Generic.Deleted: "ansi_red",
              Token.Generic.Subheading: "ansi_cyan bold"}


class _Theme(HighlightTheme):
    STYLES = {**HighlightTheme.STYLES, **_DIFF}


class _DarkANSI(ANSIDarkHighlightTheme):
    STYLES = {**ANSIDarkHighlightTheme.STYLES, **_DIFF_ANSI}


class _LightANSI(ANSILightHighlightTheme):
    STYLES = {**ANSILightHighlightTheme.STYLES, **_DIFF_ANSI}


class AnswerFence(MarkdownFence):
    # A long line wraps, as in Claude Code and Codex: Textual's fence scrolls sideways with no scrollbar, so at 80
    # columns the end of a line was cut off with nothing to say so, and no key to reach it.
    DEFAULT_CSS = """
    AnswerFence { overflow-x: hidden; }
    AnswerFence > Label { width: 1fr; text-wrap: wrap; }
    """

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False) -> Content:
        theme = (_DarkANSI if dark else _LightANSI) if ansi else _Theme
        return highlight(code, language=language or None, theme=theme)


class WholeParser(MarkdownIt):
    """Textual's "gfm-like" parser, dropping no text: past markdown-it's nesting limit (a list ten levels deep, twenty
    nested quotes) it skipped the rest of the answer without a word, tables and code after it included. That rest
    is shown as written, in a plain code block."""

    def __init__(self) -> None:
        super().__init__("gfm-like")

    def parse(self, src: str, env: EnvType | None = None) -> list[MarkdownToken]:
        tokens = super().parse(src, env)
        # A quote or list item opened at the limit is where the parser stopped: the lines it spans (for a list item,
        # the rest of the answer) were lost. They go inside that empty block, so the answer's top-level blocks stay
        # as they were for a streamed append.
        limit, lines = self.options["maxNesting"] - 1, src.splitlines()
        for at in reversed(range(len(tokens))):
            token = tokens[at]
            if token.map and token.level >= limit and token.type in ("blockquote_open", "list_item_open"):
                rest = "\n".join(lines[token.map[0]:token.map[1]]) + "\n"
                tokens.insert(at + 1, MarkdownToken("code_block", "code", 0, content=rest, map=list(token.map),
                                                    level=token.level + 1, block=True))
        return tokens


class AnswerMarkdown(Markdown):
    """An answer's last block ends it, with no bottom margin: that margin left a blank row at the chat's end, which on
    a short screen (one row of chat at 40x12) was all the chat showed of the newest answer. Said by a class the
    blocks change moves, not by `:last-child`: any order-dependent rule makes Textual restyle every sibling, and
    everything under it, of every widget mounted anywhere (a turn took 2.5 s by the 60th)."""

    # A table's cell folds a word longer than its column onto the next rows, as Claude Code wraps them: Textual cut
    # it with an ellipsis, so at 80 columns a `| file | change |` table lost its files' names (`…answer_markdo…`)
    # and a table of many columns showed `c…` for each, with nothing on screen that read the rest.
    # Every heading starts at the left edge, as in Claude Code and Codex (Textual centres an H1); each level keeps
    # the theme's colour and weight, and one blank row above it (Textual's two for H1 and H2 stood under the
    # paragraph's own blank row).
    DEFAULT_CSS = """
    AnswerMarkdown > .-ends-answer { margin-bottom: 0; }
    AnswerMarkdown MarkdownHeader { content-align: left top; margin: 1 0 1 0; }
    AnswerMarkdown MarkdownTableContent > .cell, AnswerMarkdown MarkdownTableContent > .header { text-overflow: fold; }
    """
    BLOCKS = {**Markdown.BLOCKS, "fence": AnswerFence, "code_block": AnswerFence}

    def __init__(self, markdown: str | None = None, **kwargs: Any) -> None:
        super().__init__(markdown, parser_factory=WholeParser, **kwargs)

    def update(self, markdown: str) -> AwaitComplete:
        return AwaitComplete(self._then_mark_end(super().update(markdown)))

    def append(self, markdown: str) -> AwaitComplete:
        return AwaitComplete(self._then_mark_end(super().append(markdown)))

    async def _then_mark_end(self, blocks_changed: AwaitComplete) -> None:
        await blocks_changed
        for block in self.children:
            block.set_class(block is self.children[-1], "-ends-answer")
