"""The top bar: the project, the model, the session, its compactions and whether a turn runs — on one line, cut
with a visible ellipsis (Textual's Static does not apply Rich's overflow)."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.widgets import Static

from contextual.core.plural import plural
from contextual.tui.format import short_id
from contextual.tui.screen_safe import screen_text


def bar_text(root: Path, model: str | None, session_id: str | None, compactions: int, running: bool,
             width: int) -> Text:
    model = screen_text(model) if model else model     # a checkout's config.toml names it, or a server's listing
    home = Path.home()
    shown_root = "~/" + str(root.relative_to(home)) if root.is_relative_to(home) and root != home else str(root)
    session = short_id(session_id) if session_id else "new"

    def bar_with(where: str) -> Text:
        return Text.assemble((" Contextual", "bold"), " · ", where, " · ", (model or "no model", "bold #d7af5f"),
                             f" · session {session}",
                             f" · {plural(compactions, 'compaction')}",
                             (" · running" if running else "", "bold #5fafaf"))
    bar = bar_with(screen_text(shown_root))
    if bar.cell_len > width:        # narrow: the folder's name stands for its path, the rest stays whole
        bar = bar_with("…/" + screen_text(root.name))
    bar.truncate(width, overflow="ellipsis")
    return bar


class TopBar(Static):
    DEFAULT_CSS = "TopBar { height: 1; }"
    _bar: Text | None = None

    def show(self, root: Path, model: str | None, session_id: str | None, compactions: int, running: bool,
             width: int) -> None:
        # asked again at each event of a turn: painted only when it changed, and one row whatever it says (no
        # layout of the whole screen for it)
        bar = bar_text(root, model, session_id, compactions, running, width)
        if bar != self._bar:
            self._bar = bar
            self.update(bar, layout=False)
