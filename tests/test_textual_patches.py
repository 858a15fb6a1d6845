"""The app's patches of Textual's classes and modules (tui/textual_patches.py): each still replaces something this
Textual has, taking what it takes, so an upgrade that renames or reshapes one fails here (textual has no upper
bound) instead of leaving a guard out; and they are put in place by the app, never by an import."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
from pathlib import Path

from textual._xterm_parser import XTermParser

from contextual.tui.input_guard import GuardedParser
from contextual.tui.textual_patches import PATCHES

REPO = Path(__file__).resolve().parents[1]


def params(thing: object) -> str:
    """A callable's parameters as written, without annotations or defaults (`self, console`, `self, *_`)."""
    marks = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    return ", ".join(marks.get(p.kind, "") + p.name for p in inspect.signature(thing).parameters.values())


def test_each_patch_replaces_what_this_textual_has_with_the_parameters_it_was_written_against():
    names = {f"{getattr(p.owner, '__name__', p.owner)}.{p.name}" for p in PATCHES}
    assert {"Strip.render", "Screen.get_line_filters"} <= names
    if sys.platform != "win32":
        assert {"textual.drivers.linux_driver.getincrementaldecoder", "textual.drivers.linux_driver.XTermParser",
                "LinuxDriver._sigtstp_application", "LinuxDriver._sigcont_application"} <= names
    for patch in PATCHES:
        where = f"{getattr(patch.owner, '__name__', patch.owner)}.{patch.name}"
        assert patch.original is not None, f"{where} is gone from this Textual: its patch is left out"
        assert params(patch.original) == patch.params, f"{where} now takes other parameters"
        positional = [p for p in inspect.signature(patch.original).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        inspect.signature(patch.replacement).bind(*positional)      # what Textual passes, the replacement takes
        if inspect.ismodule(patch.owner):       # a module's name counts only where the module still calls it
            assert re.search(rf"\b{patch.name}\(", inspect.getsource(patch.owner)), f"{where} is no longer called"


def test_the_parsers_overrides_are_still_textuals_methods_taking_the_same():
    """GuardedParser replaces the driver's parser by subclassing it: a method Textual renamed would silently never
    be called (the paste guard's feed, the quiet timer's tick)."""
    overrides = [name for name, value in vars(GuardedParser).items() if callable(value) and name != "__init__"]
    assert {"feed", "tick"} <= set(overrides)
    for name in overrides:
        assert params(getattr(XTermParser, name)) == params(getattr(GuardedParser, name)), name


def test_what_our_subclasses_of_textual_widgets_override_is_still_textuals():
    """KeysFooter and the chat's widgets replace Textual's methods by name and read one of the footer's attributes: a
    rename would leave the footer made at every focus change again, the chat restyled whole, or not following what
    comes after a pagedown at its end."""
    from textual.dom import DOMNode
    from textual.widgets import Footer

    from contextual.tui.widgets.chat_log import ChatLog
    from contextual.tui.widgets.chat_pane import ChatPane
    from contextual.tui.widgets.keys_footer import KeysFooter
    assert params(Footer.bindings_changed) == params(KeysFooter.bindings_changed) == "self, screen"
    assert "_bindings_ready" in inspect.getsource(Footer)
    for widget in (ChatLog, ChatPane):
        assert params(DOMNode.update_node_styles) == params(widget.update_node_styles) == "self, animate"
    # the chat holds its end by Textual's anchor: every scroll releases it, and its offset is clamped at the top
    from textual.widget import Widget
    assert params(Widget.release_anchor) == params(ChatLog.release_anchor) == "self"
    assert "self.release_anchor()" in inspect.getsource(Widget.scroll_to)
    assert isinstance(vars(Widget)["scroll_offset"], property) and isinstance(vars(ChatLog)["scroll_offset"], property)
    # and lays it out by arrange(), which sets the view's height the anchor reads next (Textual sets it after the
    # layout), and holds what a reader scrolled up reads
    from textual._compositor import Compositor
    assert params(Widget.arrange) == params(ChatLog.arrange) == "self, size, optimal"
    laying_out = inspect.getsource(Compositor._arrange_root)
    assert laying_out.index("widget.arrange(child_region.size)") < laying_out.index("widget.container_size.height")
    assert "self._container_size = container_size" in inspect.getsource(Widget._size_updated)
    assert "self._anchor_released = True" in inspect.getsource(Widget.release_anchor)


INSTALLED_BY_THE_APP = """
import sys
from pathlib import Path
from contextual.tui import textual_patches
from contextual.tui.app import ContextualApp
from tests.tui_helpers import make_host

def placed():
    return [getattr(p.owner, p.name) is p.replacement for p in textual_patches.PATCHES]

assert not any(placed()), ("imported", placed())
ContextualApp(make_host(Path(sys.argv[1]), "http://127.0.0.1:9/v1"), open_after_first_frame=True)
assert all(placed()), ("the app made", placed())
before = [getattr(p.owner, p.name) for p in textual_patches.PATCHES]
textual_patches.install()
assert [getattr(p.owner, p.name) for p in textual_patches.PATCHES] == before, "installed twice"
print("patched by the app")
"""


def test_importing_the_app_patches_nothing_and_making_one_patches_all_once(tmp_path: Path):
    """A fresh interpreter: this test process has made apps already."""
    done = subprocess.run([sys.executable, "-c", INSTALLED_BY_THE_APP, str(tmp_path)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "patched by the app\n", done.stderr
