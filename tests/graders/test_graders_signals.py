"""The deterministic signals, on examples small enough to work out by hand."""

from __future__ import annotations

import pytest

from graders.signals import lexical_support, term_overlap
from selfrag.text import content_terms


# -- content_terms -------------------------------------------------------------------------------
def test_content_terms_drop_stop_words_and_keep_numbers() -> None:
    # the, were, in: stop words; revenues → revenue (its lemma); 6.7 and 2023 kept as written
    assert content_terms("The Walmart revenues were $611 billion in 2023, up 6.7%.") == {
        "walmart", "revenue", "611", "billion", "2023", "up", "6.7",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("1,234,567", {"1234567"}),  # thousands separators go
        ("companies", {"company"}),  # ies → y
        ("glasses", {"glass"}),  # es
        ("toys", {"toy"}),  # s, leaving 3 letters
        ("bus", {"bus"}),  # too short to strip
        ("running", {"run"}),  # the lemma (simplemma), as the self-query normalises words
        ("played", {"play"}),  # ed
        ("Movies", {"movie"}),  # lowercased first, then its lemma
        ("x 7 a", {"7"}),  # single letters go, single digits stay
        ("the of and which documents according", set()),  # all stop words
        ("", set()),
    ],
)
def test_content_terms_tokenisation(text: str, terms: set[str]) -> None:
    assert content_terms(text) == terms


# -- lexical_support -----------------------------------------------------------------------------
def test_lexical_support_weighs_numbers_double_and_scales_by_unsupported_numbers() -> None:
    # answer terms: walmart, revenue, 611, billion, 700, stor   (weights 1, 1, 2, 1, 2, 1 = 8)
    # supported by the document: walmart, revenue, 611, billion   (1 + 1 + 2 + 1 = 5)
    # numbers: 611 supported, 700 invented → × 1/2
    score = lexical_support("Walmart revenue was 611 billion and 700 stores", ["Walmart revenue reached 611 billion."])
    assert score == pytest.approx(5 / 8 * 1 / 2) == 0.3125


def test_lexical_support_without_numbers_is_the_plain_share() -> None:
    # walmart, sell, grocery: the document has walmart and sell
    assert lexical_support("Walmart sells groceries", ["Walmart sells toys"]) == pytest.approx(2 / 3)


def test_lexical_support_pools_every_document() -> None:
    docs = ["Walmart revenue reached 611 billion.", "Walmart runs 700 stores."]
    assert lexical_support("Walmart revenue was 611 billion and 700 stores", docs) == 1.0


def test_every_unsupported_number_scales_the_score_down() -> None:
    # terms 2023, 611, 612 (all weight 2); the document has 2023 and 611 → 4/6, × 2/3 numbers
    assert lexical_support("2023: 611 or 612", ["In 2023 it was 611."]) == pytest.approx(4 / 6 * 2 / 3)
    # no number supported: zero, however many words match
    assert lexical_support("Walmart revenue billion 999", ["Walmart revenue billion"]) == 0.0


def test_number_formats_match_across_thousands_separators() -> None:
    assert lexical_support("316,000 employees", ["It had 316000 employees."]) == 1.0


def test_an_answer_without_content_terms_is_fully_supported() -> None:
    assert lexical_support("It is what it is.", ["anything"]) == 1.0
    assert lexical_support("", []) == 1.0


def test_no_documents_support_nothing() -> None:
    assert lexical_support("Walmart sells groceries", []) == 0.0


# -- term_overlap --------------------------------------------------------------------------------
def test_term_overlap_is_the_share_of_the_first_texts_terms() -> None:
    # question terms: movie, greta, gerwig, direct; the metadata line holds greta and gerwig
    assert term_overlap("Which movies did Greta Gerwig direct?", "Little Women\n(director: Greta Gerwig)") == 0.5
    # not symmetric: all of "Greta Gerwig" is in the question
    assert term_overlap("Greta Gerwig", "Which movies did Greta Gerwig direct?") == 1.0


def test_term_overlap_of_nothing_is_zero() -> None:
    assert term_overlap("what is it?", "anything at all") == 0.0
    assert term_overlap("toys", "") == 0.0
