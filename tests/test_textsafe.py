"""core/textsafe: text that can be stored/sent (valid Unicode) and printed (no control sequences)."""

from __future__ import annotations

import json
import os

from hypothesis import given, strategies as st

from contextual.core.textsafe import REPLACEMENT, one_line, strip_control, valid_json_value, valid_unicode


def test_valid_text_is_returned_unchanged():
    text = "héllo ✓ 😀\n\ttab"
    assert valid_unicode(text) is text


def test_undecodable_byte_from_a_file_name_becomes_a_visible_hex_escape():
    name = os.fsdecode(b"caf\xe9-\xff.txt")          # what os.listdir gives for a latin-1 name
    assert valid_unicode(name) == "caf\\xe9-\\xff.txt"


def test_lone_surrogate_from_a_model_reply_becomes_the_replacement_character():
    reply = json.loads('"answer \\ud83d done"')
    assert valid_unicode(reply) == f"answer {REPLACEMENT} done"


def test_a_surrogate_pair_kept_as_two_code_points_is_joined():
    assert valid_unicode("a\ud83d\ude00b") == "a😀b"


@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=50))
def test_any_string_becomes_encodable(text):
    valid_unicode(text).encode("utf-8")


def test_nested_json_values_are_cleaned_keys_included():
    bad = "\udc80"
    value = {"k" + bad: ["x" + bad, {"n": 1, "t": (bad,)}], "ok": True}
    cleaned = valid_json_value(value)
    json.dumps(cleaned, ensure_ascii=False).encode("utf-8")
    assert cleaned == {"k\\x80": ["x\\x80", {"n": 1, "t": ["\\x80"]}], "ok": True}


def test_strip_control_removes_csi_colour_and_cursor_sequences():
    assert strip_control("\x1b[31mred\x1b[0m \x1b[2J\x1b[1;1Hdone") == "red done"


def test_strip_control_removes_osc_title_and_hyperlinks_with_either_terminator():
    text = "\x1b]0;pwned\x07a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b"
    assert strip_control(text) == "alinkb"


def test_strip_control_removes_8bit_c1_forms_and_dcs_strings():
    assert strip_control("x\x9b31my\x9d2;t\x9cz\x1bPq#0\x1b\\w") == "xyzw"


def test_strip_control_keeps_newline_and_tab_and_drops_other_controls():
    assert strip_control("a\tb\nc\rd\x00e\x07f\x7fg\x08h") == "a\tb\ncdefgh"


def test_strip_control_removes_two_character_escapes_and_a_trailing_bare_escape():
    assert strip_control("\x1bcreset\x1b(Bok\x1b") == "resetok"


@given(st.text(max_size=80))
def test_stripped_text_has_no_controls_but_newline_and_tab(text):
    out = strip_control(text)
    assert all(ch in "\n\t" or not (ord(ch) < 32 or 0x7f <= ord(ch) <= 0x9f) for ch in out)


def test_bidirectional_controls_are_shown_not_obeyed():
    """Trojan Source: an override makes a bidi-aware terminal show `rm -rf ~ # safe` in another order than it runs."""
    from contextual.core.textsafe import strip_control
    assert strip_control("echo ok \u202e# ~ fr- mr\u202c") == "echo ok <U+202E># ~ fr- mr<U+202C>"
    assert strip_control("a\u2066b\u2069") == "a<U+2066>b<U+2069>"
    assert strip_control("שלום world ✓") == "שלום world ✓"          # right-to-left text itself stays


@given(st.text(alphabet=st.sampled_from("ab \n\t\u00a0\u2028\x1c"), max_size=40), st.integers(1, 20))
def test_one_line_is_the_text_s_words_joined_by_one_space_and_cut(text: str, limit: int):
    flat = " ".join(text.split())
    assert one_line(text, limit) == (flat if len(flat) <= limit else flat[:limit - 1] + "…")


def test_one_line_of_megabytes_of_short_words_takes_only_what_shows():
    """An MCP server's 50 MB description of two-letter words, split whole for a row of 600 characters, made 16
    million strings (1.3 GB)."""
    import tracemalloc
    essay = "ab " * 3_000_000
    tracemalloc.start()
    try:
        row = one_line(essay, 600)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert row == ("ab " * 200)[:599] + "…"
    assert peak < 1_000_000, peak
