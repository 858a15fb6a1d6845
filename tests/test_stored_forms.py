"""Issue 24: a stored form is never larger than its full form, wherever a form is chosen (property tests)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from contextual.core.context import compressor, scratchpad
from contextual.core.context.builder import history_message, observation
from contextual.core.context.forms import not_larger
from contextual.core.context.scratchpad import ScratchStep
from contextual.core.messages import Message
from contextual.core.tokens import count

# Source-like lines heavy in what JSON escapes (quotes, backslashes, tabs), which make a JSON stored form
# more tokens than the plain text it stands for.
LINE = st.text(alphabet='abc "\\\t{}:,=()é€0123456789', max_size=80)


def read_result(lines: list[str]) -> dict:
    text = "\n".join(f"{i + 1:>6}\t{line}" for i, line in enumerate(lines))
    return {"status": "success", "data": {"content": text, "total_lines": len(lines)}, "text": text,
            "stats": {"ms": 1}}


@settings(max_examples=60, deadline=None)
@given(st.lists(LINE, min_size=1, max_size=120))
def test_history_never_sends_a_stored_form_larger_than_the_full(lines):
    result = read_result(lines)
    full = compressor.full_text(result)
    stored = compressor.stored_text("Read", {"file_path": "src/shop/pricing.py"}, result)
    sent = history_message(Message("tool", stored, full=full)).content
    assert count(sent) <= count(observation(full))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(LINE, min_size=1, max_size=60), min_size=2, max_size=5))
def test_the_turns_stored_observations_are_never_larger_than_the_full(outputs):
    steps = []
    for n, lines in enumerate(outputs):
        result = read_result(lines)
        steps.append(ScratchStep(f'Action: Read[{{"file_path": "f{n}.py"}}]', "Read f.py",
                                 compressor.full_text(result),
                                 compressor.stored_text("Read", {"file_path": f"f{n}.py"}, result), ""))
    sent = [m.content for m in scratchpad.stored_only(steps, count) if m.role == "user"]
    for step, text in zip(steps, sent):
        assert count(text) <= count(scratchpad.OBS + step.observation_full)


@given(st.text(max_size=200), st.text(max_size=200))
def test_not_larger_picks_the_smaller_and_keeps_the_stored_when_no_full(stored, full):
    chosen = not_larger(stored, full)
    assert chosen in (stored, full) and count(chosen) <= count(stored)
    assert not_larger(stored, None) == stored
