"""Claim-level support: figures, years and names stated together, each figure about what it measures."""

from __future__ import annotations

import pytest

from graders.claims import check_claims, claim_score, figures, split_claims

REPORT = {
    "text": (
        "Walmart Inc. closed fiscal year 2023 with total revenues of $611 billion, an increase of 6.7% over "
        "the prior year. Consolidated net income was $11.7 billion.\n\n"
        "- Sam's Club generated net sales of $84 billion, and membership income rose 8%."
    ),
    "metadata": {"company": "Walmart", "fiscal_year": 2023},
}
REVENUE = "What was Walmart's revenue in fiscal year 2023?"


def test_figures_are_read_with_scale_kind_and_the_words_around_them() -> None:
    found = {f.text: f for f in figures("Net income was $11.7 billion, up 8%, in fiscal 2023 (May 30, 1943).")}
    assert found["$11.7 billion"].value == pytest.approx(11.7e9) and found["$11.7 billion"].kind == "amount"
    assert {"net", "income"} <= found["$11.7 billion"].context
    assert found["8%"].kind == "percent" and found["2023"].kind == "year" and found["30"].kind == "day"


def test_a_rounded_figure_matches_its_precise_source_but_not_the_reverse() -> None:
    (rounded,), (precise,) = figures("$611 billion"), figures("$611.3 billion")
    assert rounded.same(precise) and not precise.same(rounded)  # 611.3 claims a precision nobody stated
    (thousands,) = figures("611,000 million")
    assert rounded.same(thousands)


@pytest.mark.parametrize(
    ("answer", "supported"),
    [
        ("Walmart's total revenues were $611 billion in fiscal 2023.", True),
        ("$611 billion [1]", True),  # a bare figure is checked against the question's measure
        ("Walmart reported $11.7 billion in revenue.", False),  # net income given as revenue
        ("$11.7 billion [1]", False),
        ("Revenue was $84 billion.", False),  # Sam's Club sales given as Walmart's revenue
        ("Walmart's revenue was $611.3 billion.", False),  # invented precision
        ("Walmart's revenue was $700 billion.", False),  # invented figure
    ],
)
def test_a_figure_must_be_stated_about_what_the_claim_says_it_measures(answer: str, supported: bool) -> None:
    claims = check_claims(answer, [REPORT], REVENUE)
    assert [c.supported for c in claims] == [supported], claims
    assert (claim_score(claims) > 0) is supported


def test_an_unsupported_claim_says_why_and_where_it_looked() -> None:
    (claim,) = check_claims("Walmart reported $11.7 billion in revenue.", [REPORT], REVENUE)
    assert claim.reason == "$11.7 billion is not what the documents state for revenue"
    (found,) = check_claims("Walmart's total revenues were $611 billion.", [REPORT], REVENUE)
    assert found.document == 1 and "$611 billion" in found.passage


def test_a_question_about_another_year_is_not_answered_from_a_dated_document() -> None:
    (claim,) = check_claims("$611 billion [1]", [REPORT], "What was Walmart's revenue in fiscal year 2024?")
    assert not claim.supported and "2024" in claim.reason
    undated = {"text": REPORT["text"], "metadata": {"row": 2024}}  # a number, not a date: no year to hold to
    assert check_claims("$611 billion [1]", [undated], "What was Walmart's revenue in fiscal year 2024?")[0].supported


def test_names_must_appear_in_the_supporting_passage() -> None:
    (claim,) = check_claims("Costco's revenues were $611 billion.", [REPORT], REVENUE)
    assert not claim.supported
    (walmart,) = check_claims("Walmart's revenues were $611 billion.", [REPORT], REVENUE)
    assert walmart.supported


def test_claims_are_sentences_without_markers_and_yes_no_is_not_checked() -> None:
    assert split_claims("Revenue was $611 billion [1]. Net income was $11.7 billion [2].") == [
        "Revenue was $611 billion.", "Net income was $11.7 billion.",
    ]  # fmt: skip
    assert [c.score for c in check_claims("yes", [REPORT])] == [1.0]  # nothing a passage could contradict
    assert check_claims("", [REPORT]) == [] and claim_score([]) == 1.0


def test_coverage_is_the_share_of_the_claims_terms_in_one_passage() -> None:
    (claim,) = check_claims("Walmart revenues grew on strong holiday trading.", [REPORT])
    assert claim.score == pytest.approx(2 / 6)  # walmart, revenue of {walmart, revenue, grow, strong, holiday, trade}
    assert not claim.supported


def test_years_bounding_a_range_are_not_years_asked_about() -> None:
    film = {"text": "Toys come alive and have a blast doing so.", "metadata": {"genre": "animated", "year": 1995}}
    quote = "Toys come alive and have a blast doing so. (genre: animated; year: 1995)"
    ranged = check_claims(quote, [film], "What's a movie after 1990 but before 2005 about toys?")
    assert all(c.supported for c in ranged), ranged
    pointed = check_claims(quote, [film], "Which movie from 2006 is about toys?")
    assert not all(c.supported for c in pointed)
