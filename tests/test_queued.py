"""The queue of messages typed while a turn runs (tui/queued.py); the flows are in tests/test_tui_flows.py."""

from __future__ import annotations

from contextual.tui.queued import Queued


def test_the_label_fits_the_inputs_border_at_80_and_200_columns():
    queue = Queued()
    assert queue.label() == ""
    queue.add("please also add a test for the discount rule and run the whole suite afterwards " * 3)
    queue.add("second")
    for width in (80, 200):
        label = queue.label(width)
        assert len(label) <= width - 4 and label.startswith("queued: please also") and "+1" in label
        assert label.endswith("↑ edits") and "…" in label


def test_a_wide_script_is_fitted_by_columns_not_characters():
    """A CJK or emoji message takes two columns a character: fitted by len() it overflowed the border at 80."""
    from rich.cells import cell_len
    queue = Queued()
    queue.add("日本語のテキストをもっと長くしてこれはとても長いメッセージです🙂" * 4)
    queue.add("second")
    for width in (80, 200):
        label = queue.label(width)
        assert cell_len(label) <= width - 4 and label.startswith("queued: 日本語") and "…" in label, label


def test_messages_leave_in_order_or_all_together():
    queue = Queued()
    for text in ("a", "b", "c"):
        queue.add(text)
    assert queue.take_newest() == "c" and queue.texts == ["a", "b"]
    queue.add("c")
    assert queue.take_all() == "a\n\nb\n\nc" and queue.texts == [] and queue.take_newest() is None


def test_a_custom_command_leaves_alone_and_in_its_place():
    """Messages before a queued custom command go together; the command alone; those after it at the next end."""
    review = (object(), "a.py")
    queue = Queued()
    queue.add("a")
    queue.add("b")
    queue.add("/review a.py", review)
    queue.add("c")
    assert queue.take_next() == ("a\n\nb", None)
    assert queue.take_next() == ("/review a.py", review)
    assert queue.take_next() == ("c", None) and queue.texts == [] == queue.runs
    assert Queued(texts=["x", "y"]).take_next() == ("x\n\ny", None)
