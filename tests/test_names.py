"""What the context engine calls a name (core/context/names.py): its own definition, by shape, used by digests,
stored forms and the facts extractor alike, and not the replay scorer's pattern (issue 28)."""

from __future__ import annotations

from pathlib import Path

from contextual.core.context.names import name_set, names_in
from contextual.core.replay.metrics import IDENTIFIER

REPO = Path(__file__).resolve().parents[1]


def test_paths_dotted_names_and_identifiers_are_whole_units():
    text = "see src/shop/pricing.py:12: def total_price(cart) uses os.path.join and Cart.total"
    assert list(names_in(text)) == ["see", "src/shop/pricing.py", "def", "total_price", "cart", "uses", "os.path.join",
                                    "Cart.total"]


def test_path_shapes_keep_their_start_and_lose_trailing_punctuation():
    assert name_set("run ./run.sh, read /etc/hosts. then ~/.config/app/ and ../up/x.txt") == {
        "run", "./run.sh", "read", "/etc/hosts", "~/.config/app", "../up/x.txt"}


def test_flags_and_hyphenated_names_are_one_name():
    assert name_set("pip install pytest-xdist --keep-rounds -n") == {"pip", "install", "pytest-xdist",
                                                                    "keep-rounds"}


def test_numbers_short_words_single_letter_abbreviations_and_function_words_are_not_names():
    assert name_set("0o600 3.14 1/2 x id e.g. i.e. the value should be 42 because it was") == {"value"}


def test_a_dotfile_keeps_its_dot_and_an_ellipsis_is_punctuation():
    assert name_set("edit .gitignore ...then config") == {"edit", ".gitignore", "config"}


def test_non_ascii_letters_make_names():
    assert name_set("Größe naïve_count") == {"Größe", "naïve_count"}


def test_no_product_module_uses_the_replay_scorers_name_pattern():
    # The scorer (core/replay/metrics.py) measures the engine; were the engine to find names with the same
    # pattern, its line recall would grade its own homework.
    offenders = [str(path.relative_to(REPO)) for folder in ("core", "tui", "contextual")
                 for path in (REPO / folder).rglob("*.py")
                 if "replay" not in path.parts and IDENTIFIER.pattern in path.read_text()]
    assert offenders == []
