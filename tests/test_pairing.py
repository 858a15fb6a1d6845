"""Property tests of the call/result pairing invariants (core/context/pairing.py), the one implementation used by
the engine, the session loader and the interrupt path."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from contextual.core.context.pairing import ABORTED_CONTENT, CallRef, aborted_id, calls_in, normalize, unanswered
from contextual.core.messages import Message

CALL_IDS = st.sampled_from([f"c{i}" for i in range(6)])


@st.composite
def histories(draw) -> list[Message]:
    """Random mixes of user inputs, assistant calls (maybe answered), answers, orphan results, results without ids."""
    out: list[Message] = []
    for n in range(draw(st.integers(0, 25))):
        kind = draw(st.sampled_from(["user", "call", "result", "final", "no_id"]))
        if kind == "user":
            out.append(Message("user", f"q{n}", id=f"u{n}"))
        elif kind == "call":
            out.append(Message("assistant", f"Action {n}", id=f"a{n}",
                               meta={"call_id": draw(CALL_IDS), "tool_name": "Read", "args": {"n": n}, "step": n}))
        elif kind == "result":
            out.append(Message("tool", f"r{n}", id=f"t{n}", meta={"call_id": draw(CALL_IDS), "tool_name": "Read"}))
        elif kind == "final":
            out.append(Message("assistant", f"Finish[{n}]", id=f"f{n}", meta={"final": True}))
        else:
            out.append(Message("tool", f"r{n}", id=f"x{n}"))
    return out


@given(histories())
@settings(max_examples=80, deadline=None)
def test_every_call_is_answered_and_every_result_has_a_call(history):
    out = normalize(history)
    calls = {m.call_id for m in out if m.role == "assistant" and m.call_id}
    results = [m.call_id for m in out if m.role == "tool"]
    assert calls <= set(results)
    assert all(r in calls for r in results)


@given(histories())
@settings(max_examples=80, deadline=None)
def test_normalize_is_idempotent_and_deterministic(history):
    once = normalize(history)
    assert normalize(once) == once
    assert normalize(list(history)) == once          # same ids each time: loading twice gives the same history


@given(histories())
@settings(max_examples=80, deadline=None)
def test_only_orphans_go_and_only_aborted_results_come(history):
    out = normalize(history)
    calls = calls_in(history)
    kept = [m for m in history if m.role != "tool" or (m.call_id in calls)]
    assert [m for m in out if not m.meta.get("synthetic")] == kept
    for m in out:
        if m.meta.get("synthetic"):
            assert m.content == ABORTED_CONTENT and m.id == aborted_id(m.call_id) and m.meta["interrupted"]


@given(histories())
@settings(max_examples=80, deadline=None)
def test_an_aborted_result_follows_its_call(history):
    out = normalize(history)
    for i, m in enumerate(out):
        if m.meta.get("synthetic"):
            maker = calls_in(history)[m.call_id].parent_id
            assert out[i - 1].id == maker or out[i - 1].meta.get("synthetic")
            assert maker in [x.id for x in out[:i]]


def test_calls_known_only_from_the_record_pair_with_their_parent():
    """The loader passes tool_use entries as calls: the parent message gets the aborted result."""
    history = [Message("user", "q", id="u"), Message("assistant", "Thought: x", id="a")]
    out = normalize(history, {"k": CallRef("k", "Bash", {"command": "ls"}, "a", 3)})
    assert [m.id for m in out] == ["u", "a", "aborted-k"] and out[2].meta["step"] == 3
    assert unanswered(out, {"k": CallRef("k", "Bash", {}, "a")}) == []
