"""The chat: user inputs, each turn's tool trail, at most one "context adjusted" line per turn, and the agent's
answers as Markdown (code fences kept), streaming in without flicker."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Offset, Size
from textual.layout import DockArrangeResult
from textual.message import Message as TextualMessage
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from contextual.core.messages import NO_ANSWER, Message
from contextual.core.plural import plural
from contextual.tui.format import tokens, unparsed
from contextual.tui.screen_safe import screen_text
from contextual.tui.shell_output import JOINS, ShellShown, ran_line
from contextual.tui.widgets.chat_pane import restyle_alone
from contextual.tui.widgets.chat_view import ChatView
from contextual.tui.widgets.hanging_text import HangingStatic
from contextual.tui.widgets.prompt_input import PromptInput
from contextual.tui.widgets.resumed_turns import Turn, resumed_turns
from contextual.tui.widgets.todo_list import TodoList
from contextual.tui.widgets.tool_trail import AdjustedTitle, ToolTrail, with_row_title
from contextual.tui.widgets.user_message import user_line

if TYPE_CHECKING:           # Markdown (markdown-it, pygments) is imported with the first answer, not at launch
    from contextual.core.events import TurnAdjustments
    from contextual.core.session.schema import CompactionRecord, FittedRecord, PermissionRecord, TurnEnd
    from contextual.core.tools.base import Todo
    from textual.widgets import Markdown
    from textual.widgets.markdown import MarkdownStream

# The chat holds its newest turns only, resumed or live; /export writes them all. Textual lays out and maps every
# widget of a container at each change, so a chat holding every turn made each turn slower than the one before
# (2.5 s at the 60th with an instant model, keys at 0.2-1.8 s): past MAX_SHOWN_TURNS the oldest turn leaves as a
# new one comes. A resumed session's newest few are mounted before the first frame, the others once the counts are
# shown (mount_earlier).
MAX_SHOWN_TURNS = 30
FIRST_TURNS = 8


def _hidden_line(turns: int) -> Text:
    return Text(f"… {plural(turns, 'earlier turn')}: /export writes the whole transcript")


def _markdown(text: str, classes: str) -> "Markdown":
    from contextual.tui.widgets.answer_markdown import AnswerMarkdown     # fenced diffs in colour
    return AnswerMarkdown(text, classes=classes)


def _shell_block(shown: ShellShown) -> "Markdown":
    """A `!command`'s output as a fenced block, and how it ended when not well."""
    fence = "~~~~" if "```" in shown.output else "```"
    status = f"\n\n{shown.status}" if shown.status else ""
    return _markdown(f"{fence}text\n{shown.output or '(no output)'}\n{fence}{status}", "agent shell")


def _fitted_text(said: Sequence[TurnAdjustments]) -> tuple[str, Text]:
    """The "context adjusted" row of a turn, live and resumed: its title the newest summary's gist ("steps 1–25
    folded to fit the 4,096-token window", one line at 80 columns), its body that summary and every adjustment."""
    last = said[-1]
    title = unparsed(last.title())
    details = [f"{a.action}: {a.detail} · {tokens(a.tokens_before)} → {tokens(a.tokens_after)} tokens"
               for e in said for a in e.adjustments]
    return title, Text("\n".join([last.summary, *details]))


def _fitted_row(said: Sequence[TurnAdjustments]) -> tuple[Collapsible, Static]:
    """The row and its body (updated in place when the turn is fitted again)."""
    title, text = _fitted_text(said)
    body = Static(text)
    row = Collapsible(body, title=title, collapsed=True, classes="adjusted")
    with_row_title(row, AdjustedTitle)       # ↑ ↓ from a tool-call row reach it, enter opens it
    return row, body


def _notice(line: str, level: str = "info") -> Static:
    return HangingStatic(line, classes=f"notice -{level}")      # a bullet's wrapped lines stay under its text


class ChatLog(VerticalScroll):
    DEFAULT_CSS = """
    ChatLog > .user { margin: 1 0 0 0; padding: 0 1; background: $boost; }
    ChatLog > .agent { margin: 0 0 0 0; padding: 0 1; }
    ChatLog > .notice { padding: 0 1; color: $text-muted; }
    ChatLog > .notice.-warning { color: $warning; }
    ChatLog > .notice.-error { color: $error; }
    ChatLog > .adjusted { padding: 0; margin: 0 0 0 1; border-top: none; background: transparent; color: $warning; }
    ChatLog > .adjusted:ansi { border-top: none; background: transparent; }   /* outranks Collapsible's :ansi rule */
    /* spans the row, as a tool trail's title does (tool_trail.py): sized to its text, a new title could keep the
       width of the one before */
    ChatLog > .adjusted CollapsibleTitle { width: 100%; text-wrap: nowrap; text-overflow: ellipsis; }
    ChatLog Markdown { margin: 0; padding: 0; }
    """
    # The chat is a focus stop of its own: tab from the input, after its newest "▶ N tool calls" row (or at once
    # with none). The arrows scroll it there (in the input they recall past inputs), and the footer names its keys:
    # without a mouse it had scrolled by pageup/pagedown from the input only, said nowhere but /help.
    # (home and end are in /help and the README: named here too, the keys at 80 columns ran under the palette's)
    BINDINGS = [Binding("up", "line(-1)", "scroll", key_display="↑↓ pgup pgdn"),
                Binding("down", "line(1)", show=False), Binding("pageup", "page(-1)", show=False),
                Binding("pagedown", "page(1)", show=False), Binding("home", "edge(0)", "oldest", show=False),
                Binding("end", "edge(1)", "newest", show=False), Binding("tab", "leave", "next", show=False)]

    class Replied(TextualMessage):
        """A reply to what the user asked was added: the chat should be in sight (tui/panes.py: Panes.show_chat)."""

    def update_node_styles(self, animate: bool = True) -> None:
        restyle_alone(self, animate)       # its focus restyled every block of 30 turns (chat_pane.py)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._answer: Markdown | None = None
        self._stream: MarkdownStream | None = None
        self._streamed = ""
        self.trail: ToolTrail | None = None              # this turn's tool calls
        self.todos: TodoList | None = None                # this turn's task list (TodoWrite), redrawn in place
        self.adjusted: Collapsible | None = None          # this turn's one "context adjusted" line
        self._adjusted_body: Static | None = None
        self._adjustments: list[TurnAdjustments] = []     # what it sums up
        self._permission = ""                             # an answer the next call's trail row carries
        self._earlier: list[Turn] = []                  # restored turns not mounted yet (mount_earlier)
        self._first_recent: Widget | None = None          # the first widget of the restored turns mounted
        self._recent: list[Turn] = []                    # the restored turns mounted
        self._hidden = 0                                  # turns of this session the chat no longer holds
        self._hidden_notice: Static | None = None         # the line above the oldest turn held, saying so
        self._view = ChatView(self)                       # where its view stands: the anchor, the reader's place

    # ----- its keys, when it has the focus (at once, not animated: the next key reads where it is)
    def action_line(self, by: int) -> None:
        self.scroll_lines(by)

    def action_page(self, by: int) -> None:
        self.scroll_lines(by * self.scrollable_content_region.height)

    def scroll_lines(self, by: int) -> None:
        """Now, not after the next refresh: Textual's deferred scroll read the same position for every key of a held
        pageup until the screen was drawn (40 presses moved the chat three pages)."""
        self.scroll_to(y=self.scroll_y + by, animate=False, immediate=True)
        if self.is_vertical_scroll_end:
            # at the end still (pagedown or ↓ there): following again now, not after the refresh, when an answer
            # streaming meanwhile had grown the chat and the view no longer read as at its end
            self.anchor()

    def action_edge(self, end: int) -> None:
        (self.scroll_end if end else self.scroll_home)(animate=False)

    def action_leave(self) -> None:
        """tab: on to what follows the chat (the side's panes, else the input), not into its rows again."""
        chain = self.screen.focus_chain
        after = [w for w in chain[chain.index(self) + 1:] if self not in w.ancestors] if self in chain else []
        if after:
            # at once (focus() waits for the app's queue): a key sent with the tab is the next pane's
            self.screen.set_focus(after[0])

    # ----- where the view stands (chat_view.py), from the calls Textual makes by name
    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """A row given the focus is in view where the view comes to rest: judged after the refresh, behind every
        scroll asked for before this focus (ChatView.show_focused)."""
        self.call_after_refresh(self._view.show_focused, event.widget)

    def on_mount(self) -> None:
        self.anchor()           # at the end, kept there by Textual's anchor, until the reader scrolls up

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        """Each layout of the chat keeps where its view stands (ChatView.laid_out)."""
        arranged = super().arrange(size, optimal)
        if not optimal:
            self._view.laid_out(size, arranged)
        return arranged

    @property
    def scroll_offset(self) -> Offset:
        # The anchor puts the end at the bottom in the layout that moved it (a scroll asked for after the layout
        # came a frame late: a rebuilt chat showed its top, then its middle, then its end), but while the chat is
        # shorter than its pane that offset is negative (textual#6652): its few lines stood at the pane's bottom.
        offset = super().scroll_offset
        return offset if offset.y >= 0 else Offset(offset.x, 0)

    def release_anchor(self) -> None:
        """Every scroll asked for releases the anchor first, and only a move back to the end takes it again: a
        pagedown or ↓ at the end, or a row's scroll_visible that did not move, left the view there but no longer
        following what comes. Once the scroll is done, a view still at the end holds the end again."""
        super().release_anchor()
        self.call_after_refresh(self._view.anchor_at_end)

    def follow_end(self) -> None:
        """What you send, and what answers it, is what you read next: at once, and again once a scroll asked for
        before it (a key's, done after the next refresh) is done. A command's answer too: scrolled up, `/cost`
        or `!ls` said it below the view and looked like a key that did nothing."""
        self.anchor()
        self.call_after_refresh(self.anchor)

    async def add_user(self, text: str) -> None:
        self.trail, self.adjusted, self._adjustments, self.todos = None, None, [], None
        self._permission = ""
        await self.query_children(".welcome").remove()      # the empty session's welcome has done its job
        self._focus_to_input()
        self.follow_end()
        await self.mount(user_line(text))
        await self._drop_oldest_turns()

    async def _drop_oldest_turns(self) -> None:
        """Past MAX_SHOWN_TURNS, the oldest turns leave the chat (from their message, or the `!command`s it carried,
        to the next turn's), counted in the line above the oldest held."""
        starts = [child for child in self.children if child.has_class("user")]
        if len(starts) <= MAX_SHOWN_TURNS:
            return
        oldest = _turn_start(self.children, self.children.index(starts[-MAX_SHOWN_TURNS]))
        leaving = [child for child in self.children[:oldest] if child is not self._hidden_notice]
        # restored turns not mounted yet were older still
        self._hidden += len(starts) - MAX_SHOWN_TURNS + len(self._earlier)
        self._earlier = []
        first_held = self.children[oldest]
        await self.remove_children(leaving)
        await self._say_hidden(first_held)

    def _focus_to_input(self) -> None:
        """A message sent (a queued one, as a turn ends) while a row of the chat had the focus (tab, ↑): the focus
        goes to the input, as when the chat is hidden with the focus in it. The view moves to the new message, and
        the row stayed behind off screen (↑ then jumped the view back up, enter toggled a row out of sight), or left
        with its turn (Textual gave the focus to the chat, whose keys scroll). The input is in sight, and tab
        reaches the newest row. The chat itself keeps the focus: its keys scroll from where the view is."""
        focused = self.screen.focused
        if focused is None or focused is self or self not in focused.ancestors:
            return
        inputs = [prompt for prompt in self.screen.query(PromptInput) if prompt.focusable]
        self.screen.set_focus(inputs[0] if inputs else self, scroll_visible=False)

    async def _say_hidden(self, oldest: Widget) -> None:
        if self._hidden_notice is not None and self._hidden_notice.is_attached:
            self._hidden_notice.update(_hidden_line(self._hidden))
            return
        self._hidden_notice = Static(_hidden_line(self._hidden), classes="notice -info")
        await self.mount(self._hidden_notice, before=oldest)

    async def add_answer(self, markdown: str) -> None:
        await self.mount(_markdown(markdown, "agent"))

    async def add_notice(self, message: str, level: str = "info", *, replied: bool = False) -> None:
        """``replied``: the answer to what the user just asked (a command's reply): the app brings the chat into
        sight (Replied), as another tab may show below 100 columns and the reply went unseen there."""
        # Not only events' text: start-up lines and the trust answer name a checkout's servers and files as written
        await self.mount(_notice(screen_text(message), level))
        if replied:
            self.post_message(self.Replied())

    async def add_compaction(self, message: str, level: str = "info", *, replied: bool = False) -> None:
        """A compaction's line where it happened: inside a turn (an automatic one before a model call) the calls
        after it start a trail of their own below it. Added to the trail above it, they put the line after the
        whole turn's calls."""
        await self.add_notice(message, level, replied=replied)
        self.trail = None

    async def add_shell_output(self, shown: ShellShown) -> None:
        """A `!command`'s output (the engine puts it in the user's next message)."""
        await self.mount(_shell_block(shown))

    # ----- the turn's trail and adjustments
    def permission_answered(self, mark: str) -> None:
        """A plain answer (format.permission_mark), shown on the row of the call it was asked for, which starts
        next."""
        self._permission = mark

    async def tool_started(self, tool: str, args: object) -> None:
        permission, self._permission = self._permission, ""
        if self.trail is None:                # titled before it is mounted: its first frame names the call
            self.trail = ToolTrail()
            self.trail.started(tool, args, permission)
            await self.mount(self.trail)
            return
        self.trail.started(tool, args, permission)

    def tool_finished(self, tool: str, status: str, stored: str = "") -> None:
        if self.trail is not None:
            self.trail.finished(tool, status, stored)

    async def calls_stopped(self, asked: tuple[str, object] | None) -> None:
        """The turn was stopped: the call a permission question was about (it never started) and the calls still
        running end as the record keeps them, aborted."""
        from contextual.core.context.pairing import ABORTED_CONTENT
        if asked is not None:
            await self.tool_started(*asked)
        if self.trail is not None:
            self.trail.stopped(ABORTED_CONTENT)

    async def show_todos(self, todos: list[Todo]) -> None:
        """The task list a TodoWrite sent: the turn's list is redrawn where it first appeared."""
        if self.todos is None or not self.todos.is_attached:
            self.todos = TodoList(classes="todos")
            self.todos.show(todos)
            await self.mount(self.todos)
            return
        self.todos.show(todos)

    async def context_adjusted(self, fitting: TurnAdjustments) -> None:
        """One collapsible line per turn (``_fitted_text``); a second summary in the turn updates it."""
        self._adjustments.append(fitting)
        if self.adjusted is None or self._adjusted_body is None:
            self.adjusted, self._adjusted_body = _fitted_row(self._adjustments)
            await self.mount(self.adjusted)
        else:
            title, text = _fitted_text(self._adjustments)
            self.adjusted.title = title
            self._adjusted_body.update(text)

    # ----- the answer
    async def stream_answer(self, fragment: str) -> None:
        """Append to the answer being streamed; MarkdownStream batches fragments between paints."""
        if not fragment:
            return
        if self._answer is None:
            self._answer = _markdown("", "agent streaming")
            await self.mount(self._answer)
            self._stream = type(self._answer).get_stream(self._answer)
        self._streamed += fragment
        assert self._stream is not None
        await self._stream.write(fragment)

    async def finish_answer(self, answer: str | None) -> None:
        """Close the stream; the engine's final answer wins over what was streamed."""
        stream, widget, streamed = self._stream, self._answer, self._streamed
        self._stream, self._answer, self._streamed = None, None, ""
        if stream is not None:
            await stream.stop()
        if widget is not None:
            widget.remove_class("streaming")
            if answer is not None and answer.strip() != streamed.strip():
                await widget.update(answer)
        elif answer:
            await self.add_answer(answer)

    @property
    def streaming_text(self) -> str:
        return self._streamed

    # ----- a resumed session
    async def show_transcript(self, messages: list[Message], compactions: Sequence[CompactionRecord] = (),
                              keep_recent: bool = False, permissions: Sequence[PermissionRecord] = (),
                              ends: Mapping[str, TurnEnd] | None = None, fittings: Sequence[FittedRecord] = ()
                              ) -> None:
        """Rebuild from the session's full record (archived rounds included, summaries not): what was said,
        each turn's tool trail, final answers, where each compaction happened and each permission asked was
        answered, how a turn was fitted to the window (``fittings``), why a turn ended without an answer (``ends``,
        by turn id). Undo notes are the app's words, not
        the user's. Turns are read as plain data first; widgets are made only for the recent ones a long session
        shows."""
        turns = resumed_turns(messages, compactions, permissions, ends or {}, fittings)
        hidden = len(turns) - MAX_SHOWN_TURNS
        notice = Static(_hidden_line(hidden), classes="notice -info") if hidden > 0 else None
        earlier, recent = turns[max(hidden, 0):-FIRST_TURNS], turns[-FIRST_TURNS:]
        if keep_recent and recent and recent == self._recent and self._first_recent is not None \
                and self._first_recent.is_attached:
            # The recent turns shown already (a resumed session's first frame, read from the end of its record):
            # they stay; what is above them comes now.
            self._earlier = earlier
            self._hidden, self._hidden_notice = max(hidden, 0), notice
            if notice is not None:      # the anchor holds the end, unless the reader has scrolled up meanwhile
                await self.mount(notice, before=self._first_recent)
            return
        self.trail = self.adjusted = None
        self._adjusted_body, self._adjustments = None, []
        widgets: list[Widget] = [notice] if notice is not None else []
        self._earlier, self._recent = earlier, recent
        self._hidden, self._hidden_notice = max(hidden, 0), notice
        shown = _turn_widgets(recent)
        widgets.extend(shown)
        # no frame of the chat emptied, or of its turns mounting (their answers blank): the next is the rebuilt
        # chat, at its end (the anchor, kept as its turns lay out)
        with self.app.batch_update():
            await self.remove_children()
            self.anchor()
            if widgets:
                await self.mount_all(widgets)
        # the earlier turns go above it: above a `!command`'s output too, not between it and its message
        self._first_recent = shown[0] if shown else None

    async def mount_earlier(self) -> None:
        """The restored turns held back from the first frame, above the recent ones (the anchor keeps the view at
        the end when it was there)."""
        earlier, self._earlier = self._earlier, []
        if not earlier or self._first_recent is None or not self._first_recent.is_attached:
            return
        await self.mount_all(_turn_widgets(earlier), before=self._first_recent)


def _turn_start(children: Sequence[Widget], at: int) -> int:
    """Where the turn whose message is ``children[at]`` starts: at the `!command`s run before it, whose output it
    carried, each shown as its line, its output and the line saying it joins (live and resumed alike, _turn_widgets),
    so that they leave with it, not with the turn before."""
    while at >= 3 and children[at - 2].has_class("shell") and children[at - 1].has_class("notice") \
            and children[at - 3].has_class("notice"):
        at -= 3
    return at


def _turn_widgets(turns: list[Turn]) -> list[Widget]:
    widgets: list[Widget] = []
    for turn in turns:
        for ran in turn.shell:      # the `!command`s run before it, whose results it carried
            widgets.extend([_notice(ran_line(ran.command)), _shell_block(ran), _notice(JOINS)])
        widgets.append(user_line(turn.text))
        starts = [shown.start for shown in turn.shown if shown.kind == "trail"]
        for shown in turn.shown:      # in the order the live chat showed them
            if shown.kind == "trail":     # its calls: up to the next trail's (a compaction's line between them)
                trail = ToolTrail()
                trail.show(turn.calls[shown.start:next((s for s in starts if s > shown.start), len(turn.calls))])
                widgets.append(trail)
            elif shown.kind == "todos":      # the turn's last task list, as the live chat left it
                todos = TodoList(classes="todos")
                todos.show(turn.todos)
                widgets.append(todos)
            elif shown.kind == "fitted":     # its "context adjusted" row, as live
                widgets.append(_fitted_row(turn.fittings)[0])
            elif shown.kind == "answer":     # an answer a Stop hook did not let end the turn
                widgets.append(_markdown(shown.line, "agent"))
            else:
                widgets.append(_notice(shown.line, shown.level))
        widgets.extend(_markdown(answer, "agent") for answer in turn.answers)
        if turn.end is not None:      # why it ended without an answer, where and as the live chat said it
            widgets.append(_notice(screen_text(turn.end.describe()), turn.end.level))
        elif not turn.answers:        # a record from before turns' ends were kept: only that it has no answer
            widgets.append(_notice(NO_ANSWER, "warning"))
        # its compactions and undos came after its answer, in the order the live chat showed them
        widgets.extend(_notice(line, level) for line, level in turn.after)
    return widgets
