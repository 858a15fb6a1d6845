"""The agent's answers as Markdown, with fenced diffs in colour: Textual's highlight themes give pygments'
inserted and deleted lines no style, so a ```diff block read as plain `-`/`+` lines. Imported with the first
answer, not at launch (markdown-it and pygments)."""

from __future__ import annotations

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
    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False) -> Content:
        theme = (_DarkANSI if dark else _LightANSI) if ansi else _Theme
        return highlight(code, language=language or None, theme=theme)


class AnswerMarkdown(Markdown):
    BLOCKS = {**Markdown.BLOCKS, "fence": AnswerFence, "code_block": AnswerFence}
