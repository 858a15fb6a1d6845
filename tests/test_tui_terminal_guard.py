"""No control character from outside text reaches the terminal, from any screen (tui/terminal_guard.py), even where
a screen forgets to clean what it shows: Rich passed ESC, DEL and C1 to the terminal, so an MCP server's name from
a cloned checkout could set the window title (OSC 2) or hide the text after it (SGR 8)."""

from __future__ import annotations

import importlib
import pkgutil
import re

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.screen import ModalScreen, Screen
from textual.strip import Strip
from textual.widgets import Static

import contextual.tui
from contextual.tui import terminal_guard
from contextual.tui.app import ContextualApp
from contextual.tui.terminal_guard import CONTROL, without_controls
from contextual.tui.textual_patches import PATCHES
from tests.tui_helpers import finish, make_host, server, wait_for

# One of each kind: OSC title (BEL and ST ends), SGR conceal, 8-bit CSI, C1 NEL, DEL, C0 (NUL, VT, SO), a bare ESC.
KINDS = ["A\x1b]0;PWNED\x07B", "C\x1b]2;PWNED2\x1b\\D", "E\x1b[8mHIDDEN\x1b[0mF", "G\x9b31mH", "I\x85J", "K\x7fL",
         "M\x00N\x0bO\x0eP", "Q\x1bR"]
HOSTILE = " ".join(KINDS)
SHOWN = "A]0;PWNEDB C]2;PWNED2\\D E[8mHIDDEN[0mF G31mH IJ KL MNOP QR"      # the controls gone, nothing else
LINKED = Text("click", style=Style(link="https://x/\x07\x1b\\\x1b]2;LINKPWN\x1b\\"))
# What Textual writes itself: SGR, cursor moves, OSC 8 links, a newline between the lines of a full frame
TEXTUALS_OWN = re.compile(r"\x1b\[[0-9;]*[mH]|\x1b\]8;[^\x07\x1b]*\x1b\\|\n")
CONSOLE = Console(color_system="truecolor", force_terminal=True, width=120)


class ForgetfulDialog(ModalScreen[None]):
    """A dialog added tomorrow that shows outside text without cleaning it."""

    def compose(self):
        yield Static(HOSTILE, markup=False)
        yield Static(LINKED)


class ForgetfulScreen(Screen[None]):
    """A full screen that forgets too."""

    def compose(self):
        yield Static(Text(HOSTILE))


def controls_in(written: str) -> list[str]:
    return CONTROL.findall(TEXTUALS_OWN.sub("", written))


async def test_every_kind_of_control_is_gone_from_what_the_main_screen_a_dialog_and_a_screen_write(tmp_path):
    with server([finish("ok")]) as srv:
        app = ContextualApp(make_host(tmp_path, srv.base_url), animate=False)
        written: list[str] = []
        display = app._display                  # Textual's one door to the driver: full and partial updates

        def spy(screen, update) -> None:
            if update is not None:
                written.append(update.render_segments(CONSOLE))
            display(screen, update)

        app._display = spy
        async with app.run_test(size=(120, 30)) as pilot:
            plain = Static("waiting", markup=False)
            await app.screen.mount(plain, Static(Text(HOSTILE)))
            await pilot.pause()
            plain.update(HOSTILE)                   # a partial update of a screen already on
            await wait_for(pilot, lambda: any("PWNED2" in w for w in written))
            for dialog in (ForgetfulDialog(), ForgetfulScreen()):
                written_before = len(written)
                app.push_screen(dialog)
                await wait_for(pilot, lambda: app.screen is dialog and "PWNED2" in "".join(written[written_before:]))
                for widget in dialog.query(Static):   # each line as rendered: the controls gone, nothing else
                    lines = [strip.render(CONSOLE) for strip in widget.render_lines(widget.region.reset_offset)]
                    assert [line for line in lines if controls_in(line)] == []
                dialog.dismiss()
                await wait_for(pilot, lambda: app.screen is not dialog)
            frames = "".join(written)
            assert controls_in(frames) == [], controls_in(frames)[:5]
            assert frames.count(SHOWN) >= 4, "each hostile line shows, only its controls gone (no column moves)"
            assert "\x1b]8;" in frames and "https://x/\\]2;LINKPWN\\" in frames      # the link kept, cleaned
            await app.host.close(app.engine)


def test_a_clean_line_is_left_alone_and_a_control_segment_is_dropped():
    clean = Strip([Segment("plain ✓ שלום", Style(bold=True)), Segment(" \u202e kept", None)])
    assert without_controls(clean) is clean        # bidi controls are the per-screen cleaning's (made visible)
    moved = Strip([Segment("a"), Segment("\x1b[2J", None, [(1,)]), Segment("\x1b"), Segment("b\x9d0;t\x9c")])
    assert list(without_controls(moved)) == [Segment("a"), Segment("b0;t")]
    assert without_controls(moved).cell_length == moved.cell_length == 5


def _classes_under(root: type) -> list[type]:
    found, todo = [], [root]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.append(sub)
                todo.append(sub)
    return found


def test_every_screen_writes_through_the_guard_by_construction():
    """No screen installs the guard, so none can forget it: a screen's frames reach the driver only through
    App._display, which only Screen._refresh_layout calls, with the compositor's updates, whose text is
    Strip.render's. Every screen class there is (the app's, dialogs included, and Textual's) keeps that path."""
    for module in pkgutil.walk_packages(contextual.tui.__path__, "contextual.tui."):
        importlib.import_module(module.name)
    import textual.widgets
    for name in textual.widgets.__all__:           # Textual's widgets load lazily: load them all
        getattr(textual.widgets, name)
    importlib.import_module("textual.command")
    assert any(p.owner is Strip and p.name == "render" and p.replacement is terminal_guard.render
               for p in PATCHES)                # put in place by every app (tests/test_textual_patches.py)
    assert ContextualApp._display is App._display
    screens = _classes_under(Screen)
    assert {"TrustModal", "ConfirmModal", "PermissionModal", "MCPScreen", "ModelPicker", "ContextScreen",
            "CommandPalette"} <= {cls.__name__ for cls in screens}
    assert [cls for cls in screens if cls._refresh_layout is not Screen._refresh_layout] == []
