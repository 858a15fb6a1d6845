"""The anchors other agents use, each against its documented parameters."""

from contextual.core.context import anchors
from contextual.core.context.anchors import (ANTHROPIC_DOCS_30K, ANTHROPIC_PLACEHOLDER, OPENCODE_PLACEHOLDER, ClearToolUses,
                                  anthropic_clear, codex_truncate, opencode_prune)


def words(text: str) -> int:
    return len(text.split())


def test_anthropic_clears_all_but_the_newest_keep_once_over_the_trigger_and_stays_cleared():
    obs = ["x " * 10_000] * 4                       # 10k "tokens" each
    sent = anthropic_clear(obs, [0] * 4, words, ANTHROPIC_DOCS_30K)
    # after 3 results the prompt is 30k (not over); the 4th takes it to 40k: all but the newest 3 go
    assert sent == [ANTHROPIC_PLACEHOLDER] + obs[1:]
    more = anthropic_clear(obs + ["y " * 100], [0] * 5, words, ANTHROPIC_DOCS_30K)
    # over 30k again at the 5th call: the 2nd goes too (10k freed >= 5k); the first stays cleared
    assert more == [ANTHROPIC_PLACEHOLDER] * 2 + obs[2:] + ["y " * 100]


def test_anthropic_clear_at_least_skips_a_clearing_that_frees_too_little():
    small = ["x " * 100] * 300                    # 30k in small results
    never = anthropic_clear(small, [0] * 300, words, ClearToolUses(trigger=20_000, keep=295, clear_at_least=5_000))
    assert ANTHROPIC_PLACEHOLDER not in never     # at most 5 results (500 tokens) could go: below 5k
    default = anthropic_clear(small, [0] * 300, words)
    assert default == small                       # the default trigger (100k) is never reached


def test_opencode_never_prunes_the_two_newest_turns_and_needs_20k_to_prune():
    big = ["x " * 30_000] * 3
    assert opencode_prune(big, [0, 0, 0], words) == big                      # one turn: protected
    sent = opencode_prune(big, [3, 2, 0], words)
    assert sent == [OPENCODE_PLACEHOLDER, big[1], big[2]]                    # 30k protected, then 30k > 20k pruned
    light = ["x " * 15_000, "x " * 30_000]
    assert opencode_prune(light, [2, 2], words) == light                     # 15k marked, not > 20k: kept


def test_codex_keeps_head_and_tail_of_each_output():
    lines = [f"line {i}" for i in range(1, 1001)]
    out = codex_truncate("\n".join(lines))
    kept = out.splitlines()
    assert kept[:128] == lines[:128] and kept[-128:] == lines[-128:]
    assert kept[128] == "[... omitted 744 of 1000 lines ...]"
    wide = "y" * 30_000
    assert len(codex_truncate(wide).encode()) < anchors.MODEL_FORMAT_MAX_BYTES + 100
    assert "omitted 19760 bytes" in codex_truncate(wide)
    assert codex_truncate("short\ntext") == "short\ntext"
