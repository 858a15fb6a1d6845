"""/permissions: every permission rule, deny first, with the file it comes from and whether it is in force; `a` adds
a rule to the project's local file, `d` removes one of its rules (or this session's) after a yes. The listing and
the changes are core/permission_list.py's; this screen shows them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from contextual.core.permission_list import SOURCE_NAMES, ListedRule, RuleListing
from contextual.core.permission_rules import RuleError
from contextual.tui.css import stylesheet
from contextual.tui.format import mode_line, one_line, project_path
from contextual.tui.screen_safe import screen_text
from contextual.tui.screens.confirm import ConfirmModal
from contextual.tui.widgets.text_box import TextBox
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import DataTable, Footer, Static

if TYPE_CHECKING:
    from contextual.core.permission_list import RuleBook

KIND_STYLE = {"deny": "bold red", "allow": "bold green"}
FIXED_COLUMNS = 46          # kind, source, state, the cells' padding and the box's frame: the rule takes the rest


def lines_needed(widget: Widget, width: int, viewport: Size) -> int:
    """The lines a widget takes at this width, its margin included. Measured from its content, not read from the
    last layout: a line shown since (what a key did) had no size yet, and below a box fitted without it, none
    came; the box stayed short and cut it ("added allow Bash(git status:*) to" and no file)."""
    styles = widget.styles
    if styles.height is not None and styles.height.is_cells:
        height = int(styles.height.value)                          # the entry: fixed
    else:
        gutter = styles.gutter
        height = widget.get_content_height(Size(width, viewport.height), viewport, width - gutter.width) \
            + gutter.height
    if styles.max_height is not None and styles.max_height.is_cells:
        height = min(height, int(styles.max_height.value))
    return height + styles.margin.height


class PermissionsScreen(ModalScreen[None]):
    CSS_PATH = stylesheet(__name__)
    # priority for a: what is typed with it is the new rule's (tui/widgets/text_box.py)
    BINDINGS = [Binding("escape,q", "close", "close"), Binding("a", "add", "add a rule", priority=True),
                Binding("d,delete", "remove", "remove")]

    def __init__(self, book: RuleBook) -> None:
        super().__init__()
        self.book = book
        self.listing: RuleListing | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="rules-box"):
            yield Static(id="rules-mode")
            yield DataTable(id="rules", cursor_type="row", zebra_stripes=True)
            yield Static(id="rules-detail")
            yield Static(id="rules-said")
            yield TextBox("Bash(npm test:*) · deny Read(.env) · enter adds, esc cancels", "rules-new", self.entered,
                          self.action_close)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#rules-new").display = self.query_one("#rules-said").display = False
        table = self.query_one(DataTable)
        for name in ("kind", "rule", "from", "state"):
            table.add_column(name, key=name)
        self.show_rules()
        self.set_focus(table)              # at once: an `a` read as the screen opened focuses its entry after this

    def show_rules(self, keep: ListedRule | None = None, at: int = 0) -> None:
        """Read the rules again (the engine's too) and list them; the cursor goes to `keep`'s row when it is
        there, else to row `at` (where a removed rule was)."""
        self.listing = listing = self.book.listing()
        # which files this screen changes and which it only shows: `a` and `d` under a "read-only" line had read
        # as if they could not change anything
        changes = f" · {mode_line(listing.mode)} changes it · deny wins over allow, in every mode\n"
        mode = Text.assemble(("mode ", "dim"), (listing.mode, "bold"), (changes, "dim"), ("a", "bold"), (" adds to and ", "dim"), ("d", "bold"), (" removes from ", "dim"),
                             screen_text(self.shown_path(listing.local)),
                             ("\nread-only here (edit them yourself): ", "dim"),
                             screen_text(" · ".join(self.shown_path(p) for p in listing.read_only)))
        self.query_one("#rules-mode", Static).update(mode)
        self.query_one("#rules-new", TextBox).border_title = f"adds to {self.shown_path(listing.local)}"
        table = self.query_one(DataTable)
        table.clear()
        width = max(12, self.app.size.width - FIXED_COLUMNS)
        for index, rule in enumerate(listing.rules):
            table.add_row(Text(rule.kind, style=KIND_STYLE[rule.kind]), Text(one_line(rule.text, width)),
                          SOURCE_NAMES[rule.source],
                          Text("in force") if rule.in_force else Text("inert", style="bold yellow"), key=str(index))
        row = listing.rules.index(keep) if keep is not None and keep in listing.rules else at
        table.move_cursor(row=max(0, min(row, len(listing.rules) - 1)))
        table.display = bool(listing.rules)
        # `d` only where there is a rule to remove: the footer hides it then (check_action)
        self.query_one("#rules-box").border_title = "Permissions"         # its keys: the footer
        self.show_detail()
        self.refresh_bindings()
        self.refit()

    def shown_path(self, path: Path) -> str:
        return project_path(path, self.book.settings.config.project_root)

    def on_resize(self) -> None:
        self.refit()

    def refit(self) -> None:
        self.call_after_refresh(self._fit_box)

    def _fit_box(self) -> None:
        """The box as tall as its rows and lines need (at 200x50 it stood mostly empty), at most its max-height:
        the table takes what the rest leaves, and scrolls. Where even the table's least leaves too little, the
        detail gives up its last lines; else the box cut its own last line, the entry's bottom border at 80x24
        (a long detail, an error under it)."""
        if not self.is_mounted or self not in self.app.screen_stack:
            return                                  # closed before the frame came (its widgets going, or gone)
        box, table = self.query_one("#rules-box"), self.query_one(DataTable)
        detail = self.query_one("#rules-detail", Static)
        detail.styles.max_height = None             # the stylesheet's bound again, before it is measured
        width = box.content_size.width
        rest = sum(lines_needed(w, width, self.app.size) for w in box.children if w is not table and w.display)
        least = table.styles.min_height
        fewest = int(least.value) if least is not None and table.display else 0
        rows = max(table.row_count + 1, fewest) if table.display else 0
        frame = box.styles.border.spacing.height + box.styles.padding.height
        box.styles.height = rest + rows + frame
        over = rest + fewest + frame - self._tallest(box)
        if over > 0:
            shown = lines_needed(detail, width, self.app.size) - detail.styles.margin.height
            detail.styles.max_height = max(1, shown - over)

    def _tallest(self, box: Widget) -> int:
        """The most lines the box may take: its max-height of what the footer leaves of the screen."""
        footer = self.query_one(Footer)
        room = Size(self.size.width, self.size.height - (footer.outer_size.height if footer.display else 0))
        bound = box.styles.max_height
        return room.height if bound is None else int(bound.resolve(room, self.app.size))

    def highlighted(self) -> ListedRule | None:
        table = self.query_one(DataTable)
        rules = self.listing.rules if self.listing is not None else ()
        return rules[table.cursor_row] if rules and 0 <= table.cursor_row < len(rules) else None

    def show_detail(self) -> None:
        rule, listing = self.highlighted(), self.listing
        detail = Text()
        if rule is None:
            detail.append("No permission rules. a adds one to the project's local file (.contextual/config.local."
                          "toml), as \"allow always\" does.", style="dim")
        else:
            where = str(rule.path) if rule.path is not None else "this session only (in memory)"
            detail.append(f"{rule.kind} {screen_text(rule.text)}", style=KIND_STYLE[rule.kind])
            detail.append(f"\nfrom {where} · ")
            detail.append("in force" if rule.in_force else f"inert: {rule.why_inert}",
                          style="" if rule.in_force else "yellow")
            detail.append(" · d removes it" if rule.removable else " · read-only here: edit that file",
                          style="dim")
        for note in listing.notes if listing is not None else ():
            detail.append(f"\n{screen_text(note)}", style="yellow")
        self.query_one("#rules-detail", Static).update(detail)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.show_detail()
        self.refit()                                # another rule's detail: another height

    def say(self, text: str, error: bool = False) -> None:
        said = self.query_one("#rules-said", Static)
        said.update(Text(screen_text(text), style="red" if error else "green"))
        said.display = True
        self.refit()

    def action_remove(self) -> None:
        rule = self.highlighted()
        if rule is None:
            return
        if not rule.removable:
            self.say(f"{rule.text} is read-only here: edit {rule.path}", error=True)
            return
        where = str(rule.path) if rule.path is not None else "this session's grants"
        question = Text.assemble("Remove ", (f"{rule.kind} {rule.text}", KIND_STYLE[rule.kind]), f" from {where}?",
                                 ("\nIt stops applying from the next tool call.", "dim"))

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            try:
                self.say(self.book.remove(rule))
            except ValueError as exc:
                self.say(str(exc), error=True)
            self.show_rules(at=self.query_one(DataTable).cursor_row)

        self.app.push_screen(ConfirmModal("Remove a permission rule", question, yes="Remove"), answered)

    def action_add(self) -> None:
        self.query_one("#rules-new", TextBox).open()
        self.refit()

    def entered(self, rule: str) -> None:
        try:
            added = self.book.add(rule)
        except (RuleError, ValueError) as exc:
            self.say(str(exc), error=True)            # not written; the text stays to correct
            return
        entry = self.query_one("#rules-new", TextBox)
        entry.value = ""
        entry.close(self.query_one(DataTable))
        self.say(f"added {added.kind} {added.text} to {added.path}"
                 + ("" if added.in_force else f" · inert: {added.why_inert}"))
        self.show_rules(keep=added)

    def action_close(self) -> None:
        entry = self.query_one("#rules-new", TextBox)
        if entry.display:
            entry.close(self.query_one(DataTable))
            self.refit()
            return
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("add", "remove") and self.is_mounted and self.query_one("#rules-new").display:
            return None          # typing a rule: a and d are letters
        if action == "remove" and self.is_mounted and self.highlighted() is None:
            return False         # no rule to remove: the footer offered d, and d did nothing
        return True
